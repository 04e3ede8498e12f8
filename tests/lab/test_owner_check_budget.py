"""lab.jobs.owner_check.too_big: `tokenizers` builds a trie of ~TRIE_NODE_BYTES per
distinct prefix byte of a Unigram's pieces (297 MB for the 3.6 MB HTML-pieces file).
The server counts that trie before a worker starts and, past OWNER_FILE_FACTOR times the
file plus OWNER_FLOOR, the badge says "the owner library could not check this file (...)"
instead of running it; an ordinary file (a GPT-2-shaped BPE file, a small Unigram) is
still checked, in its worker."""
import hashlib
import json

import pytest
import streamlit as st
from hypothesis import given, settings
from hypothesis import strategies as hst

from bpe import RegexTokenizer
from bpe.formats.hf.tokenizer_json import hf_json
from bpe.loading import load_bytes
from helpers.hostile_parts import html_vocab
from lab import parity
from lab.jobs import owner_check
from lab.state import FILES_KEY, FileSource
from bpe.formats import gguf
from bpe.gguf_tokenizer import tokenizer_from_gguf
from tests.bpe.test_gguf_llama_cpp import members  # noqa: F401 (the fixture)


def spec(data):
    return {"kind": "tokenizer.json", "files": (("t.json", data),)}


def unigram(pieces):
    return json.dumps({
        "version": "1.0", "truncation": None, "padding": None, "added_tokens": [],
        "normalizer": None, "pre_tokenizer": None, "post_processor": None, "decoder": None,
        "model": {"type": "Unigram", "unk_id": 0,
                  "vocab": [["<unk>", 0.0]] + [[p, -1.0 - i] for i, p in enumerate(pieces)]}
    }).encode()


@settings(max_examples=200, deadline=None)
@given(hst.lists(hst.text(max_size=6)))
def test_trie_nodes_counts_the_distinct_prefixes(pieces):
    prefixes = {p.encode("utf-8", "surrogatepass")[:n] for p in pieces
                for n in range(1, len(p.encode("utf-8", "surrogatepass")) + 1)}
    assert owner_check.trie_nodes(pieces) == len(prefixes)


def test_the_html_pieces_file_is_not_run_and_the_reason_is_said():
    data = html_vocab()
    tok = load_bytes(data, "html.json")
    with pytest.raises(owner_check.OwnerFailed,
                       match=r"^the owner library could not check this file \(it was not run: "
                             r"`tokenizers` would build a trie of about 3\d\d MB"):
        raise owner_check.OwnerFailed(owner_check.too_big(spec(data), tok.model))


def test_ordinary_files_are_checked():
    # a GPT-2-shaped byte-level BPE file (GPT-2's own: 23 MB in tokenizers for 1.4 MB)
    tok = RegexTokenizer("gpt2").train("the year 2026 had 365 days. Tokens! " * 40, 256 + 40)
    bpe_doc = json.dumps(hf_json(tok)).encode()
    ours = load_bytes(bpe_doc, "t.json")  # a RegexTokenizer again: no HF model
    assert owner_check.too_big(spec(bpe_doc), getattr(ours, "model", None)) is None  # as lab.parity asks
    small = unigram([f"piece{i}" for i in range(5000)])
    assert owner_check.too_big(spec(small), load_bytes(small, "u.json").model) is None  # within budget


def test_a_real_multilingual_unigram_is_checked(members):  # noqa: F811
    """XLM-R's 250,000 pieces (nomic-bert-moe's GGUF), written as compact tokenizer.json
    (smaller than the indented file people download, so the bound is at its strictest):
    a real vocabulary's trie must fit, or the bound would refuse the files it is for."""
    name = "ggml-vocab-nomic-bert-moe.gguf"
    tok = tokenizer_from_gguf(gguf.read_tokenizer_bytes(members[name], name))
    assert len(tok.model.vocab) == 250_048
    assert owner_check.too_big(spec(tok.document_json), tok.model) is None


@pytest.fixture
def session():
    st.session_state.clear()
    yield st.session_state
    for worker in st.session_state.get(parity.FILE_ENCODERS, {}).values():
        worker.close()
    st.session_state.clear()


def upload(session, name, data):
    session[FILES_KEY] = {name: FileSource("tokenizer.json", ((name, data),),
                                           hashlib.sha256(data).hexdigest())}
    return load_bytes(data, name)


def test_the_badge_says_why_and_no_worker_starts(session):
    data = html_vocab()
    tok = upload(session, "html.json", data)
    check = parity.reference_check("html.json", "<b>1</b> &amp;2", tok)
    assert check.error.startswith("the owner library could not check this file (it was not run")
    assert not session.get(parity.FILE_ENCODERS)  # no worker was started for it


def test_a_refused_file_is_counted_once_per_session(session, monkeypatch):
    data = html_vocab()
    tok = upload(session, "html.json", data)
    counts = []
    count = owner_check.trie_nodes
    monkeypatch.setattr(owner_check, "trie_nodes", lambda pieces: counts.append(1) or count(pieces))
    for text in ("<b>1</b>", "&amp;2", "x"):  # three runs of the page
        assert parity.reference_check("html.json", text, tok).error.startswith(
            "the owner library could not check this file (it was not run")
    assert len(counts) == 1


def test_a_small_unigram_is_still_checked_in_its_worker(session):
    data = unigram(["ab", "abc", "b", "c", "a"])
    tok = upload(session, "u.json", data)
    check = parity.reference_check("u.json", "abcab cab", tok)
    assert not check.error and check.ok and check.library == "tokenizers"
    assert len(session[parity.FILE_ENCODERS]) == 1
