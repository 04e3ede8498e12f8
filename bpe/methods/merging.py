"""The merge loop the BPE variants share: every word's tokens in one linked list of
positions, exact pair counts moved by each step per neighbour id, and the pick of
the next pair under each tie rule.

bpe.train.train_merges is the lab's fast exact trainer, but it can only merge; the
variants need more than that, so they train here instead:
- Picky BPE takes tokens back out (`split`) and reads token frequencies (`freq`);
- Parity-aware BPE picks the best pair of one group of words (a language) at a time;
- BoundlessBPE lets a pair cross a pretoken boundary only where both sides are whole
  pretokens (or superwords): its lines hold stand-ins that come alive when their
  pretoken becomes one token (`Words.laid_out`, `copies`).
(SuperBPE's stage 2 merges only, so it trains with train_merges itself.)

`Words` lays the words out in one position space, as train_merges does: `tok[p]` is
the token that starts at position p (-1 once absorbed by the token on its left),
`prv`/`nxt` link the tokens of one word. Per group it keeps each pair's weighted count
(`stats`, exact) and the positions where the pair may start (`where`, ascending, stale
entries skipped when read and dropped when the count reaches 0). A merge or split
visits only the positions of its pair or token and moves the counts of the pairs on
either side, so its cost is the number of occurrences, not the length of the words
that hold them. (The first version rewrote whole words per merge: BoundlessBPE, whose
words are lines, was 300x bpe; bench/results/methods.md has the before and after.)

Positions follow the text (words in order of first occurrence), so a pair's first
valid position is where the textbook loop first meets it: the "first" tie rule
(minbpe's) reads it there, and the merges are train_merges' exactly
(tests/bpe/test_methods_bpe.py proves it on real corpora under every tie rule). The
heap holds (-count, tie key, pair) and is fixed lazily, as in train_merges; a pair
whose first position moves left (a Picky split, a stand-in coming alive) is pushed
anew, so no entry ever sorts later than its pair's true place.

It knows nothing of text, files or tokenizers: ids in, merges out.
"""
from bisect import insort
from collections import Counter, defaultdict
from heapq import heapify, heappop, heappush, heapreplace

from ..tie_break import check_tie_break
from ..train import first_occurrence
from .merging_layout import end_to_end


class Backwards(tuple):
    """(bytes0, bytes1) that sorts backwards, so a min-heap pops CS336's greatest pair
    first (the "greatest_bytes" rule). Only `<` is reversed: heapq uses nothing else."""
    __slots__ = ()
    __lt__ = tuple.__gt__


STAND_IN = -2  # a position waiting for its copy (see Words): it pairs with nothing


class Words:
    """words: list of id sequences (bytes or lists of ints); freqs: their weights;
    groups: a group index per word (None: one group). They are laid out end to end, in
    order (merging_layout.end_to_end); BoundlessBPE builds its own layout (laid_out).
    copies (BoundlessBPE only): position of a pretoken's first byte -> positions of
    STAND_IN tokens in its lines. When the pretoken becomes one token, the token is
    copied to each of them and the pairs it then makes are counted, so a merge inside a
    pretoken costs its distinct occurrences, as in bpe.train. With copies, freq and
    lengths count a whole pretoken twice (BoundlessBPE reads neither)."""

    def __init__(self, words, freqs, *, groups=None, vocab=None, tie_break="first"):
        self._setup(tie_break, vocab)
        words = [word if isinstance(word, list) else list(word) for word in words]
        freqs = list(freqs)
        groups = list(groups) if groups is not None else [0] * len(words)
        self.n_groups = max(groups, default=0) + 1  # one, empty, if no word
        self.lengths = [0] * self.n_groups  # tokens per group, weighted
        self.contiguous = True  # positions are the words' bytes end to end
        self.copies = {}
        self.tok, self.wt, self.prv, self.nxt, self.grp, self.where = end_to_end(
            words, freqs, groups, self.lengths)
        self._count(all(f == 1 for f in freqs))

    @classmethod
    def laid_out(cls, tok, wt, prv, nxt, where, copies, *, tie_break="first"):
        """Words of one group whose layout the caller built (BoundlessBPE's `layout`):
        tok, wt, prv, nxt per position as described above, where a dict pair ->
        ascending positions (no pair holding a stand-in), copies as for the class.
        Saves laying out and sorting again what the caller already walked in order."""
        self = cls.__new__(cls)
        self._setup(tie_break, None)
        self.n_groups = 1
        self.tok, self.wt, self.prv, self.nxt = tok, wt, prv, nxt
        self.grp = [0] * len(tok)
        self.lengths = [sum(wt)]
        self.contiguous = False
        self.copies = dict(copies)
        self.where = [where]
        self._count(False)
        return self

    def _setup(self, tie_break, vocab):
        check_tie_break(tie_break)
        self.tie_break = tie_break
        self.by_position = tie_break == "first"
        self.vocab = dict(vocab) if vocab is not None else {i: bytes([i]) for i in range(256)}
        self._freq = None  # token -> weighted occurrences, counted when first asked
        self.at = None  # token -> positions that may hold it; built by the first split

    def _count(self, unweighted):
        """Each pair's count and heap, from where (positions ascending)."""
        weight = self.wt.__getitem__
        self.stats = []  # per group: (int, int) -> weighted count, always exact
        self.heaps = []  # per group: (-count, tie key, pair), lazily stale
        for g, where in enumerate(self.where):
            where = self.where[g] = dict(where)  # (int, int) -> positions, ascending
            if unweighted:  # each position counts 1: one C-level pass
                stats = dict(zip(where, map(len, where.values())))
            else:
                stats = {pair: sum(map(weight, positions)) for pair, positions in where.items()}
            heap = [(-count, where[pair][0] if self.by_position else self.tie_key(0, pair), pair)
                    for pair, count in stats.items()]
            heapify(heap)
            self.stats.append(stats)
            self.heaps.append(heap)

    # ------------------------------------------------------------------ reading
    def tie_key(self, group, pair):
        """The heap's tie key of pair (smallest wins): its first position ("first"), the
        pair itself ("smallest_ids") or its bytes backwards ("greatest_bytes")."""
        if self.by_position:
            return self.first_valid(group, pair)
        if self.tie_break == "smallest_ids":
            return pair
        return Backwards((self.vocab[pair[0]], self.vocab[pair[1]]))

    def first_valid(self, group, pair):
        """The first position where pair occurs in group; drops the stale
        entries before it."""
        return first_occurrence(self.where[group][pair], *pair, self.tok, self.nxt)

    @property
    def freq(self):
        """Counter: token -> weighted occurrences (unigram counts; Picky's f(x)). Counted
        on first use and kept up to date after, so the variants that never read it do
        not pay for it."""
        if self._freq is None:
            self._freq = Counter()
            for t, w in zip(self.tok, self.wt):
                if t >= 0:
                    self._freq[t] += w
        return self._freq

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
    def _more(self, g, pair, w, p, grown):
        """Add weight w to pair's count in group g, occurring at p (inserted in order:
        a split's pieces land among the pair's older positions)."""
        stats = self.stats[g]
        stats[pair] = stats.get(pair, 0) + w
        positions = self.where[g].get(pair)
        if positions is None:
            self.where[g][pair] = [p]
        else:
            insort(positions, p)
        grown.add((g, pair))

    def _push(self, g, grown):
        """Give each pair of group g whose count grew (or whose first position moved
        left) a fresh heap entry."""
        stats, heap, where = self.stats[g], self.heaps[g], self.where[g]
        tok, nxt = self.tok, self.nxt
        for pair in grown:
            count = stats.get(pair)
            if not count:
                continue
            if self.by_position:
                # first_valid, inlined (a merge pushes an entry per new pair): a new
                # pair's first listed position is almost always still valid
                key = where[pair][0]
                if tok[key] != pair[0] or nxt[key] < 0 or tok[nxt[key]] != pair[1]:
                    key = first_occurrence(where[pair], *pair, tok, nxt)
            else:
                key = self.tie_key(g, pair)
            heappush(heap, (-count, key, pair))

    def merge(self, pair, idx):
        """Merge every occurrence of pair into idx, left to right without overlap (then
        copy idx to the stand-ins of each word it made whole); returns the weighted
        number of merges per group.

        As in bpe.train, the step only moves tokens and gathers the new pairs' positions
        per neighbour id; the counts change once per neighbour id after it: a new pair
        (x, idx) or (idx, y) sits where the pair (x, a) or (b, y) it replaces sat, so it
        takes over the weight that pair lost."""
        a, b = pair
        self.vocab[idx] = self.vocab[a] + self.vocab[b]
        tok, prv, nxt, at, copies = self.tok, self.prv, self.nxt, self.at, self.copies
        weight = self.wt.__getitem__
        done = [0] * self.n_groups
        made = []
        whole = []  # positions of words this merge made one token, that have copies
        for g in range(self.n_groups):
            stats, where = self.stats[g], self.where[g]
            # its count is dropped whole: after the step no occurrence is left
            stats.pop(pair, None)
            positions = where.pop(pair, ())
            new_left = defaultdict(list)   # x -> positions of the new pair (x, idx), ascending
            new_right = defaultdict(list)  # y -> positions of the new pair (idx, y), ascending
            first = len(made)
            for p in positions:
                if tok[p] != a:
                    continue  # stale, or absorbed by the previous occurrence ("aaa")
                q = nxt[p]
                if q < 0 or tok[q] != b:
                    continue
                o, r = prv[p], nxt[q]
                # a stand-in (< 0) pairs with nothing: its pairs were never counted
                if o >= 0 and tok[o] >= 0:
                    new_left[tok[o]].append(o)
                if r >= 0:
                    if tok[r] >= 0:
                        new_right[tok[r]].append(p)
                    prv[r] = p
                elif o < 0 and p in copies:
                    whole.append(p)
                tok[p] = idx
                tok[q] = -1
                nxt[p] = r
                made.append(p)
            grown = set()
            for x, found in new_left.items():
                w = sum(map(weight, found))
                if x != idx:  # else (idx, a) is a pair of this step, never counted
                    self._forget(g, (x, a), w)
                self._add(g, (x, idx), w, found, grown)
            for y, found in new_right.items():
                w = sum(map(weight, found))
                self._forget(g, (b, y), w)
                if y == a:
                    # subtle: (idx, a) is gone where its a began a later occurrence
                    # ("abab" -> [idx, idx]); only the others are counted
                    found = [p for p in found if tok[nxt[p]] == a]
                    if not found:
                        continue
                    w = sum(map(weight, found))
                self._add(g, (idx, y), w, found, grown)
            done[g] = total = sum(map(weight, made[first:]))
            self.lengths[g] -= total
            self._push(g, grown)
        if whole:
            self._copy(whole, idx)
        if self._freq is not None:
            merged = sum(done)
            self._freq[a] -= merged
            self._freq[b] -= merged
            self._freq[idx] += merged
        if at is not None:
            at.setdefault(idx, []).extend(made)
        return done

    def _forget(self, g, pair, w):
        """Take weight w off pair's count in group g (a merge replaced w of it); a pair
        without a count (the merged pair itself, dropped whole) is left alone."""
        stats = self.stats[g]
        count = stats.get(pair)
        if count is None:
            return
        count -= w
        if count:
            stats[pair] = count
        else:
            del stats[pair], self.where[g][pair]  # every entry left in the list is stale

    def _add(self, g, pair, w, positions, grown, ordered=True):
        """Count weight w more of pair in group g, at positions (ascending if ordered),
        and note it in grown (its heap entry is due)."""
        stats, where = self.stats[g], self.where[g]
        stats[pair] = stats.get(pair, 0) + w
        old = where.get(pair)
        if old is None:
            where[pair] = positions if ordered else sorted(positions)
        else:
            old += positions
            old.sort()  # the new positions may lie among the old ones
        grown.add(pair)

    def _copy(self, whole, idx):
        """Words at positions whole are now the one token idx: put it in their stand-ins
        and count the pairs it makes with neighbours that are tokens already.

        The stand-ins are visited in order, each reading its neighbours as they are (so
        in "ha ha" the second finds the first alive and counts (idx, idx) once); the
        positions are gathered per neighbour id and counted once per pair, weighed by
        their line (a stand-in and its neighbours share one)."""
        tok, prv, nxt, copies = self.tok, self.prv, self.nxt, self.copies
        # neighbour id -> positions of its new pair
        new_left, new_right = defaultdict(list), defaultdict(list)
        for p in whole:
            for u in copies.pop(p):
                tok[u] = idx
                left, right = prv[u], nxt[u]
                if left >= 0:
                    x = tok[left]
                    if x >= 0:
                        new_left[x].append(left)
                if right >= 0:
                    y = tok[right]
                    if y >= 0:
                        new_right[y].append(u)
        # one word's stand-ins come in order; two words' may interleave
        ordered = len(whole) == 1
        weight = self.wt.__getitem__
        grown = set()
        for x, found in new_left.items():
            self._add(0, (x, idx), sum(map(weight, found)), found, grown, ordered)
        for y, found in new_right.items():
            self._add(0, (idx, y), sum(map(weight, found)), found, grown, ordered)
        self._push(0, grown)

    def split(self, idx, parts):
        """Replace every occurrence of token idx by the tokens parts (its pieces, which
        must spell its bytes); returns the weighted number of occurrences split. Needs
        words of bytes, so that the pieces fall back on the positions their bytes had."""
        if not self.contiguous:
            raise ValueError("split needs words laid out end to end (not Words.laid_out)")
        if self.at is None:
            self.at = {}
            for p, t in enumerate(self.tok):
                if t >= 0:
                    self.at.setdefault(t, []).append(p)
        tok, prv, nxt, wt, grp, at = self.tok, self.prv, self.nxt, self.wt, self.grp, self.at
        widths = [len(self.vocab[t]) for t in parts]
        less, more = self._forget, self._more
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
                    more(g, (tok[left], t), w, left, grown)
                at.setdefault(t, []).append(pos)
                left, pos = pos, pos + width
            nxt[left] = r
            if r >= 0:
                prv[r] = left
                more(g, (tok[left], tok[r]), w, left, grown)
            total += w
            self.lengths[g] += w * (len(parts) - 1)
        self.freq[idx] -= total
        for t in parts:
            self.freq[t] += total
        for g in range(self.n_groups):
            self._push(g, {pair for h, pair in grown if h == g})
        return total
