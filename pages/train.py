"""Train: pick or upload a corpus, set up a tokenizer behind a form, watch the merges
come in (at the top of the page), then study the result and download it in every
format. The training is a lab.training.Training run in a worker process; the panels
are lab.train_panels'; the corpus checks are viz.corpus's. Widgets and uploads are
remembered for the session, so a visit to another page loses nothing.
"""
import streamlit as st

from lab.pages_guard import run_inside_frame

run_inside_frame()

from bpe import PATTERNS, compile_pattern
from lab import corpora, training
from lab import train_panels as panels
from lab.memory import remember
from lab.safe import md
from viz import corpus as vc

UPLOADS = "train_uploads"
KEPT = "train_corpus"       # (upload ids, replace) -> the decoded Corpus, kept for the session
SEEN = "train_upload_ids"   # the upload ids the last run saw
CUSTOM = "custom"
KIND_HELP = ("Regex first splits the text into chunks (words, numbers, punctuation, "
             "spaces) so merges never cross them, as GPT-2/4 do. Basic merges over the raw "
             "bytes of the whole text, across word boundaries.")
PATTERN_LABELS = {"gpt4": "GPT-4 (cl100k_base)", "gpt2": "GPT-2", "gpt4o": "GPT-4o (o200k_base)",
                  CUSTOM: "Custom regex…"}

remember({"train_source": "Sample corpus", "train_sample": next(iter(corpora.sample_corpora())),
          "train_replace": False, "train_kind": "Regex", "train_pattern": "gpt4",
          "train_custom_pattern": "", "train_vocab_size": 1024, "train_min_frequency": 2,
          "train_specials": "", "train_name": ""})


def uploaded_corpus():
    """The uploaded files as one Corpus and its size in bytes. The decoded corpus is kept
    for the session: coming back to the page (the uploader then shows no files) keeps
    it; removing the files in the uploader drops it."""
    returning = UPLOADS not in st.session_state
    uploads = st.file_uploader(
        "Text files (UTF-8)", accept_multiple_files=True, key=UPLOADS,
        help=f"One or more plain-text files, up to {limit_mb} MB each; they are joined "
             "into one corpus in the order shown.") or []
    ids = (tuple(f.file_id for f in uploads), st.session_state.train_replace)
    if uploads and st.session_state.get(KEPT, (None,))[0] != ids:
        corpus = vc.corpus_from_files([(f.name, f.getvalue()) for f in uploads],
                                      replace=st.session_state.train_replace)
        st.session_state[KEPT] = (ids, corpus, len(corpus.text.encode("utf-8")))
    elif not uploads and st.session_state.get(SEEN) and not returning:
        st.session_state.pop(KEPT, None)  # the files were removed in the uploader
    st.session_state[SEEN] = ids[0]
    kept = st.session_state.get(KEPT)
    if kept and not uploads:
        st.caption(f"Using the files uploaded before: {md(', '.join(kept[1].used))}. "
                   "Upload others to replace them.")
    return (kept[1], kept[2]) if kept else (vc.Corpus("", [], [], []), 0)


t = training.get(panels.TRAIN)
running = t is not None and t.running

st.title("Train a tokenizer")
if running:
    panels.progress_panel()
    panels.scroll_to_top_once()
else:
    st.caption("Byte-pair encoding starts from the 256 single bytes and, merge after merge, "
               "glues together the pair of tokens that occurs most often in the corpus. "
               "Pick a corpus, choose a vocab size, and watch the merges come in.")

# ------------------------------------------------------------------ the corpus
st.subheader("1 · Corpus")
source = st.radio("Corpus", ["Sample corpus", "Upload text files"], horizontal=True,
                  key="train_source", label_visibility="collapsed")
limit_mb = st.get_option("server.maxUploadSize")
if source == "Sample corpus":
    picked = st.selectbox("Sample corpus", list(corpora.sample_corpora()), key="train_sample")
    text, n_bytes = corpora.load_sample(picked)
    corpus_label, files_used = picked.split(" (")[0].removesuffix(".txt"), 1
else:
    corpus, n_bytes = uploaded_corpus()
    st.caption(f"Up to {limit_mb} MB per file; a file shown in red was refused by the "
               "browser before uploading (point at it to see why).")
    for problem in corpus.problems:
        st.error(md(problem), icon=":material/error:")
    if corpus.not_utf8:
        st.checkbox(f"Decode {md(', '.join(corpus.not_utf8))} anyway, with a replacement "
                    "character (�) for every byte that is not UTF-8", key="train_replace")
    text, files_used = corpus.text, len(corpus.used)
    corpus_label = corpus.used[0].rsplit(".", 1)[0] if len(corpus.used) == 1 else \
        f"{len(corpus.used)} files" if corpus.used else "upload"

cut = vc.held_out_start(text)  # slicing waits for Train: a corpus may be 200 MB
if text:
    c1, c2, c3 = st.columns(3)
    c1.metric("Files", f"{files_used:,}")
    c2.metric("Characters", f"{len(text):,}")
    c3.metric("Bytes (UTF-8)", f"{n_bytes:,}")
    st.caption(f"Training uses the first {cut:,} characters; the last {len(text) - cut:,} "
               f"(a tenth of the corpus, at most {vc.HELD_OUT_LIMIT:,}) are held out to "
               "measure compression on text the tokenizer never saw." if cut < len(text) else
               "This corpus is too small to hold out a slice: it is trained on whole, and "
               "compression is not measured.")
elif source == "Upload text files" and not st.session_state.get(KEPT):
    st.info("Upload one or more text files to train on, or pick a sample corpus.",
            icon=":material/upload_file:")
else:
    st.warning("The corpus is empty, so there is nothing to train on: upload a text file "
               "with some text in it, or pick a sample corpus.", icon=":material/warning:")

# -------------------------------------------------------------------- the form
st.subheader("2 · Tokenizer")
with st.form("train_form"):
    left, right = st.columns(2)
    kind = left.radio("Kind", ["Regex", "Basic"], horizontal=True, key="train_kind",
                      help=KIND_HELP)
    # GPT-4's first, then any other preset bpe has, then a regex of one's own
    preset = left.selectbox("Split pattern (Regex only)",
                            ["gpt4", *(p for p in PATTERNS if p != "gpt4"), CUSTOM],
                            format_func=lambda p: PATTERN_LABELS.get(p, p),
                            key="train_pattern")
    custom = left.text_input("Custom regex (used when the split pattern is “Custom regex…”)",
                             key="train_custom_pattern",
                             placeholder=r"e.g. \p{L}+|\p{N}+|\s+|[^\s\p{L}\p{N}]+")
    vocab_size = right.number_input(
        "Vocab size", min_value=vc.VOCAB_MIN, max_value=vc.VOCAB_MAX, step=256,
        key="train_vocab_size",
        help=f"Tokens in the vocabulary: 256 bytes plus one per merge. From {vc.VOCAB_MIN} "
             f"to {vc.VOCAB_MAX:,} (GPT-4's size); a small corpus runs out of pairs long "
             "before, and training then stops early and says so.")
    min_frequency = right.number_input(
        "Minimum pair frequency", min_value=1, max_value=1_000_000, step=1,
        key="train_min_frequency",
        help="Stop once the most frequent pair occurs fewer times than this. 1 merges "
             "pairs seen only once, as minbpe's textbook loop does.")
    specials_text = right.text_area(
        "Special tokens, one per line (optional)", key="train_specials", height=80,
        placeholder="<|endoftext|>", help="Given the ids right after the trained vocabulary.")
    name = st.text_input("Name", key="train_name",
                         placeholder=f"{corpus_label} {kind.lower()} {vocab_size}",
                         help="How the tokenizer is listed on the other pages.")
    submitted = st.form_submit_button(
        "Train", type="primary", icon=":material/model_training:", key="train_submit",
        disabled=running or not text,
        help="A training is running: wait or cancel it" if running else
        None if text else "Pick or upload a corpus first")

if submitted and not running:
    kind_key = kind.lower()
    pattern = (custom if preset == CUSTOM else preset) if kind_key == "regex" else None
    try:
        vc.check_corpus(kind_key, n_bytes)
        vc.check_vocab_size(int(vocab_size))
        specials = vc.parse_special_tokens(specials_text)
        if kind_key == "regex":
            if preset == CUSTOM and not custom.strip():
                raise ValueError("Pick a split pattern, or type a regex in “Custom regex”.")
            compile_pattern(pattern)
            vc.check_pattern_speed(pattern, text)  # looks at the start only
        label = (PATTERN_LABELS.get(preset, preset) if preset != CUSTOM else "custom regex") \
            if kind_key == "regex" else "no split"
        train_text, held_out = vc.split_held_out(text)
        training.start(panels.TRAIN, training.Settings(
            kind="bpe", name=name.strip() or f"{corpus_label} {kind_key} {int(vocab_size)}",
            summary=f"{kind} ({label}), vocab size {int(vocab_size):,}, on "
                    f"{len(train_text):,} characters of {corpus_label}",
            vocab_size=int(vocab_size), min_frequency=int(min_frequency),
            held_chars=len(held_out), corpus=vc.corpus_fingerprint(text),
            corpus_label=corpus_label),
            dict(kind=kind_key, pattern=pattern, text=train_text, vocab_size=int(vocab_size),
                 min_frequency=int(min_frequency), special_tokens=specials,
                 held_out=held_out or None))
    except ValueError as e:
        st.error(md(str(e)), icon=":material/error:")
    else:
        st.session_state[panels.SCROLL_TOP] = True
        st.rerun()  # draw the form disabled and the progress panel at the top

# ---------------------------------------------------------------- the result
if t is not None and not running:
    st.subheader("3 · Result", anchor="result")
    panels.result_panel(t, vc.corpus_fingerprint(text))
    if not t.shown:
        t.shown = True
        panels.scroll_to("result")
    if t.outcome.ok:
        panels.sentencepiece_panel(t, text)
