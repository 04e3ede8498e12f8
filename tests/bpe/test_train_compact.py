"""Big layouts are kept in compact arrays; they must train exactly as the lists do.

The array path only switches on past LIST_LIMIT positions (megabytes of unique
chunks), so these tests lower the limit instead of building a big corpus.
"""
import random

import pytest

import bpe.train
from bpe import BasicTokenizer, RegexTokenizer
from bpe.train import train_merges
from helpers.textbook import textbook_train


@pytest.fixture
def compact(monkeypatch):
    monkeypatch.setattr(bpe.train, "LIST_LIMIT", 8)


@pytest.mark.parametrize("seed", range(6))
def test_arrays_make_the_same_merges_as_lists(seed, monkeypatch):
    rng = random.Random(seed)
    # lengths that are and are not multiples of 4 and 8 (the array item sizes)
    words = [(bytes(rng.choice(b"abcde ") for _ in range(rng.randint(1, 12))),
              rng.randint(1, 5)) for _ in range(rng.randint(200, 400))]
    as_lists = train_merges(words, 256 + 80)
    monkeypatch.setattr(bpe.train, "LIST_LIMIT", 8)
    assert train_merges(words, 256 + 80) == as_lists


def test_compact_regex_training_equals_the_textbook_loop(compact, taylorswift):
    text = taylorswift[:20000]
    tok = RegexTokenizer().train(text, 256 + 40)
    merges, counts = textbook_train(text, 256 + 40, tok.pattern)
    assert list(tok.merges.items()) == list(merges.items())
    assert tok.merge_counts == counts


def test_compact_basic_training_equals_the_textbook_loop(compact):
    text = "the cat sat on the mat; the bat ate the rat " * 20
    tok = BasicTokenizer().train(text, 256 + 30)
    merges, counts = textbook_train(text, 256 + 30)
    assert list(tok.merges.items()) == list(merges.items())
    assert tok.merge_counts == counts
