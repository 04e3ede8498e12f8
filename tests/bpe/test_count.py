"""Counting chunks piece by piece gives exactly the whole text's counts, in the same order."""
from collections import Counter

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from bpe import RegexTokenizer
from bpe.counting.chunks import count_chunks

PRESETS = ["gpt2", "gpt4", "gpt4o"]


def same_counts(tok, text, piece_chars):
    whole = Counter(tok.split(text))
    pieces = count_chunks(tok.split, text, piece_chars)
    assert list(pieces.items()) == list(whole.items())  # counts and first-occurrence order


@pytest.mark.parametrize("pattern", PRESETS)
@pytest.mark.parametrize("piece_chars", [64, 1000, 50_000])
def test_corpora(pattern, piece_chars, taylorswift, shakespeare):
    tok = RegexTokenizer(pattern)
    same_counts(tok, taylorswift, piece_chars)
    same_counts(tok, shakespeare[:200_000], piece_chars)


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("ab Z9'sdt.!?\n\r\t  \u00a0é한😉-")), max_size=300),
       st.integers(min_value=3, max_value=40), st.sampled_from(PRESETS))
def test_random_text_tiny_pieces(text, piece_chars, pattern):
    same_counts(RegexTokenizer(pattern), text, piece_chars)


def test_a_chunk_longer_than_a_piece():
    tok = RegexTokenizer()
    same_counts(tok, "x" * 1000 + " " * 700 + "y\n" * 50, 16)


def test_training_uses_it(taylorswift, monkeypatch):
    # training through small pieces makes the same merges as through one whole split
    tok = RegexTokenizer().train(taylorswift, 400)
    monkeypatch.setattr("bpe.counting.chunks.PIECE_CHARS", 997)
    small = RegexTokenizer().train(taylorswift, 400)
    assert small.merges == tok.merges and small.merge_counts == tok.merge_counts


@pytest.fixture
def small_overlap(monkeypatch):
    monkeypatch.setattr("bpe.counting.chunks.OVERLAP", 200)


@pytest.mark.parametrize("pattern", PRESETS)
@pytest.mark.parametrize("workers", [2, 3])
def test_parallel_equals_whole(pattern, workers, small_overlap, taylorswift, shakespeare):
    tok = RegexTokenizer(pattern)
    for text in (taylorswift, shakespeare[:300_000]):
        whole = Counter(tok.split(text))
        parallel = count_chunks(tok.split, text, 5000, workers=workers)
        assert list(parallel.items()) == list(whole.items())


@settings(max_examples=25, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])  # a constant patch
@given(st.lists(st.text(alphabet=st.sampled_from(list("ab Z9's.!\n\r\t  é😉")), max_size=60),
                min_size=40, max_size=80))
def test_parallel_random_text(small_overlap, parts):
    text = "".join(parts) * 3  # long enough for segments longer than the overlap
    tok = RegexTokenizer()
    assert list(count_chunks(tok.split, text, 50, workers=2).items()) == \
        list(Counter(tok.split(text)).items())


def test_parallel_falls_back_inside_one_huge_chunk(small_overlap):
    tok = RegexTokenizer()
    text = "a" * 5000 + " b" * 100
    assert count_chunks(tok.split, text, 300, workers=2) == Counter(tok.split(text))
