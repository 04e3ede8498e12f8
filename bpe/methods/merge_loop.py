"""The driver of bpe.methods.merging.Words for the variants that only merge
(BoundlessBPE; Picky and Parity add their own steps around Words): merge_until picks and
merges the best pair until a stop reason, Clock reports each merge as bpe.train's
progress does, and gc_paused keeps Python's cyclic collector off while a layout of
millions of small objects is built and merged.

It knows nothing of layouts or text: anything with best(), merge() and vocab will do.
"""
import gc
import time
from contextlib import contextmanager

from ..train import MergeProgress


@contextmanager
def gc_paused():
    """Python's cyclic garbage collector off for the block (on again after, if it was
    on). A layout holds millions of small lists and tuples and no reference cycle, and
    while it is built and merged every full collection walks all of it: about a quarter
    of SuperBPE's and BoundlessBPE's training on tinyshakespeare (bench/results/methods.md).
    Reference counting still frees everything as usual."""
    was_on = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_on:
            gc.enable()


class Clock:
    """Reports each merge to progress as bpe.train does (a MergeProgress)."""

    def __init__(self, progress, total):
        self.progress = progress
        self.total = total
        self.start = time.perf_counter()
        self.done = 0

    def tick(self, idx, pair, token, count):
        self.done += 1
        if self.progress is not None:
            self.progress(MergeProgress(self.done, self.total, idx, pair, token, count,
                                        time.perf_counter() - self.start))


def merge_until(words, size, min_frequency, clock, merges, merge_counts):
    """Merge words' best pair, one new id after another from 256 + len(merges), until the
    vocabulary reaches size ids, no pair is left, or the best pair occurs fewer than
    min_frequency times; merges and merge_counts grow in place. The stop reason."""
    idx = 256 + len(merges)
    while idx < size:
        found = words.best()
        if found is None:
            return "no_pairs"
        pair, count = found
        if count < min_frequency:
            return "min_frequency"
        words.merge(pair, idx)
        merges[pair] = idx
        merge_counts[idx] = count
        clock.tick(idx, pair, words.vocab[idx], count)
        idx += 1
    return "vocab_size"
