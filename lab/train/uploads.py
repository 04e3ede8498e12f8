"""The Train page's uploads: text files joined into one corpus, or a counts file made by
`python -m bpe count`. Each is kept for the session once read, so coming back to the
page (the uploader then shows no files) keeps it; removing the files drops it.

pages/train.py calls these; the decoding is lab.jobs.corpus_text's, the counts-file
format is bpe.counting.counts_file's (the worker reads the file again, in full, when it trains).
"""
import hashlib
import os
import tempfile
from typing import NamedTuple

import streamlit as st

from bpe.counting.counts_file import read_pattern
from lab.jobs import corpus_text
from lab.safe import md

UPLOADS = "train_uploads"
KEPT = "train_corpus"        # (upload ids, replace) -> the decoded Corpus, kept for the session
SEEN = "train_upload_ids"    # the upload ids the last run saw
COUNTS_UPLOAD = "train_counts_upload"
COUNTS_KEPT = "train_counts"  # the CountsFile read from the last counts upload
# Text files read in all: each is held as bytes, then as text, then joined (5 files of
# 100 MB held 957 MB), so files past this total are left out before they are read.
TOTAL_MB = 200
MB = 1024 * 1024  # Streamlit's server.maxUploadSize counts in these


class CountsFile(NamedTuple):
    name: str          # the uploaded file's name
    data: bytes        # the whole file, sent to the worker
    pattern: str       # the split pattern it was counted with (from its header)
    fingerprint: tuple  # what identifies it, for Settings.corpus


def _limit_mb():
    return st.get_option("server.maxUploadSize")


def _kept(key, uploads, seen_key, returning):
    """Drop what key keeps once the visitor removed the files in the uploader (not when
    the uploader is merely empty because the page was visited again)."""
    if not uploads and st.session_state.get(seen_key) and not returning:
        st.session_state.pop(key, None)


def within_total(uploads, total_mb=None):
    """(the uploads that fit in total_mb (TOTAL_MB) megabytes in all, taken in order;
    one message per file left out, saying what to do). Reads no file: sizes only.

    >>> class F(NamedTuple): name: str; size: int
    >>> within_total([F("a", 150 * MB), F("b", 60 * MB), F("c", 50 * MB)])[0]
    [F(name='a', size=157286400), F(name='c', size=52428800)]
    """
    total_mb = TOTAL_MB if total_mb is None else total_mb
    kept, problems, used = [], [], 0
    for f in uploads:
        if used + f.size > total_mb * MB:
            problems.append(
                f"{f.name} ({f.size / MB:,.1f} MB) is left out, unread: the Train page takes "
                f"at most {total_mb} MB of text files in all, and the files before it hold "
                f"{used / MB:,.1f} MB. Remove a file to make room, or train on a counts "
                "file (python -m bpe count) for a bigger corpus.")
        else:
            kept.append(f)
            used += f.size
    return kept, problems


def uploaded_corpus():
    """The uploaded text files as one Corpus and its size in bytes; files past TOTAL_MB
    in all are left out before any is read, each with a message."""
    returning = UPLOADS not in st.session_state
    uploads = st.file_uploader(
        "Text files (UTF-8)", accept_multiple_files=True, key=UPLOADS,
        help=f"One or more plain-text files, up to {_limit_mb()} MB each and {TOTAL_MB} MB "
             "in all; they are joined into one corpus in the order shown.") or []
    ids = (tuple(f.file_id for f in uploads), st.session_state.train_replace)
    if uploads and st.session_state.get(KEPT, (None,))[0] != ids:
        fitting, too_many = within_total(uploads)
        corpus = corpus_text.corpus_from_files([(f.name, f.getvalue()) for f in fitting],
                                      replace=st.session_state.train_replace)
        corpus = corpus._replace(problems=[*corpus.problems, *too_many])
        st.session_state[KEPT] = (ids, corpus, len(corpus.text.encode("utf-8")))
    _kept(KEPT, uploads, SEEN, returning)
    st.session_state[SEEN] = ids[0]
    kept = st.session_state.get(KEPT)
    if kept and not uploads:
        st.caption(f"Using the files uploaded before: {md(', '.join(kept[1].used))}. "
                   "Upload others to replace them.")
    return (kept[1], kept[2]) if kept else (corpus_text.Corpus("", [], [], []), 0)


def read_counts_header(name, data):
    """The split pattern of a counts file given as bytes; ValueError naming the file if
    it is not a counts file bpe reads (bpe.counting.counts_file reads a path, so a temp file)."""
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "upload.counts")
        with open(path, "wb") as f:
            f.write(data)
        try:
            return read_pattern(path)
        except ValueError as e:
            raise ValueError(str(e).replace(path, name)) from None
        except UnicodeDecodeError:
            raise ValueError(f"{name} is not a counts file (its header is not text); make "
                             "one with python -m bpe count") from None


def counts_upload():
    """The uploaded counts file as a CountsFile, or None (with the reason shown)."""
    returning = COUNTS_UPLOAD not in st.session_state
    upload = st.file_uploader(
        "Counts file (.counts)", type=["counts"], key=COUNTS_UPLOAD,
        help="The ordered chunk counts of a corpus, written by `python -m bpe count FILES... "
             "-o corpus.counts` on any machine: counting a big corpus is the slow part, and "
             "this page then only merges.")
    seen = (upload.file_id,) if upload else ()
    kept = st.session_state.get(COUNTS_KEPT)
    if upload and (kept is None or kept[0] != upload.file_id):
        data = upload.getvalue()
        try:
            pattern = read_counts_header(upload.name, data)
        except ValueError as e:
            st.session_state.pop(COUNTS_KEPT, None)
            st.error(md(e), icon=":material/error:")
            return None
        counts = CountsFile(upload.name, data, pattern,
                            ("counts", hashlib.blake2b(data, digest_size=16).hexdigest()))
        st.session_state[COUNTS_KEPT] = (upload.file_id, counts)
    _kept(COUNTS_KEPT, upload, f"{COUNTS_KEPT}_seen", returning)
    st.session_state[f"{COUNTS_KEPT}_seen"] = seen
    kept = st.session_state.get(COUNTS_KEPT)
    if kept is None:
        return None
    counts = kept[1]
    if not upload:
        st.caption(f"Using the counts file uploaded before: {md(counts.name)}.")
    st.caption("The tokenizer is a Regex one with the split pattern the file was counted "
               "with, shown below (chunk counts cannot train Basic, which merges across "
               "chunks). No slice of text is held out, since the file holds counts, not text: "
               "there is no compression curve.")
    return counts
