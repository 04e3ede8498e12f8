"""bpe.replay.merge_parents is a MergeParents read from the tokenizer's merge columns (issue
32: the Merge tree and Merge replay pages keep one per tokenizer, and a dict of tuples and
ints cost 17 MB for 100,000 merges). It must mean what {idx: pair for pair, idx in
merges.items()} meant, on fuzz, ids made twice included; and stay small, counted by
tracemalloc."""
import tracemalloc
from array import array

from hypothesis import given, settings
from hypothesis import strategies as st

from bpe.loading import load_bytes
from bpe.replay import MergeParents, merge_parents
from helpers.hostile_parts import bpe_merges

merge_lists = st.lists(st.tuples(st.integers(0, 300), st.integers(0, 300),
                                 st.one_of(st.integers(256, 270), st.integers(0, 10 ** 7))),
                       max_size=40)


@settings(max_examples=300, deadline=None)
@given(merge_lists)
def test_parents_mean_what_the_dict_meant(merges):
    want = {idx: (a, b) for a, b, idx in merges}  # an id made twice: first place, last pair
    got = MergeParents(*(array("q", column) for column in
                         ((m for _, _, m in merges), (a for a, _, _ in merges),
                          (b for _, b, _ in merges))))
    assert len(got) == len(want) and list(got) == list(want) and dict(got) == want
    for idx in [*want, -1, 255, 271, 10 ** 7 + 1, "a"]:
        assert (idx in got) == (idx in want)
        assert got.get(idx) == want.get(idx)


def test_a_big_files_parents_are_small_and_right():
    data = bpe_merges(100_000, byte_level=True)
    tok = load_bytes(data, "bpe.json")
    merge_parents(tok)
    tracemalloc.start()
    try:
        start = tracemalloc.get_traced_memory()[0]
        parents = merge_parents(tok)
        kept = tracemalloc.get_traced_memory()[0] - start
    finally:
        tracemalloc.stop()
    # ~28 B a merge: 0.8 x the file (a dict of tuples: ~4.7 x, 17 MB)
    assert kept <= len(data), f"{kept / len(data):.2f} x the file"
    assert dict(parents) == {idx: pair for pair, idx in tok.merges.items()}
