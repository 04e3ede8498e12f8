"""Vocabulary health: for any tokenizer, the tokens that are broken (not UTF-8 alone),
wasted (never produced by any text, or unused on a corpus), redundant (case and space
variants) or suspicious (the longest, merges made from a handful of pairs). Thin: the
findings come from bpe.health, the tables and the tokens' display text from viz.health. No training here: the check
takes seconds (GPT-4o's 200k tokens: about 3 s), with a progress bar."""
import time

import streamlit as st

from lab.pages_guard import run_inside_frame

run_inside_frame()

from bpe.health import health_report
from lab.train.corpora import load_sample, sample_corpora
from lab.lessons import lesson_link
from lab.memory import remember
from lab.safe import md
from lab.widgets import tokenizer_picker
from viz import health as vh

RESULT = "health_result"
CORPUS_LIMIT = 2_000_000  # characters of the corpus encoded for the unused-token check
NO_CORPUS = "None (skip the unused-token and leftover-token checks)"

remember({"health_corpus": NO_CORPUS, "health_low": 2})

st.title("Vocabulary health")
lesson_link("pages/health.py")
st.caption("What in a vocabulary is broken, wasted or redundant: tokens no text can ever "
           "produce (the 'glitch token' test), tokens a corpus never uses, leftover tokens "
           "a corpus makes mostly inside bigger ones (LiteToken's residue), near-duplicates, "
           "the longest tokens, and merges learned from too few examples.")

name, tok = tokenizer_picker("health_tokenizer")
corpora = sample_corpora()
c1, c2 = st.columns([2, 1])
corpus_name = c1.selectbox("Corpus for the unused-token and leftover-token checks",
                           [NO_CORPUS, *corpora], key="health_corpus",
                           help=f"Its first {CORPUS_LIMIT:,} characters are encoded.")
low = c2.number_input("Flag merges whose pair occurred fewer than", min_value=1,
                      max_value=1_000_000_000, step=1, key="health_low",
                      help="Only tokenizers trained in this lab keep merge counts.")

if st.button("Check the vocabulary", type="primary", icon=":material/health_and_safety:",
             key="health_run"):
    text = load_sample(corpus_name)[0][:CORPUS_LIMIT] if corpus_name in corpora else None
    bar = st.progress(0.0, text="Starting…")

    def progress(p):
        bar.progress(min(1.0, p.done / max(p.total, 1)),
                     text=f"{p.stage}: {p.done:,} of {p.total:,}")

    start = time.perf_counter()
    findings = health_report(tok, text, low_count_below=int(low), progress=progress,
                             render=vh.token_text)
    bar.empty()
    st.session_state[RESULT] = {"name": name, "corpus": corpus_name, "findings": findings,
                                "seconds": time.perf_counter() - start,
                                "n_vocab": len(tok.vocab)}

result = st.session_state.get(RESULT)
if result is None:
    st.info("Pick a tokenizer (GPT-4, GPT-4o, or one you trained or loaded) and check it.")
    st.stop()
if result["name"] != name:
    st.caption(f"Showing the last check, of {md(result['name'])}; check again for "
               f"{md(name)}.")

st.subheader(f"{md(result['name'])}: {result['n_vocab']:,} tokens, checked in "
             f"{result['seconds']:.1f} s")
# the numbers first: on a narrow window a long finding pushed them out of sight
st.dataframe(vh.summary_rows(result["findings"]), hide_index=True, width="stretch",
             column_order=["tokens", "retrain hint", "finding"],
             column_config={"tokens": st.column_config.NumberColumn(width="small"),
                            "retrain hint": st.column_config.TextColumn(width="small")})

for finding in result["findings"]:
    label = f"{md(finding.title)}"
    with st.expander(label, icon=vh.ICONS.get(finding.kind), expanded=False):
        st.caption(md(finding.why))
        if finding.hint:
            st.info(md(finding.hint), icon=":material/restart_alt:")
        if not finding.checked:
            st.warning(md(finding.title), icon=":material/block:")
            continue
        if not finding.rows:
            st.success("None found.")
            continue
        frame, left_out = vh.finding_frame(finding)
        st.dataframe(frame, hide_index=True, width="stretch", height=min(400, 38 + 35 * len(frame)))
        if left_out:
            st.caption(f"{left_out:,} more not shown; the download has them all.")
        st.download_button("Download as CSV", vh.finding_csv(finding),
                           file_name=f"{finding.kind}.csv", mime="text/csv",
                           key=f"health_csv_{finding.kind}", icon=":material/download:")
