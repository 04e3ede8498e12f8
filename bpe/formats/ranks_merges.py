"""Merges recovered from tiktoken ranks: the one home of that inversion.

tiktoken keeps only ranks (token bytes -> rank); minbpe keeps merges ((id, id) -> id).
`recover_merges(ranks)` rebuilds the merges: each token of rank r is the merge of the two
parts that BPE, allowed only ranks below r, leaves of its bytes (a ValueError when some
token cannot be built that way: then the ranks are not byte-pair encoding's). Reading and
writing ranks files is bpe.formats.ranks'; this module only inverts ranks it is given.

>>> recover_merges({bytes([b]): b for b in range(256)} | {b"ab": 256})
{(97, 98): 256}
"""
from heapq import heapify, heappop, heappush

from .ranks import short_repr


def recover_merges(ranks):
    """Rebuild minbpe-style merges from tiktoken ranks: each token of rank r is the merge
    of the two parts that BPE, allowed only ranks below r, leaves of its bytes. ValueError
    if some token cannot be built that way (then these are not byte-pair-encoding ranks).

    >>> recover_merges({b"a": 0, b"b": 1, b"c": 2, b"ab": 3, b"abc": 4})
    {(0, 1): 3, (3, 2): 4}
    >>> recover_merges({b"a": 0, b"b": 1, b"abb": 2})
    Traceback (most recent call last):
    ValueError: token b'abb' (rank 2) cannot be built by merging two tokens of lower rank, so these are not byte-pair-encoding ranks
    """
    merges = {}
    for token, rank in ranks.items():
        if len(token) <= 1:
            continue  # a byte, or the empty token (merged from nothing, made by no merge)
        parts = _parts_below(token, rank, ranks)
        if len(parts) != 2 or parts[0] not in ranks or parts[1] not in ranks:
            raise ValueError(f"token {short_repr(token)} (rank {rank}) cannot be built by "
                             "merging two tokens of lower rank, so these are not "
                             "byte-pair-encoding ranks")
        merges[(ranks[parts[0]], ranks[parts[1]])] = rank
    return merges


SHORT_TOKEN = 24  # bytes; longer tokens take the heap in _parts_below


def _parts_below(token, rank, ranks):
    """The parts BPE leaves of token's bytes when only ranks below rank may merge, stopping
    at two: the lowest-ranked adjacent pair merges first, the leftmost on a tie.

    A heap of candidate pairs over a linked list of parts, so a token of L bytes costs
    O(L log L) look-ups, not the textbook rescan's O(L^2) (a ranks file whose tokens double
    to 2^16 bytes took minutes that way).

    >>> _parts_below(b"abc", 4, {b"a": 0, b"b": 1, b"c": 2, b"ab": 3, b"abc": 4})
    [b'ab', b'c']
    >>> doubling = {b"a": 0, **{b"a" * 2 ** k: k for k in range(1, 8)}}
    >>> _parts_below(b"a" * 128, 7, doubling) == [b"a" * 64, b"a" * 64]
    True
    """
    n = len(token)
    if n <= SHORT_TOKEN:  # the rescan's small constant wins (almost every real token)
        parts = [token[i:i + 1] for i in range(n)]
        while len(parts) > 2:
            best = best_i = None
            for i in range(len(parts) - 1):
                r = ranks.get(parts[i] + parts[i + 1])
                if r is not None and r < rank and (best is None or r < best):
                    best, best_i = r, i
            if best is None:
                break
            parts[best_i:best_i + 2] = [parts[best_i] + parts[best_i + 1]]
        return parts
    end = list(range(1, n + 1))        # part starting at i: token[i:end[i]]
    nxt = list(range(1, n + 1))        # the part after i (n: none)
    prv = list(range(-1, n - 1))       # the part before i (-1: none)
    heap = []

    def push(i):
        j = nxt[i]
        if j < n:
            r = ranks.get(token[i:end[j]])
            if r is not None and r < rank:
                heap.append((r, i, end[j])) if building else heappush(heap, (r, i, end[j]))

    building = True
    for i in range(n - 1):
        push(i)
    heapify(heap)
    building = False
    alive, count = [True] * n, n
    while heap and count > 2:
        r, i, stop = heappop(heap)
        j = nxt[i]
        if not alive[i] or j >= n or end[j] != stop:
            continue  # stale: a part of this pair merged since
        end[i], alive[j], nxt[i] = end[j], False, nxt[j]
        if nxt[j] < n:
            prv[nxt[j]] = i
        count -= 1
        push(i)
        if prv[i] >= 0:
            push(prv[i])
    parts, i = [], 0
    while i < n:
        parts.append(token[i:end[i]])
        i = nxt[i]
    return parts
