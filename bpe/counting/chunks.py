"""Counting a text's chunks without holding them all: the first step of training.

findall on a 100 MB text builds tens of millions of small strings at once. Instead the
text is split a piece at a time and only the counts are kept. A piece's last chunks
may be cut short by the piece's end (a run of letters or spaces continuing past it),
so the last CARRY chunks are not counted but split again at the start of the next
piece. Counter keeps keys in order of first occurrence, which the trainer's tie rule
needs, and the pieces are visited in order, so that order survives too.

Big texts are counted by several processes, one segment each. A worker starting in
the middle of the text may cut its first chunks wrongly, so it also splits OVERLAP
characters before its segment, and the parent joins two neighbours at the first chunk
boundary they share: from a true boundary on, splitting depends only on what follows.

This is exact for patterns whose matches look ahead less than CARRY chunks and never
look behind: the presets (tests compare against splitting the whole text). Custom
patterns are split whole.
"""
import multiprocessing
import os
import threading
from collections import Counter
from itertools import accumulate

from ..text import PIECE_CHARS

CARRY = 2                  # chunks at a piece's end that are split again with the next piece
OVERLAP = 1 << 14          # characters a worker splits before its segment, to find a boundary
PARALLEL_MIN = 8 << 20     # texts shorter than this are counted in one process

_job = None  # (split, text), inherited by forked workers instead of being pickled


def count_chunks(split, text, piece_chars=None, workers=1):
    """Counter of split(text), in order of first occurrence, split piece by piece.

    >>> import regex
    >>> count_chunks(regex.compile(r"\\w+|\\s+").findall, "to be or not to be", 7)
    Counter({' ': 5, 'to': 2, 'be': 2, 'or': 1, 'not': 1})
    """
    piece_chars = piece_chars or PIECE_CHARS
    if workers > 1:
        counts = _count_parallel(split, text, piece_chars, workers)
        if counts is not None:
            return counts
    counts = Counter()
    for _, keep in _pieces(split, text, 0, len(text), piece_chars):
        counts.update(keep)
    return counts


def auto_workers(text):
    """How many processes should count text: all usable cores for a big text, if this process
    can fork safely (forking a process with other threads running can deadlock)."""
    if len(text) < PARALLEL_MIN or threading.active_count() > 1 or \
            "fork" not in multiprocessing.get_all_start_methods():
        return 1
    return min(usable_cores(), 8)


def usable_cores():
    """The cores this process may run on (its affinity mask: a process pinned to one core,
    or a container's cpuset, gets no gain from forking more counters than that)."""
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0)) or 1
    return os.cpu_count() or 1


def _pieces(split, text, start, end, piece_chars):
    """Yield (position, chunks) splitting text[start:end] a piece at a time. Unless end
    is the end of the text, the last CARRY chunks of text[start:end] are never yielded."""
    while True:
        stop = min(start + piece_chars, end)
        chunks = split(text[start:stop])
        if stop == len(text):
            yield start, chunks
            return
        if len(chunks) <= CARRY and stop < end:
            piece_chars *= 2  # a chunk longer than the piece: look further
            continue
        keep = chunks[:-CARRY]
        yield start, keep
        start += sum(map(len, keep))
        if stop == end:
            return


def _count_parallel(split, text, piece_chars, workers):
    global _job
    cuts = [len(text) * i // workers for i in range(workers + 1)]
    segments = [(max(lo - OVERLAP, 0), lo, hi, piece_chars)
                for lo, hi in zip(cuts, cuts[1:])]
    _job = (split, text)
    try:
        with multiprocessing.get_context("fork").Pool(workers) as pool:
            results = pool.map(_count_segment, segments)
    finally:
        _job = None
    total = Counter()
    for i, (head, counts, tail, end) in enumerate(results):
        if i:
            _, _, prev_tail, prev_end = results[i - 1]
            shared = {start for start, _ in prev_tail} | {prev_end}
            b = next((start for start, _ in head if start in shared), None)
            if b is None:
                return None  # no boundary in common (one enormous chunk): count in one go
            for start, chunk in prev_tail:
                if start >= b:
                    total[chunk] -= 1
                    if not total[chunk]:
                        del total[chunk]
            total.update([chunk for start, chunk in head if start >= b])
        total.update(counts)
    return total


def _count_segment(segment):
    """In a worker: count the chunks of one segment. Returns (head, counts, tail, end):
    head, the (start, chunk) pairs near the segment's start, left uncounted for the
    parent to join; tail, the counted pairs near its end; end, where counting stopped."""
    split, text = _job
    begin, lo, hi, piece_chars = segment
    head_end = lo + OVERLAP if begin < lo else 0
    tail_start = hi - OVERLAP if hi < len(text) else len(text) + 1
    head, tail, counts = [], [], Counter()
    end = begin
    for pos, keep in _pieces(split, text, begin, hi, piece_chars):
        end = pos + sum(map(len, keep))
        if pos >= head_end and end < tail_start:
            counts.update(keep)
            continue
        for start, chunk in zip(accumulate(map(len, keep), initial=pos), keep):
            if start < head_end:
                head.append((start, chunk))
            else:
                counts[chunk] += 1
                if start >= tail_start:
                    tail.append((start, chunk))
    return head, counts, tail, end
