"""Evaluate: a report card for any tokenizer, against any references, on the Arena's
samples, the visitor's files and the held-out end of its training corpus; the
vocabulary's scripts; throughput; and CS336's cross-domain experiment in one click.

Thin: the figures are bpe/evaluate.py's, the tables and charts viz/evaluate.py's; the
cross-domain training runs in the worker through lab/train/training.py.
"""
import streamlit as st

from lab.pages_guard import run_inside_frame

run_inside_frame()

from bpe import evaluate, reference
from bpe.methods.residue import LEFTOVER_R
from lab import derived, lessons, state, widgets
from lab.train import corpora
from lab.train import training
from lab.train.job_view import finished
from lab.memory import remember
from lab.safe import md
from lab.jobs import corpus_text as vc
from lab.jobs.requests import BpeRequest
from viz import arena, evaluate as ve

CROSS = "evaluate_cross"  # the slot of the cross-domain training
CROSS_VOCAB = 1024
FILE_LIMIT = 5_000_000  # bytes of uploaded text evaluated (every tokenizer encodes it all)
WORD_RULE = ("Words: text cut at whitespace; inside each piece every Han, Hiragana, "
             "Katakana or Hangul character is a word of its own, and each run of other "
             "characters is one word.")


def held_out(name):
    """(corpus label, held-out text or None) for a tokenizer trained in this session on
    a corpus the server has; (None, None) if it was not trained here."""
    for t in training.trainings().values():
        if t.outcome is None or name not in t.outcome.added or not t.settings.corpus:
            continue
        for label in corpora.sample_corpora():
            text = corpora.load_sample(label)[0]
            if len(text) == t.settings.corpus[0] and \
                    vc.corpus_fingerprint(text) == t.settings.corpus:
                return t.settings.corpus_label, vc.split_held_out(text)[1] or None
        return t.settings.corpus_label, None  # an upload: its text is not kept
    return None, None


def script_shares(tok):
    return derived.script_shares(tok, wait=st.spinner)


def report(tokenizers, texts, key):
    """Rows for tokenizers on texts, remembered for the same inputs in this session."""
    memo = st.session_state.setdefault("evaluate_memo", {})
    ident = (tuple((n, id(t)) for n, t in tokenizers.items()),
             tuple((label, len(text), hash(text)) for label, text in texts.items()))
    if memo.get(key, (None,))[0] != ident:
        memo[key] = (ident, evaluate.evaluate(tokenizers, texts))
    return memo[key][1]


LEFTOVER_REFS = ("o200k_base", "llama3")  # the paper's own examples, shown beside yours


def leftover_rows(tokenizers, texts):
    """bpe.evaluate.leftovers for each tokenizer over texts, remembered in this session."""
    memo = st.session_state.setdefault("evaluate_leftovers", {})
    ident = (tuple((n, id(t)) for n, t in tokenizers.items()),
             tuple((label, len(text), hash(text)) for label, text in texts.items()))
    if memo.get("ident") != ident:
        memo.update(ident=ident, rows=[evaluate.leftovers(t, texts.values(), tokenizer=n)
                                       for n, t in tokenizers.items()])
    return memo["rows"]


def show_report(rows, references, key):
    frame = ve.report_frame(rows, references)
    st.dataframe(frame, hide_index=True, width="stretch", height=35 * (len(frame) + 1) + 3,
                 column_config={f"vs {r}": st.column_config.NumberColumn(
                     f"vs {r}", format="%+.1f%%",
                     help=f"(tokens of {md(r)} − tokens) / tokens of {md(r)}: + means fewer "
                          "tokens")
                     for r in references})
    left, right = st.columns(2)
    left.download_button("Download CSV", ve.csv_text(frame), "report.csv", mime="text/csv",
                         icon=":material/download:", key=f"{key}_csv")
    right.download_button("Download Markdown", ve.markdown_text(frame), "report.md",
                          mime="text/markdown", icon=":material/download:", key=f"{key}_md")


def start_cross():
    found = {label.split(" (")[0]: label for label in corpora.sample_corpora()}
    train_label = found.get("tinyshakespeare.txt") or next(iter(found.values()))
    text = corpora.load_sample(train_label)[0]
    train_text, held = vc.split_held_out(text)
    short = train_label.split(" (")[0].removesuffix(".txt")
    try:
        training.start(CROSS, training.Settings(
            BpeRequest("regex", "gpt4", CROSS_VOCAB), name=f"Regex {CROSS_VOCAB} ({short})",
            summary=f"Regex (GPT-4's pattern), vocab size {CROSS_VOCAB:,}, on "
                    f"{len(train_text):,} characters of {short}",
            held_chars=len(held), corpus=vc.corpus_fingerprint(text), corpus_label=short),
            text=train_text, held_out=held or None)
    except ValueError as e:  # lab.jobs.Busy
        st.session_state["evaluate_cross_error"] = str(e)


st.title("Evaluate a tokenizer")
st.caption("A report card: bytes per token (and the difference from each reference, as "
           "nanochat prints it), tokens per word, the share of words cut into two or more "
           "tokens, unique tokens used, the vocabulary's scripts, and throughput. "
           + WORD_RULE)
lessons.lesson_pages("pages/evaluate.py")
names = state.tokenizer_names()
refs_default = [reference.REFERENCES[n].label for n in ("r50k_base", "cl100k_base")]
remember({"evaluate_refs": [n for n in refs_default if n in names],
          "evaluate_samples": True, "evaluate_held": True})
name, tok = widgets.tokenizer_picker("evaluate_tokenizer", label="Tokenizer to evaluate")
st.session_state["evaluate_refs"] = [n for n in st.session_state["evaluate_refs"] if n in names]
refs = st.multiselect("Compare with", names, key="evaluate_refs")
references = [r for r in refs if r != name]

sources = st.container(horizontal=True, gap="medium")  # wraps on a narrow screen
use_samples = sources.toggle("The Arena's 14 samples", key="evaluate_samples")
corpus_label, held = held_out(name)
use_held = sources.toggle("Held-out end of its training corpus", key="evaluate_held",
                     disabled=held is None,
                     help=("The end of the corpus training never saw." if held else
                           f"{md(name)} was trained on an upload, whose text is not kept."
                           if corpus_label else f"{md(name)} was not trained in this session."))
uploads = st.file_uploader("Your own text files", type=["txt", "md", "py", "json", "csv",
                                                       "html", "js", "c", "rs", "go"],
                           accept_multiple_files=True, key="evaluate_files")
texts = dict(arena.arena_samples()) if use_samples else {}
if held and use_held:
    texts[f"{corpus_label} (held out)"] = held
size = 0
for upload in uploads or []:
    try:
        text = vc.decode_upload(upload.name, upload.getvalue())
    except ValueError as e:
        st.error(md(e))
        continue
    size += len(upload.getvalue())
    if size > FILE_LIMIT:
        st.warning(f"Only the first {FILE_LIMIT / 1e6:.0f} MB of files are evaluated here; "
                   "for more use `python -m bpe eval`.")
        break
    texts[f"file: {upload.name}"] = text

tokenizers = {name: tok} | {r: state.get_tokenizer(r) for r in references}
st.header("Report card", divider="gray")
if not texts:
    st.info("Pick the samples, the held-out slice or upload a file to evaluate on.")
else:
    try:
        rows = report(tokenizers, texts, "main")
    except ValueError as e:
        st.error(md(e))
        st.stop()
    show_report(rows, references, "evaluate")
    st.altair_chart(ve.bytes_per_token_chart(rows), width="stretch")
    st.subheader("Leftover tokens", divider="gray")
    st.caption(
        f"LiteToken's residue over the same texts: of the merged tokens the texts make, the "
        f"share whose R = final / (final + intermediate) is below {LEFTOVER_R}, made mostly "
        "on the way to bigger tokens and rarely left standing. The cut-off is this lab's "
        "own choice, not the paper's; the paper's 5-10% for o200k (GPT-4o), Llama 3 and "
        "Qwen is over a large web corpus. On a few samples many tokens are made only a "
        "few times, so these shares run higher: compare tokenizers here, not with the "
        "paper. The Vocabulary health page lists the tokens, lowest R first.")
    leftover_toks = dict(tokenizers)
    for key in LEFTOVER_REFS:
        label = reference.REFERENCES[key].label
        if label in names and label not in leftover_toks:
            leftover_toks[label] = state.get_tokenizer(label)
    st.dataframe(ve.leftover_frame(leftover_rows(leftover_toks, texts)), hide_index=True,
                 width="stretch", column_config={
                     "merged": st.column_config.NumberColumn(
                         "merged tokens made", help="merged tokens the texts make at all"),
                     "leftovers": st.column_config.NumberColumn(
                         f"leftovers (R < {LEFTOVER_R})"),
                     "share": "leftover share", "why": "note"})

st.header("Vocabulary by script", divider="gray")
st.caption("The share of each vocabulary's ordinary tokens whose letters are in one script "
           "(Mixed: several; Partial character: bytes that are not whole UTF-8).")
st.altair_chart(ve.script_chart({n: script_shares(t) for n, t in tokenizers.items()}),
                width="stretch")

st.header("Throughput", divider="gray")
if st.button("Measure", icon=":material/speed:", key="evaluate_measure"):
    sample = corpora.shakespeare()
    n_bytes, seconds = evaluate.throughput(tok, sample)
    st.session_state["evaluate_speed"] = (name, n_bytes, seconds)
speed = st.session_state.get("evaluate_speed")
if speed and speed[0] == name:
    st.markdown(f"**{md(name)}**: " + ve.throughput_line(speed[1], speed[2]))
    st.caption(f"Encoding {speed[1] / 1e3:,.0f} KB of Shakespeare once, in this server's "
               "process; a second measure finds its chunks cached and runs faster.")
else:
    st.caption(f"Times {md(name)} encoding the shipped Shakespeare (100 KB) and extrapolates "
               "to the Pile's 825 GB, as CS336 asks.")

st.header("Cross-domain, in one click", divider="gray")
st.caption("CS336's experiment: a tokenizer trained on one corpus packs its own kind of text "
           "better than another. Train a Regex tokenizer on Shakespeare (in the worker), then "
           "compare it with GPT-2 and GPT-4 on held-out Shakespeare and on Taylor Swift's "
           "Wikipedia article.")
st.button(f"Train on Shakespeare ({CROSS_VOCAB:,} tokens) and evaluate",
          on_click=start_cross, disabled=training.running(CROSS), key="evaluate_cross_go",
          icon=":material/model_training:")
if err := st.session_state.pop("evaluate_cross_error", None):
    st.error(md(err))
done = finished(CROSS, "One click trains it (a few seconds) and fills the table below.")
if done is not None and done.outcome.added:
    cross_name = done.outcome.added[0]
    cross_label, cross_held = held_out(cross_name)
    other = next((label for label in corpora.sample_corpora()
                  if label.startswith("taylorswift")), None)
    cross_texts = {f"{cross_label} (held out)": cross_held or ""}
    if other:
        cross_texts[other.split(" (")[0].removesuffix(".txt")] = corpora.load_sample(other)[0]
    cross_toks = {cross_name: state.get_tokenizer(cross_name)} | {
        r: state.get_tokenizer(r) for r in refs_default if r in names}
    cross_rows = report(cross_toks, cross_texts, "cross")
    show_report(cross_rows, [r for r in refs_default if r in names], "evaluate_cross")
