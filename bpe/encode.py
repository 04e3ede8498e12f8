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
do the scanning. Its long chunks of few distinct bytes ("x" * 10**6, emoji runs) merge a
whole rank at a time with str.replace; other long chunks are cut where no token can span,
then merged one rank level at a time. Those two long-chunk mergers are public
(`apply_ranks_replace`, `apply_ranks_levels`) because each has a contract of its own that
tests check against tiktoken: where it declines (returns None) and that it agrees otherwise.
It does not split text or cache anything; callers do.
"""
import re
from bisect import bisect_left, bisect_right
from heapq import heapify, heappop, heappush
from itertools import compress, repeat
from operator import add, mul, not_

LONG_CHUNK = 64  # below this length the quadratic scan beats the heap's overhead
BYTES = [bytes([b]) for b in range(256)]  # each byte as a one-byte bytes object
NO_RANK = 1 << 62  # stands for "these two parts do not merge": above every rank
MIN_PIECE = 24     # a long chunk is cut, where nothing can merge across, into pieces this long
FEW_SYMBOLS = 32   # chunks of >= REPLACE_CHUNK bytes with at most this many distinct bytes
REPLACE_CHUNK = 512  # are merged a whole rank at a time in C, until the sweeps have read the
REPLACE_WORK = 8     # chunk this many times (the issue-13 cases need <= 2.7), then the levels


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


def apply_ranks(text_bytes, ranks, vocab=None, joinable=None):
    """Encode one chunk of bytes with tiktoken-style ranks (bytes -> id): merge the
    adjacent parts whose concatenation has the lowest rank, leftmost first. joinable
    (from joinable_table(ranks)) lets a long chunk be cut where no token can span.
    (vocab, the inverse of ranks, is no longer needed and is ignored.)

    >>> ranks = {b"a": 0, b"b": 1, b"ab": 2, b"abab": 3}
    >>> apply_ranks(b"abab", ranks)
    [3]
    """
    get = ranks.get
    if len(text_bytes) >= LONG_CHUNK:
        if len(text_bytes) >= REPLACE_CHUNK:
            ids = apply_ranks_replace(text_bytes, ranks)
            if ids is not None:
                return ids
        if joinable is not None:
            cuts = list(compress(range(1, len(text_bytes)), map(not_, map(
                joinable.__getitem__, map(add, map(mul, text_bytes, repeat(256)),
                                          text_bytes[1:])))))
            if cuts:
                return _apply_ranks_pieces(text_bytes, cuts, ranks)
        return apply_ranks_levels(text_bytes, ranks, pause=True)
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


def joinable_table(ranks):
    """65,536 bytes: entry a * 256 + b is 1 if some token holds byte a right before byte b.
    Where two adjacent bytes of a text are not joinable, no merge can ever cross between
    them (every part is a token), so the two sides encode independently.

    >>> joinable_table({b"a": 0, b"b": 1, b"ab": 2})[ord("a") * 256 + ord("b")]
    1
    """
    table = bytearray(65536)
    for token in ranks:
        for a, b in zip(token, token[1:]):
            table[a * 256 + b] = 1
    return bytes(table)


def _apply_ranks_pieces(text_bytes, cuts, ranks):
    """apply_ranks on each piece between cuts (where nothing can merge across), each
    distinct piece once. Only cuts at least MIN_PIECE bytes apart are used: fewer, longer
    pieces repeat more often in repetitive text and cost less loop overhead."""
    done = {}  # piece -> ids
    ids = []
    bounds = [0]
    i = bisect_left(cuts, MIN_PIECE)
    while i < len(cuts):
        bounds.append(cuts[i])
        i = bisect_left(cuts, cuts[i] + MIN_PIECE, i + 1)
    bounds.append(len(text_bytes))
    # subtle: a piece that is a token is still merged, not looked up: only a whole chunk
    # is taken as its token (tiktoken's rule), and some tokens' own bytes merge into other
    # tokens (Llama 3 has 588, e.g. b".:" * 16; tests/bpe/test_encode_pieces.py)
    for piece in map(text_bytes.__getitem__, map(slice, bounds, bounds[1:])):
        piece_ids = done.get(piece)
        if piece_ids is None:
            piece_ids = done[piece] = apply_ranks(piece, ranks)
        ids += piece_ids
    return ids


def apply_ranks_levels(text_bytes, ranks, pause=False):
    """apply_ranks for long chunks, one rank at a time, on a linked list of parts:
    every pair of the lowest pending rank is merged in one left-to-right sweep, then the
    next rank: tiktoken's order. The first pairs are sorted once at C speed; pairs made
    by merges wait in a bucket per rank, with a heap of distinct ranks only.
    parts[i] is the token that starts at byte i (None once absorbed by its left
    neighbour); an entry is stale when the bytes from its start through the next part
    no longer have its rank.
    A merge may make a pair ranked below its own (never in trained ranks; hand-made ones
    can), which tiktoken merges at once. pause=True pauses the sweep there, merges the
    lower pairs, then goes on where it stopped; pause=False returns None instead.
    subtle: a part only ever grows by absorbing its whole right neighbour, so the pair at
    a start is unchanged exactly when its concatenation still has the same rank. And a
    merge at rank r never makes another pair of rank r (the new pair's bytes are token
    r's plus more), nor do the lower merges a pause lets in (their pairs hold those
    bytes too): a sweep, paused or not, gains no entries."""
    get = ranks.get
    n = len(text_bytes)
    parts = list(map(BYTES.__getitem__, text_bytes))
    nxt = list(range(1, n + 1))
    prv = list(range(-1, n - 1))
    pair_ranks = list(map(get, map(add, parts, parts[1:]), repeat(NO_RANK)))
    first = sorted(range(n - 1), key=pair_ranks.__getitem__)  # stable: leftmost first
    first_ranks = list(map(pair_ranks.__getitem__, first))
    ptr, stop = 0, bisect_left(first_ranks, NO_RANK)
    levels = {}  # rank -> starts of pairs made by merges, that had this rank when made
    order = []   # heap of the ranks in levels
    paused = []  # (rank, iterator over the rest of its sweep), the lowest rank last
    pop, push = heappop, heappush
    while True:
        r0 = first_ranks[ptr] if ptr < stop else NO_RANK
        r1 = order[0] if order else NO_RANK
        if paused and paused[-1][0] < r0 and paused[-1][0] < r1:
            r, sweep = paused.pop()
        elif r0 <= r1:
            if r0 == NO_RANK:
                break
            r = r0
            end = bisect_right(first_ranks, r, ptr, stop)
            starts = first[ptr:end]
            ptr = end
            if r1 == r:
                pop(order)
                starts += levels.pop(r)
                starts.sort()
            sweep = iter(starts)
        else:
            r = pop(order)
            starts = levels.pop(r)
            starts.sort()
            sweep = iter(starts)
        for i in sweep:
            left = parts[i]
            if left is None:
                continue
            j = nxt[i]
            if j >= n:
                continue
            merged = left + parts[j]
            if get(merged) != r:
                continue  # stale: one side has grown since this entry was made
            parts[i] = merged
            parts[j] = None
            k = nxt[j]
            nxt[i] = k
            lower = False
            if k < n:
                prv[k] = i
                rr = get(merged + parts[k])
                if rr is not None:
                    if rr < r:
                        if not pause:
                            return None
                        lower = True
                    bucket = levels.get(rr)
                    if bucket is None:
                        levels[rr] = [i]
                        push(order, rr)
                    else:
                        bucket.append(i)
            h = prv[i]
            if h >= 0:
                rl = get(parts[h] + merged)
                if rl is not None:
                    if rl < r:
                        if not pause:
                            return None
                        lower = True
                    bucket = levels.get(rl)
                    if bucket is None:
                        levels[rl] = [h]
                        push(order, rl)
                    else:
                        bucket.append(h)
            if lower:
                paused.append((r, sweep))
                break
    return list(map(ranks.__getitem__, filter(None, parts)))


def apply_ranks_replace(text_bytes, ranks):
    """apply_ranks for long chunks made of few distinct pairs ("x" * 10**6, emoji runs):
    each part is one character of a str, and all pairs of one rank merge in one
    str.replace (or one re.sub over the rank's few spellings), which sweeps leftmost
    first without overlaps: tiktoken's order, since a merge at rank r never makes another
    pair of rank r. A byte b is the character chr(b), a longer token of rank r is
    chr(256 + r). Only the pairs around each new token are looked up (two C scans).
    Returns None, for the caller to use another way, when the chunk has too many
    distinct bytes, when a lone byte is no token, when a merge makes a pair of
    lower rank than its own (no sweep order is then right), or when the sweeps have
    read the chunk REPLACE_WORK times.

    >>> ranks = {bytes([b]): b for b in range(256)} | {b"aa": 256, b"aaaa": 257}
    >>> apply_ranks_replace(b"a" * 7, ranks)
    [257, 256, 97]
    """
    get = ranks.get
    seq = text_bytes.decode("latin-1")
    symbols = set(seq[:4096])
    rest = text_bytes.translate(None, "".join(symbols).encode("latin-1"))
    symbols.update(rest.decode("latin-1"))  # the distinct bytes, mostly at C speed
    if len(symbols) > FEW_SYMBOLS:
        return None
    token = {c: c.encode("latin-1") for c in symbols}  # symbol -> the token's bytes
    if not all(map(ranks.__contains__, token.values())):
        return None
    pending = {}  # rank -> the pairs (two-symbol strs) present with this rank
    budget = REPLACE_WORK * len(seq)

    def look_up(pairs, floor):
        """Add the pairs that have a rank and occur in seq to pending; False if one's
        rank is below floor, present or not, or the budget is spent. A pair absent from
        seq costs one C scan (budget / 8).
        subtle: floor is checked on absent pairs too: during the sweep the new token
        stood, for a moment, next to every symbol there was, and tiktoken would have
        merged such a pair at once."""
        nonlocal budget
        for pair in pairs:
            rr = get(token[pair[0]] + token[pair[1]])
            if rr is not None:
                if rr < floor:
                    return False
                budget -= len(seq) >> 3
                if budget < 0:
                    return False
                if pair in seq:
                    pending.setdefault(rr, set()).add(pair)
        return True

    if not look_up([a + b for a in symbols for b in symbols], 0):
        return None
    while pending:
        r = min(pending)
        spellings = pending.pop(r)
        if r > 0x10FFFF - 256 or budget < 0:
            return None
        z = chr(256 + r)
        if len(spellings) == 1:
            merged = seq.replace(next(iter(spellings)), z)
        else:
            merged = re.sub("|".join(map(re.escape, sorted(spellings))), z, seq)
        budget -= len(seq)
        if len(merged) == len(seq):
            continue  # stale: these pairs were all taken apart by earlier merges
        seq = merged
        pair = next(iter(spellings))
        token[z] = token[pair[0]] + token[pair[1]]
        symbols.add(z)
        if not look_up([c + z for c in symbols] + [z + c for c in symbols if c != z], r):
            return None
    ids = {c: ranks[token[c]] for c in set(seq)}
    return list(map(ids.__getitem__, seq))
