"""How bpe.methods.merging.Words lays plain words out: end to end in one position
space, as bpe.train.train_merges does (position = index in the words' concatenation),
with each pair's positions listed per group. BoundlessBPE builds its own layout
(bpe.methods.boundless.layout): pretokens and lines of stand-ins, in text order.

It knows nothing of tie rules or merges: ids and weights in, arrays out.
"""
from collections import defaultdict
from itertools import chain, repeat


def end_to_end(words, freqs, groups, lengths):
    """(tok, wt, prv, nxt, grp, where) for words (lists of ids) with weights freqs in
    groups (a group index per word): tok[p] the id at position p, wt[p] and grp[p] its
    word's weight and group, prv/nxt the previous and next position in the word (-1 at
    its ends), where[g] a dict pair -> ascending positions in group g. lengths (a list,
    one per group) grows by each word's weighted length.

    >>> tok, wt, prv, nxt, grp, where = end_to_end([[1, 2], [3]], [2, 1], [0, 0], [0])
    >>> tok, wt, prv, nxt, where
    ([1, 2, 3], [2, 2, 1], [-1, 0, -1], [1, -1, -1], [defaultdict(<class 'list'>, {(1, 2): [0]})])
    """
    tok = list(chain.from_iterable(words))
    n = len(tok)
    prv = list(range(-1, n - 1))
    nxt = list(range(1, n + 1))
    wt = [0] * n     # each position's word weight
    grp = [0] * n   # each position's group
    where = [defaultdict(list) for _ in lengths]
    end = 0
    for word, f, g in zip(words, freqs, groups):
        start, end = end, end + len(word)
        if start == end:
            continue
        prv[start] = -1
        nxt[end - 1] = -1
        wt[start:end] = repeat(f, end - start)
        if g:
            grp[start:end] = repeat(g, end - start)
        lengths[g] += f * len(word)
        for pair, p in zip(zip(word, word[1:]), range(start, end)):
            where[g][pair].append(p)
    return tok, wt, prv, nxt, grp, where
