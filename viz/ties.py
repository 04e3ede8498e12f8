"""Ties and tie rules, as data: where trainings under two rules part, how much they
differ, and the tied merges with their candidates.

Pure: it works on bpe.train.TrainResult values, the trainings themselves run in the
worker (lab.jobs.workers.train_rules). Tokens are shown as every table of the lab shows them
(viz.vocab.visible, viz.display.display_text on one line: · for a space, ↵ for a newline,
hex for part of a character).
`tie_marks` is what the Train page's merge table calls to mark tied merges.
"""
from itertools import combinations

from bpe.tie_break import MAX_TIES
from viz.vocab import visible  # the one renderer (viz.display.display_text), on one line

RULE_LABELS = {
    "first": "first pair met (minbpe)",
    "smallest_ids": "smallest (id0, id1) (rustbpe)",
    "greatest_bytes": "greatest (bytes0, bytes1) (CS336)",
}
CANDIDATES_SHOWN = 8  # candidates spelled out per tied merge; the rest are counted


def vocab_of(merges, vocab=None):
    """int -> bytes: the byte tokens (or the given vocab) plus each merge's token.

    >>> vocab_of({(104, 105): 256})[256]
    b'hi'
    """
    vocab = {i: bytes([i]) for i in range(256)} if vocab is None else dict(vocab)
    for (a, b), idx in merges.items():
        vocab[idx] = vocab[a] + vocab[b]
    return vocab


def pair_text(pair, vocab):
    """'a' + 'b' for a pair, each token rendered readably."""
    return " + ".join(f"'{visible(vocab[idx])}'" for idx in pair)


def learned_tokens(result):
    """The bytes of each merged token, in merge order."""
    vocab = vocab_of(result.merges)
    return [vocab[idx] for idx in result.merges.values()]


def compare_two(a, b):
    """How two trainings (TrainResults) differ: where their merges first part (by the
    bytes each merge makes; None if never), how many merge steps make different tokens,
    and the tokens only one of them has."""
    tokens_a, tokens_b = learned_tokens(a), learned_tokens(b)
    steps = max(len(tokens_a), len(tokens_b))
    differ = [k for k in range(steps)
              if k >= len(tokens_a) or k >= len(tokens_b) or tokens_a[k] != tokens_b[k]]
    set_a, set_b = set(tokens_a), set(tokens_b)
    return {"first_part": differ[0] if differ else None, "steps_differ": len(differ),
            "only_a": [t for t in tokens_a if t not in set_b],
            "only_b": [t for t in tokens_b if t not in set_a]}


def rules_table(results):
    """One row per pair of rules: where they part and how much they differ."""
    rows = []
    for rule_a, rule_b in combinations(results, 2):
        diff = compare_two(results[rule_a], results[rule_b])
        rows.append({"rule A": rule_a, "rule B": rule_b,
                     "first merge that differs": (None if diff["first_part"] is None
                                                  else diff["first_part"] + 1),
                     "merges that differ": diff["steps_differ"],
                     "tokens only in A": len(diff["only_a"]),
                     "tokens only in B": len(diff["only_b"])})
    return rows


def parting(results, rule_a, rule_b):
    """At the first merge where rule_a and rule_b part: the candidates both saw (tied at
    the top count) and which one each rule took. None if they never part."""
    a, b = results[rule_a], results[rule_b]
    k = compare_two(a, b)["first_part"]
    if k is None or k >= len(a.merges) or k >= len(b.merges):
        return None
    vocab = vocab_of(a.merges)  # before step k the two vocabularies are the same
    idx = 256 + k
    pair_a, pair_b = list(a.merges)[k], list(b.merges)[k]
    return {"merge": k + 1, "count": a.merge_counts[idx],
            "candidates": [pair_text(pair, vocab) for pair in a.merge_ties[idx]],
            rule_a: pair_text(pair_a, vocab), rule_b: pair_text(pair_b, vocab)}


def token_lists(results, rule_a, rule_b, limit=200):
    """The tokens only one of two rules learned, rendered, for two side-by-side lists."""
    diff = compare_two(results[rule_a], results[rule_b])
    return ([visible(t) for t in diff["only_a"][:limit]],
            [visible(t) for t in diff["only_b"][:limit]])


def tie_marks(merge_ties, vocab, shown=CANDIDATES_SHOWN):
    """idx -> 'tied with N: ...' for each merge that won a tie, for a merge table column.
    merge_ties: tok.merge_ties (idx -> [pair, ...], the winner first); vocab: tok.vocab.

    >>> tie_marks({256: [(97, 98), (98, 99)], 257: [(256, 99)]}, vocab_of({(97, 98): 256}))
    {256: "tied with 1: 'b' + 'c'"}
    """
    marks = {}
    for idx, pairs in merge_ties.items():
        others = pairs[1:]
        if others:
            text = " · ".join(pair_text(pair, vocab) for pair in others[:shown])
            more = f" · and {len(others) - shown} more" if len(others) > shown else ""
            plus = "+" if len(pairs) >= MAX_TIES else ""  # record_ties keeps at most MAX_TIES
            marks[idx] = f"tied with {len(others)}{plus}: {text}{more}"
    return marks


def tied_merges_rows(result, limit=500):
    """One row per merge that won a tie: merge number, id, token, count, the candidates."""
    vocab = vocab_of(result.merges)
    marks = tie_marks(result.merge_ties or {}, vocab)
    rows = []
    for k, (pair, idx) in enumerate(result.merges.items()):
        if idx in marks:
            rows.append({"merge": k + 1, "id": idx, "token": visible(vocab[idx]),
                         "pair": pair_text(pair, vocab), "count": result.merge_counts[idx],
                         "candidates": len(result.merge_ties[idx]), "others": marks[idx]})
            if len(rows) >= limit:
                break
    return rows


def tie_share(result):
    """(merges that won a tie, merges) for one training."""
    ties = sum(1 for pairs in (result.merge_ties or {}).values() if len(pairs) > 1)
    return ties, len(result.merges)
