"""Long single chunks encode exactly as tiktoken does: the issue-13 cases, hypothesis
strings built to be long and repetitive (the rank-at-a-time str.replace path) or long and
varied (the levels and cut paths), cl100k and o200k, and hand-made ranks where the fast
path must give up."""
import functools

import pytest
import tiktoken
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bpe import encode, reference
from bpe.formats.ranks import WHOLE_TEXT_PATTERN, tiktoken_kwargs

CASES = ["x" * 1_000_000, "👍" * 100_000, "^" * 100_000, " " * 100_000, "0" * 100_000,
         "ab" * 50_000, "a😉 " * 20_000]
ALPHABET = "xy^!. 0👍😉é\n"


@functools.lru_cache(maxsize=None)
def o200k():
    """(ours, tiktoken's Encoding built from the same ranks and pattern)."""
    ours = reference.load_reference("o200k_base")
    return ours, tiktoken.Encoding(**tiktoken_kwargs(ours, name="o200k_base"))


@functools.lru_cache(maxsize=None)
def whole_text(name):
    """(ranks, their joinable table, tiktoken over the same ranks with the whole text as
    one chunk, so every text reaches the merge loop in one piece). The table is built
    once per name: built per example it was half of the fuzz test's time."""
    ours = reference.load_reference(name)
    return ours.ranks, encode.joinable_table(ours.ranks), tiktoken.Encoding(
        f"{name}_whole", pat_str=WHOLE_TEXT_PATTERN, mergeable_ranks=ours.ranks,
        special_tokens={})


def test_random_letters_megabyte(gpt4, cl100k):
    import random
    import string
    rng = random.Random(0)
    text = "".join(rng.choice(string.ascii_letters) for _ in range(200_000))
    assert gpt4.encode_ordinary(text) == cl100k.encode_ordinary(text)


@pytest.mark.parametrize("text", CASES, ids=lambda t: f"{t[:3]!r}x{len(t)}")
def test_issue_cases_cl100k(gpt4, cl100k, text):
    assert gpt4.encode_ordinary(text) == cl100k.encode_ordinary(text)


@pytest.mark.parametrize("text", CASES, ids=lambda t: f"{t[:3]!r}x{len(t)}")
def test_issue_cases_o200k(text):
    ours, theirs = o200k()
    assert ours.encode_ordinary(text) == theirs.encode_ordinary(text)


repetitive = st.builds(lambda unit, n, tail: unit * n + tail,
                       st.text(st.sampled_from(ALPHABET), min_size=1, max_size=6),
                       st.integers(1, 4000), st.text(st.sampled_from(ALPHABET), max_size=8))
varied = st.text(st.sampled_from(ALPHABET), min_size=500, max_size=20_000)


@settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
@given(text=repetitive | varied, name=st.sampled_from(["cl100k_base", "o200k_base"]))
def test_long_chunks_equal_tiktokens(text, name):
    ranks, joinable, theirs = whole_text(name)
    expected = theirs.encode_ordinary(text)
    data = text.encode("utf-8")
    assert encode.apply_ranks(data, ranks, joinable=joinable) == expected
    fast = encode.apply_ranks_replace(data, ranks)
    assert fast is None or fast == expected


@settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))
@given(text=repetitive | varied)
def test_through_the_split_pattern(text):
    ours, theirs = o200k()
    assert ours.encode_ordinary(text) == theirs.encode_ordinary(text)


# Hand-made ranks: merges a trained BPE never makes (a pair of lower rank than the merge
# that made it; one token with two spellings), so the fast path must decline or agree.
BYTE_RANKS = {bytes([b]): b for b in range(256)}
HAND_MADE = [
    BYTE_RANKS | {b"aa": 300, b"aaa": 256, b"ab": 257},                 # lower rank appears
    BYTE_RANKS | {b"ab": 256, b"bc": 257, b"abc": 258, b"ca": 259},     # "abc" two ways
    BYTE_RANKS | {b"ba": 256, b"ab": 257, b"aba": 258, b"bab": 259, b"abab": 260},
]


@pytest.mark.parametrize("ranks", HAND_MADE, ids=range(len(HAND_MADE)))
@settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))
@given(text=st.builds(lambda u, n, t: u * n + t, st.text("abc", min_size=1, max_size=5),
                      st.integers(1, 400), st.text("abc", max_size=5)))
def test_hand_made_ranks(ranks, text):
    theirs = tiktoken.Encoding("hand", pat_str=WHOLE_TEXT_PATTERN, mergeable_ranks=ranks,
                               special_tokens={})
    expected = theirs.encode_ordinary(text)
    data = text.encode()
    assert encode.apply_ranks(data, ranks, joinable=encode.joinable_table(ranks)) == expected
    fast = encode.apply_ranks_replace(data, ranks)
    assert fast is None or fast == expected


def test_fast_path_declines():
    ranks = HAND_MADE[0]
    assert encode.apply_ranks_replace(b"aaaa" * 200, ranks) is None      # "aaa" < "aa"
    assert encode.apply_ranks_replace(bytes(range(64)) * 20, ranks) is None  # many bytes
    assert encode.apply_ranks_replace(b"ab" * 400, {b"a": 0, b"ab": 1}) is None  # no b"b"
    assert encode.apply_ranks_replace(b"ab" * 400, ranks) == [257] * 400
