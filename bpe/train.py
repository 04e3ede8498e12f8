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
- A heap picks the next pair by (-count, first position). Because words are laid out
  in order of first occurrence, the smallest position of a pair is where the textbook
  loop first meets it, which is the pair `max(stats, key=stats.get)` returns on a tie.

It deliberately knows nothing of text, regexes or special tokens: bytes in, merges out.
"""
import time
from collections import defaultdict
from heapq import heapify, heappop, heappush
from typing import Callable, NamedTuple, Optional


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
    stop_reason: str    # "vocab_size", "no_pairs" or "min_frequency"


def train_merges(words, vocab_size: int, min_frequency: int = 1,
                 progress: Optional[Callable[[MergeProgress], None]] = None) -> TrainResult:
    """Learn merges from words = [(bytes, freq), ...] given in order of first occurrence.

    >>> train_merges([(b"aaabdaaabac", 1)], 259).merges
    {(97, 97): 256, (97, 98): 257, (256, 257): 258}
    """
    total = vocab_size - 256
    # --- lay the words out end to end; one-byte words hold no pair and are skipped
    tok = []   # token id starting at each position, -1 once absorbed into a merge
    nxt = []   # next token's position in the same word, -1 at the word's end
    prv = []   # previous token's position in the same word, -1 at its start
    wt = []    # freq of the word a position belongs to
    stats = defaultdict(int)  # (int, int) -> weighted count
    where = defaultdict(set)  # (int, int) -> positions where the pair starts
    for word, freq in words:
        n = len(word)
        if n < 2:
            continue
        base = len(tok)
        tok.extend(word)
        wt.extend([freq] * n)
        nxt.extend(range(base + 1, base + n))
        nxt.append(-1)
        prv.append(-1)
        prv.extend(range(base, base + n - 1))
        for pos, pair in enumerate(zip(word, word[1:]), base):
            stats[pair] += freq
            where[pair].add(pos)
    heap = [(-count, min(where[pair]), pair) for pair, count in stats.items()]
    heapify(heap)

    merges = {}
    merge_counts = {}
    vocab = {i: bytes([i]) for i in range(256)}
    stop_reason = "no_pairs"
    start = time.perf_counter()
    idx = 256
    while heap:
        if idx >= vocab_size:
            stop_reason = "vocab_size"
            break
        negcount, key, pair = heappop(heap)
        count = stats.get(pair, 0)
        if count != -negcount:
            # subtle: counts of old pairs only fall and their first positions only
            # move right, so a stale entry always sorts too early: fix it and retry
            if count:
                heappush(heap, (-count, key, pair))
            continue
        positions = where[pair]
        first = min(positions)
        if first != key:
            heappush(heap, (negcount, first, pair))
            continue
        if count < min_frequency:
            stop_reason = "min_frequency"
            break
        # --- merge every occurrence, left to right, without overlap
        a, b = pair
        del stats[pair]
        del where[pair]
        touched = set()  # new pairs, all containing idx, to push once their counts settle
        for p in sorted(positions):
            if tok[p] != a:
                continue  # absorbed by the previous occurrence (a run like "aaa")
            q = nxt[p]
            if q < 0 or tok[q] != b:
                continue
            w = wt[p]
            o = prv[p]
            r = nxt[q]
            if o >= 0:
                x = tok[o]
                _forget(stats, where, (x, a), o, w, pair)
                new = (x, idx)
                stats[new] += w
                where[new].add(o)
                touched.add(new)
            if r >= 0:
                y = tok[r]
                _forget(stats, where, (b, y), q, w, pair)
                new = (idx, y)
                stats[new] += w
                where[new].add(p)
                touched.add(new)
                prv[r] = p
            tok[p] = idx
            tok[q] = -1
            nxt[p] = r
        for new in touched:
            c = stats.get(new)
            if c:
                heappush(heap, (-c, min(where[new]), new))
        merges[pair] = idx
        merge_counts[idx] = count
        vocab[idx] = vocab[a] + vocab[b]
        if progress is not None:
            progress(MergeProgress(idx - 255, total, idx, pair, vocab[idx], count,
                                   time.perf_counter() - start))
        idx += 1
    else:
        if idx >= vocab_size:
            stop_reason = "vocab_size"
    return TrainResult(merges, merge_counts, stop_reason)


def _forget(stats, where, pair, pos, w, merging):
    """Remove one occurrence (at pos, weight w) of a pair a merge just destroyed."""
    if pair == merging:
        return  # its counts were dropped wholesale when the merge began
    count = stats[pair] - w
    positions = where[pair]
    positions.discard(pos)
    if count:
        stats[pair] = count
    else:
        del stats[pair]
        del where[pair]
