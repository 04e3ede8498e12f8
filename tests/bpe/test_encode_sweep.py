"""bpe/encode.py's one long-chunk merger (apply_ranks_levels) gives tiktoken's ids:
pausing a sweep where a merge makes a pair ranked below its own (pause=True, what
apply_ranks uses), or declining there (pause=False: None, else the same ids).
Hand-made ranks make sweeps pause and resume, even nested, which trained ranks never do."""
import functools

import pytest
import tiktoken
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bpe import encode, reference
from bpe.formats.ranks import WHOLE_TEXT_PATTERN

BYTE_RANKS = {bytes([b]): b for b in range(256)}
HAND_MADE = [
    BYTE_RANKS | {b"aa": 300, b"aaa": 256, b"ab": 257},                  # lower rank appears
    BYTE_RANKS | {b"ab": 258, b"ba": 259, b"bab": 256, b"abab": 257, b"aab": 260},
    BYTE_RANKS | {b"ab": 256, b"bc": 257, b"abc": 258, b"ca": 259},      # "abc" two ways
    BYTE_RANKS | {b"ab": 300, b"cab": 280, b"dcab": 260, b"edcab": 256},  # pauses nest
]


@functools.lru_cache(maxsize=None)
def whole_text(ranks_id):
    ranks = HAND_MADE[ranks_id] if isinstance(ranks_id, int) else \
        reference.load_reference(ranks_id).ranks
    return ranks, tiktoken.Encoding(f"whole{ranks_id}", pat_str=WHOLE_TEXT_PATTERN,
                                    mergeable_ranks=ranks, special_tokens={})


def both_mergers(ranks_id, text):
    ranks, theirs = whole_text(ranks_id)
    expected = theirs.encode_ordinary(text)
    data = text.encode("utf-8")
    assert encode.apply_ranks_levels(data, ranks, pause=True) == expected
    declined = encode.apply_ranks_levels(data, ranks)
    assert declined is None or declined == expected
    return declined


@pytest.mark.parametrize("ranks_id", range(len(HAND_MADE)))
@settings(max_examples=50, deadline=None, suppress_health_check=list(HealthCheck))
@given(text=st.text("abcde", min_size=2, max_size=300))
def test_hand_made_ranks(ranks_id, text):
    both_mergers(ranks_id, text)


def test_a_sweep_pauses_for_a_lower_pair_and_resumes():
    # "aa" (300) merges, then "aa"+"a" is "aaa" (256), below it: the sweep of 300 pauses
    # there, "aaa" merges, and the sweep goes on where it stopped
    assert both_mergers(0, "aa aaaa ab aaaaaaa baa") is None
    # "ab" (300) makes "cab" (280), which makes "dcab" (260), which makes "edcab" (256):
    # three sweeps paused one inside the other
    assert both_mergers(3, "edcab ab edcabab cab" * 5) is None


@settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))
@given(text=st.text(st.sampled_from("xy^!. 0👍😉é\nthe cat"), min_size=64, max_size=3000))
def test_real_ranks(text):
    both_mergers("cl100k_base", text)
