"""Counting a text's chunks without holding them all: the first step of training.

findall on a 100 MB text builds tens of millions of small strings at once. Instead the
text is split a piece at a time and only the counts are kept. A piece's last chunks
may be cut short by the piece's end (a run of letters or spaces continuing past it),
so the last CARRY chunks are not counted but split again at the start of the next
piece. Counter keeps keys in order of first occurrence, which the trainer's tie rule
needs, and the pieces are visited in order, so that order survives too.

This is exact for patterns whose matches look ahead less than CARRY chunks and never
look behind: the presets (tests compare against splitting the whole text). Custom
patterns are split whole.
"""
from collections import Counter

PIECE_CHARS = 1 << 20  # characters split at a time
CARRY = 2              # chunks at a piece's end that are split again with the next piece


def count_chunks(split, text, piece_chars=None):
    """Counter of split(text), in order of first occurrence, split piece by piece.

    >>> import regex
    >>> count_chunks(regex.compile(r"\\w+|\\s+").findall, "to be or not to be", 7)
    Counter({' ': 5, 'to': 2, 'be': 2, 'or': 1, 'not': 1})
    """
    piece_chars = piece_chars or PIECE_CHARS
    counts = Counter()
    start = 0
    while len(text) - start > piece_chars:
        chunks = split(text[start:start + piece_chars])
        if len(chunks) <= CARRY:
            piece_chars *= 2  # a chunk longer than the piece: look further
            continue
        keep = chunks[:-CARRY]
        counts.update(keep)
        start += sum(map(len, keep))
    counts.update(split(text[start:]))
    return counts
