"""The one BPE trainer, shared by BasicTokenizer and RegexTokenizer.

It makes exactly the merges of the textbook loop (count adjacent pairs, merge the
most frequent, repeat), including its tie rule, but does the work incrementally:

- Identical chunks are counted once: `words` is a list of (bytes, freq) in the order
  each chunk first occurs in the text. Basic training is one word with freq 1.
- All words are laid out end to end in one position space. A doubly linked list over
  the positions holds the current tokens; `where` maps each pair to the exact set of
  positions where it starts, and `stats` to its count (weighted by word freq).
- A merge touches only the positions of its pair and patches the counts of the
  neighbouring pairs, instead of recounting the whole text.
- A heap picks the next pair by (-count, tie key). The tie key is the tie rule
  (tie_break.py: "first" minbpe's, "smallest_ids" rustbpe's, "greatest_bytes" CS336's);
  "first" relies on the layout above: words in order of first occurrence put a pair's
  first position where the textbook loop first meets it.
- Words may be id sequences instead of bytes (with the vocab of those ids), so merges
  can be learned on top of an existing tokenizer's output (see extend.py).

It deliberately knows nothing of text, regexes or special tokens: bytes in, merges out.
"""
import time
from array import array
from collections import defaultdict
from functools import partial
from heapq import heapify, heappop, heappush
from itertools import chain, repeat
from typing import Callable, NamedTuple, Optional

from .formats.model import render_token
from .tie_break import MAX_TIES, check_tie_break, heap_entries, tied_pairs

LIST_LIMIT = 1 << 21  # positions; above this the layout is kept in arrays


class MergeProgress(NamedTuple):
    """What the progress callback receives after each merge."""
    done: int          # merges done so far (this one included)
    total: int         # merges asked for (vocab_size - 256); training may stop earlier
    idx: int           # the new token id
    pair: tuple        # (int, int) merged into idx
    token: bytes       # the bytes of idx
    count: int         # how often pair occurred when it was merged
    elapsed: float     # seconds since the merging began

    @property
    def merges_per_s(self) -> float:
        return self.done / self.elapsed if self.elapsed > 0 else 0.0


class TrainResult(NamedTuple):
    merges: dict        # (int, int) -> int, in merge order
    merge_counts: dict  # int -> int
    stop_reason: str    # "vocab_size", "no_pairs", "min_frequency" or "vocab_bytes"
    merge_ties: dict = None  # idx -> [pair, ...] tied at the top (winner first); record_ties
    ids: list = None  # each word's ids after the merges, in the words' order; keep_ids


def train_merges(words, vocab_size: int, min_frequency: int = 1,
                 progress: Optional[Callable[[MergeProgress], None]] = None, *,
                 tie_break: str = "first", record_ties: bool = False,
                 vocab: Optional[dict] = None, max_ties: int = MAX_TIES,
                 max_vocab_bytes: Optional[int] = None, banned=(),
                 keep_ids: bool = False) -> TrainResult:
    """Learn merges from words = [(bytes, freq), ...] given in order of first occurrence.

    A word may also be a sequence of token ids; then vocab (int -> bytes) gives the bytes
    of every id the words use, and new ids start after the largest id in vocab. Ties
    between pairs of equal count are broken by tie_break (see the module docstring);
    record_ties=True keeps, for each merge, the pairs that had the top count (the winner
    first; at most max_ties of them, so a list of max_ties pairs may be cut short).

    max_vocab_bytes (off by default, as in minbpe) stops training, with stop_reason
    "vocab_bytes", before the merge that would take the sum of len(vocab[idx]) past it.
    It is what a dict of bytes costs: once every pair occurs once, the "first" rule
    keeps lengthening one token, so Basic training's vocab grows quadratically (1.5 GB
    at 54,000 merges on a 1.1 MB text; bench/results/basicmem.md).

    banned: pairs counted but never merged (SuperBPE's stage 2: the pairs stage 1
    merged, met again across a chunk boundary). Only pairs of the words' own ids can be
    banned: a merge's new pairs hold its new id. keep_ids=True: the result's ids hold
    each word's ids after the merges (SuperBPE's stage 2 starts from them).

    >>> train_merges([(b"aaabdaaabac", 1)], 259).merges
    {(97, 97): 256, (256, 97): 257, (257, 98): 258}
    >>> train_merges([(b"abcd", 1)], 257, tie_break="greatest_bytes").merges
    {(99, 100): 256}
    >>> train_merges([([7, 9, 7, 9], 1)], 11, vocab={7: b"x", 9: b"y"}).merges
    {(7, 9): 10}
    """
    check_tie_break(tie_break)
    vocab = {i: bytes([i]) for i in range(256)} if vocab is None else dict(vocab)
    first_idx = max(vocab) + 1
    total = vocab_size - first_idx
    # --- lay the words out end to end; one-token words hold no pair and are skipped
    if keep_ids:
        given = words = list(words)
    words = [(word, freq) for word, freq in words if len(word) >= 2]
    if all(isinstance(word, bytes) for word, _ in words):
        layout = b"".join(word for word, _ in words)
    else:
        layout = list(chain.from_iterable(word for word, _ in words))
    n = len(layout)
    # lists are faster to index; arrays are 9-18x smaller (4 bytes a position, not a
    # pointer plus an int object), which matters past a few MB
    compact = n >= LIST_LIMIT
    typecode = "i" if n < 1 << 31 and max(vocab_size, first_idx) < 1 << 31 else "q"
    new_array = partial(array, typecode) if compact else list
    # subtle: iter(), because array(typecode, bytes) would read the bytes as raw machine words
    tok = new_array(iter(layout))       # token id starting at each position, -1 once absorbed
    # subtle: in lists, prv, nxt and where share one int object per position (ints[p + 1]
    # is p) instead of making three equal ones: 56 bytes a position less (measured on a
    # 1.1 MB Basic training: peak RSS 60-70 MB lower, bench/basic_memory.py)
    ints = range(-1, n + 1) if compact else list(range(-1, n + 1))
    prv = new_array(ints[:n])           # previous token's position in its word, -1 at the start
    nxt = new_array(ints[2:])           # next token's position in its word, -1 at the end
    del ints
    big_freq = max((freq for _, freq in words), default=0) >= 1 << 31
    wt = (partial(array, "q" if big_freq else typecode) if compact else list)(
        chain.from_iterable(repeat(freq, len(word)) for word, freq in words))
    # subtle: a pair (a, b) is kept as the one int a << bits | b (its code), and a heap
    # entry as one int too (see heap_entries): ints hash and compare in C without a
    # tuple to build, take a third of the memory, and are not tracked by the cyclic gc,
    # whose passes over millions of heap tuples cost a quarter of the merge loop.
    bits = max(vocab_size, first_idx).bit_length()
    mask = (1 << bits) - 1
    stats = defaultdict(int)   # code -> weighted count, always exact
    where = defaultdict(new_array)  # code -> positions where the pair starts, ascending;
    # subtle: entries go stale when a neighbour merges and are skipped when read. A pair
    # gains positions only in the step that creates its newer id, in ascending order,
    # so each list stays sorted and its first valid entry is the pair's first occurrence.
    end = 0
    for word, freq in words:
        start, end = end, end + len(word)
        nxt[end - 1] = -1
        if end < n:
            prv[end] = -1
        # the pairs start at start .. end - 2, which prv[start + 1:end] holds (and shares)
        for pos, a, b in zip(prv[start + 1:end], word, word[1:]):
            where[a << bits | b].append(pos)
    weight = wt.__getitem__
    for code, positions in where.items():
        stats[code] = sum(map(weight, positions))
    by_position = tie_break == "first"
    entry, read, recount = heap_entries(tie_break, vocab, bits, n)
    banned = {a << bits | b for a, b in banned}
    heap = [entry(count, code, where[code][0]) for code, count in stats.items()
            if code not in banned]
    heapify(heap)

    merges = {}
    merge_counts = {}
    merge_ties = {} if record_ties else None
    stop_reason = "no_pairs"
    start = time.perf_counter()
    idx = first_idx
    vocab_bytes = sum(map(len, vocab.values())) if max_vocab_bytes is not None else 0
    while heap:
        if idx >= vocab_size:
            stop_reason = "vocab_size"
            break
        top = heappop(heap)
        count_then, key, pair_code = read(top)
        count = stats.get(pair_code, 0)
        if count != count_then:
            # subtle: counts of old pairs only fall and their first positions only
            # move right, so a stale entry always sorts too early: fix it and retry
            if count:
                heappush(heap, recount(top, count))
            continue
        a, b = pair_code >> bits, pair_code & mask
        positions = where[pair_code]
        if by_position:
            first = positions[0]
            if tok[first] != a or nxt[first] < 0 or tok[nxt[first]] != b:
                first = first_occurrence(positions, a, b, tok, nxt)
            if first != key:
                heappush(heap, entry(count, pair_code, first))
                continue
        if count < min_frequency:
            stop_reason = "min_frequency"
            break
        if max_vocab_bytes is not None:
            vocab_bytes += len(vocab[a]) + len(vocab[b])
            if vocab_bytes > max_vocab_bytes:
                stop_reason = "vocab_bytes"
                break
        if record_ties:
            merge_ties[idx] = tied_pairs(heap, stats, pair_code, count, max_ties, read, bits)
        vocab[idx] = vocab[a] + vocab[b]  # before the new pairs: greatest_bytes keys read it
        # --- merge every occurrence, left to right, without overlap. Count changes
        # are gathered per neighbour id and applied once the step is done. A new pair
        # (x, idx) or (idx, y) sits in the same word as the pair it replaces, so its
        # count is the weight that pair lost there.
        del stats[pair_code], where[pair_code]
        new_left = {}     # x -> positions of new pair (x, idx), ascending
        new_right = {}    # y -> positions of new pair (idx, y), ascending
        for p in positions:
            if tok[p] != a:
                continue  # stale, or absorbed by the previous occurrence (a run like "aaa")
            q = nxt[p]
            if q < 0 or tok[q] != b:
                continue
            o = prv[p]
            r = nxt[q]
            if o >= 0:
                x = tok[o]
                found = new_left.get(x)
                if found is None:
                    new_left[x] = [o]
                else:
                    found.append(o)
            if r >= 0:
                y = tok[r]
                found = new_right.get(y)
                if found is None:
                    new_right[y] = [p]
                else:
                    found.append(p)
                prv[r] = p
            tok[p] = idx
            tok[q] = -1
            nxt[p] = r
        # A new pair (x, idx) or (idx, y) sits in the word of the pair (x, a) or (b, y)
        # it replaces, so its count is the weight that pair lost.
        for x, positions in new_left.items():
            w = sum(map(weight, positions)) if len(positions) > 1 else wt[positions[0]]
            new = x << bits | idx
            where[new] = new_array(positions) if compact else positions
            stats[new] = w
            heappush(heap, entry(w, new, positions[0]))
            if x != idx:  # else (idx, a) is a pair of this step, already accounted for
                _forget(stats, where, x << bits | a, w, pair_code)
        for y, positions in new_right.items():
            w = sum(map(weight, positions)) if len(positions) > 1 else wt[positions[0]]
            _forget(stats, where, b << bits | y, w, pair_code)
            if y == a:
                # subtle: (idx, a) is gone where its a began a later occurrence
                # ("abab" -> [idx, idx]); only the others are counted
                positions = [p for p in positions if tok[nxt[p]] == a]
                if not positions:
                    continue
                w = sum(map(weight, positions))
            new = idx << bits | y
            where[new] = new_array(positions) if compact else positions
            stats[new] = w
            heappush(heap, entry(w, new, positions[0]))
        merges[a, b] = idx
        merge_counts[idx] = count
        if progress is not None:
            progress(MergeProgress(idx - first_idx + 1, total, idx, (a, b), vocab[idx], count,
                                   time.perf_counter() - start))
        idx += 1
    else:
        if idx >= vocab_size:
            stop_reason = "vocab_size"
    ids = final_ids(given, tok, nxt) if keep_ids else None
    return TrainResult(merges, merge_counts, stop_reason, merge_ties, ids)


def final_ids(words, tok, nxt):
    """Each word's ids as the layout holds them after training (words: as train_merges
    was given them; those of two or more tokens lie end to end in the layout, the
    others are not in it)."""
    out = []
    end = 0
    for word, _ in words:
        if len(word) < 2:
            out.append(list(word))
            continue
        p, end = end, end + len(word)
        ids = []
        while p >= 0:
            ids.append(tok[p])
            p = nxt[p]
        out.append(ids)
    return out


def first_occurrence(positions, a, b, tok, nxt):
    """The first position where the pair (a, b) still occurs in positions (ascending,
    some stale: tok[p] is a token's id at p, nxt[p] the next token's position or -1);
    drops the stale entries before it. bpe.methods.merging's layout reads it too.

    >>> positions = [0, 2, 4]
    >>> first_occurrence(positions, 7, 9, [7, 8, 7, 9, -1], [1, 2, 3, -1, -1]), positions
    (2, [2, 4])
    """
    for i, p in enumerate(positions):
        if tok[p] == a:
            q = nxt[p]
            if q >= 0 and tok[q] == b:
                if i:
                    del positions[:i]
                return p
    raise AssertionError(f"pair {(a, b)} has a count but no position")  # a bug, not user error


def _forget(stats, where, code, w, merging):
    """Take weight w off the count of a pair (by its code) a merge destroyed in places."""
    if code == merging:
        return  # its count was dropped whole when the merge began
    count = stats[code] - w
    if count:
        stats[code] = count
    else:
        del stats[code], where[code]  # every entry left in its list is stale


def print_progress(p):
    """verbose=True's progress: one line per merge, as minbpe prints it."""
    print(f"merge {p.done}/{p.total}: {p.pair} -> {p.idx} "
          f"({render_token(p.token)}) had {p.count} occurrences")


def chain_progress(first, second):
    """One progress callback that calls first (if any), then second."""
    if first is None:
        return second

    def both(p):
        first(p)
        second(p)
    return both
