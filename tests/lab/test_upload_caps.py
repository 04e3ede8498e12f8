"""Uploaded tokenizers are capped per session (count and bytes of files) and per server
(bytes over every live session): past a cap the loader gets a sentence naming it, and a
session that ends gives its share back. (Four 27 MB uploads once took +2.56 GB.)"""
import gc

import pytest

from bpe import RegexTokenizer
from lab import state
from tests.lab.test_lab_state import run

CORPUS = "the year 2026 had 365 days, and the days had 24 hours. " * 40


@pytest.fixture(scope="module")
def models():
    return {f"m{k}.model": RegexTokenizer("gpt4").train(CORPUS, 256 + 10 + k).model_text().encode()
            for k in range(4)}


def test_the_session_cap_is_a_sentence(models, monkeypatch):
    monkeypatch.setattr(state, "SESSION_UPLOADS", 2)
    at = run(files=models)
    assert len(at.success) == 2
    assert any("a session may hold 2" in e.value for e in at.error), [e.value for e in at.error]


def test_the_server_cap_counts_every_session_and_frees_with_it(models, monkeypatch):
    one = len(next(iter(models.values())))
    gc.collect()  # sessions of earlier tests may still be held: count from what is
    monkeypatch.setattr(state, "SERVER_UPLOAD_BYTES", state.held_upload_bytes() + int(2.5 * one))
    first = run(files=dict(list(models.items())[:2]))
    assert len(first.success) == 2 and not first.error
    second = run(files=dict(list(models.items())[2:3]))  # another session: the server is full
    assert any("This server holds" in e.value for e in second.error), second.error
    del first, second
    gc.collect()  # the first session is gone: its files no longer count
    third = run(files=dict(list(models.items())[3:]))
    assert len(third.success) == 1 and not third.error


def field(number, payload):
    """One length-delimited protobuf field (payloads under 128 KB here)."""
    size = len(payload)
    varint = bytes([size & 0x7F | 0x80, size >> 7]) if size >= 0x80 else bytes([size])
    return bytes([number << 3 | 2]) + varint + payload


def test_a_sentencepiece_model_is_opened_in_a_worker_first(taylorswift, monkeypatch):
    """bpe runs a .model through sentencepiece in the server's process, so the loader first
    opens it (and encodes with it) in a capped worker: a model sentencepiece fails on (here
    a normalizer charsmap of garbage, appended: protobuf merges it over the real one) is
    refused with the owner's sentence, and the server's process never opened the file."""
    import random
    import struct

    from bpe.sentencepiece_bpe import SentencePieceBPE
    model = SentencePieceBPE().train(taylorswift[:30_000], 400).model_proto
    assert len(run(files={"sp.model": model}).success) == 1  # a sound model loads
    garbage = random.Random(1).randbytes(4096)
    bad = model + field(3, field(2, struct.pack("<I", 4096) + garbage + b"abc\0"))
    opened = []
    monkeypatch.setattr(state.loading, "load_sentencepiece", lambda *a, **k: opened.append(a))
    at = run(files={"bad.model": bad})
    assert any("bad.model: the owner library could not check this file" in e.value
               for e in at.error), [e.value for e in at.error]
    assert not opened
