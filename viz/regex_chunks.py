"""A split pattern's chunks over a text, and the tokens that cross them.

A tokenizer never merges across its own pattern's chunks, so drawing the chunks under
its tokens shows every token inside one chunk. Against another pattern (edited by the
user) tokens may cross chunk boundaries; `crossing_spans` finds them. Text the pattern
does not match at all is returned as chunks of its own, flagged: a RegexTokenizer with
that pattern would refuse the text.

Patterns run with a time limit: the `regex` module's finditer takes `timeout=` and
raises TimeoutError, so a catastrophic pattern (`(a|a)+$` on a long run of a's) stops
instead of hanging the page. Nothing here imports streamlit.
"""
from bisect import bisect_left, bisect_right
from dataclasses import dataclass

import pandas as pd

from bpe import PATTERNS, compile_pattern
from viz.vocab import visible

PRESETS = {"GPT-2": PATTERNS["gpt2"], "GPT-4": PATTERNS["gpt4"], "GPT-4o": PATTERNS["gpt4o"]}
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
    _, compiled = compile_pattern(pattern)
    chunks, pos = [], 0
    try:
        for m in compiled.finditer(text, timeout=timeout):
            if m.start() == m.end():
                continue
            if m.start() > pos:
                chunks.append(Chunk(pos, m.start(), False))
            chunks.append(Chunk(m.start(), m.end(), True))
            pos = m.end()
    except TimeoutError:
        raise TimeoutError(
            f"the pattern took more than {timeout:g} s on this text and was stopped: it "
            "probably backtracks catastrophically (nested or overlapping repeats such as "
            "(a|a)+ or (a+)+). Make the alternatives exclusive or the repeats possessive "
            "(++), or pick a preset.") from None
    if pos < len(text):
        chunks.append(Chunk(pos, len(text), False))
    return chunks


def chunk_starts(chunks):
    """The sorted start offsets, as viz.tokens.tokens_html takes them."""
    return [c.start for c in chunks]


def crossing_spans(spans, chunks):
    """Indices of the spans that cross a chunk boundary (start inside one chunk, end
    inside another).

    >>> from bpe import BasicTokenizer
    >>> from viz.tokens import token_spans
    >>> spans = token_spans(BasicTokenizer(), list(b"ab"))
    >>> crossing_spans(spans, [Chunk(0, 2, True)]), crossing_spans(spans, [])
    (set(), set())
    """
    starts = chunk_starts(chunks)
    crossing = set()
    for i, span in enumerate(spans):
        # a boundary strictly inside the span means the span straddles two chunks
        j = bisect_right(starts, span.start)
        if j < len(starts) and starts[j] < span.end:
            crossing.add(i)
    return crossing


def chunk_frame(text, chunks, spans):
    """One row per chunk: #, start, end, text (visible), tokens (spans starting in it),
    matched."""
    span_starts = [s.start for s in spans]
    rows = []
    for n, c in enumerate(chunks):
        tokens = bisect_left(span_starts, c.end) - bisect_left(span_starts, c.start)
        rows.append({"#": n, "start": c.start, "end": c.end,
                     "text": visible(text[c.start:c.end].encode("utf-8")),
                     "tokens": tokens, "matched": c.matched})
    return pd.DataFrame(rows, columns=["#", "start", "end", "text", "tokens", "matched"])
