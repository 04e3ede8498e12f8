"""bpe/patterns/gpt4_split.py: GPT-4's pattern run by the stdlib re gives exactly regex's chunks."""
import random

import pytest
import regex
from hypothesis import given, settings, strategies as st

import bpe.patterns.gpt4_split
from bpe.patterns import GPT4_SPLIT_PATTERN
from bpe.patterns.gpt4_split import gpt4_split

findall = regex.compile(GPT4_SPLIT_PATTERN).findall
HARD = list(" \t\n\r\x0b\x0c\x1c\x1f\x85\xa0\u2028\u3000'sSdDmMtTlLvVeErRxX019٣½aé한ſK😉\u200d!.<|>")


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.sampled_from(HARD), max_size=80) |
       st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=80))
def test_same_chunks_as_regex(text):
    assert gpt4_split(text) == findall(text)


def test_mostly_ascii_text_with_rare_non_ascii_runs():
    # long texts with few non-ASCII runs take the run-by-run path
    rng = random.Random(7)
    words = ["the", " cat", "'s", " 123", "\n\n", "  ", "!!", " x", "'LL", "\t", "\r\n"]
    for _ in range(200):
        parts = [rng.choice(words) for _ in range(rng.randint(100, 300))]
        for _ in range(rng.randint(1, 3)):
            parts.insert(rng.randrange(len(parts) + 1),
                         "".join(rng.choice(HARD[12:]) for _ in range(rng.randint(1, 4))))
        text = "".join(parts)
        assert len(text) >> bpe.patterns.gpt4_split.RARE_SHIFT >= 1
        assert gpt4_split(text) == findall(text)


def test_ascii_text_is_split_without_mapping(shakespeare):
    assert shakespeare.isascii() and gpt4_split(shakespeare) == findall(shakespeare)


def test_the_stand_in_table_stays_bounded(monkeypatch):
    monkeypatch.setattr(bpe.patterns.gpt4_split, "STAND_INS_LIMIT", 300)
    text = "".join(chr(cp) + " 's" for cp in range(0x4E00, 0x4E00 + 1000))  # CJK letters
    assert gpt4_split(text) == findall(text)
    assert len(bpe.patterns.gpt4_split._stand_ins) <= 300 + 2
    assert bpe.patterns.gpt4_split._stand_ins[ord(" ")] == ord(" ")  # ASCII survives a clear


RUNAWAY = r"(a|a)+$"
RUNAWAY_TEXT = "a" * 40 + "!" + "a" * 40


def _runaway(action):
    import time
    start = time.monotonic()
    with pytest.raises(ValueError, match=r"split pattern '\(a\|a\)\+\$' took more than"):
        action()
    return time.monotonic() - start


def test_runaway_pattern_stops_in_train_and_encode():
    from bpe import RegexTokenizer
    _runaway(lambda: RegexTokenizer(RUNAWAY).train(RUNAWAY_TEXT, 300))
    _runaway(lambda: RegexTokenizer(RUNAWAY).encode_ordinary(RUNAWAY_TEXT))


def test_runaway_pattern_stops_on_another_thread():
    import threading
    from bpe import RegexTokenizer
    errors = []

    def work():
        try:
            RegexTokenizer(RUNAWAY).encode_ordinary(RUNAWAY_TEXT)
        except ValueError as e:
            errors.append(str(e))
    thread = threading.Thread(target=work)
    thread.start()
    thread.join(timeout=120)
    assert not thread.is_alive() and errors and "(a|a)+$" in errors[0]
