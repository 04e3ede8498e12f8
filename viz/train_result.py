"""What a training made, as data: the merge table, the merge-frequency and compression
curves (Altair charts), and the messages around them.

Everything here is pure (pandas and altair, no streamlit) so it is unit-tested. It
neither trains (lab/jobs/workers.py does, in a worker process, asked by a lab/jobs/requests.py
request) nor reads a corpus (lab/jobs/corpus_text.py decodes it).
"""
import math

import altair as alt
import pandas as pd

from bpe.budgets import MAX_VOCAB_BYTES
from viz.sweep import SUBTITLE_GREY, wrapped_title  # one home for a chart's title and its room
from viz.ties import tie_marks
from viz.vocab import visible  # the one renderer, on one line

CHART_POINTS = 4000     # points drawn per curve at most (more only slows the browser)


# ------------------------------------------------------------------- the merges
def merge_table(tok):
    """One row per merge, in the order learned: rank, id, pair, from (the two parts),
    token, count (None where the tokenizer has no counts, e.g. loaded from .model), and
    tie: the other pairs that had the same top count at that step, where ties were
    recorded (tok.merge_ties, train(..., record_ties=True)), else "". A token a method
    dropped again (Picky BPE's tok.removed) is marked "(dropped)": its bytes come from
    its pair, as it is no longer in the vocabulary.

    >>> from bpe import BasicTokenizer
    >>> merge_table(BasicTokenizer().train("aaabdaaabac", 258)).values.tolist()
    [[1, 256, '(97, 97)', '[a][a]', 'aa', 4, ''], [2, 257, '(256, 97)', '[aa][a]', 'aaa', 2, '']]
    >>> merge_table(BasicTokenizer().train("abcd", 257, record_ties=True))["tie"][0]
    "tied with 2: 'b' + 'c' · 'c' + 'd'"
    """
    vocab = dict(tok.vocab)
    for (p0, p1), idx in tok.merges.items():  # in order: a pair's parts come first
        if idx not in vocab:
            vocab[idx] = vocab[p0] + vocab[p1]
    dropped = set(getattr(tok, "removed", ()) or ())
    marks = tie_marks(getattr(tok, "merge_ties", None) or {}, vocab)
    rows = [(rank, idx, f"({p0}, {p1})", f"[{visible(vocab[p0])}][{visible(vocab[p1])}]",
             visible(vocab[idx]) + (" (dropped)" if idx in dropped else ""),
             tok.merge_counts.get(idx), marks.get(idx, ""))
            for rank, ((p0, p1), idx) in enumerate(tok.merges.items(), 1)]
    frame = pd.DataFrame(rows, columns=["rank", "id", "pair", "from", "token", "count", "tie"])
    frame["count"] = frame["count"].astype("Int64")
    return frame


def ties_caption(tok, table):
    """One line on the merge table's tie column: how many merges won a tie, or that
    ties were not recorded.

    >>> from bpe import BasicTokenizer
    >>> tok = BasicTokenizer().train("abcd", 258, record_ties=True)
    >>> ties_caption(tok, merge_table(tok))[:53]
    '2 of the 2 merges won a tie: other pairs had the same'
    """
    if not getattr(tok, "merge_ties", None):
        return ("Ties were not recorded for this training, so the tie column is empty: "
                "tick “Record ties” to see which merges won a tie.")
    tied, n = int((table["tie"] != "").sum()), len(table)
    return (f"{tied:,} of the {n:,} merge{'' if n == 1 else 's'} won a tie: other pairs had "
            "the same top count, and the tie rule picked this one (the tie column lists "
            "the others). Another rule would have merged differently from there on.")


def recent_merges_table(recent):
    """The latest merges a running job reported, newest first: id, pair, token, count.
    recent holds (idx, pair, token bytes, count) tuples, as lab.jobs sends them."""
    rows = [(idx, f"({pair[0]}, {pair[1]})", visible(token), count)
            for idx, pair, token, count in reversed(list(recent))]
    return pd.DataFrame(rows, columns=["id", "pair", "token", "count"])


def _thin(frame, max_points):
    """Every k-th row (and the last) so at most about max_points rows remain."""
    if len(frame) <= max_points:
        return frame, 1
    step = math.ceil(len(frame) / max_points)
    keep = list(range(0, len(frame), step))
    if keep[-1] != len(frame) - 1:
        keep.append(len(frame) - 1)
    return frame.iloc[keep], step


def merge_frequency_chart(table, max_points=CHART_POINTS):
    """The merge-frequency curve: how often each merged pair occurred, against merge
    number, on a log scale (Zipf's law shows as a near-straight slope). Hover shows the
    token and its count. table is merge_table()'s frame."""
    data, step = _thin(table.dropna(subset=["count"]), max_points)
    data = data.assign(count=data["count"].astype(int))
    title = alt.TitleParams(  # one subtitle string: tests/viz/test_viz_training.py reads it
        "Merge frequency: how often each merged pair occurred", subtitleColor=SUBTITLE_GREY,
        subtitle=("Each merge is rarer than the one before: the counts fall roughly as a "
                  "power of the rank." + (f" Every {step}th merge drawn." if step > 1 else "")))
    return alt.Chart(data, title=title).mark_line(point=alt.OverlayMarkDef(size=18)).encode(
        x=alt.X("rank:Q", title="merge number", scale=alt.Scale(domainMin=1)),
        y=alt.Y("count:Q", title="count (log scale)",
                scale=alt.Scale(type="log")),
        tooltip=[alt.Tooltip("rank:Q", title="merge"), alt.Tooltip("id:Q"),
                 alt.Tooltip("token:N"), alt.Tooltip("from:N"),
                 alt.Tooltip("count:Q", format=",")],
    ).properties(height=320)


# -------------------------------------------------------------- compression
def compression_frame(counts):
    """Bytes per token on the held-out text for every vocab size the training passed
    through. counts[k] = tokens with the first k merges (bpe.replay.token_counts_by_merge),
    so counts[0] is the number of bytes.

    >>> compression_frame([11, 9, 7, 5]).values.tolist()[-1]
    [259.0, 3.0, 5.0, 2.2]
    """
    n_bytes = counts[0] if counts else 0
    rows = [(256 + k, k, tokens, n_bytes / tokens if tokens else float("nan"))
            for k, tokens in enumerate(counts)]
    return pd.DataFrame(rows, columns=["vocab_size", "merges", "tokens", "bytes_per_token"]) \
        .astype(float).round({"bytes_per_token": 3})


def compression_chart(frame, max_points=CHART_POINTS):
    """The compression curve: bytes per token on the held-out text against vocab size."""
    data, _ = _thin(frame, max_points)
    title = wrapped_title(
        "Compression on held-out text",
        subtitle="Bytes per token on text the tokenizer never saw, had training stopped at "
                 "each vocab size: higher is better, and the gains shrink as merges get rarer.")
    return alt.Chart(data, title=title).mark_line(point=alt.OverlayMarkDef(size=12)).encode(
        x=alt.X("vocab_size:Q", title="vocab size", scale=alt.Scale(domainMin=256)),
        y=alt.Y("bytes_per_token:Q", title="bytes per token", scale=alt.Scale(zero=False)),
        tooltip=[alt.Tooltip("vocab_size:Q", title="vocab size", format=","),
                 alt.Tooltip("tokens:Q", title="tokens", format=","),
                 alt.Tooltip("bytes_per_token:Q", title="bytes per token", format=".3f")],
    ).properties(height=320)


# ----------------------------------------------------------------- messages
def stop_message(tok, vocab_size, min_frequency=1):
    """(early, message): why the training stopped, and whether it stopped short of
    vocab_size. stop_reason comes from bpe's trainer.

    >>> from bpe import BasicTokenizer
    >>> stop_message(BasicTokenizer().train("abab", 300, min_frequency=2), 300, 2)[1][:50]
    'Stopped early at 1 merge of 44: no pair occurs twi'
    """
    n, total = len(tok.merges), vocab_size - 256
    merges = f"{n:,} merge{'' if n == 1 else 's'}"
    if tok.stop_reason == "min_frequency":
        times = {2: "twice", 3: "three times"}.get(min_frequency, f"{min_frequency:,} times")
        return True, (f"Stopped early at {merges} of {total:,}: no pair occurs {times} or "
                      "more. Use a bigger corpus, a smaller vocab size or a lower minimum "
                      "frequency.")
    if tok.stop_reason == "no_pairs":
        return True, (f"Stopped early at {merges} of {total:,}: no pairs left to merge, "
                      "every chunk of the corpus is already a single token. Use a bigger "
                      "corpus or a smaller vocab size.")
    if tok.stop_reason == "vocab_bytes":
        return True, (f"Stopped early at {merges} of {total:,}: the vocabulary reached "
                      f"{MAX_VOCAB_BYTES >> 20} MB of token bytes, the most a tokenizer file "
                      "may hold. Past the point where every pair occurs once, each merge "
                      "only makes one token longer. Use a minimum frequency of 2 or a "
                      "smaller vocab size.")
    return False, f"Reached the vocab size: {merges}, {256 + n:,} tokens."


def format_duration(seconds):
    """Seconds as a short human duration.

    >>> format_duration(4.2), format_duration(125), format_duration(7300)
    ('4 s', '2 min 5 s', '2 h 1 min')
    """
    seconds = max(int(round(seconds)), 0)
    if seconds < 60:
        return f"{seconds} s"
    if seconds < 3600:
        return f"{seconds // 60} min {seconds % 60} s"
    return f"{seconds // 3600} h {seconds % 3600 // 60} min"
