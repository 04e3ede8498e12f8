"""Applying learned merges to one chunk of ids: the inner loop of every encoder.

One function serves both kinds of tokenizer through `rank_of(left, right)`, which
returns the id the two adjacent tokens merge into, or None. That id doubles as the
priority: lower ids were learned first and are applied first.
- trained tokenizers: rank_of = merges.get on the pair (minbpe's rule);
- GPT-4: rank_of looks up the rank of the concatenated bytes (tiktoken's rule).

Short chunks (nearly all of them) take a simple scan; long ones a heap over a linked
list, so a megabyte with no spaces encodes in n log n instead of n squared.
It does not split text or cache anything; callers do.
"""
from heapq import heapify, heappop, heappush

LONG_CHUNK = 64  # below this length the quadratic scan beats the heap's overhead


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
