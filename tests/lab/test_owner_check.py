"""lab.jobs.owner_check: an uploaded file's owner library runs in a worker process. A panic
(pyo3's PanicException, a BaseException), a CPU budget or a memory cap ends in one
sentence, "the owner library could not check this file (...)", and the server's process,
which runs these tests, goes on. lab.parity turns that into the badge's text."""
import base64
import hashlib
import json
import os
import struct

import pytest
import streamlit as st

from bpe import RegexTokenizer
from bpe.formats.hf.tokenizer_json import hf_json
from bpe.loading import load_bytes
from lab import parity
from lab.jobs import owner_check
from lab.state import FILES_KEY, FileSource

CORPUS = "the year 2026 had 365 days, and the days had 24 hours. Tokens! " * 40


def tokenizer_json(**parts):
    tok = RegexTokenizer("gpt2").train(CORPUS, 256 + 30)
    return json.dumps(hf_json(tok) | parts).encode()


# a Precompiled charsmap whose trie points far past its end: `tokenizers` panics (index
# out of bounds) on the first text it normalizes
PANICS = tokenizer_json(normalizer={"type": "Precompiled", "precompiled_charsmap": base64.b64encode(
    struct.pack("<I", 8) + struct.pack("<II", 0x7FFFFFFF, 0x7FFFFFF0) + b"abc").decode()})
# WordPiece with no bound on a word's length: `tokenizers` is cubic on one long word
# (2.6 s of CPU for 4,001 characters, 15 s for 8,001)
SLOW = json.dumps({
    "version": "1.0", "truncation": None, "padding": None, "added_tokens": [],
    "normalizer": None, "pre_tokenizer": None, "post_processor": None, "decoder": None,
    "model": {"type": "WordPiece", "unk_token": "[UNK]", "continuing_subword_prefix": "##",
              "max_input_chars_per_word": 10**9,
              "vocab": {"[UNK]": 0, "a": 1, "##a": 2, "b": 3}}}).encode()


def spec(data):
    return {"kind": "tokenizer.json", "files": (("tokenizer.json", data),)}


def test_a_good_file_is_checked_in_another_process():
    data = tokenizer_json()
    worker = owner_check.OwnerWorker(spec(data))
    try:
        assert worker.library == "tokenizers" and worker._process.pid != os.getpid()
        ours = load_bytes(data, "tokenizer.json")
        assert worker.encode("the days had 24 hours") == ours.encode("the days had 24 hours")
    finally:
        worker.close()


def test_a_panic_is_a_sentence_and_the_worker_is_gone():
    worker = owner_check.OwnerWorker(spec(PANICS))
    with pytest.raises(owner_check.OwnerFailed,
                       match=r"^the owner library could not check this file \(PanicException"):
        worker.encode("the days")
    assert not worker._process.is_alive()
    with pytest.raises(owner_check.OwnerFailed):  # and it stays failed, without a new process
        worker.encode("again")


def test_a_cubic_encode_stops_at_the_cpu_budget():
    """15 s of CPU in `tokenizers` ends after about one: SIGXCPU, counted in CPU time, so a
    busy machine gives the same verdict as a quiet one."""
    worker = owner_check.OwnerWorker(spec(SLOW), seconds=0.5)
    with pytest.raises(owner_check.OwnerFailed, match="more than 0.5 s of CPU"):
        worker.encode("a" * 8000 + "b" + "a" * 8000)


def test_the_memory_cap_is_a_sentence():
    worker = owner_check.OwnerWorker({"kind": "ranks", "files": (),
                                      "ranks": {bytes([b]): b for b in range(256)},
                                      "pattern": r"[\s\S]+", "special_tokens": {}},
                                     memory=400 * 2**20)
    with pytest.raises(owner_check.OwnerFailed, match="could not check this file"):
        worker.encode("x" * 200_000_000)  # 200 MB of text, more than the worker's cap holds
    worker.close()


def test_parity_badge_says_the_owner_could_not_check():
    """The page's path: the uploaded file's label in the session gives a Check whose badge
    is the sentence (lab.parity catches OwnerFailed; no traceback, no 'running' forever)."""
    tok = load_bytes(tokenizer_json(), "tokenizer.json")  # ours reads it; the owner panics
    st.session_state[FILES_KEY] = {"bad (uploaded)": FileSource(
        "tokenizer.json", (("tokenizer.json", PANICS),), hashlib.sha256(PANICS).hexdigest())}
    try:
        check = parity.reference_check("bad (uploaded)", "the days", tok)
        assert check.error.startswith("the owner library could not check this file")
        assert check.badge == check.error and not check.ok
    finally:
        for worker in st.session_state.pop(parity.FILE_ENCODERS, {}).values():
            worker.close()
        st.session_state.pop(FILES_KEY, None)
