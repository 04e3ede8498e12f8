"""Blame: why tokenizer A needs more tokens than B on one text, entry by entry.

Both tokenizations cut the same bytes. The offsets where both have a token boundary
split the text into aligned spans; inside a span A has a tokens and B has b. Summed over
the spans, a - b is exactly len(A's ids) - len(B's ids), because every token lies in one
span. Each span where a != b charges its whole difference to one vocabulary entry: when
A needs more (a > b), to B's longest token there (the piece B has that A must split),
as +(a - b); when B needs more, to A's longest token there, as -(b - a). Ties between
equally long tokens go to the first. So the charges add up exactly to the difference.

It reads only encode and decode_tokens_bytes; it does not render.

>>> from bpe import RegexTokenizer
>>> a = RegexTokenizer(); b = RegexTokenizer().train("hello hello", 260)
>>> result = blame(a, b, "hello")
>>> result.difference, result.charges
(4, {('B', b'hello'): 4})
"""
from typing import NamedTuple


class Span(NamedTuple):
    start: int      # byte offset
    end: int
    a_tokens: list  # bytes of A's tokens in the span
    b_tokens: list
    charge: int     # len(a_tokens) - len(b_tokens)
    entry: tuple    # ("A" or "B", token bytes) charged, or None when charge is 0


class Blame(NamedTuple):
    difference: int  # len(A.encode(text)) - len(B.encode(text))
    charges: dict    # ("A" | "B", token bytes) -> tokens charged; values sum to difference
    spans: list      # every aligned span where the counts differ


def blame(tok_a, tok_b, text):
    """A Blame of tok_a against tok_b on text (ordinary text: special tokens as text)."""
    if not isinstance(text, str):
        raise TypeError(f"text must be a str, not {type(text).__name__}")
    a = tok_a.decode_tokens_bytes(tok_a.encode_ordinary(text))
    b = tok_b.decode_tokens_bytes(tok_b.encode_ordinary(text))
    if b"".join(a) != b"".join(b):
        raise ValueError("the two tokenizers cut different bytes from this text (one "
                         "normalizes it), so their tokens cannot be aligned")
    charges, spans = {}, []
    i = j = 0
    pos_a = pos_b = 0
    while i < len(a) or j < len(b):
        start = min(pos_a, pos_b)
        span_a, span_b = [], []
        # take tokens from whichever side is behind until both reach the same offset
        while True:
            if i < len(a) and (pos_a <= pos_b or j >= len(b)):
                span_a.append(a[i])
                pos_a += len(a[i])
                i += 1
            elif j < len(b):
                span_b.append(b[j])
                pos_b += len(b[j])
                j += 1
            if pos_a == pos_b and span_a and span_b or (i >= len(a) and j >= len(b)):
                break
        charge = len(span_a) - len(span_b)
        if charge:
            side, tokens = ("B", span_b) if charge > 0 else ("A", span_a)
            entry = (side, max(tokens, key=len))
            charges[entry] = charges.get(entry, 0) + charge
            spans.append(Span(start, pos_a, span_a, span_b, charge, entry))
    return Blame(len(a) - len(b), charges, spans)
