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
