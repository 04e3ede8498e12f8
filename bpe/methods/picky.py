"""bpe.methods "picky": Picky BPE (Chizhov et al., EMNLP 2024, arXiv 2409.04599).

Training is BPE with one more step: after merging (x1, x2) into x3, each parent x is
looked at with IoS(x) = f(x1, x2) / f(x), the share of x's occurrences (counted just
before the merge) that the merge used up. A parent with IoS above tau is removed: its
remaining occurrences are split back into its pieces (its own pair, recursively, down
to tokens still in the vocabulary), and it leaves the vocabulary. Bytes are never
removed. Training runs until vocab_size tokens are alive, so it makes more merges than
plain BPE when it removes some. A removed token can come back if its pair wins again
later; it then gets its old id back.

Strict ">" is the reference implementation's test (Chizhov's trainer, as packaged in
pickybpe: `merged_freq / (token.freq + merged_freq) > threshold`); the issue writes
">= tau". With ">", tau = 1 removes nothing and is exactly plain BPE (merges and ids),
which the tests prove against bpe.methods.classic; with ">=", tau = 1 would remove the
tokens whose every occurrence the merge used up, changing encodings but not merges.

Tie rule: tie_break as bpe.train ("first", minbpe's, by default), through
bpe.methods.merging.Words, which finds the same merges as bpe.train.train_merges.

Encoding replays the training events in order, as the paper's tokenizer does: at each
step the earliest event still ahead that applies to the chunk (a merge of an adjacent
pair, or the removal of a token present) is applied to the whole chunk.

>>> tok = train(["ab ab ab abc abc abc abc"], 260, tau=0.5)
>>> tok.decode(tok.encode("ab abc")) == "ab abc"
True
"""
from bisect import bisect_right
from collections import defaultdict

from ..regex import RegexTokenizer
from .. import documents
from .classic import chunk_counts
from .merge_loop import Clock
from .merging import Words


class PickyTokenizer(RegexTokenizer):
    """A RegexTokenizer (GPT-4 pattern) whose encode replays merges and removals."""

    def __init__(self, pattern=None):
        self.events = []      # ("merge", pair, idx) or ("remove", idx, pieces), in order
        self.removed = set()  # ids removed at the end of training (not in vocab)
        self.tau = 1.0
        self._merge_times = {}   # pair -> event indices that merge it
        self._remove_times = {}  # idx -> event indices that remove it
        super().__init__(pattern)

    def set_events(self, events, merge_counts=None):
        """Take the training events; merges and the vocabulary follow from them."""
        merges = {}
        alive = set()
        merge_times = defaultdict(list)
        remove_times = defaultdict(list)
        for e, event in enumerate(events):
            if event[0] == "merge":
                _, pair, idx = event
                merges.setdefault(pair, idx)
                merge_times[pair].append(e)
                alive.add(idx)
            else:
                remove_times[event[1]].append(e)
                alive.discard(event[1])
        self.events = list(events)
        self.removed = set(merges.values()) - alive
        self._merge_times = dict(merge_times)
        self._remove_times = dict(remove_times)
        self._set_merges(merges, merge_counts)

    def _left_out(self):
        return self.removed  # subtle: still built, since later tokens are made from them

    def model_text(self):
        if self.removed or any(event[0] == "remove" for event in self.events):
            raise ValueError("a Picky BPE tokenizer that removed tokens cannot be saved as "
                             "a minbpe .model file: that format has merges only, not the "
                             "removals its encoding replays")
        return super().model_text()

    def _encode_chunk(self, text_bytes):
        ids = list(text_bytes)
        events, merge_times, remove_times = self.events, self._merge_times, self._remove_times
        now = -1
        while True:
            best = None
            for pair in zip(ids, ids[1:]):
                e = _next_event(merge_times.get(pair), now)
                if e is not None and (best is None or e < best):
                    best = e
            if remove_times:
                for idx in set(ids):
                    e = _next_event(remove_times.get(idx), now)
                    if e is not None and (best is None or e < best):
                        best = e
            if best is None:
                return ids
            event = events[best]
            if event[0] == "merge":
                ids = merge_all(ids, event[1], event[2])
            else:
                ids = split_all(ids, event[1], event[2])
            now = best


def _next_event(times, now):
    """The first of times (ascending) after now, or None."""
    if not times:
        return None
    i = bisect_right(times, now)
    return times[i] if i < len(times) else None


def merge_all(ids, pair, idx):
    """ids with every occurrence of pair replaced by idx, left to right without overlap.

    >>> merge_all([1, 1, 1, 2], (1, 1), 9)
    [9, 1, 2]
    """
    a, b = pair
    out = []
    i, n = 0, len(ids)
    while i < n:
        if i + 1 < n and ids[i] == a and ids[i + 1] == b:
            out.append(idx)
            i += 2
        else:
            out.append(ids[i])
            i += 1
    return out


def split_all(ids, idx, pieces):
    """ids with every idx replaced by pieces."""
    out = []
    for t in ids:
        if t == idx:
            out.extend(pieces)
        else:
            out.append(t)
    return out


def train(texts, vocab_size, *, min_frequency=1, special_tokens=None, progress=None,
          tie_break="first", tau=1.0):
    """A PickyTokenizer with vocab_size live tokens (fewer if pairs run out)."""
    tok = PickyTokenizer()
    counts, specials, vocab_size = chunk_counts(tok, texts, special_tokens, vocab_size)
    words = Words([chunk.encode("utf-8") for chunk in counts], counts.values(),
                  tie_break=tie_break)
    budget = vocab_size - 256
    merges = {}
    parents = {}
    alive = set()
    events = []
    merge_counts = {}
    clock = Clock(progress, budget)
    stop_reason = "no_pairs"
    # a removed token can come back and go again; this bounds the churn
    max_events = 8 * budget + 64
    while len(events) < max_events:
        if len(alive) >= budget:
            stop_reason = "vocab_size"
            break
        found = words.best()
        if found is None:
            break
        pair, count = found
        if count < min_frequency:
            stop_reason = "min_frequency"
            break
        idx = merges.setdefault(pair, 256 + len(merges))
        parents[idx] = pair
        before = {x: words.freq[x] for x in pair}  # f(x) just before the merge
        used = words.merge(pair, idx)[0]           # f(x1, x2): merges actually made
        alive.add(idx)
        events.append(("merge", pair, idx))
        merge_counts.setdefault(idx, count)
        clock.tick(idx, pair, words.vocab[idx], count)
        for x in dict.fromkeys(pair):
            if x in alive and before[x] and used / before[x] > tau:
                pieces = _pieces(x, parents, alive)
                words.split(x, pieces)
                alive.discard(x)
                events.append(("remove", x, pieces))
    else:
        stop_reason = "churn"
    tok.tau = tau
    tok.set_events(events, merge_counts)
    tok.stop_reason = stop_reason
    return documents.register_after_merges(tok, specials)


def _pieces(idx, parents, alive):
    """idx taken apart, through its pair, down to bytes and tokens still alive."""
    out = []
    stack = list(reversed(parents[idx]))
    while stack:
        t = stack.pop()
        if t < 256 or t in alive:
            out.append(t)
        else:
            stack.extend(reversed(parents[t]))
    return out
