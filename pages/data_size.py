"""How much data, which vocabulary size: train on 1/5/25/100% of a corpus and see how much
of the full vocabulary each share already finds; sweep vocabulary sizes x split patterns
and compare bytes/token on held-out text. Thin: lab.jobs.workers trains and measures (asked by
lab.jobs.requests' SufficiencyRequest and SweepRequest), viz.sweep draws."""
import streamlit as st

from lab.pages_guard import run_inside_frame

run_inside_frame()

from bpe.patterns import PATTERNS, label
from lab.train import job_view
from lab.train.corpora import load_sample, sample_corpora
from lab.lessons import lesson_link
from lab.memory import remember
from lab.jobs.requests import (TEACHING_VOCAB_MAX, TEACHING_VOCAB_MIN, SufficiencyRequest,
                          SweepRequest)
from lab.safe import md
from viz import sweep

SUFFICIENCY, SWEEP = "data_size_sufficiency", "data_size_sweep"  # the two slots
CORPUS_LIMIT = 4_000_000
SIZES = [300, 512, 1024, 2048, 4096, 8192, 16384]

remember({"data_size_corpus": None, "data_size_vocab": 1024,
          "data_size_sizes": [512, 1024, 2048, 4096], "data_size_patterns": list(PATTERNS),
          "data_size_custom": ""})

st.title("How much data, which vocabulary size")
lesson_link("pages/data_size.py")
st.caption("A tokenizer trained on too little text learns a different vocabulary: tiktoken "
           "#299 found that 854 KB kept only 61.8% of the tokens a 41 MB corpus gives. Measure "
           "it on your corpus, then compare vocabulary sizes and split patterns by bytes per "
           "token on text held out from training.")

corpora = sample_corpora()
if st.session_state.get("data_size_corpus") not in corpora:
    st.session_state["data_size_corpus"] = list(corpora)[-1]
corpus_name = st.selectbox("Corpus (its last tenth is held out)", list(corpora),
                           key="data_size_corpus")

suff_tab, sweep_tab = st.tabs(["How much data", "Which vocabulary size and pattern"])
with suff_tab:
    with st.container():
        st.number_input("Vocabulary size", min_value=TEACHING_VOCAB_MIN,
                        max_value=TEACHING_VOCAB_MAX, step=256, key="data_size_vocab")
        go_suff = st.button("Train on 1%, 5%, 25% and 100%", type="primary")
with sweep_tab:
    with st.container():
        st.multiselect("Vocabulary sizes", SIZES, key="data_size_sizes")
        st.multiselect("Split patterns", list(PATTERNS), key="data_size_patterns",
                       format_func=label)
        st.text_input("A custom split pattern too (a regex; optional)", key="data_size_custom")
        go_sweep = st.button("Run the sweep", type="primary")


text = load_sample(corpus_name)[0][:CORPUS_LIMIT]
if go_suff:
    vocab_size = int(st.session_state["data_size_vocab"])
    job_view.start(SUFFICIENCY, "How much data",
                   f"{corpus_name}: vocabulary size {vocab_size:,} on 1%, 5%, 25%, 100%",
                   SufficiencyRequest, dict(vocab_size=vocab_size), text=text)
if go_sweep:
    patterns = [(label(name), name) for name in st.session_state["data_size_patterns"]]
    custom = st.session_state["data_size_custom"].strip()
    if custom:  # checked, and tried on the corpus, by the request
        patterns.append(("custom", custom))
    sizes = sorted(st.session_state["data_size_sizes"])
    job_view.start(SWEEP, "Vocabulary sweep",
                   f"{corpus_name}: sizes {', '.join(map(str, sizes))} × "
                   f"{', '.join(name for name, _ in patterns)}",
                   SweepRequest, dict(vocab_sizes=sizes, patterns=patterns), text=text)

with suff_tab:
    done = job_view.finished(SUFFICIENCY, "Train to see how much of the full vocabulary a "
                                          "slice of the corpus finds.")
    if done:
        st.caption(md(done.settings.summary))
        for col, chart in zip(st.columns(2), sweep.sufficiency_charts(done.outcome.value)):
            col.altair_chart(chart, width="stretch", height=sweep.element_height(chart))
        st.dataframe(done.outcome.value, hide_index=True, width="stretch")
with sweep_tab:
    done = job_view.finished(SWEEP, "Run the sweep to compare sizes and patterns.")
    if done:
        st.caption(md(done.settings.summary) + ". Smaller sizes are the first merges of "
                   "the largest training, exactly: one training per pattern.")
        chart = sweep.sweep_chart(done.outcome.value)
        st.altair_chart(chart, width="stretch", height=sweep.element_height(chart))
        for names in sweep.identical_series(done.outcome.value):
            st.caption(f"{md(' and '.join(names))} are within 0.01 bytes/token of each other "
                       "at every size: their lines lie one on top of the other (told apart "
                       "by their dashes; the table has the exact numbers).")
        st.dataframe(done.outcome.value, hide_index=True, width="stretch")
