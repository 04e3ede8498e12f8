"""The tie rules: which of the pairs of equal count the trainer merges next, kept as the
order of its merge heap.

- "first" (minbpe): the pair's first position. bpe.train lays the words out in order of
  first occurrence, so that is where the textbook loop first meets it, the pair
  `max(stats, key=stats.get)` returns on a tie.
- "smallest_ids" (rustbpe): the pair itself, so the smallest (id0, id1) wins.
- "greatest_bytes" (Stanford CS336): the lexicographically greatest (bytes of id0,
  bytes of id1), through a key that sorts byte strings backwards.

`heap_entries(tie_break, ...)` makes, reads and recounts the heap's entries so its smallest
is the pair to merge next; `tied_pairs` reads the pairs tied at the top (record_ties).
This module holds no layout and does no merging: bpe.train does, and keeps the counts.

>>> check_tie_break("largest")
Traceback (most recent call last):
ValueError: tie_break must be one of 'first', 'smallest_ids', 'greatest_bytes', not 'largest'
"""
from heapq import heappop, heappush


TIE_BREAKS = ("first", "smallest_ids", "greatest_bytes")
MAX_TIES = 20  # tied pairs kept per merge by record_ties: late merges tie by the thousand


def check_tie_break(tie_break):
    """ValueError unless tie_break is one of TIE_BREAKS (asked before any counting)."""
    if tie_break not in TIE_BREAKS:
        raise ValueError(f"tie_break must be one of {', '.join(map(repr, TIE_BREAKS))}, "
                         f"not {tie_break!r}")


def heap_entries(tie_break, vocab, bits, n):
    """(make, read, recount) for the merge heap's entries under tie_break, whose smallest
    entry is the pair to merge next: the highest count, then the tie rule's key.

    make(count, code, first) is a new entry for the pair code = id0 << bits | id1 whose
    first position is first; read(entry) gives (count, first or None, code);
    recount(entry, count) is the same entry with a new count. For the two rules whose
    key is a number the entry is one int, -count above the key above the code:
    "smallest_ids": -count << 2 * bits | code (the smallest code is the smallest
    (id0, id1)); "first": -count << (2 * bits + n's bits) | first << 2 * bits | code.
    "greatest_bytes" needs (-count, its bytes key, code).

    >>> make, read, recount = heap_entries("smallest_ids", None, 9, 100)
    >>> read(min(make(5, 3 << 9 | 7, 0), make(5, 2 << 9 | 8, 0), make(4, 0, 0)))
    (5, None, 1032)
    >>> read(recount(make(5, 1032, 0), 2))
    (2, None, 1032)
    """
    cbits = 2 * bits
    code_mask = (1 << cbits) - 1
    if tie_break == "smallest_ids":
        def make(count, code, first):
            return -count << cbits | code

        def read(entry):
            return -(entry >> cbits), None, entry & code_mask

        def recount(entry, count):
            return -count << cbits | (entry & code_mask)
    elif tie_break == "first":
        shift = cbits + max(n, 1).bit_length()
        tie_mask = (1 << shift) - 1
        first_mask = (1 << (shift - cbits)) - 1

        def make(count, code, first):
            return -count << shift | first << cbits | code

        def read(entry):
            return -(entry >> shift), (entry >> cbits) & first_mask, entry & code_mask

        def recount(entry, count):
            return -count << shift | (entry & tie_mask)
    else:
        mask = (1 << bits) - 1

        def make(count, code, first):
            return -count, _Greatest((vocab[code >> bits], vocab[code & mask])), code

        def read(entry):
            return -entry[0], None, entry[2]

        def recount(entry, count):
            return -count, entry[1], entry[2]
    return make, read, recount


class _Greatest(tuple):
    """(bytes0, bytes1) that sorts backwards, so the heap's smallest is CS336's greatest.

    subtle: it holds the vocab's own bytes objects, not a copy; a key string per token
    (bytes flipped, plus an end mark above every byte so b"ab" still beats b"a") took 2
    bytes a character, twice the vocab again (measured: 750 MB of keys beside a 350 MB
    vocab at 42,000 Basic merges on tinyshakespeare). Only `<` is reversed: heapq
    compares with nothing else, and equal keys stay equal.

    >>> sorted([_Greatest((b"a", b"b")), _Greatest((b"ab", b"")), _Greatest((b"a", b"c"))])
    [(b'ab', b''), (b'a', b'c'), (b'a', b'b')]
    """
    __slots__ = ()
    __lt__ = tuple.__gt__  # a C slot, not a Python method: ~1.4x faster heap compares


def tied_pairs(heap, stats, winner, count, max_ties, read, bits):
    """The pairs whose count equals the winner's, the winner first, then in heap order, at
    most max_ties. Entries above the winner were all fixed before it won, so the ties sit
    at the top of the heap; stale entries among them are skipped, within a bound.
    winner and the heap hold pair codes (id0 << bits | id1); the result holds pairs."""
    tied = [winner]
    seen = {winner}
    held = []
    budget = 4 * max_ties  # entries looked at; a merge late in training ties with thousands
    while heap and read(heap[0])[0] >= count and len(tied) < max_ties and len(held) < budget:
        entry = heappop(heap)
        held.append(entry)
        code = read(entry)[2]
        if code not in seen and stats.get(code, 0) == count:
            seen.add(code)
            tied.append(code)
    for entry in held:
        heappush(heap, entry)
    mask = (1 << bits) - 1
    return [(code >> bits, code & mask) for code in tied]
