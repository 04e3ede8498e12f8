"""Applying learned merges to one chunk of ids: the inner loop of every encoder.

One function serves both kinds of tokenizer through `rank_of(left, right)`, which
returns the id the two adjacent tokens merge into, or None. That id doubles as the
priority: lower ids were learned first and are applied first.
- trained tokenizers: rank_of = merges.get on the pair (minbpe's rule);
- GPT-4: rank_of looks up the rank of the concatenated bytes (tiktoken's rule).

Short chunks (nearly all of them) take a simple scan; long ones a heap over a linked
list, so a megabyte with no spaces encodes in n log n instead of n squared.
GPT-4's chunks take `apply_ranks`, which works on the bytes themselves (tiktoken's
rule, without ids or a callback), so the two C-level calls min() and list.index()
do the scanning.
It does not split text or cache anything; callers do.
"""
from heapq import heapify, heappop, heappush
from itertools import repeat
from operator import add

LONG_CHUNK = 64  # below this length the quadratic scan beats the heap's overhead
BYTES = [bytes([b]) for b in range(256)]  # each byte as a one-byte bytes object
NO_RANK = 1 << 62  # stands for "these two parts do not merge": above every rank


def apply_merges(ids, rank_of):
    """Merge adjacent ids, lowest rank first, leftmost first on equal ranks.

    >>> merges = {(97, 97): 256, (97, 98): 257, (256, 257): 258}
    >>> apply_merges(list(b"aaabdaaabac"), lambda a, b: merges.get((a, b)))
    [258, 100, 258, 97, 99]
    """
    if len(ids) >= LONG_CHUNK:
        return _apply_merges_heap(ids, rank_of)
    return _apply_merges_scan(ids, rank_of)


def _apply_merges_scan(ids, rank_of):
    ids = list(ids)
    while len(ids) >= 2:
        best = None
        best_i = -1
        for i in range(len(ids) - 1):
            r = rank_of(ids[i], ids[i + 1])
            if r is not None and (best is None or r < best):
                best = r
                best_i = i
        if best is None:
            break
        ids[best_i:best_i + 2] = [best]
    return ids


def _apply_merges_heap(ids, rank_of):
    n = len(ids)
    tok = list(ids)
    nxt = list(range(1, n + 1))
    nxt[-1] = -1
    prv = list(range(-1, n - 1))
    heap = []
    for i in range(n - 1):
        r = rank_of(tok[i], tok[i + 1])
        if r is not None:
            heap.append((r, i, tok[i], tok[i + 1]))
    heapify(heap)
    while heap:
        r, p, left, right = heappop(heap)
        q = nxt[p] if tok[p] == left else -1
        if q < 0 or tok[q] != right:
            continue  # stale: one of the two tokens has merged since
        tok[p] = r
        tok[q] = -1
        nxt[p] = nxt[q]
        if nxt[p] >= 0:
            prv[nxt[p]] = p
            rr = rank_of(r, tok[nxt[p]])
            if rr is not None:
                heappush(heap, (rr, p, r, tok[nxt[p]]))
        o = prv[p]
        if o >= 0:
            rl = rank_of(tok[o], r)
            if rl is not None:
                heappush(heap, (rl, o, tok[o], r))
    return [t for t in tok if t >= 0]


def apply_ranks(text_bytes, ranks, vocab):
    """Encode one chunk of bytes with tiktoken-style ranks (bytes -> id; vocab is the
    inverse, id -> bytes): merge the adjacent parts whose concatenation has the
    lowest rank, leftmost first.

    >>> ranks = {b"a": 0, b"b": 1, b"ab": 2, b"abab": 3}
    >>> apply_ranks(b"abab", ranks, {idx: token for token, idx in ranks.items()})
    [3]
    """
    get = ranks.get
    if len(text_bytes) >= LONG_CHUNK:
        return _apply_merges_heap([ranks[text_bytes[i:i + 1]] for i in range(len(text_bytes))],
                                  lambda a, b: get(vocab[a] + vocab[b]))
    parts = list(map(BYTES.__getitem__, text_bytes))
    pair_ranks = list(map(get, map(add, parts, parts[1:]), repeat(NO_RANK)))
    while pair_ranks:
        best = min(pair_ranks)
        if best == NO_RANK:
            break
        i = pair_ranks.index(best)  # subtle: the leftmost of equal ranks ("aaaa")
        parts[i] += parts.pop(i + 1)
        del pair_ranks[i]
        if i < len(pair_ranks):
            pair_ranks[i] = get(parts[i] + parts[i + 1], NO_RANK)
        if i:
            pair_ranks[i - 1] = get(parts[i - 1] + parts[i], NO_RANK)
    return [ranks[part] for part in parts]
