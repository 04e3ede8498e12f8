"""Parts: a text too big to hold, counted as a sequence of stretches (pieces of a stream,
byte ranges of files on other machines, whole files counted into counts files) and joined
left to right, exactly: the result is the whole text's chunk counts, in the same order.

A stretch's first chunks may be split wrongly (it may begin inside a long run), so each
Part keeps its head apart, uncounted, up to the first "sure pair" (two characters no chunk
of the preset can hold side by side); join re-splits there. chunks.py counts one text in
memory; this file joins what was counted apart. It does not read files (stream.py does).
"""
from collections import Counter
from itertools import accumulate
from typing import NamedTuple

import regex

from ..patterns import PATTERNS
from .chunks import CARRY, OVERLAP, PIECE_CHARS

# --------------------------------------------------------------------- parts
# A text too big to hold is counted as a sequence of stretches (pieces of a stream, byte
# ranges of files on other machines, whole files counted into counts files). Each
# stretch becomes a Part; parts are joined left to right with the same argument as the
# parallel join above, so the result is the whole text's counts in the same order.

HEAD_CHARS = OVERLAP  # characters of a part's first chunks kept apart for the join
HEAD_CHUNKS = 4 * CARRY  # ... and at least this many chunks
FEED_CHUNKS = 1 << 16  # head chunks fed to a PartCounter at a time by join

# Sure pairs: two characters that no chunk of a preset can hold side by side, so every
# split of every text has a chunk boundary between them, whatever came before. A stretch
# that begins inside a long run (digits cut in threes by \p{N}{1,3}, GPT-4o's "a's's's...")
# may split the whole run in another phase than the whole text does, so no boundary of
# its own split can be trusted until the first sure pair; a part's head runs at least that
# far, and join re-splits up to it.
#
# Why each rule holds (x, y: the characters before and after the boundary). A chunk holds
# x then y only if some alternative of the pattern can consume x then y; and a match, or
# an attempt that fails, starting before the boundary never reads past y (it would have to
# consume x then y), so one character after it is all the split needs to see.
# - x a digit, y not: digits are only consumed by \p{N}{1,3} (gpt4, gpt4o) or ` ?\p{N}++`
#   (gpt2), followed by nothing; every other class excludes \p{N}.
# - x a letter, y whitespace or a digit: a letter is followed only by letters (and in
#   gpt4o marks and the "'" of 's 't 're 've 'm 'll 'd).
# - x a letter, y other (not whitespace, letter or digit): gpt2 and gpt4 consume letters
#   only before letters; gpt4o also before marks (\p{M}) and "'", so those are left out.
# - x other, y whitespace but not \r \n: "other" runs are followed only by other (gpt2),
#   letters (the one-character prefix of gpt4's and gpt4o's letter runs), \r \n (gpt4's
#   [\r\n]*, gpt4o's [\r\n/]*) or "/" (gpt4o).
# - x \r or \n, y not whitespace: \r \n are consumed only by the whitespace alternatives
#   and by gpt4's [\r\n]* / gpt4o's [\r\n/]* after "other" runs (so gpt4o leaves out "/");
#   the letter prefixes are [^\r\n\p{L}\p{N}] and the ` ?` prefixes are a space.
# tests/bpe/test_long_chunks_join.py checks them against every split of every short text.
_SURE_COMMON = r"\p{N}\P{N}|\p{L}[\s\p{N}]|[^\s\p{L}\p{N}][^\S\r\n]"
SURE_PAIRS = {
    "gpt2": _SURE_COMMON + r"|\p{L}[^\s\p{L}\p{N}]|[\r\n]\S",
    "gpt4": _SURE_COMMON + r"|\p{L}[^\s\p{L}\p{N}]|[\r\n]\S",
    "gpt4o": _SURE_COMMON + r"|\p{L}[^\s\p{L}\p{N}\p{M}']|[\r\n][^\s/]",
}
_sure_compiled = {}


def sure_pairs(split):
    """The compiled regex of split's sure pairs (see above), or None when split is not a
    preset's (a custom pattern, a test's regex): then parts keep HEAD_CHARS of head and
    join looks for a boundary both splits share, as before sure pairs. split is a
    RegexTokenizer's split or a compiled pattern's findall; both know their pattern
    (other tokenizers may name a preset's pattern but split otherwise: no rule for them)."""
    owner = getattr(split, "__self__", None)
    is_regex = isinstance(owner, regex.Pattern)
    pattern = owner.pattern if is_regex or getattr(owner, "is_preset", False) else None
    if pattern not in _sure_compiled:
        name = next((k for k, v in PATTERNS.items() if v == pattern), None)
        _sure_compiled[pattern] = regex.compile(SURE_PAIRS[name]) if name else None
    return _sure_compiled[pattern]


def first_sure(sure, chunks, before=""):
    """The index of the first of chunks that begins at a sure boundary (the one before
    chunks[0] counts if before, the text in front of them, ends with a sure pair's first
    character), or None."""
    if sure is None or not chunks:
        return None
    before = before[-1:]
    m = sure.search(before + "".join(chunks))
    if m is None:
        return None
    at = m.start() + 1 - len(before)  # where the boundary is, in the chunks' text
    pos = 0
    for i, chunk in enumerate(chunks):
        if pos >= at:
            break
        pos += len(chunk)
    if pos != at:  # a sure pair inside a chunk: the rules above are wrong
        raise AssertionError(f"bpe.counting.chunks: {m.group()!r} is no boundary of this split")
    return i


class Part(NamedTuple):
    """The chunks of one stretch of text, split as if the stretch stood alone.

    head: its first chunks, not counted: the text before the stretch may split them
        differently, so the join decides which of them stand. At least HEAD_CHARS
        characters and HEAD_CHUNKS chunks and, for a preset, at least one chunk after
        the first sure boundary (however far that is), or all there are.
    counts: Counter of the chunks after head, in order of first occurrence.
    tail: its last characters, not yet split for good (what follows may change them).
    A part whose counts are empty holds its whole text as head + tail.
    """
    head: list
    counts: Counter
    tail: str


class PartCounter:
    """Counts a stream of text fed a piece at a time into a Part, in bounded memory:
    the counts plus at most about piece_chars characters of text (and the head, which
    is short unless the text begins with a long run holding no sure pair).

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
        self.sure = sure_pairs(split)
        head, counts, tail = part or ([], Counter(), "")
        self.head, self.counts = list(head), counts
        self.head_chars = sum(map(len, self.head))
        # a part with counts had its head filled; otherwise see whether it has its anchor
        self.anchored = bool(counts) or self.sure is None or \
            first_sure(self.sure, self.head) is not None
        self.head_done = bool(counts)
        self._same = {}  # one str per distinct head chunk: a long head of digits is small
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

    def cut(self, after):
        """Count everything buffered as final: the buffer ends at a sure boundary, and
        after is the text that follows it (at least one character; only read)."""
        text = "".join(self.buffer)
        keep, pos = [], 0
        for chunk in self.split(text + after):
            if pos >= len(text):
                break
            keep.append(chunk)
            pos += len(chunk)
        if pos != len(text):
            raise AssertionError("bpe.counting.chunks: cut at a position that is no boundary")
        self.buffer, self.buffered, self.threshold = [], 0, self.piece_chars
        self._push(keep)

    def _push(self, chunks):
        """Count chunks that are final, filling the head first."""
        if not self.head_done:
            i = self._head_room(chunks)
            self.head += map(self._same.setdefault, chunks[:i], chunks[:i])
            self.head_chars += sum(map(len, chunks[:i]))
            chunks = chunks[i:]
            if chunks:
                self.head_done = True
                self._same = {}
        self.counts.update(chunks)

    def _head_room(self, chunks):
        """How many of chunks (the next final ones) the head must take."""
        i = max(HEAD_CHUNKS - len(self.head), 0)
        chars = self.head_chars + sum(map(len, chunks[:i]))
        while i < len(chunks) and chars < HEAD_CHARS:
            chars += len(chunks[i])
            i += 1
        if not self.anchored:
            at = first_sure(self.sure, chunks, self.head[-1] if self.head else "")
            if at is None:
                return len(chunks)
            self.anchored = True
            i = max(i, at + 1)  # the chunk after the boundary too: the join reads it
        return min(i, len(chunks))

    def part(self):
        """The Part of everything fed so far."""
        self.flush()
        return Part(self.head, self.counts, "".join(self.buffer))


def _feed_chunks(counter, chunks):
    for i in range(0, len(chunks), FEED_CHUNKS):
        counter.feed("".join(chunks[i:i + FEED_CHUNKS]))


def join(left, right, split):
    """The Part of left's text followed by right's. left must begin at the true start of
    the text (its head and counts final); right may begin anywhere, even inside a
    chunk or between \\r and \\n. Consumes both.

    For a preset, right's head reaches past its first sure boundary (or right has no
    counts): left's tail and right's head up to that boundary are counted as one text,
    and from the boundary on right's own chunks are the true ones. Otherwise (a custom
    pattern, a counts file from before sure boundaries) join re-splits left's tail with
    right's head and finds the first chunk boundary that this split and right's own split
    share; from there on both agree, because splitting depends only on what follows a
    true boundary. ValueError if there is none.
    """
    out = PartCounter(split, part=left)
    if not right.counts:  # a short right part: its whole text is head + tail
        _feed_chunks(out, right.head)
        out.feed(right.tail)
        out.flush()
        return out.part()
    at = first_sure(out.sure, right.head, left.tail)
    if at is not None:
        _feed_chunks(out, right.head[:at])
        out.cut(right.head[at])
    else:
        at = _shared_boundary(out, right.head, split)
    out._push(right.head[at:])
    out.counts.update(right.counts)  # keeps right's order for chunks new to the left
    out.buffer = [right.tail] if right.tail else []
    out.buffered = len(right.tail)
    return out.part()


def _shared_boundary(out, head, split):
    """Re-split out's buffer (left's tail) with head; push the chunks before the first
    boundary both splits share and return the index in head of the chunk it starts."""
    tail = "".join(out.buffer)
    text = tail + "".join(head)
    chunks = split(text)
    bounds = set(accumulate(map(len, head), initial=len(tail)))
    start = 0
    # subtle: the last CARRY chunks of text may be cut short by its end, which is not
    # the end of right's text, so a boundary among them proves nothing
    for i, chunk in enumerate(chunks[:len(chunks) - CARRY]):
        if start in bounds:
            break
        start += len(chunk)
    else:
        where = (f"cannot join two stretches of text: the {len(text) - len(tail):,} "
                 "characters kept after the cut hold no chunk boundary both sides agree on")
        if out.sure is None:
            raise ValueError(f"{where} (one enormous chunk); cut the text elsewhere")
        raise ValueError(f"{where} (a long run such as digits, split in threes from where "
                         "the run starts); this part was counted by an older bpe that kept "
                         "too little of the text after its start: count it again with this "
                         "version")
    out.buffer, out.buffered = [], 0
    out._push(chunks[:i])
    offset, j = len(tail), 0
    while offset < start:
        offset += len(head[j])
        j += 1
    return j


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
