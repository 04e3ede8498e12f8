"""A split pattern's chunks over a text, and the tokens that cross them.

A tokenizer never merges across its own pattern's chunks, so drawing the chunks under
its tokens shows every token inside one chunk. Against another pattern (edited by the
user) tokens may cross chunk boundaries; `crossing_spans` finds them among a token-view row's spans. Text the pattern
does not match at all is returned as chunks of its own, flagged: a RegexTokenizer with
that pattern would refuse the text.

A custom pattern is bounded before it compiles and runs under a CPU-time limit, both
bpe.patterns.safety' (TimeoutError here, so a catastrophic pattern such as `(a|a)+$` on a long run
of a's stops instead of hanging the page); capture groups are made non-capturing.
Nothing here imports streamlit.
"""
from bisect import bisect_left, bisect_right
from dataclasses import dataclass

import pandas as pd

from bpe.patterns import compile_pattern
from bpe.patterns import safety
from viz.marks import span_char_starts, span_token_starts
from viz.vocab import visible

TIMEOUT = 1.0  # seconds the pattern may take over the whole text


@dataclass(frozen=True)
class Chunk:
    start: int       # character offsets in the text
    end: int
    matched: bool    # False: text between matches that the pattern skipped


def find_chunks(pattern, text, timeout=TIMEOUT):
    """The chunks pattern cuts text into, covering all of it (skipped text included, with
    matched=False). Empty matches cut nothing and are left out.
    ValueError for an invalid pattern; TimeoutError with a message if it runs too long.

    >>> [(c.start, c.end, c.matched) for c in find_chunks(r"\\w+", "hi, yo")]
    [(0, 2, True), (2, 4, False), (4, 6, True)]
    """
    pattern, compiled = compile_pattern(pattern)  # a custom one through bpe.patterns.safety
    try:
        matches = safety.finditer_within(compiled, text, seconds=timeout, pattern=pattern)
    except ValueError as e:  # bpe.patterns.safety' one wording for a runaway pattern
        raise TimeoutError(str(e)) from None
    chunks, pos = [], 0
    for m in matches:
        if m.start() == m.end():
            continue
        if m.start() > pos:
            chunks.append(Chunk(pos, m.start(), False))
        chunks.append(Chunk(m.start(), m.end(), True))
        pos = m.end()
    if pos < len(text):
        chunks.append(Chunk(pos, len(text), False))
    return chunks


def chunk_starts(chunks):
    """The sorted start offsets of the chunks."""
    return [c.start for c in chunks]


def span_chunks(row, chunks):
    """For each span of a token-view row (viz.rows.view_row), the number of the chunk
    it starts in: the view underlines spans of alternate chunks in alternate colors.

    >>> row = {"n": [1, 1, 1], "nc": [2, 1, 3]}
    >>> span_chunks(row, [Chunk(0, 2, True), Chunk(2, 6, True)])
    [0, 1, 1]
    """
    starts = chunk_starts(chunks)
    return [max(0, bisect_right(starts, c) - 1) for c in span_char_starts(row)[:-1]]


def crossing_spans(row, chunks):
    """Indices of the spans of a token-view row that cross a chunk boundary (start inside
    one chunk, end inside another): a chunk starts strictly inside the span.

    >>> row = {"n": [1, 1], "nc": [2, 2]}
    >>> crossing_spans(row, [Chunk(0, 1, True), Chunk(1, 4, True)]), crossing_spans(row, [])
    ([0], [])
    """
    starts = chunk_starts(chunks)
    offsets = span_char_starts(row)
    crossing = []
    for i, (start, end) in enumerate(zip(offsets, offsets[1:])):
        j = bisect_right(starts, start)
        if j < len(starts) and starts[j] < end:
            crossing.append(i)
    return crossing


def chunk_frame(text, chunks, row):
    """One row per chunk: #, start, end, text (visible), tokens (the tokens of the spans
    that start in it), matched."""
    span_starts = span_char_starts(row)[:-1]
    token_starts = span_token_starts(row)
    rows = []
    for n, c in enumerate(chunks):
        first, last = bisect_left(span_starts, c.start), bisect_left(span_starts, c.end)
        rows.append({"#": n, "start": c.start, "end": c.end,
                     "text": visible(text[c.start:c.end].encode("utf-8")),
                     "tokens": token_starts[last] - token_starts[first], "matched": c.matched})
    return pd.DataFrame(rows, columns=["#", "start", "end", "text", "tokens", "matched"])
