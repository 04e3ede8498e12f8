"""The merge loop the BPE variants share: every word's tokens in one linked list of
positions, exact pair counts kept up to date one occurrence at a time, and the pick of
the next pair under each tie rule.

bpe.train.train_merges is the lab's fast exact trainer, but it can only merge; the
variants need more than that, so they train here instead:
- Picky BPE takes tokens back out (`split`) and reads token frequencies (`freq`);
- Parity-aware BPE picks the best pair of one group of words (a language) at a time;
- BoundlessBPE lets a pair cross a pretoken boundary only where both sides are whole
  pretokens (or superwords), so a pair's eligibility depends on where it sits (`starts`);
- SuperBPE's stage 2 never picks a pair stage 1 merged (`banned`).

`Words` lays the words out end to end, as train_merges does: `tok[p]` is the token that
starts at position p (-1 once absorbed by the token on its left), `prv`/`nxt` link the
tokens of one word. Per group it keeps each pair's weighted count (`stats`, exact) and
the positions where the pair may start (`where`, ascending, with stale entries skipped
when read). A merge or split visits only the positions of its pair or token and moves
the counts of the pairs on either side, so its cost is the number of occurrences, not
the length of the words that hold them.

Words are given in order of first occurrence, so a pair's first valid position is
where the textbook loop first meets it: the "first" tie rule (minbpe's) reads it
there, and the merges are train_merges' exactly (tests/bpe/test_methods_bpe.py proves
it on real corpora under every tie rule).

It knows nothing of text, files or tokenizers: ids in, merges out.
"""
import time
from bisect import insort
from collections import Counter
from heapq import heapify, heappop, heappush, heapreplace

from ..train import MergeProgress, check_tie_break


class Backwards(tuple):
    """(bytes0, bytes1) that sorts backwards, so a min-heap pops CS336's greatest pair
    first (the "greatest_bytes" rule). Only `<` is reversed: heapq uses nothing else."""
    __slots__ = ()
    __lt__ = tuple.__gt__


class Words:
    """words: list of id sequences (bytes or lists of ints); freqs: their weights;
    groups: a group index per word (None: one group); starts: per word, a list of bools,
    True where a token begins a pretoken (BoundlessBPE; None: every pair is eligible);
    banned: pairs never counted nor picked (SuperBPE stage 2: stage 1's merges)."""

    def __init__(self, words, freqs, *, groups=None, starts=None, vocab=None,
                 tie_break="first", banned=()):
        check_tie_break(tie_break)
        self.banned = frozenset(banned)
        self.tie_break = tie_break
        self.by_position = tie_break == "first"
        self.vocab = dict(vocab) if vocab is not None else {i: bytes([i]) for i in range(256)}
        words = [list(word) for word in words]
        freqs = list(freqs)
        groups = list(groups) if groups is not None else [0] * len(words)
        self.n_groups = max(groups, default=-1) + 1
        # --- the layout: positions of every word end to end
        self.tok = tok = [idx for word in words for idx in word]
        n = len(tok)
        self.prv = prv = list(range(-1, n - 1))
        self.nxt = nxt = list(range(1, n + 1))
        self.wt = wt = [0] * n     # each position's word weight
        self.grp = grp = [0] * n   # each position's group
        self.st = [False] * n if starts is not None else None
        self.lengths = [0] * self.n_groups  # tokens per group, weighted
        self.freq = Counter()               # token -> weighted occurrences (unigram counts)
        end = 0
        for w, word in enumerate(words):
            start, end = end, end + len(word)
            if start == end:
                continue
            f, g = freqs[w], groups[w]
            prv[start] = -1
            nxt[end - 1] = -1
            wt[start:end] = [f] * len(word)
            grp[start:end] = [g] * len(word)
            if starts is not None:
                self.st[start:end] = starts[w]
            self.lengths[g] += f * len(word)
            for idx, k in Counter(word).items():
                self.freq[idx] += f * k
        # --- the pairs
        self.stats = [{} for _ in range(self.n_groups)]  # (int, int) -> weighted count
        self.where = [{} for _ in range(self.n_groups)]  # (int, int) -> positions, ascending
        eligible = self.eligible
        banned = self.banned
        for p in range(n):
            q = nxt[p]
            if q < 0:
                continue
            pair = tok[p], tok[q]
            if pair in banned or (starts is not None and not eligible(p)):
                continue
            g = grp[p]
            stats, where = self.stats[g], self.where[g]
            stats[pair] = stats.get(pair, 0) + wt[p]
            found = where.get(pair)
            if found is None:
                where[pair] = [p]
            else:
                found.append(p)
        self.heaps = []  # per group: (-count, tie key, pair), lazily stale
        for g in range(self.n_groups):
            heap = [(-count, self.tie_key(g, pair), pair) for pair, count in self.stats[g].items()]
            heapify(heap)
            self.heaps.append(heap)
        self.at = None  # token -> positions that may hold it; built by the first split

    # ------------------------------------------------------------------ reading
    def eligible(self, p):
        """May the token at p merge with the next one? Inside a pretoken always; across a
        boundary only when each is whole: begins at a boundary and ends at one."""
        st = self.st
        if st is None:
            return True
        q = self.nxt[p]
        if not st[q]:
            return True
        r = self.nxt[q]
        return st[p] and (r < 0 or st[r])

    def tie_key(self, group, pair):
        """The heap's tie key of pair (smallest wins): its first position ("first"), the
        pair itself ("smallest_ids") or its bytes backwards ("greatest_bytes")."""
        if self.by_position:
            return self.first_valid(group, pair)
        if self.tie_break == "smallest_ids":
            return pair
        return Backwards((self.vocab[pair[0]], self.vocab[pair[1]]))

    def first_valid(self, group, pair):
        """The first position where pair occurs (eligibly) in group; drops the stale
        entries before it."""
        positions = self.where[group][pair]
        tok, nxt = self.tok, self.nxt
        a, b = pair
        for i, p in enumerate(positions):
            if tok[p] == a:
                q = nxt[p]
                if q >= 0 and tok[q] == b and self.eligible(p):
                    if i:
                        del positions[:i]
                    return p
        raise AssertionError(f"pair {pair} has a count but no position")  # a bug

    def count(self, pair):
        """The pair's count over every group."""
        return sum(stats.get(pair, 0) for stats in self.stats)

    def best(self, group=0):
        """(pair, count) with the highest count in group (ties by the tie rule), or None.
        Every live pair has a heap entry that sorts no later than its true (count, key):
        a count that grows or a first position that moves left is pushed anew, and an
        entry whose count fell or whose first position moved right is fixed when it
        surfaces. So the first entry found true is the winner."""
        stats, heap = self.stats[group], self.heaps[group]
        while heap:
            negcount, key, pair = heap[0]
            count = stats.get(pair, 0)
            if count != -negcount:
                if count:
                    heapreplace(heap, (-count, key, pair))
                else:
                    heappop(heap)
                continue
            if self.by_position:
                first = self.first_valid(group, pair)
                if first != key:
                    heapreplace(heap, (negcount, first, pair))
                    continue
            return pair, count
        return None

    # ------------------------------------------------------------------ changing
    def _less(self, g, pair, w):
        """Take weight w off pair's count in group g (a merge or split destroyed one)."""
        if pair in self.banned:
            return
        stats = self.stats[g]
        count = stats[pair] - w
        if count:
            stats[pair] = count
        else:
            del stats[pair], self.where[g][pair]  # every entry left in the list is stale

    def _more(self, g, pair, w, p, grown, in_order):
        """Add weight w to pair's count in group g, occurring at p. in_order: p is past
        every position already listed (a merge's new pairs), else it is inserted."""
        if pair in self.banned:
            return
        stats = self.stats[g]
        stats[pair] = stats.get(pair, 0) + w
        positions = self.where[g].get(pair)
        if positions is None:
            self.where[g][pair] = [p]
        elif in_order:
            positions.append(p)
        else:
            insort(positions, p)
        grown.add((g, pair))

    def _push(self, grown):
        """Give each pair whose count grew (or whose first position moved left) a fresh
        heap entry."""
        for g, pair in grown:
            count = self.stats[g].get(pair)
            if count:
                heappush(self.heaps[g], (-count, self.tie_key(g, pair), pair))

    def merge(self, pair, idx):
        """Merge every eligible occurrence of pair into idx, left to right without
        overlap; returns the weighted number of merges per group."""
        a, b = pair
        self.vocab[idx] = self.vocab[a] + self.vocab[b]
        tok, prv, nxt, wt = self.tok, self.prv, self.nxt, self.wt
        st, eligible, at = self.st, self.eligible, self.at
        less, more = self._less, self._more
        done = [0] * self.n_groups
        grown = set()
        made = []
        for g in range(self.n_groups):
            # its count is dropped whole: after the step no eligible occurrence is left
            self.stats[g].pop(pair, None)
            positions = self.where[g].pop(pair, ())
            total = 0
            for p in positions:
                if tok[p] != a:
                    continue  # stale, or absorbed by the previous occurrence ("aaa")
                q = nxt[p]
                if q < 0 or tok[q] != b or (st is not None and not eligible(p)):
                    continue
                o, r, w = prv[p], nxt[q], wt[p]
                # the neighbouring pairs, as they were
                if o >= 0 and (tok[o], a) != pair and eligible(o):
                    less(g, (tok[o], a), w)
                if r >= 0 and (b, tok[r]) != pair and eligible(q):
                    less(g, (b, tok[r]), w)
                tok[p] = idx
                tok[q] = -1
                nxt[p] = r
                if r >= 0:
                    prv[r] = p
                # and as they are now: both hold idx, so their lists are new and the
                # positions come in ascending order
                if o >= 0 and eligible(o):
                    more(g, (tok[o], idx), w, o, grown, True)
                if r >= 0 and eligible(p):
                    more(g, (idx, tok[r]), w, p, grown, True)
                total += w
                made.append(p)
            done[g] = total
            self.lengths[g] -= total
        merged = sum(done)
        self.freq[a] -= merged
        self.freq[b] -= merged
        self.freq[idx] += merged
        if at is not None:
            at.setdefault(idx, []).extend(made)
        self._push(grown)
        return done

    def split(self, idx, parts):
        """Replace every occurrence of token idx by the tokens parts (its pieces, which
        must spell its bytes); returns the weighted number of occurrences split. Needs
        words of bytes, so that the pieces fall back on the positions their bytes had."""
        if self.st is not None:
            raise ValueError("split needs words without pretoken starts")
        if self.at is None:
            self.at = {}
            for p, t in enumerate(self.tok):
                if t >= 0:
                    self.at.setdefault(t, []).append(p)
        tok, prv, nxt, wt, grp, at = self.tok, self.prv, self.nxt, self.wt, self.grp, self.at
        widths = [len(self.vocab[t]) for t in parts]
        less, more = self._less, self._more
        grown = set()
        total = 0
        for p in at.pop(idx, ()):
            if tok[p] != idx:
                continue  # stale
            o, r, w, g = prv[p], nxt[p], wt[p], grp[p]
            if o >= 0:
                less(g, (tok[o], idx), w)
            if r >= 0:
                less(g, (idx, tok[r]), w)
            left, pos = o, p
            for t, width in zip(parts, widths):
                tok[pos] = t
                prv[pos] = left
                if left >= 0:
                    nxt[left] = pos
                    more(g, (tok[left], t), w, left, grown, False)
                at.setdefault(t, []).append(pos)
                left, pos = pos, pos + width
            nxt[left] = r
            if r >= 0:
                prv[r] = left
                more(g, (tok[left], tok[r]), w, left, grown, False)
            total += w
            self.lengths[g] += w * (len(parts) - 1)
        self.freq[idx] -= total
        for t in parts:
            self.freq[t] += total
        self._push(grown)
        return total


class Clock:
    """Reports each merge to progress as bpe.train does (a MergeProgress)."""

    def __init__(self, progress, total):
        self.progress = progress
        self.total = total
        self.start = time.perf_counter()
        self.done = 0

    def tick(self, idx, pair, token, count):
        self.done += 1
        if self.progress is not None:
            self.progress(MergeProgress(self.done, self.total, idx, pair, token, count,
                                        time.perf_counter() - self.start))
