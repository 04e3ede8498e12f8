"""Two tokenizations of one text, aligned by byte position, and what differs between them.

Boundaries are byte offsets, so tokenizers that split a character differently (or put
the split inside a character) are still compared exactly. This module computes the
alignment, the page's numbers (% of boundaries shared, cuts only one side makes, tokens
crossing a character category), the data of the one aligned view (the text once, A's
cuts above it, B's below) and the table of bytes per token on the sample domains. It
draws nothing and imports no streamlit: lab.token_view draws what `aligned` returns.
"""
import unicodedata
from dataclasses import dataclass

import pandas as pd

from .marks import tokens_row
from .samples import SAMPLES
from .pair import pair_view
from .palette import PALETTE

BETTER, WORSE = "#c8ecd0", "#f8d0d0"  # cell backgrounds in the domain table
DOMAINS = {  # the table's rows: a short domain name -> the sample it is measured on
    "prose": "English prose",
    "code": "Python code",
    "numbers": "Numbers and dates",
    "Korean": "Korean",
    "emoji": "Emoji",
    "whitespace": "Whitespace",
}
LETTER, DIGIT, PUNCT, SPACE = "letter", "digit", "punctuation", "space"


def token_boundaries(tok, ids):
    """The byte offsets where a token starts, after the first: the interior boundaries.

    >>> from bpe import BasicTokenizer
    >>> token_boundaries(BasicTokenizer(), [104, 105, 33])
    [1, 2]
    """
    return tok.token_byte_offsets(ids)[1:]


def boundary_stats(boundaries_a, boundaries_b):
    """How many interior boundaries the two tokenizations share.

    shared_pct = shared / (boundaries in either) * 100: 100 when both cut the text at
    exactly the same places, 0 when no cut agrees; 100 when neither cuts at all.

    >>> boundary_stats([1, 3, 5], [3, 5, 6])
    {'shared': 2, 'union': 4, 'shared_pct': 50.0}
    """
    a, b = set(boundaries_a), set(boundaries_b)
    shared, union = len(a & b), len(a | b)
    return {"shared": shared, "union": union,
            "shared_pct": 100.0 * shared / union if union else 100.0}


def char_category(ch):
    """The class a split pattern keeps apart: letter, digit, space or punctuation
    (everything else: punctuation, symbols, emoji, marks, controls), as GPT-4's pattern
    uses \\p{L}, \\p{N}, \\s and the rest.

    >>> [char_category(c) for c in "a1 ,😉"]
    ['letter', 'digit', 'space', 'punctuation', 'punctuation']
    """
    if ch.isspace():
        return SPACE
    major = unicodedata.category(ch)[0]
    if major == "L":
        return LETTER
    if major == "N":
        return DIGIT
    return PUNCT


def cross_category_count(tok, ids):
    """How many tokens cover characters of more than one category (see char_category).

    One leading space is not counted: every split pattern keeps " word" together on
    purpose. A token holding part of a character counts that character's category.

    >>> from bpe import BasicTokenizer
    >>> tok = BasicTokenizer().train("a1a1a1", 257)  # one merge: "a1"
    >>> cross_category_count(tok, tok.encode("a1 b"))  # "a1" crosses; " ", "b" do not
    1
    """
    token_bytes = tok.decode_tokens_bytes(ids)
    text = b"".join(token_bytes).decode("utf-8", errors="replace")
    # one category code per byte of the text, so a token's bytes index it directly
    codes = {LETTER: b"L", DIGIT: b"N", SPACE: b"S", PUNCT: b"P"}
    byte_codes = b"".join(codes[char_category(ch)] * len(ch.encode("utf-8")) for ch in text)
    count = pos = 0
    for token in token_bytes:
        start, end = pos, pos + len(token)
        pos = end
        if end - start > 1 and token[0] == 0x20:
            start += 1  # the word's leading space
        if len(set(byte_codes[start:end])) > 1:
            count += 1
    return count


@dataclass
class Comparison:
    """The same text tokenized by a and b, aligned by byte offset."""
    text_bytes: bytes
    ids_a: list
    ids_b: list
    offsets_a: list   # byte offset where each token of a starts, then the end of the text
    offsets_b: list
    stats: dict       # tokens_a, tokens_b, shared, union, shared_pct, cross_a, cross_b,
    #                   only_a, only_b (cuts one side makes and the other does not)


def compare(tok_a, tok_b, text, allowed_special="none"):
    """Tokenize text with both tokenizers and align the results by byte position.

    allowed_special is passed to both encodes; "none" (the default) reads special-token
    text as ordinary text, so a pasted "<|endoftext|>" never raises.
    """
    ids_a = tok_a.encode(text, allowed_special=allowed_special)
    ids_b = tok_b.encode(text, allowed_special=allowed_special)
    text_bytes = tok_a.decode_bytes(ids_a)
    if text_bytes != tok_b.decode_bytes(ids_b):
        raise ValueError("the two tokenizers do not give back the same bytes for this text "
                         "(one of them changes or drops some of it), so their tokens cannot be "
                         "lined up by byte position; try a text both can round-trip")
    end = len(text_bytes)
    offsets_a = tok_a.token_byte_offsets(ids_a) + [end]
    offsets_b = tok_b.token_byte_offsets(ids_b) + [end]
    inner_a, inner_b = set(offsets_a[1:-1]), set(offsets_b[1:-1])
    stats = {"tokens_a": len(ids_a), "tokens_b": len(ids_b),
             **boundary_stats(inner_a, inner_b),
             "only_a": len(inner_a - inner_b), "only_b": len(inner_b - inner_a),
             "cross_a": cross_category_count(tok_a, ids_a),
             "cross_b": cross_category_count(tok_b, ids_b)}
    return Comparison(text_bytes, ids_a, ids_b, offsets_a, offsets_b, stats)


AGREED = len(PALETTE) - 1  # the palette's last color, its grey (in both themes): a span
#                            both sides make the same


def span_bounds(row):
    """(byte start, byte end) of each span of a token-view row."""
    bounds, at, t = [], 0, 0
    for n in row["n"]:
        end = at + sum(row["nb"][t:t + n])
        bounds.append((at, end))
        at, t = end, t + n
    return bounds


def span_cuts(row):
    """Per span of a token-view row: (byte start, every token end in it), so two spans
    over the same bytes are alike only if they cut them into the same tokens too."""
    cuts, at, t = [], 0, 0
    for n in row["n"]:
        start, ends = at, []
        for nb in row["nb"][t:t + n]:
            at += nb
            ends.append(at)
        cuts.append((start, tuple(ends)))
        t += n
    return cuts


def agreement_colors(row, other):
    """A palette index per span of row: the grey AGREED where the other row has a span
    with exactly the same bytes cut into the same tokens (an emoji of 3 tokens on one
    side and 2 on the other differs), else colors by position that skip the grey, so
    the eye goes to where the two tokenizers differ.

    >>> agreement_colors({"n": [1, 1], "nb": [1, 2]}, {"n": [1, 1, 1], "nb": [1, 1, 1]})
    [11, 1]
    >>> agreement_colors({"n": [2], "nb": [2, 2]}, {"n": [2], "nb": [1, 3]})
    [0]
    """
    theirs = set(span_cuts(other))
    return [AGREED if cuts in theirs else i % AGREED
            for i, cuts in enumerate(span_cuts(row))]


def aligned(tok_a, tok_b, result, label_a="A", label_b="B"):
    """The comparison as the token view's aligned pair (viz.pair.pair_view): the text
    once, cut at every span boundary of either side, A's spans a band above it and B's
    below, grey where both make the same span; whitespace marked, since where a space
    goes is what differs most.

    >>> from bpe import BasicTokenizer
    >>> a, b = BasicTokenizer().train("abab", 257), BasicTokenizer()
    >>> pair = aligned(a, b, compare(a, b, "abc"))
    >>> pair["pieces"]["show"], pair["pieces"]["sa"], pair["pieces"]["sb"]
    (['a', 'b', 'c'], [0, 0, 1], [0, 1, 2])
    >>> pair["a"]["colors"], pair["b"]["colors"]  # "c" is cut alike: grey on both sides
    ([0, 11], [0, 1, 11])
    """
    row_a = tokens_row(tok_a, result.ids_a, caption=label_a)
    row_b = tokens_row(tok_b, result.ids_b, caption=label_b)
    row_a["colors"], row_b["colors"] = (agreement_colors(row_a, row_b),
                                        agreement_colors(row_b, row_a))
    return pair_view(row_a, row_b, result.text_bytes, whitespace="markers")


def bytes_per_token(tok, text):
    """len(text in UTF-8) / number of tokens; higher means better compression."""
    ids = tok.encode(text, allowed_special="none")
    return len(text.encode("utf-8")) / len(ids) if ids else 0.0


def domain_frame(tokenizers, samples=None):
    """Bytes per token of each tokenizer (columns) on each sample domain (rows).

    tokenizers: name -> Tokenizer, in column order. samples: sample name -> text,
    SAMPLES by default; rows follow DOMAINS.
    """
    samples = SAMPLES if samples is None else samples
    rows = {domain: samples[name] for domain, name in DOMAINS.items() if name in samples}
    data = {name: [bytes_per_token(tok, text) for text in rows.values()]
            for name, tok in tokenizers.items()}
    return pd.DataFrame(data, index=pd.Index(list(rows), name="domain"))


def domain_marks(frame, reference):
    """The frame as text with a marker against the reference column: "4.12 ▲ +8%" when
    a tokenizer packs more bytes into a token than the reference (better), ▼ when fewer.
    """
    if reference not in frame.columns:
        raise ValueError(f"reference {reference!r} is not a column; pick one of "
                         f"{list(frame.columns)}")
    ref = frame[reference]
    shown = frame.map(lambda v: f"{v:.2f}")
    for name in frame.columns:
        if name == reference:
            continue
        for domain in frame.index:
            value, base = frame.at[domain, name], ref[domain]
            change = (value / base - 1) * 100 if base else 0.0
            mark = "▲" if change > 0.5 else "▼" if change < -0.5 else "="
            shown.at[domain, name] = f"{value:.2f} {mark} {change:+.0f}%"
    return shown


def domain_styler(frame, reference):
    """domain_marks as a pandas Styler: better-than-reference cells green, worse red."""
    shown = domain_marks(frame, reference)
    ref = frame[reference]

    def backgrounds(_):
        css = pd.DataFrame("", index=frame.index, columns=frame.columns)
        for name in frame.columns:
            if name == reference:
                continue
            for domain in frame.index:
                ratio = frame.at[domain, name] / ref[domain] if ref[domain] else 1.0
                if ratio > 1.005:
                    css.at[domain, name] = f"background-color: {BETTER}; color: #14361d"
                elif ratio < 0.995:
                    css.at[domain, name] = f"background-color: {WORSE}; color: #4a1212"
        return css

    return shown.style.apply(backgrounds, axis=None)
