"""The merge loop the BPE variants share: words of token ids, their pair counts kept
up to date one word at a time, and the pick of the next pair under each tie rule.

bpe.train.train_merges is the lab's fast exact trainer, but it can only merge; the
variants need more than that, so they train here instead:
- Picky BPE takes tokens back out (`split`) and reads token frequencies (`freq`);
- Parity-aware BPE picks the best pair of one group of words (a language) at a time;
- BoundlessBPE lets a pair cross a pretoken boundary only where both sides are whole
  pretokens (or superwords), so a pair's eligibility depends on where it sits (`starts`).

`Words` keeps, for every pair, its weighted count per group and the words that may hold
it (a superset: a word is checked when read). A merge or split rewrites only the words
that hold the pair or token and adds the difference of their pair counts, as Hugging
Face's trainer does. Words are given in order of first occurrence, so the "first" tie
rule (minbpe's) is the pair's first (word, position): the same merges as train_merges,
which tests/bpe/test_methods_bpe.py proves on real corpora.

It knows nothing of text, files or tokenizers: ids in, merges out.
"""
import time
from collections import Counter, defaultdict
from heapq import heappop, heappush

from ..train import MergeProgress, check_tie_break


class Words:
    """words: list of id sequences; freqs: their weights; groups: a group index per word
    (None: one group); starts: per word, a list of bools, True where a token begins a
    pretoken (BoundlessBPE; None: every pair is eligible)."""

    def __init__(self, words, freqs, *, groups=None, starts=None, vocab=None,
                 tie_break="first", banned=()):
        check_tie_break(tie_break)
        self.banned = set(banned)  # pairs best() never picks (SuperBPE: stage 1's own)
        self.tie_break = tie_break
        self.tokens = [list(word) for word in words]
        self.freqs = list(freqs)
        self.groups = list(groups) if groups is not None else [0] * len(self.tokens)
        self.starts = [list(s) for s in starts] if starts is not None else None
        self.n_groups = max(self.groups, default=-1) + 1
        self.vocab = dict(vocab) if vocab is not None else {i: bytes([i]) for i in range(256)}
        self.stats = [defaultdict(int) for _ in range(self.n_groups)]  # (int, int) -> count
        self.heaps = [[] for _ in range(self.n_groups)]  # (-count, pair), lazily stale
        self.where = defaultdict(set)   # pair -> words that may hold it
        self.holders = defaultdict(set)  # token -> words that may hold it
        self.freq = Counter()           # token -> weighted occurrences (unigram counts)
        self.lengths = [0] * self.n_groups  # tokens per group, weighted
        for w, toks in enumerate(self.tokens):
            f, g = self.freqs[w], self.groups[w]
            self.lengths[g] += f * len(toks)
            for idx in toks:
                self.freq[idx] += f
                self.holders[idx].add(w)
            self._add(w, self.pairs(w), 1)

    # ------------------------------------------------------------------ counting
    def pairs(self, w):
        """Counter of the eligible adjacent pairs of word w."""
        toks = self.tokens[w]
        if self.starts is None:
            return Counter(zip(toks, toks[1:]))
        st = self.starts[w]
        n = len(toks)
        counts = Counter()
        for i in range(n - 1):
            if self.eligible(st, i, n):
                counts[toks[i], toks[i + 1]] += 1
        return counts

    @staticmethod
    def eligible(st, i, n):
        """May tokens i and i + 1 merge? Inside a pretoken always; across a boundary only
        when each is whole: begins at a boundary and ends at one."""
        if not st[i + 1]:
            return True
        return st[i] and (i + 2 == n or st[i + 2])

    def _add(self, w, counts, sign):
        """Add (sign 1) or take away (sign -1) word w's pair counts. Only a count that
        grows is pushed on the heap; one that falls leaves its old entry, which best()
        re-pushes with the true count when it surfaces (fewer entries, same order)."""
        f = self.freqs[w] * sign
        g = self.groups[w]
        stats, heap, where = self.stats[g], self.heaps[g], self.where
        for pair, k in counts.items():
            count = stats[pair] + f * k
            if count:
                stats[pair] = count
                if sign > 0:
                    heappush(heap, (-count, pair))
                    where[pair].add(w)
            else:
                del stats[pair]

    def _rewrite(self, w, before, after):
        """Word w's pair counts went from before to after (Counters): apply the change."""
        self._add(w, before - after, -1)
        self._add(w, after - before, 1)

    def count(self, pair):
        """The pair's count over every group."""
        return sum(stats.get(pair, 0) for stats in self.stats)

    # ------------------------------------------------------------------ picking
    def best(self, group=0):
        """(pair, count) with the highest count in group (ties by the tie rule), or None."""
        stats, heap = self.stats[group], self.heaps[group]
        while heap:
            count = stats.get(heap[0][1], 0)
            if count == -heap[0][0] and heap[0][1] not in self.banned:
                break
            if heap[0][1] in self.banned:
                heappop(heap)
                continue
            pair = heappop(heap)[1]  # stale: the count has fallen since (or is gone)
            if count:
                heappush(heap, (-count, pair))
        if not heap:
            return None
        top = -heap[0][0]
        tied = []
        stale = []
        while heap and -heap[0][0] == top:
            pair = heappop(heap)[1]
            count = stats.get(pair, 0)
            if pair in self.banned:
                continue
            if count == top:
                if pair not in tied:
                    tied.append(pair)
            elif count:
                stale.append((-count, pair))
        for pair in tied:
            heappush(heap, (-top, pair))
        for entry in stale:
            heappush(heap, entry)
        return self.tie_winner(tied, group), top

    def tie_winner(self, tied, group):
        if len(tied) == 1:
            return tied[0]
        if self.tie_break == "smallest_ids":
            return min(tied)
        if self.tie_break == "greatest_bytes":
            vocab = self.vocab
            return max(tied, key=lambda pair: (vocab[pair[0]], vocab[pair[1]]))
        return min(tied, key=lambda pair: self.first_position(pair, group))

    def first_position(self, pair, group):
        """(word, position) of the pair's first eligible occurrence within group."""
        holders = self.where[pair]
        for w in sorted(holders):
            if self.groups[w] != group:
                continue
            pos = self._find(w, pair)
            if pos is not None:
                return w, pos
        raise AssertionError(f"pair {pair} has a count but no position")  # a bug

    def _find(self, w, pair):
        toks = self.tokens[w]
        a, b = pair
        st = self.starts[w] if self.starts is not None else None
        n = len(toks)
        for i in range(n - 1):
            if toks[i] == a and toks[i + 1] == b and (st is None or self.eligible(st, i, n)):
                return i
        return None

    # ------------------------------------------------------------------ changing
    def merge(self, pair, idx):
        """Merge every eligible occurrence of pair into idx, left to right without
        overlap; returns the weighted number of merges per group."""
        a, b = pair
        self.vocab[idx] = self.vocab[a] + self.vocab[b]
        done = [0] * self.n_groups
        for w in sorted(self.where.pop(pair, ())):
            toks = self.tokens[w]
            st = self.starts[w] if self.starts is not None else None
            n = len(toks)
            if n < 2:
                continue
            before = self.pairs(w)
            if pair not in before:
                continue
            out, out_st, i, k = [], [], 0, 0
            while i < n:
                if (i + 1 < n and toks[i] == a and toks[i + 1] == b
                        and (st is None or self.eligible(st, i, n))):
                    out.append(idx)
                    if st is not None:
                        out_st.append(st[i])
                    i += 2
                    k += 1
                else:
                    out.append(toks[i])
                    if st is not None:
                        out_st.append(st[i])
                    i += 1
            self.tokens[w] = out
            if st is not None:
                self.starts[w] = out_st
            self._rewrite(w, before, self.pairs(w))
            f = self.freqs[w]
            done[self.groups[w]] += f * k
            self.freq[a] -= f * k
            self.freq[b] -= f * k
            self.freq[idx] += f * k
            self.holders[idx].add(w)
            self.lengths[self.groups[w]] -= f * k
        return done

    def split(self, idx, parts):
        """Replace every occurrence of token idx by the tokens parts (its pieces); returns
        the weighted number of occurrences split."""
        total = 0
        for w in sorted(self.holders.pop(idx, ())):
            toks = self.tokens[w]
            k = toks.count(idx)
            if not k:
                continue
            before = self.pairs(w)
            out = []
            for t in toks:
                if t == idx:
                    out.extend(parts)
                else:
                    out.append(t)
            self.tokens[w] = out
            self._rewrite(w, before, self.pairs(w))
            f = self.freqs[w]
            total += f * k
            self.freq[idx] -= f * k
            for part in parts:
                self.freq[part] += f * k
                self.holders[part].add(w)
            self.lengths[self.groups[w]] += f * k * (len(parts) - 1)
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
