"""Token ids and text as a reader sees them: where each concept lives, under one name.

The token view's pieces, one module each:
  viz.display  display_text, invisible_name: bytes -> the text a person sees
  viz.rows     view_row (a ViewRow), counts: the rows lab/token_view/__init__.py draws
  viz.palette  PALETTE, VIEW_PALETTE, contrast: its colors per theme
  viz.pair     pair_view: two tokenizations aligned (Compare)
This module keeps `token_spans` (ids grouped into whole characters, with their offsets),
`parse_ids` (ids typed by a person) and `without_post` (a text's own ids, without the ones a
post-processor put around them); import the others from their own modules.
"""
from dataclasses import dataclass

from viz.display import display_text

@dataclass(frozen=True)
class Span:
    """One colored piece: the ids that draw it and where it sits in the text."""
    ids: tuple          # token ids (more than one when tokens split a character)
    text: str           # what it shows (invalid UTF-8 replaced by U+FFFD)
    start: int          # character offset in the decoded text
    end: int
    byte_start: int     # byte offset in the decoded bytes
    byte_end: int
    token_bytes: tuple  # the bytes of each id

    @property
    def hex(self):
        return " ".join(token.hex(" ") for token in self.token_bytes)


def token_spans(tok, ids):
    """Group ids into spans that end on UTF-8 character boundaries.

    >>> from bpe import BasicTokenizer
    >>> [s.text for s in token_spans(BasicTokenizer(), list("hi😉".encode()))]
    ['h', 'i', '😉']
    """
    token_bytes = tok.decode_tokens_bytes(ids)
    joined = b"".join(token_bytes)
    spans = []
    first = 0          # index of the first id of the open span
    byte_start = pos = char_start = 0
    for i, token in enumerate(token_bytes):
        pos += len(token)
        # a span closes where the next byte does not continue a character
        if pos < len(joined) and 0x80 <= joined[pos] <= 0xBF and i + 1 < len(ids):
            continue
        text = joined[byte_start:pos].decode("utf-8", errors="replace")
        spans.append(Span(tuple(ids[first:i + 1]), text, char_start, char_start + len(text),
                          byte_start, pos, tuple(token_bytes[first:i + 1])))
        first, byte_start, char_start = i + 1, pos, char_start + len(text)
    return spans


def parse_ids(text):
    """Token ids typed by a person: a JSON list or numbers separated by spaces or commas.

    >>> parse_ids("[15339, 1917]"), parse_ids("15339 1917,  0")
    ([15339, 1917], [15339, 1917, 0])
    >>> parse_ids("12 x3")
    Traceback (most recent call last):
    ValueError: 'x3' (item 2) is not a token id: give whole numbers, e.g. [15339, 1917] or 15339 1917
    """
    items = text.strip().removeprefix("[").removesuffix("]").replace(",", " ").split()
    ids = []
    for n, item in enumerate(items, 1):
        if not item.isdecimal() or not item.isascii():
            raise ValueError(f"{item[:20]!r} (item {n}) is not a token id: give whole numbers, "
                             "e.g. [15339, 1917] or 15339 1917")
        ids.append(int(item))
    return ids


def without_post(tok, ids):
    """(ids without the ones a post-processor put around them, what those were in words or
    ""): a tokenizer.json's [CLS] ... [SEP] or a GGUF's BOS stand for no text of the box,
    so decode(encode(text)) and the owner library's ids (lab.parity) are checked on the
    text's own ids."""
    post = getattr(tok, "post", None)
    before, after = (post.before, post.after) if post is not None else ([], [])
    if not (before or after) or len(ids) < len(before) + len(after) \
            or ids[:len(before)] != before or ids[len(ids) - len(after):] != after:
        return ids, ""
    around = ", ".join(display_text(tok.decode_single_token_bytes(idx), whitespace="oneline")
                       for idx in before + after)
    return ids[len(before):len(ids) - len(after)], around
