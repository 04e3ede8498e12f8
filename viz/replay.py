"""Merge replay, ready to draw: the text's spans after the first k merges, the merge that
step k applies and where it landed, and the token-count curve thinned for a chart.

The ids come from bpe.replay (one encode, then tokens taken apart); this file adds what a
page shows about them. Step k applies the merge that made token 255 + k, so step 0 is
the raw bytes and step len(merges) is the tokenizer as it is. Nothing here imports
streamlit.
"""
from bisect import bisect_left, bisect_right
from dataclasses import dataclass, field
from typing import Optional

import pandas as pd

from bpe.replay import merge_applications, split_below
from viz.marks import spans_holding, tokens_row
from viz.rows import covered_text, view_row
from viz.tree import dropped_note, merged_vocab
from viz.vocab import visible

CHART_POINTS = 1500  # points of the count curve drawn; GPT-4 has 100,001


@dataclass
class ReplayStep:
    k: int
    ids: list                      # the text's ids with only the first k merges
    row: dict                      # the token view's row of those ids (viz.marks.tokens_row)
    idx: Optional[int] = None      # the token merge k made (None at k=0)
    pair: Optional[tuple] = None   # the pair it was made from
    count: Optional[int] = None    # the pair's count when merged, if recorded
    occurrences: int = 0           # how many times idx stands in ids
    highlight: list = field(default_factory=list)  # indices of the row's spans holding idx


def replay_step(tok, ids, k, parents):
    """The text after only the first k merges, from its fully merged ids.

    >>> from bpe import BasicTokenizer
    >>> from bpe.replay import merge_parents
    >>> tok = BasicTokenizer().train("aaabdaaabac", 259)
    >>> step = replay_step(tok, tok.encode("aaabdaaabac"), 2, merge_parents(tok))
    >>> step.idx, step.pair, step.occurrences, sorted(step.highlight)
    (257, (256, 97), 2, [0, 3])
    >>> step.row["show"][:2]
    ['aaa', 'b']
    """
    n_merges = len(parents)
    if not 0 <= k <= n_merges:
        raise ValueError(f"k must be from 0 to {n_merges} (the number of merges), not {k}")
    step_ids = split_below(ids, parents, 256 + k)
    step = ReplayStep(k, step_ids, step_row(tok, step_ids))
    if k:
        step.idx = 255 + k
        step.pair = parents[step.idx]
        step.count = tok.merge_counts.get(step.idx)
        step.occurrences = step_ids.count(step.idx)
        step.highlight = spans_holding(step.row, {step.idx})
    return step


def step_row(tok, ids):
    """The token view's row of ids, colored by id. Half way through a replay the ids may
    hold tokens a method dropped later in training (Picky BPE): they are not in the
    vocabulary any more, so their bytes come from their pair (viz.tree.merged_vocab)."""
    if not getattr(tok, "removed", None):
        return tokens_row(tok, ids, color_by="id")
    vocab = merged_vocab(tok)
    token_bytes = [vocab[idx] for idx in ids]
    row = covered_text(view_row(token_bytes, ids, whitespace="markers"), b"".join(token_bytes))
    row["color_by"] = "id"
    return row


def merge_name(tok, idx, pair):
    """'[t] + [he] -> [the]': a merge in the visible text of its tokens; a token the
    method dropped later (Picky BPE) is marked so.

    >>> from bpe import BasicTokenizer
    >>> merge_name(BasicTokenizer().train("aaabdaaabac", 259), 256, (97, 97))
    '[a] + [a] -> [aa]'
    """
    vocab = merged_vocab(tok)
    left, right = (visible(vocab[p]) for p in pair)
    return f"[{left}] + [{right}] -> [{visible(vocab[idx])}]{dropped_note(tok, idx)}"


def used_steps(ids, parents):
    """The steps k whose merge this text's tokens use, ascending: the only steps at which
    its token count changes (GPT-4 has 100,000 steps; a paragraph uses a few hundred).

    >>> used_steps([258, 100], {256: (97, 97), 257: (256, 97), 258: (257, 98), 259: (1, 2)})
    [1, 2, 3]
    """
    return sorted(idx - 255 for idx in merge_applications(ids, parents))


def next_step(steps, k):
    """The first step in steps after k, or None.

    >>> next_step([1, 5, 9], 5), next_step([1, 5, 9], 9)
    (9, None)
    """
    i = bisect_right(steps, k)
    return steps[i] if i < len(steps) else None


def previous_step(steps, k):
    """The last step in steps before k, or None.

    >>> previous_step([1, 5, 9], 5), previous_step([1, 5, 9], 1)
    (1, None)
    """
    i = bisect_left(steps, k)
    return steps[i - 1] if i else None


def counts_frame(counts, max_points=CHART_POINTS, keep=()):
    """DataFrame (k, tokens) of counts[k], thinned to about max_points evenly spaced
    steps; the first and last step and any step in keep are always in it.

    >>> counts_frame([11, 9, 7, 5], max_points=2)["k"].tolist()
    [0, 3]
    """
    last = len(counts) - 1
    stride = max(1, -(-last // max(1, max_points - 1)))
    ks = sorted({*range(0, last + 1, stride), last, *(k for k in keep if 0 <= k <= last)})
    return pd.DataFrame({"k": ks, "tokens": [counts[k] for k in ks]})


def zoom_ranges(n_merges):
    """The k ranges the slider can span: the first 100, 1,000, 10,000 ... merges, then all.
    A slider over GPT-4's 100,000 merges moves hundreds at a time; the first merges,
    which do most of the work, need a short one.

    >>> zoom_ranges(100_000), zoom_ranges(800), zoom_ranges(300)
    ([100, 1000, 10000, 100000], [100, 800], [300])
    """
    return [r for r in (100, 1000, 10_000) if r * 5 <= n_merges] + [n_merges]


def zoom_for(k, zoom, ranges):
    """The range the slider spans: zoom if it holds k (and is offered), else the smallest
    one that does (a play, a jump or the exact number moved k past it).

    >>> zoom_for(50, 1000, [100, 1000, 5000]), zoom_for(1500, 1000, [100, 1000, 5000])
    (1000, 5000)
    """
    if zoom in ranges and k <= zoom:
        return zoom
    return next(r for r in ranges if r >= k)
