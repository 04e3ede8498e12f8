"""Replaying a tokenizer's merges: the text as it stands after only the first k merges,
and how many tokens it takes for every k, all from one ordinary encode.

Why one encode is enough: encoding applies merges lowest id first, and a pair that
contains a token made by merge r can only merge into a later token, so the ids applied
never decrease. Stopping after the first k merges therefore leaves exactly the final
tokens taken apart, each down to its pieces with ids below 256 + k. Counting, for every
merge, how often it was applied (the internal nodes of each final token's merge tree)
gives the token count for every k at once.

Works for any Tokenizer with merges, GPT-4's included (its merges are recovered from the
ranks on first use). Special tokens are not replayed: give it ordinary text.
It does not render anything; viz/ and the pages do.
"""
from array import array
from collections import Counter
from collections.abc import Mapping
from itertools import accumulate

DENSE_SLOTS_PER_MERGE = 2  # made ids spread wider than this are found through a dict


def merge_parents(tok):
    """idx -> (p0, p1): the pair each merged token was made from (a MergeParents).

    >>> from bpe import BasicTokenizer
    >>> dict(merge_parents(BasicTokenizer().train("aaabdaaabac", 259)))
    {256: (97, 97), 257: (256, 97), 258: (257, 98)}
    """
    return MergeParents(*tok.merge_columns())


class MergeParents(Mapping):
    """idx -> (p0, p1) read from a tokenizer's merge columns (Tokenizer.merge_columns: made,
    left and right ids as arrays), with the meaning of {idx: pair for pair, idx in
    merges.items()}: an id made twice (Llama 3's merges make some tokens twice) keeps its
    first place and its last pair. Held as the columns and an array of each id's column,
    ~28 B a merge, where a dict of tuples and ints cost ~170 (issue 32: the Merge tree and
    Merge replay pages keep one per tokenizer, 17 MB for 100,000 merges). Read-only."""

    __slots__ = ("made", "lefts", "rights", "at", "size")

    def __init__(self, made, lefts, rights):
        self.made, self.lefts, self.rights = made, lefts, rights
        top = max(made, default=-1) + 1
        if top <= DENSE_SLOTS_PER_MERGE * len(made) + 256:
            at = array("i", [-1]) * top  # id -> its last column, -1: no merge made it
            for k, idx in enumerate(made):
                at[idx] = k
            self.size = sum(1 for k in at if k >= 0)
        else:
            at = {idx: k for k, idx in enumerate(made)}
            self.size = len(at)
        self.at = at

    def _column(self, idx):
        at = self.at
        if isinstance(at, dict):
            return at.get(idx, -1)
        return at[idx] if type(idx) is int and 0 <= idx < len(at) else -1

    def __getitem__(self, idx):
        k = self._column(idx)
        if k < 0:
            raise KeyError(idx)
        return self.lefts[k], self.rights[k]

    def get(self, idx, default=None):
        k = self._column(idx)
        return default if k < 0 else (self.lefts[k], self.rights[k])

    def __contains__(self, idx):
        return self._column(idx) >= 0

    def __len__(self):
        return self.size

    def __iter__(self):  # each id at its first place, as the dict's keys
        seen = set()
        for idx in self.made:
            if idx not in seen:
                seen.add(idx)
                yield idx

    def __repr__(self):
        return f"MergeParents({len(self):,} merges)"


def check_replayable(parents):
    """ValueError unless merge k made id 256 + k from ids below its own, as in minbpe and
    GPT-4 (replay reads "the first k merges" as "ids below 256 + k"). A tokenizer.json
    with another id layout (an HFTokenizer) is refused rather than replayed wrongly.

    >>> check_replayable({300: (97, 98)})
    Traceback (most recent call last):
    ValueError: replay needs merges that make ids 256, 257, ... in order from smaller ids; this tokenizer's ids are laid out otherwise (e.g. a tokenizer.json with its own id layout)
    """
    ok = not parents or (min(parents) == 256 and max(parents) == 255 + len(parents)
                         and all(p0 < idx and p1 < idx for idx, (p0, p1) in parents.items()))
    if not ok:
        raise ValueError("replay needs merges that make ids 256, 257, ... in order from "
                         "smaller ids; this tokenizer's ids are laid out otherwise (e.g. a "
                         "tokenizer.json with its own id layout)")


def split_below(ids, parents, limit):
    """Take each token apart until every piece has an id below limit (or is a byte).

    >>> split_below([258, 100], {256: (97, 97), 257: (256, 97), 258: (257, 98)}, 257)
    [256, 97, 98, 100]
    """
    out = []
    for idx in ids:
        stack = [idx]
        while stack:
            top = stack.pop()
            pair = parents.get(top) if top >= limit else None
            if pair is None:
                out.append(top)
            else:
                stack.append(pair[1])  # subtle: right first, so the left pops first
                stack.append(pair[0])
    return out


def encode_with_first_merges(tok, text, k, parents=None):
    """The ids of text encoded with only the first k merges (k=0: the raw bytes).

    >>> from bpe import BasicTokenizer
    >>> tok = BasicTokenizer().train("aaabdaaabac", 259)
    >>> encode_with_first_merges(tok, "aaabdaaabac", 1)
    [256, 97, 98, 100, 256, 97, 98, 97, 99]
    """
    parents = merge_parents(tok) if parents is None else parents
    check_replayable(parents)
    return split_below(tok.encode_ordinary(text), parents, 256 + k)


def merge_applications(ids, parents):
    """Counter idx -> how many times merge idx was applied to produce ids.

    >>> merge_applications([258, 100, 258], {256: (97, 97), 257: (256, 97), 258: (257, 98)})
    Counter({258: 2, 257: 2, 256: 2})
    """
    need = Counter(idx for idx in ids if idx in parents)
    applied = Counter()
    # subtle: a token's parts have smaller ids, so visiting ids from the largest down
    # hands each token's count to its parts before the parts themselves are visited
    for idx in range(max(need, default=0), 255, -1):
        times = need.get(idx)
        if times:
            applied[idx] = times
            p0, p1 = parents[idx]
            need[p0] += times
            need[p1] += times
    return applied


def token_counts_by_merge(tok, text):
    """counts[k] = how many tokens text takes with only the first k merges, for k from 0
    (the UTF-8 bytes) to len(tok.merges) (the tokenizer as it is).

    >>> from bpe import BasicTokenizer
    >>> tok = BasicTokenizer().train("aaabdaaabac", 259)
    >>> token_counts_by_merge(tok, "aaabdaaabac")
    [11, 9, 7, 5]
    """
    parents = merge_parents(tok)
    check_replayable(parents)
    ids = tok.encode_ordinary(text)
    applied = merge_applications(ids, parents)
    per_merge = [applied.get(256 + i, 0) for i in range(len(parents))]
    n_bytes = len(tok.decode_bytes(ids))  # after lone surrogates became U+FFFD
    return [n_bytes - done for done in accumulate(per_merge, initial=0)]
