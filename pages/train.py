"""Train: pick or upload a corpus, set up a tokenizer behind a form, watch the merges
come in, then study the result (merge table, merge-frequency and compression curves)
and download it. The training runs in a worker process (lab.jobs), never in this
script's thread; the page polls it from a fragment. Data and charts come from
viz.training; the trained tokenizer joins the session through lab.state. While the
page is not shown, a thread polls the job for as long as the tab stays connected.
"""
import streamlit as st

from lab.frame import run_inside_frame

run_inside_frame()

from bpe import PATTERNS, compile_pattern
from bpe.sentencepiece_bpe import SentencePieceBPE
from lab import jobs, state
from lab.session_training import (JOB, RESULT, cancel, collect_finished, polled_run,
                                  session_connected)
from viz import training as vt
from viz.samples import sample_corpora

CORPUS = "train_corpus"    # (upload ids, replace) -> the decoded Corpus, decoded once
POLL_EVERY = 0.5           # seconds between progress redraws while training
CUSTOM = "custom"
KIND_HELP = ("Regex first splits the text into chunks (words, numbers, punctuation, "
             "spaces) so merges never cross them, as GPT-2/4 do. Basic merges over the raw "
             "bytes of the whole text, across word boundaries.")
PATTERN_LABELS = {"gpt4": "GPT-4 (cl100k_base)", "gpt2": "GPT-2", "gpt4o": "GPT-4o (o200k_base)",
                  CUSTOM: "Custom regex…"}


@st.cache_resource(max_entries=4, show_spinner="Reading the corpus…")
def load_sample(name):
    """A sample corpus and its size in bytes; shared by all sessions (str is immutable)."""
    text = sample_corpora()[name]()
    return text, len(text.encode("utf-8"))


def uploaded_corpus(uploads, replace):
    """The uploads decoded into one Corpus and its size in bytes, decoded once per set
    of files (a rerun must not decode 200 MB again)."""
    key = (tuple(f.file_id for f in uploads), replace)
    cached = st.session_state.get(CORPUS)
    if cached is None or cached[0] != key:
        corpus = vt.corpus_from_files([(f.name, f.getvalue()) for f in uploads],
                                      replace=replace)
        cached = (key, corpus, len(corpus.text.encode("utf-8")))
        st.session_state[CORPUS] = cached
    return cached[1], cached[2]


@st.fragment(run_every=POLL_EVERY)
def progress_view():
    """Redrawn every POLL_EVERY s while the job runs; a full rerun shows the results."""
    run = polled_run()
    if run is None:
        return
    job = run["job"]
    if job.done:
        st.rerun()  # the whole page: results replace this view, the form is enabled again
    with st.container(border=True):
        st.markdown(f"**Training “{run['name']}”** · {run['summary']}")
        p = job.progress
        if job.phase in ("starting", "counting"):
            st.progress(0.0, text="Splitting the corpus into chunks and counting pairs…")
        elif job.phase == "measuring":
            st.progress(1.0, text="Measuring compression on the held-out text…")
        if p is not None:
            if job.phase == "merging":
                st.progress(min(p["done"] / max(p["total"], 1), 1.0),
                            text=f"{p['done']:,} of {p['total']:,} merges")
            left = vt.time_left(p)
            c1, c2, c3, c4 = st.columns(4)
            c1.metric("Merges done", f"{p['done']:,}")
            c2.metric("Merges per second", f"{p['merges_per_s']:,.0f}")
            c3.metric("Time left", "…" if left is None else vt.format_duration(left))
            c4.metric("Elapsed", vt.format_duration(job.elapsed))
            st.caption("The latest merges, newest first")
            st.dataframe(vt.recent_merges_table(job.recent), hide_index=True,
                         width="stretch", height=250)
        st.button("Cancel", icon=":material/cancel:", on_click=cancel, key="train_cancel")


def train_sentencepiece(result, text):
    """Train a Llama-style SentencePiece BPE on the part of the corpus ours was trained on,
    with the same vocab size, and add it to the session beside ours."""
    if vt.corpus_fingerprint(text) != result.get("corpus_fingerprint"):
        raise ValueError("The corpus on this page is not the one this tokenizer was trained "
                         "on any more; pick it again (or train again) first.")
    if len(text) > vt.SENTENCEPIECE_MAX_CHARS:
        raise ValueError(f"SentencePiece trains inside the server here, so it takes corpora "
                         f"of at most {vt.SENTENCEPIECE_MAX_CHARS:,} characters; use a "
                         "smaller corpus.")
    trained_part = text[:vt.held_out_start(text)]
    with st.spinner("Training a SentencePiece BPE…"):
        sp = SentencePieceBPE().train(trained_part, max(result["vocab_size"], 260))
    result["sentencepiece"] = state.add_tokenizer(f"{result['name']} · SentencePiece", sp)


def show_result(result, text):
    if result["cancelled"]:
        st.info(f"Training “{result['name']}” was cancelled. Change the settings and "
                "train again.")
        return
    if result["error"]:
        st.error(f"Training “{result['name']}” failed: {result['error']}")
        return
    tok, name = result["tok"], result["name"]
    early, message = vt.stop_message(tok, result["vocab_size"], result["min_frequency"])
    (st.warning if early else st.success)(message, icon=":material/info:" if early else
                                          ":material/check_circle:")
    st.success(f"Added to this session as **{name}**: pick it on Tokenize, Compare and the "
               "other pages.", icon=":material/add_circle:")
    p = result["progress"]
    compression = result.get("compression")
    c1, c2, c3, c4 = st.columns(4)
    c1.metric("Merges", f"{len(tok.merges):,}")
    c2.metric("Vocab size", f"{tok.n_vocab:,}",
              help="256 bytes + merges + special tokens" if tok.special_tokens else None)
    c3.metric("Training time", vt.format_duration(result["elapsed"]),
              help=f"{p['merges_per_s']:,.0f} merges per second" if p else None)
    if compression is not None:
        c4.metric("Bytes per token (held out)",
                  f"{compression['bytes_per_token'].iloc[-1]:.2f}",
                  help="On the held-out end of the corpus, which training never saw")
    if tok.special_tokens:
        st.caption("Special tokens: " + ", ".join(f"`{s}` → {idx}"
                                                  for s, idx in tok.special_tokens.items()))

    merges_tab, frequency_tab, compression_tab = st.tabs(
        ["Merge table", "Merge frequency", "Compression"])
    with merges_tab:
        st.dataframe(result["table"], hide_index=True, width="stretch", height=420,
                     column_config={"from": st.column_config.TextColumn(
                         "from", help="the two tokens merged; · is a space, ↵ a newline")})
    with frequency_tab:
        if len(tok.merges):
            st.altair_chart(vt.merge_frequency_chart(result["table"]), width="stretch")
        else:
            st.info("No merges were made, so there is no curve to draw.")
    with compression_tab:
        if compression is None:
            st.info("The corpus was too small to hold out a slice, so compression was not "
                    "measured. Train on a bigger corpus to see this curve.")
        else:
            st.altair_chart(vt.compression_chart(compression), width="stretch")
            st.caption(f"Measured on the last {result['held_chars']:,} characters of the "
                       "corpus, held out of training, from this one training run: token "
                       "counts for every vocab size come from replaying its merges "
                       "(bpe.replay), not from training again.")

    stem = "".join(ch if ch.isalnum() or ch in "-_" else "_" for ch in name).strip("_") \
        or "tokenizer"
    d1, d2, _ = st.columns([1, 1, 3])
    if "\n" in tok.pattern or "\r" in tok.pattern:
        d1.warning("The split pattern contains a line break, which a .model file cannot "
                   "hold; write it as \\n inside the regex to download the model.")
    else:
        d1.download_button("Download .model", tok.model_text(), file_name=f"{stem}.model",
                           mime="text/plain", icon=":material/download:",
                           on_click="ignore", key="train_download_model")
    d2.download_button("Download .vocab", tok.vocab_text(), file_name=f"{stem}.vocab",
                       mime="text/plain", icon=":material/download:",
                       on_click="ignore", key="train_download_vocab")
    st.caption("The .model file loads with `bpe.load()` or minbpe, and in this app's "
               "sidebar; the .vocab file is for people to read.")

    st.markdown("**Llama-style beside it.** SentencePiece BPE (as in Llama) merges characters, "
                "not bytes, and keeps a space inside the piece after it (▁the). Train one on "
                "the same corpus and vocab size, then set the two side by side on Compare.")
    if result.get("sentencepiece"):
        st.success(f"Trained and added as **{result['sentencepiece']}**: pick it on Compare.",
                   icon=":material/add_circle:")
    elif st.button("Train a SentencePiece BPE on the same corpus", key="train_sentencepiece",
                   icon=":material/compare_arrows:"):
        try:
            train_sentencepiece(result, text)
        except ValueError as e:
            st.error(str(e), icon=":material/error:")
        else:
            st.rerun()


# ------------------------------------------------------------------------ the page
collect_finished()
running = JOB in st.session_state

st.title("Train a tokenizer")
st.caption("Byte-pair encoding starts from the 256 single bytes and, merge after merge, "
           "glues together the pair of tokens that occurs most often in the corpus. "
           "Pick a corpus, choose a vocab size, and watch the merges come in.")

# ------------------------------------------------------------------ the corpus
st.subheader("1 · Corpus")
source = st.radio("Corpus", ["Sample corpus", "Upload text files"], horizontal=True,
                  key="train_source", label_visibility="collapsed")
files_used = 0
if source == "Sample corpus":
    corpora = sample_corpora()
    picked = st.selectbox("Sample corpus", list(corpora), key="train_sample")
    text, n_bytes = load_sample(picked)
    corpus_label = picked.split(" (")[0].removesuffix(".txt")
    files_used = 1
else:
    limit_mb = st.get_option("server.maxUploadSize")
    uploads = st.file_uploader(
        "Text files (UTF-8)", accept_multiple_files=True, key="train_uploads",
        help=f"One or more plain-text files, up to {limit_mb} MB each; they are joined "
             "into one corpus in the order shown.")
    st.caption(f"Up to {limit_mb} MB per file; a file shown in red was refused by the "
               "browser before uploading (point at it to see why).")
    corpus, n_bytes = uploaded_corpus(uploads or [],
                                      st.session_state.get("train_replace", False))
    for problem in corpus.problems:
        st.error(problem, icon=":material/error:")
    if corpus.not_utf8:
        st.checkbox(f"Decode {', '.join(corpus.not_utf8)} anyway, with a replacement "
                    "character (�) for every byte that is not UTF-8", key="train_replace")
    text = corpus.text
    files_used = len(corpus.used)
    corpus_label = corpus.used[0].rsplit(".", 1)[0] if len(corpus.used) == 1 else \
        f"{len(corpus.used)} files" if corpus.used else "upload"

cut = vt.held_out_start(text)  # slicing waits for Train: a corpus may be 200 MB
if text:
    c1, c2, c3 = st.columns(3)
    c1.metric("Files", f"{files_used:,}")
    c2.metric("Characters", f"{len(text):,}")
    c3.metric("Bytes (UTF-8)", f"{n_bytes:,}")
    if cut < len(text):
        st.caption(f"Training uses the first {cut:,} characters; the last "
                   f"{len(text) - cut:,} (a tenth of the corpus, at most "
                   f"{vt.HELD_OUT_LIMIT:,}) are held out to measure compression on text "
                   "the tokenizer never saw.")
    else:
        st.caption("This corpus is too small to hold out a slice: it is trained on whole, "
                   "and compression is not measured.")
elif source == "Upload text files" and not (uploads or []):
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
        "Vocab size", min_value=vt.VOCAB_MIN, max_value=vt.VOCAB_MAX, value=1024, step=256,
        key="train_vocab_size",
        help=f"Tokens in the vocabulary: 256 bytes plus one per merge. From {vt.VOCAB_MIN} "
             f"to {vt.VOCAB_MAX:,} (GPT-4's size); a small corpus runs out of pairs long "
             "before, and training then stops early and says so.")
    min_frequency = right.number_input(
        "Minimum pair frequency", min_value=1, max_value=1_000_000, value=2, step=1,
        key="train_min_frequency",
        help="Stop once the most frequent pair occurs fewer times than this. 1 merges "
             "pairs seen only once, as minbpe's textbook loop does.")
    specials_text = right.text_area(
        "Special tokens, one per line (optional)", key="train_specials", height=80,
        placeholder="<|endoftext|>",
        help="Given the ids right after the trained vocabulary.")
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
        vt.check_corpus(kind_key, n_bytes)
        vt.check_vocab_size(int(vocab_size))
        specials = vt.parse_special_tokens(specials_text)
        if kind_key == "regex":
            if preset == CUSTOM and not custom.strip():
                raise ValueError("Pick a split pattern, or type a regex in “Custom regex”.")
            compile_pattern(pattern)
            vt.check_pattern_speed(pattern, text)  # looks at the start only
    except ValueError as e:
        st.error(str(e), icon=":material/error:")
    else:
        label = (PATTERN_LABELS.get(preset, preset) if preset != CUSTOM else "custom regex") \
            if kind_key == "regex" else "no split"
        train_text, held_out = vt.split_held_out(text)
        st.session_state[JOB] = dict(
            job=jobs.start_training(kind_key, pattern, train_text, int(vocab_size),
                                    int(min_frequency), specials, held_out=held_out or None),
            name=name.strip() or f"{corpus_label} {kind_key} {int(vocab_size)}",
            summary=f"{kind} ({label}), vocab size {int(vocab_size):,}, on "
                    f"{len(train_text):,} characters",
            vocab_size=int(vocab_size), min_frequency=int(min_frequency),
            corpus_fingerprint=vt.corpus_fingerprint(text),
            held_chars=len(held_out))
        connected = session_connected()
        if connected is not None:
            st.session_state[JOB]["job"].keep_polling(connected)
        st.session_state.pop(RESULT, None)
        st.rerun()  # draw the form disabled and the progress view

# ----------------------------------------------------------- progress, results
if running:
    st.subheader("3 · Training")
    progress_view()
elif RESULT in st.session_state:
    st.subheader("3 · Result")
    show_result(st.session_state[RESULT], text)
