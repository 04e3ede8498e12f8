"""Where the token view's spans sit, for pages that mark some of them.

viz.rows.view_row groups tokens into spans (the boxes a reader sees: a character or a
grapheme cluster split over several tokens is one box) and describes them in columns:
n (tokens per span), nc (characters per span). A page that outlines the tokens made by a
merge, or underlines regex chunks, needs to know which span holds which token and where
each span starts in the text; these functions read that from the row. No streamlit.

>>> row = {"ids": [5, 6, 7, 5], "n": [1, 2, 1], "nc": [1, 1, 2]}
>>> span_token_starts(row), span_char_starts(row), spans_holding(row, {5})
([0, 1, 3, 4], [0, 1, 2, 4], [0, 2])
"""
from itertools import accumulate

from viz.rows import covered_text, view_row


def span_token_starts(row):
    """The index of each span's first token, then the number of tokens."""
    return [0, *accumulate(row["n"])]


def span_char_starts(row):
    """The character offset where each span starts, then the text's length."""
    return [0, *accumulate(row["nc"])]


def spans_holding(row, ids):
    """The indices of the spans holding at least one token whose id is in ids."""
    ids = set(ids)
    starts = span_token_starts(row)
    return [s for s in range(len(row["n"]))
            if not ids.isdisjoint(row["ids"][starts[s]:starts[s + 1]])]


def tokens_row(tok, ids, *, whitespace="markers", **keys):
    """A token-view row of tok's ids (viz.rows.view_row) with the text they cover, for
    the hover card's bytes; keys adds optional row keys (caption, marks, chunk, color_by).
    Whitespace is marked by default: these pages are about where tokens cut.

    >>> from bpe import BasicTokenizer
    >>> row = tokens_row(BasicTokenizer(), [104, 32], caption="raw bytes")
    >>> row["show"], row["text"], row["caption"]
    (['h', '·'], 'h ', 'raw bytes')
    """
    token_bytes = tok.decode_tokens_bytes(ids)
    row = covered_text(view_row(token_bytes, ids, whitespace=whitespace), b"".join(token_bytes))
    row.update(keys)
    return row
