"""How much data, which vocabulary size: train on 1/5/25/100% of a corpus and see how much
of the full vocabulary each share already finds; sweep vocabulary sizes x split patterns
and compare bytes/token on held-out text. Thin: viz.sweep trains and draws."""
import streamlit as st

from lab.frame import run_inside_frame

run_inside_frame()

from bpe import compile_pattern
from lab.memory import remember
from lab.safe import md
from viz import sweep
from viz.samples import sample_corpora
from viz.training import split_held_out

RESULT = "data_size_result"
CORPUS_LIMIT = 4_000_000
SIZES = [300, 512, 1024, 2048, 4096, 8192, 16384]

remember({"data_size_corpus": None, "data_size_vocab": 1024,
          "data_size_sizes": [512, 1024, 2048, 4096], "data_size_patterns": ["GPT-2", "GPT-4", "GPT-4o"],
          "data_size_custom": ""})

st.title("How much data, which vocabulary size")
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
    with st.form("data_size_suff_form", border=False):
        st.number_input("Vocabulary size", min_value=257, max_value=20_000, step=256,
                        key="data_size_vocab")
        go_suff = st.form_submit_button("Train on 1%, 5%, 25% and 100%", type="primary")
with sweep_tab:
    with st.form("data_size_sweep_form", border=False):
        st.multiselect("Vocabulary sizes", SIZES, key="data_size_sizes")
        st.multiselect("Split patterns", list(sweep.PATTERN_LABELS), key="data_size_patterns")
        st.text_input("A custom split pattern too (a regex; optional)", key="data_size_custom")
        go_sweep = st.form_submit_button("Run the sweep", type="primary")


def run(kind, work):
    """Run work(text, held_out, progress) with a progress bar; keep its rows."""
    bar = st.progress(0.0, text="Reading the corpus…")

    def progress(stage, done, total):
        bar.progress(min(1.0, done / max(total, 1)), text=f"{stage}: {done:,} of {total:,}")

    text, held_out = split_held_out(corpora[corpus_name]()[:CORPUS_LIMIT])
    if not held_out:
        bar.empty()
        st.error("This corpus is too small to hold text out; pick a bigger one.")
        return
    try:
        rows = work(text, held_out, progress)
    except ValueError as e:  # e.g. a custom pattern that skips characters
        st.error(md(e))
        return
    finally:
        bar.empty()
    st.session_state.setdefault(RESULT, {})[kind] = {"corpus": corpus_name, "rows": rows}


if go_suff:
    vocab_size = int(st.session_state["data_size_vocab"])
    run("sufficiency", lambda text, held, progress: sweep.data_sufficiency(
        text, held, vocab_size, progress=progress))
if go_sweep:
    patterns = {label: sweep.PATTERN_LABELS[label]
                for label in st.session_state["data_size_patterns"]}
    custom = st.session_state["data_size_custom"].strip()
    sizes = st.session_state["data_size_sizes"]
    try:
        if custom:
            patterns["custom"] = compile_pattern(custom)[0]
        if not patterns or not sizes:
            raise ValueError("pick at least one vocabulary size and one split pattern")
    except ValueError as e:
        st.error(md(e))
    else:
        run("sweep", lambda text, held, progress: sweep.sweep(text, held, sizes, patterns,
                                                              progress))

results = st.session_state.get(RESULT, {})
with suff_tab:
    done = results.get("sufficiency")
    if done:
        st.caption(f"On {md(done['corpus'])}.")
        st.altair_chart(sweep.sufficiency_chart(done["rows"]), width="stretch")
        st.dataframe(done["rows"], hide_index=True, width="stretch")
    else:
        st.info("Train to see how much of the full vocabulary a slice of the corpus finds.")
with sweep_tab:
    done = results.get("sweep")
    if done:
        st.caption(f"On {md(done['corpus'])}. Smaller sizes are the first merges of the "
                   "largest training, exactly: one training per pattern.")
        st.altair_chart(sweep.sweep_chart(done["rows"]), width="stretch")
        st.dataframe(done["rows"], hide_index=True, width="stretch")
    else:
        st.info("Run the sweep to compare sizes and patterns.")
