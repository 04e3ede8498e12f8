"""Train: pick or upload a corpus, set up a tokenizer behind a form, watch the merges
come in (at the top of the page), then study the result and download it in every
format. The form is lab.train.form's (it makes the one typed request the worker gets,
lab/jobs/requests.py); the training a lab.train.training.Training run in a worker process
(lab/jobs/workers.py); the panels lab.train.panels'; the corpus text lab.jobs.corpus_text's. Widgets and uploads are
remembered for the session, so a visit to another page loses nothing.
"""
import streamlit as st

from lab.pages_guard import run_inside_frame

run_inside_frame()

from lab import widgets
from lab.train import corpora
from lab.train import training
from lab.train import panels
from lab.lessons import lesson_link, page_link
from lab.memory import remember
from lab.safe import md
from lab.train.uploads import KEPT, TOTAL_MB, counts_upload, uploaded_corpus
from lab.train.form import DEFAULTS, train_form
from lab.train.form import start as train_form_start
from lab.jobs.corpus_text import HELD_OUT_LIMIT, corpus_fingerprint, held_out_start

SOURCES = ["Sample corpus", "Upload text files", "Counts file (.counts)"]

remember({"train_source": SOURCES[0], "train_sample": next(iter(corpora.sample_corpora())),
          "train_replace": False, **DEFAULTS})


t = training.get(panels.TRAIN)
running = t is not None and t.running

st.title("Train a tokenizer")
lesson_link("pages/train.py")
if running:
    panels.progress_panel()
    panels.scroll_to_top_once()
else:
    st.caption("Byte-pair encoding starts from the 256 single bytes and, merge after merge, "
               "glues together the pair of tokens that occurs most often in the corpus. "
               "Pick a corpus, choose a vocab size, and watch the merges come in. The "
               "Method choice makes the other kinds too: Hugging Face's BPE, WordPiece, "
               "Unigram, SuperBPE, BoundlessBPE, Picky and Parity-aware BPE.")
    page_link("pages/methods.py", label="Methods: train several on one corpus and compare "
              "them side by side", icon=":material/science:")

# ------------------------------------------------------------------ the corpus
st.subheader("1 · Corpus")
source = st.radio("Corpus", SOURCES, horizontal=True, key="train_source",
                  label_visibility="collapsed")
limit_mb = st.get_option("server.maxUploadSize")
counts = None  # a counts file (lab.train.uploads.CountsFile), when that is the source
if source == SOURCES[2]:
    counts = counts_upload()
    text, files_used = "", 1
    n_bytes = len(counts.data) if counts else 0
    corpus_label = counts.name.rsplit(".", 1)[0] if counts else "counts"
elif source == SOURCES[0]:
    picked = st.selectbox("Sample corpus", list(corpora.sample_corpora()), key="train_sample")
    text, n_bytes = corpora.load_sample(picked)
    corpus_label, files_used = picked.split(" (")[0].removesuffix(".txt"), 1
else:
    corpus, n_bytes = uploaded_corpus()
    st.caption(f"Up to {limit_mb} MB per file and {TOTAL_MB} MB in all; a file shown in "
               "red was refused by the browser before uploading (point at it to see why).")
    for problem in corpus.problems:
        st.error(md(problem), icon=":material/error:")
    if corpus.not_utf8:
        st.checkbox(f"Decode {md(', '.join(corpus.not_utf8))} anyway, with a replacement "
                    "character (�) for every byte that is not UTF-8", key="train_replace")
    text, files_used = corpus.text, len(corpus.used)
    corpus_label = corpus.used[0].rsplit(".", 1)[0] if len(corpus.used) == 1 else \
        f"{len(corpus.used)} files" if corpus.used else "upload"

cut = held_out_start(text)  # slicing waits for Train: a corpus may be 200 MB
if counts:
    st.metric("Counts file (bytes)", f"{n_bytes:,}")
elif source == SOURCES[2]:
    st.info("Upload a counts file made by `python -m bpe count FILES... -o corpus.counts`, "
            "or pick a sample corpus.", icon=":material/upload_file:")
elif text:
    widgets.figures(("Files", f"{files_used:,}"), ("Characters", f"{len(text):,}"),
                    ("Bytes (UTF-8)", f"{n_bytes:,}"))
    st.caption(f"Training uses the first {cut:,} characters; the last {len(text) - cut:,} "
               f"(a tenth of the corpus, at most {HELD_OUT_LIMIT:,}) are held out to "
               "measure compression on text the tokenizer never saw." if cut < len(text) else
               "This corpus is too small to hold out a slice: it is trained on whole, and "
               "compression is not measured.")
elif source == SOURCES[1] and not st.session_state.get(KEPT):
    st.info("Upload one or more text files to train on, or pick a sample corpus.",
            icon=":material/upload_file:")
else:
    st.warning("The corpus is empty, so there is nothing to train on: upload a text file "
               "with some text in it, or pick a sample corpus.", icon=":material/warning:")

# -------------------------------------------------------------------- the form
st.subheader("2 · Tokenizer")
form = train_form(corpus_label, counts=counts, ready=bool(text) or counts is not None,
                  running=running)
if form.submitted and not running:
    try:
        train_form_start(form, text, n_bytes, corpus_label, counts)
    except ValueError as e:
        st.error(md(str(e)), icon=":material/error:")
    else:
        st.session_state[panels.SCROLL_TOP] = True
        st.rerun()  # draw the form disabled and the progress panel at the top

# ---------------------------------------------------------------- the result
if t is not None and not running:
    st.subheader("3 · Result", anchor="result")
    panels.result_panel(t, counts.fingerprint if counts else corpus_fingerprint(text))
    if not t.shown:
        t.shown = True
        panels.scroll_to("result")
    if t.outcome.ok and t.settings.kind == "bpe":  # SentencePiece needs the text
        panels.sentencepiece_panel(t, text)
