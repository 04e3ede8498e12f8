"""Token ids -> spans of text -> colored, escaped HTML: the lab's one token renderer.

A span is what the reader sees as one colored piece. Usually it is one token; when
tokens split a character (an emoji's four bytes over two tokens, say) they are grouped
into one span holding all their ids, since half a character cannot be drawn.

Every page that colors tokens calls `tokens_html`, so escaping, whitespace markers and
colors are decided here once. Nothing here imports streamlit.
"""
import html
from bisect import bisect_right
from dataclasses import dataclass
from typing import Optional

# Pastel backgrounds that stay readable under dark text; neighbours differ by hue.
PALETTE = ("#fde2a7", "#b9e4c9", "#c7d7fb", "#f8c8dc", "#d5f0a8", "#e3d0fb",
           "#ffd3b6", "#b5ead7", "#f3f0a1", "#cfe8f7", "#f7c5a8", "#d7d7d7")
CHUNK_COLORS = ("#33415c", "#c0392b")  # alternating underline under regex chunks
HIGHLIGHT = "#d62828"
RENDER_LIMIT = 5000  # spans drawn at most; the counts above the view stay exact

WHITESPACE_MARKERS = {" ": "·", "\t": "→", "\n": "↵", "\r": "␍"}
GPT2_MARKERS = {" ": "Ġ", "\n": "Ċ", "\t": "ĉ", "\r": "č"}


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


def span_colors(spans, color_by="position"):
    """A background color per span. "position": neighbours never share a color.
    "id": the same ids always get the same color, so repeated tokens stand out.

    >>> spans = token_spans(__import__("bpe").BasicTokenizer(), [97, 97, 98])
    >>> span_colors(spans, "id")[0] == span_colors(spans, "id")[1]
    True
    """
    if color_by == "position":
        return [PALETTE[i % len(PALETTE)] for i in range(len(spans))]
    if color_by == "id":
        return [PALETTE[_stable_hash(span.ids) % len(PALETTE)] for span in spans]
    raise ValueError(f"color_by must be 'position' or 'id', not {color_by!r}")


def _stable_hash(ids):
    h = 0
    for idx in ids:
        h = (h * 1_000_003 + idx) & 0xFFFFFFFF
    return h ^ (h >> 13)


def _shown(text, markers):
    """Escaped text, with whitespace markers if asked (a newline keeps its line break)."""
    if not markers:
        return html.escape(text)
    out = []
    for ch in text:
        mark = markers.get(ch)
        if mark is None:
            out.append(html.escape(ch))
        else:
            out.append(f'<span class="ws">{mark}</span>' + ("\n" if ch == "\n" else ""))
    return "".join(out)


def span_title(span, index=None):
    """The hover text of a span: ids, bytes in hex, position."""
    lines = [f"id{'s' if len(span.ids) > 1 else ''}: {' '.join(map(str, span.ids))}",
             f"bytes: {span.hex}",
             f"chars {span.start}–{span.end}, bytes {span.byte_start}–{span.byte_end}"]
    if index is not None:
        lines.insert(0, f"span {index}")
    return "\n".join(lines)


def tokens_html(spans, *, color_by="position", whitespace=None, limit=RENDER_LIMIT,
                highlight=frozenset(), chunk_starts: Optional[list] = None,
                colors: Optional[list] = None):
    """HTML for colored spans; every piece of text in it is escaped.

    whitespace: None (plain text), "markers" (space ·, tab →, newline ↵) or "gpt2"
    (space Ġ, newline Ċ, as GPT-2's byte-level vocabulary prints them).
    highlight: indices of spans to outline. chunk_starts: sorted character offsets where
    the split pattern's chunks begin; each span is underlined in its chunk's color.
    colors: one background per span, overriding color_by (e.g. to mark differences).
    Only the first `limit` spans are drawn; the caller says so (see `truncated`).

    >>> from bpe import BasicTokenizer
    >>> html_text = tokens_html(token_spans(BasicTokenizer(), [60, 98]))
    >>> '<span class="tok" data-ids="60"' in html_text and ">&lt;</span>" in html_text
    True
    """
    markers = {None: None, "markers": WHITESPACE_MARKERS, "gpt2": GPT2_MARKERS}.get(
        whitespace, ...)
    if markers is ...:
        raise ValueError(f"whitespace must be None, 'markers' or 'gpt2', not {whitespace!r}")
    shown = spans[:limit]
    colors = colors if colors is not None else span_colors(shown, color_by)
    parts = ['<div class="tokens">']
    for i, span in enumerate(shown):
        style = f"background:{colors[i]}"
        if chunk_starts is not None:
            chunk = bisect_right(chunk_starts, span.start) - 1
            style += f";border-bottom:3px solid {CHUNK_COLORS[chunk % 2]}"
        if i in highlight:
            style += f";outline:2px solid {HIGHLIGHT};outline-offset:-1px"
        ids = " ".join(map(str, span.ids))
        parts.append(f'<span class="tok" data-ids="{ids}" data-pos="{span.start}" '
                     f'style="{style}" title="{html.escape(span_title(span, i))}">'
                     f"{_shown(span.text, markers)}</span>")
    parts.append("</div>")
    return TOKENS_CSS + "".join(parts)


def truncated(spans, limit=RENDER_LIMIT):
    """A note for the page when tokens_html drew only part of the spans, else None.
    It counts tokens, not spans, so it agrees with the page's token count.

    >>> from bpe import BasicTokenizer
    >>> truncated(token_spans(BasicTokenizer(), list("a😉b".encode())), limit=2)
    'Showing the first 5 of 6 tokens in color; the counts, ids and table cover the whole text.'
    """
    if len(spans) <= limit:
        return None
    drawn = sum(len(span.ids) for span in spans[:limit])
    total = drawn + sum(len(span.ids) for span in spans[limit:])
    return (f"Showing the first {drawn:,} of {total:,} tokens in color; "
            "the counts, ids and table cover the whole text.")


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


TOKENS_CSS = """<style>
.tokens { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace;
  font-size: 0.95rem; line-height: 1.9; white-space: pre-wrap; word-break: break-word; }
.tokens .tok { color: #1b1b1b; border-radius: 3px; padding: 1px 0; margin-right: 1px; }
.tokens .tok:hover { filter: brightness(0.9); cursor: default; }
.tokens .ws { color: #8a8a8a; }
</style>"""
