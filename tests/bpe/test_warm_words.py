"""Encoding by words (bpe/patterns/fast_split.py, FastSplit.encode): the same ids as chunk by
chunk and as each owner's library, with the word dict carried from text to text, on real
text and on fuzz made of the characters that decide where a space may be cut; a known word
costs one look-up, and the dict stays bounded."""
import functools

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bpe import reference
from bpe.base import Tokenizer
from bpe.patterns import GPT2_SPLIT_PATTERN, GPT4O_SPLIT_PATTERN, fast_split
from lab import parity

NAMES = ["cl100k_base", "r50k_base", "o200k_base", "llama3", "llama4", "tekken"]
# spaces after every kind of white space (and after the glue character itself), letters of
# both cases, contractions, digits, punctuation, the \x1c-\x1f that are white space to `re`
# but not to the patterns, and a few non-ASCII characters (mapped stretches between words)
ALPHABET = [" ", "  ", "\n", "\n ", " \n", "\t", "\r", "\r\n", "\x0b", "\x0c", "\x00", "\x1c",
            "\x1f", "\x85", "\u2028", "\u3000 ", "\u00a0 ", "a", "Z", "hello", "World", "'s", "'LL", "'t", "7", "1234", ".", ",",
            "!?", "/", "-", "é", "\u00a0", "\u3000", "한", "ا\u0301", "😉"]
TEXTS = st.lists(st.sampled_from(ALPHABET), max_size=40).map("".join)

owner_encoder = functools.lru_cache(maxsize=None)(parity.owner_encoder)
load = functools.lru_cache(maxsize=None)(reference.load_reference)


@pytest.mark.parametrize("name", NAMES)
def test_fuzz_equals_chunk_by_chunk_and_the_owner(name):
    tok = load(name)  # one tokenizer for every example: its word dict fills as it goes
    encode = owner_encoder(name)[1]

    @settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck))
    @given(st.lists(TEXTS, min_size=1, max_size=4))
    def check(texts):
        for text in texts + ["".join(texts)]:  # words met alone, then again in a longer text
            ids = tok.encode_ordinary(text)
            assert ids == Tokenizer.encode_ordinary(tok, text), repr(text)  # chunk by chunk
            assert ids == encode(text), repr(text)
    check()


@pytest.mark.parametrize("name", ["cl100k_base", "o200k_base", "llama3"])
def test_corpora_twice_equal_the_owner(name, taylorswift, shakespeare):
    """The first pass fills the word dict, the second reads it: both are the owner's ids."""
    tok, encode = load(name), owner_encoder(name)[1]
    for text in (shakespeare[:300_000], taylorswift, shakespeare[:300_000]):
        assert parity.compare(tok.encode_ordinary(text), encode(text)) == ""


class Counting(dict):
    """chunk -> its length as its one id, counting the look-ups."""

    def __init__(self):
        super().__init__()
        self.lookups = 0

    def __getitem__(self, chunk):
        self.lookups += 1
        return super().__getitem__(chunk)

    def __missing__(self, chunk):
        return [len(chunk)]


def test_a_known_word_costs_no_chunk_lookup():
    split = fast_split.for_pattern(GPT4O_SPLIT_PATTERN)
    text = "First Citizen:\nBefore we proceed any further, hear me speak.\n\n" * 50
    chunk_ids, words = Counting(), {}
    first = split.encode(text, chunk_ids, words)
    assert first == [len(chunk) for chunk in split(text)]
    chunk_ids.lookups = 0
    assert split.encode(text, chunk_ids, words) == first
    assert chunk_ids.lookups == 1  # "First", before the first space; every word is known


def test_the_word_dict_is_bounded_and_keeps_no_long_word(monkeypatch):
    monkeypatch.setattr(fast_split, "WORDS_LIMIT", 50)
    split = fast_split.for_pattern(GPT2_SPLIT_PATTERN)
    words = {}
    for i in range(40):
        split.encode(" ".join(f"w{i}x{j}" for j in range(30)), Counting(), words)
        assert len(words) <= 50
    long_word = "y" * (fast_split.WORD_CHARS + 1)
    assert split.encode(f"a {long_word} b", Counting(), words) == [1, fast_split.WORD_CHARS + 2, 2]
    assert long_word not in words and "b" in words


def test_text_holding_the_glue_character_is_split_chunk_by_chunk():
    split = fast_split.for_pattern(GPT2_SPLIT_PATTERN)
    text = "a\x00 b  c\n d"
    assert split.encode(text, Counting(), {}) == [len(chunk) for chunk in split(text)]


def test_every_white_space_is_glued():
    """A space after any character the patterns call white space (regex's \\s) is glued:
    missing one would cut a chunk such as "\\u3000 " in two."""
    import regex
    listed = set("".join(fast_split.WHITE_SPACE))
    missed = [hex(cp) for cp in range(0x110000)
              if cp != 0x20 and regex.fullmatch(r"\s", chr(cp)) and chr(cp) not in listed]
    assert missed == []
