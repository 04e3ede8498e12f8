"""Tie rules: train one corpus under each trainer's tie rule (minbpe's, rustbpe's,
CS336's) and see where they part, how much they differ, the tokens only one of them
learned, and every tied merge with its candidates. Thin: the training and the
comparison are viz.ties'; the training runs in the worker."""
import streamlit as st

from lab.pages_guard import run_inside_frame

run_inside_frame()

from bpe.patterns import PATTERNS, label
from lab.train import job_view
from lab.train.corpora import load_sample, sample_corpora
from lab.memory import remember
from lab.jobs.requests import TEACHING_VOCAB_MAX, TEACHING_VOCAB_MIN, TieRulesRequest
from lab.safe import md
from viz import ties as vties

SLOT = "ties_rules"
SPLITS = [*PATTERNS, ""]  # every preset, then "" for none
NO_SPLIT = "None (Basic: the whole text)"

remember({"ties_corpus": None, "ties_vocab_size": 512, "ties_pattern": "gpt4",
          "ties_rule_a": "first", "ties_rule_b": "smallest_ids", "ties_rule_shown": "first"})

st.title("Tie rules")
st.caption("When two pairs occur equally often, each trainer picks its own: minbpe the pair "
           "it met first, rustbpe the smallest (id0, id1), Stanford CS336 the greatest pair of "
           "bytes. Every rule is exact BPE, yet the vocabularies part. Train once, see how.")

corpora = sample_corpora()
if st.session_state.get("ties_corpus") not in corpora:
    st.session_state["ties_corpus"] = next(iter(corpora))
with st.container():
    # one row that wraps: at 800 px the pattern's label and the corpus's name stay whole
    row = st.container(horizontal=True, gap="medium", vertical_alignment="bottom")
    row.container(width=320).selectbox("Corpus", list(corpora), key="ties_corpus")
    row.container(width=180).number_input(
        "Vocabulary size", min_value=TEACHING_VOCAB_MIN, max_value=TEACHING_VOCAB_MAX,
        step=64, key="ties_vocab_size")
    row.container(width=280).selectbox("Split pattern", SPLITS, key="ties_pattern",
                                       format_func=lambda p: label(p) if p else NO_SPLIT)
    go = st.button("Train under each rule", type="primary",
                               icon=":material/model_training:")

if go:
    corpus, pattern = st.session_state["ties_corpus"], st.session_state["ties_pattern"]
    vocab_size = int(st.session_state["ties_vocab_size"])
    summary = (f"{corpus}, vocabulary size {vocab_size:,}, "
               f"{label(pattern) if pattern else NO_SPLIT} split: three trainings, one per rule")
    job_view.start(SLOT, "Tie rules", summary, TieRulesRequest,
                   dict(vocab_size=vocab_size, pattern=pattern), text=load_sample(corpus)[0])

run = job_view.finished(SLOT, "Pick a corpus and a vocabulary size, then train: three "
                              "trainings, one per rule, in the background.")
if run is None:
    st.stop()
results = run.outcome.value
st.caption(md(run.settings.summary) + f" · {run.outcome.elapsed:.1f} s")

cols = st.columns(len(results))
for col, (rule, result) in zip(cols, results.items()):
    tied, merges = vties.tie_share(result)
    col.metric(f"Ties, {vties.RULE_LABELS[rule]}", f"{tied:,}/{merges:,}",
               help="merges that won a tie (another pair had the same count at that step), "
                    "of all merges")

st.subheader("Where the rules part")
st.dataframe(vties.rules_table(results), hide_index=True, width="stretch")

labels = {rule: vties.RULE_LABELS[rule] for rule in results}
a_col, b_col = st.columns(2)
rule_a = a_col.selectbox("Rule A", list(results), key="ties_rule_a", format_func=labels.get)
rule_b = b_col.selectbox("Rule B", list(results), key="ties_rule_b", format_func=labels.get)
part = vties.parting(results, rule_a, rule_b) if rule_a != rule_b else None
if rule_a == rule_b:
    st.info("Pick two different rules.")
elif part is None:
    st.success("These two rules make the same merges on this corpus.")
else:
    st.markdown(f"They part at **merge {part['merge']}**, where {len(part['candidates'])} "
                f"pairs occurred {part['count']:,} times each. Rule A took "
                f"**{md(part[rule_a])}**, rule B **{md(part[rule_b])}**; every merge after "
                "builds on a different vocabulary.")
    st.caption("Candidates: " + md(" · ".join(part["candidates"][:vties.CANDIDATES_SHOWN]))
               + (f" · and {len(part['candidates']) - vties.CANDIDATES_SHOWN} more"
                  if len(part["candidates"]) > vties.CANDIDATES_SHOWN else ""))
    only_a, only_b = vties.token_lists(results, rule_a, rule_b)
    l_col, r_col = st.columns(2)
    l_col.dataframe({f"only with {rule_a} ({len(only_a)})": only_a}, hide_index=True,
                    width="stretch")
    r_col.dataframe({f"only with {rule_b} ({len(only_b)})": only_b}, hide_index=True,
                    width="stretch")

st.subheader("Tied merges")
shown = st.selectbox("Under the rule", list(results), key="ties_rule_shown",
                     format_func=labels.get)
rows = vties.tied_merges_rows(results[shown])
st.caption("Each merge that won a tie, the pairs it tied with (its candidates), and how often "
           "they occurred. The winner is the rule's pick among them.")
st.dataframe(rows, hide_index=True, width="stretch", height=400)
