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
from typing import NamedTuple

PIECE_CHARS = 1 << 20      # characters split at a time
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
    """How many processes should count text: all cores for a big text, if this process
    can fork safely (forking a process with other threads running can deadlock)."""
    if len(text) < PARALLEL_MIN or threading.active_count() > 1 or \
            "fork" not in multiprocessing.get_all_start_methods():
        return 1
    return min(os.cpu_count() or 1, 8)


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


# --------------------------------------------------------------------- parts
# A text too big to hold is counted as a sequence of stretches (pieces of a stream, byte
# ranges of files on other machines, whole files counted into counts files). Each
# stretch becomes a Part; parts are joined left to right with the same argument as the
# parallel join above, so the result is the whole text's counts in the same order.

HEAD_CHARS = OVERLAP  # characters of a part's first chunks kept apart for the join
HEAD_CHUNKS = 4 * CARRY  # ... and at least this many chunks


class Part(NamedTuple):
    """The chunks of one stretch of text, split as if the stretch stood alone.

    head: its first chunks (at least HEAD_CHARS characters and HEAD_CHUNKS chunks, or
        all there are), not counted: the text before the stretch may split them
        differently, so the join decides which of them stand.
    counts: Counter of the chunks after head, in order of first occurrence.
    tail: its last characters, not yet split for good (what follows may change them).
    A part whose counts are empty holds its whole text as head + tail.
    """
    head: list
    counts: Counter
    tail: str


class PartCounter:
    """Counts a stream of text fed a piece at a time into a Part, in bounded memory:
    the counts plus at most about piece_chars characters of text.

    >>> import regex
    >>> pc = PartCounter(regex.compile(r"\\w+|\\s+").findall)
    >>> for piece in ["to be o", "r not t", "o be"]:
    ...     pc.feed(piece)
    >>> finish(pc.part(), pc.split)
    Counter({' ': 5, 'to': 2, 'be': 2, 'or': 1, 'not': 1})
    """

    def __init__(self, split, piece_chars=None, part=None):
        self.split = split
        self.piece_chars = piece_chars or PIECE_CHARS
        head, counts, tail = part or ([], Counter(), "")
        self.head, self.counts = list(head), counts
        self.head_chars = sum(map(len, self.head))
        self.buffer = [tail] if tail else []  # text fed but not yet split
        self.buffered = len(tail)
        self.threshold = self.piece_chars

    def feed(self, text):
        """Add the next piece of the text (any length, cut anywhere)."""
        if text:
            self.buffer.append(text)
            self.buffered += len(text)
            if self.buffered >= self.threshold:
                self.flush()

    def flush(self):
        """Split what is buffered, keeping back the last CARRY chunks."""
        if not self.buffer:
            return
        text = "".join(self.buffer)
        chunks = self.split(text)
        if len(chunks) <= CARRY:
            # one chunk longer than a piece (a long run of spaces): wait for more text,
            # and split again only once the buffer has doubled, not at every feed
            self.buffer = [text]
            self.threshold = 2 * len(text)
            return
        keep = chunks[:-CARRY]
        rest = text[sum(map(len, keep)):]
        self.buffer = [rest] if rest else []
        self.buffered = len(rest)
        self.threshold = self.piece_chars
        self._push(keep)

    def _push(self, chunks):
        """Count chunks that are final, filling the head first."""
        if self.head_chars < HEAD_CHARS or len(self.head) < HEAD_CHUNKS:
            i = 0
            while i < len(chunks) and (self.head_chars < HEAD_CHARS or
                                       len(self.head) < HEAD_CHUNKS):
                self.head.append(chunks[i])
                self.head_chars += len(chunks[i])
                i += 1
            chunks = chunks[i:]
        self.counts.update(chunks)

    def part(self):
        """The Part of everything fed so far."""
        self.flush()
        return Part(self.head, self.counts, "".join(self.buffer))


def join(left, right, split):
    """The Part of left's text followed by right's. left must begin at the true start of
    the text (its head and counts are final); right may begin anywhere, even inside a
    chunk or between \\r and \\n. Consumes both.

    The join re-splits left's tail with right's head and finds the first chunk boundary
    that this split and right's own split share; from there on both agree, because
    splitting depends only on what follows a true boundary.
    """
    out = PartCounter(split, part=left)
    if not right.counts:  # a short right part: its whole text is head + tail
        out.feed("".join(right.head) + right.tail)
        out.flush()
        return out.part()
    text = left.tail + "".join(right.head)
    chunks = split(text)
    bounds = set(accumulate(map(len, right.head), initial=len(left.tail)))
    start = 0
    # subtle: the last CARRY chunks of text may be cut short by its end, which is not
    # the end of right's text, so a boundary among them proves nothing
    for i, chunk in enumerate(chunks[:len(chunks) - CARRY]):
        if start in bounds:
            break
        start += len(chunk)
    else:
        raise ValueError(
            f"cannot join two stretches of text: the first {len(text):,} characters after "
            "the cut hold no chunk boundary both sides agree on (one enormous chunk); "
            "cut the text elsewhere, e.g. at a line break")
    out._push(chunks[:i])
    offset = len(left.tail)
    j = 0
    while offset < start:
        offset += len(right.head[j])
        j += 1
    out._push(right.head[j:])
    out.counts.update(right.counts)  # keeps right's order for chunks new to the left
    out.buffer = [right.tail] if right.tail else []
    out.buffered = len(right.tail)
    return out.part()


def join_all(parts, split):
    """Join an iterable of Parts, in order; the first begins at the text's start."""
    total = None
    for part in parts:
        total = part if total is None else join(total, part, split)
    return total if total is not None else Part([], Counter(), "")


def finish(part, split):
    """The Counter of the whole text (part begins at its start and runs to its end),
    in order of first occurrence. Consumes part."""
    return Counter(dict(chunk_items(part, split)))


def chunk_items(part, split):
    """Yield (chunk, count) of the whole text in order of first occurrence, without
    copying the counts (they can be most of the memory). Consumes part."""
    first = Counter(part.head)  # the head's chunks come first, whatever counts' order
    counts = part.counts
    for chunk in first:
        first[chunk] += counts.pop(chunk, 0)
    for chunk in split(part.tail) if part.tail else ():
        if chunk in first:
            first[chunk] += 1
        else:
            counts[chunk] += 1  # a chunk new to counts goes last: its first occurrence
    yield from first.items()
    yield from counts.items()
