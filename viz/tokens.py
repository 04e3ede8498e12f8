"""Token ids -> spans of text -> colored, escaped HTML: the lab's one token renderer.

A span is what the reader sees as one colored piece. Usually it is one token; when
tokens split a character (an emoji's four bytes over two tokens, say) they are grouped
into one span holding all their ids, since half a character cannot be drawn.

Every page that colors tokens calls `tokens_html`, so escaping, whitespace markers and
colors are decided here once. Nothing here imports streamlit.
"""
import html
import re
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
    """Escaped text through display_text (invisible characters get named markers), with
    whitespace markers if asked (a newline keeps its line break)."""
    out, run = [], []

    def flush():
        if run:
            shown = html.escape(display_text("".join(run), marks=VIEW_MARKS))
            out.append(_MARK.sub(r'<span class="ws">⟨\1⟩</span>', shown))
            run.clear()

    for ch in text:
        mark = markers.get(ch) if markers else None
        if mark is None:
            run.append(ch)
        else:
            flush()
            out.append(f'<span class="ws">{mark}</span>' + ("\n" if ch == "\n" else ""))
    flush()
    return "".join(out)


_MARK = re.compile("\x01([^\x02]*)\x02")


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


# ---------------------------------------------------------------------------------------
# The display renderer: token bytes -> the text a person sees. Every page calls this one.

# Characters that draw nothing (or reorder what is drawn) get a named marker instead.
_NAMED = {0x00AD: "SHY", 0x034F: "CGJ", 0x061C: "ALM", 0x180E: "MVS", 0x200B: "ZWSP",
          0x200C: "ZWNJ", 0x200D: "ZWJ", 0x200E: "LRM", 0x200F: "RLM", 0x2028: "LSEP",
          0x2029: "PSEP", 0x202A: "LRE", 0x202B: "RLE", 0x202C: "PDF", 0x202D: "LRO",
          0x202E: "RLO", 0x2060: "WJ", 0x2061: "FA", 0x2062: "IT", 0x2063: "IS",
          0x2064: "IP", 0x2066: "LRI", 0x2067: "RLI", 0x2068: "FSI", 0x2069: "PDI",
          0xFEFF: "BOM", 0xFFF9: "IAA", 0xFFFA: "IAS", 0xFFFB: "IAT", 0x0085: "NEL"}
# marker delimiters: plain text gets ⟨…⟩; the token view asks for \x01…\x02 (control
# characters can never survive into the output, so they cannot be forged by the text)
PLAIN_MARKS = ("⟨", "⟩")
VIEW_MARKS = ("\x01", "\x02")


def invisible_name(ch):
    """The marker name of a character that would draw nothing or reorder the view, else None.

    >>> invisible_name("\\u200b"), invisible_name("\\x00"), invisible_name("\\ufe0f"), invisible_name("a")
    ('ZWSP', 'NUL', 'VS16', None)
    """
    cp = ord(ch)
    if cp < 0x20 or cp == 0x7F:
        return _C0[cp] if cp < 0x20 else "DEL"
    if 0x80 <= cp <= 0x9F:
        return _NAMED.get(cp, f"U+{cp:04X}")
    if cp in _NAMED:
        return _NAMED[cp]
    if 0xFE00 <= cp <= 0xFE0F:
        return f"VS{cp - 0xFE00 + 1}"
    if 0xE0100 <= cp <= 0xE01EF:
        return f"VS{cp - 0xE0100 + 17}"
    if 0xE0000 <= cp <= 0xE007F:  # tag characters: show the ASCII letter they hide
        inner = chr(cp - 0xE0000)
        return f"TAG {inner}" if 0x21 <= cp - 0xE0000 <= 0x7E else f"TAG U+{cp:05X}"
    return None


_C0 = ("NUL SOH STX ETX EOT ENQ ACK BEL BS HT LF VT FF CR SO SI DLE DC1 DC2 DC3 DC4 NAK "
       "SYN ETB CAN EM SUB ESC FS GS RS US").split()


def display_text(token_bytes, *, whitespace=None, marks=PLAIN_MARKS):
    """How the lab shows some bytes of text: the one renderer every page calls.

    Valid UTF-8 shows as itself; a byte that is not part of a whole character (a token
    holding half an emoji) shows as hex, never as a bare "�"; every invisible, control or
    bidi-control character shows as a named marker between `marks`. whitespace: None keeps
    space, tab and newline as they are; "markers" shows them as · → ↵ (a newline keeps its
    line break); "oneline" as markers, but a newline is only ↵ (for one-line table cells);
    "gpt2" as GPT-2's byte-level vocabulary prints them (Ġ ĉ Ċ).

    >>> display_text(b"a\\xe2\\x80\\x8bb\\x00")
    'a⟨ZWSP⟩b⟨NUL⟩'
    >>> display_text("👋".encode()[:2]), display_text(b" hi\\n", whitespace="markers")
    ('⟨f0 9f⟩', '·hi↵\\n')
    >>> display_text(b" hi\\n", whitespace="oneline")
    '·hi↵'
    """
    if whitespace not in _WHITESPACE:
        raise ValueError(_WHITESPACE_ERROR.format(whitespace))
    ws = _WHITESPACE[whitespace]
    if isinstance(token_bytes, str):
        text = token_bytes
    else:
        text = bytes(token_bytes).decode("utf-8", errors="surrogateescape")
    if text.isprintable() and (ws is None or " " not in text) and not _DRAWS_NOTHING.search(text):
        return text  # the common case, fast: nothing to mark
    open_, close = marks
    out = []
    raw = []  # pending undecodable bytes, shown together as one hex marker
    for k, ch in enumerate(text):
        cp = ord(ch)
        if 0xDC80 <= cp <= 0xDCFF:
            raw.append(f"{cp - 0xDC00:02x}")
            continue
        if raw:
            out.append(f"{open_}{' '.join(raw)}{close}")
            raw = []
        if ws is not None and ch in ws:
            out.append(ws[ch])
        elif ch in "\t\n\r ":
            out.append(ch)
        else:
            name = invisible_name(ch)
            if name is not None and _joins_emoji(text, k):
                name = None  # part of one emoji glyph (👨‍👩‍👧, ❤️): drawn as the emoji
            out.append(ch if name is None else f"{open_}{name}{close}")
    if raw:
        out.append(f"{open_}{' '.join(raw)}{close}")
    return "".join(out)


def _is_emoji(ch):
    cp = ord(ch)
    return cp >= 0x1F000 and cp < 0x1FB00 or 0x2190 <= cp <= 0x2BFF or cp in (0xA9, 0xAE)


def _joins_emoji(text, k):
    """Whether text[k] (a ZWJ or variation selector) is part of an emoji's glyph."""
    ch = text[k]
    if ch not in "\u200d\ufe0e\ufe0f" or k == 0 or not _is_emoji(text[k - 1]):
        return False
    return ch != "\u200d" or (k + 1 < len(text) and _is_emoji(text[k + 1]))


# printable (so str.isprintable lets them through) yet drawn as nothing on their own
_DRAWS_NOTHING = re.compile("[\u034f\u180e\ufe00-\ufe0f\U000e0100-\U000e01ef]")

_WHITESPACE = {None: None, "markers": {" ": "·", "\t": "→", "\n": "↵\n", "\r": "␍"},
               "oneline": {" ": "·", "\t": "→", "\n": "↵", "\r": "␍"},
               "gpt2": {" ": "Ġ", "\n": "Ċ", "\t": "ĉ", "\r": "č"}}
_WHITESPACE_ERROR = "whitespace must be None, 'markers', 'oneline' or 'gpt2', not {!r}"


# ---------------------------------------------------------------------------------------
# Data for the token view component (lab/token_view.py draws it in the browser).

_GRAPHEME = None
# a grapheme cluster longer than this (in characters) is drawn as several boxes: real
# ones are short (👨‍👩‍👧‍👦 is 7; Unicode's stream-safe text allows 31 combining marks), and
# reading a cluster of 1M combining marks whole costs time and makes a box nobody can see
CLUSTER_LIMIT = 64
# tokens a page lays out as a view at most: a row costs the server ~150 bytes a token
# (bench/results/view2.md), so 2M tokens stay near 300 MB. Pages count and list more, but
# draw none of them and say so (an NFKC tokenizer on 1M x U+FDFA: 18M characters).
VIEW_TOKEN_LIMIT = 2_000_000
# work done by the careful span rules, in characters and bytes: the tests read it to check
# it grows linearly with the text (a counter, not a clock: tests assert no timings)
WORK = {"decode": 0, "cluster": 0}


def _grapheme_re():
    global _GRAPHEME
    if _GRAPHEME is None:
        import regex
        _GRAPHEME = regex.compile(r"\X")
    return _GRAPHEME


def view_row(token_bytes, ids, *, whitespace=None, caption=None):
    """One row of tokens for the token view, in columns (cheap to send for 1 MB texts).

    Tokens are grouped into spans, the boxes a reader sees: a span closes where a token
    ends on a character boundary that is also a grapheme-cluster boundary, so 👋🏽 split
    over three tokens is drawn once, with its cuts inside. Returns a dict:
      ids   [int]  every token id, in order
      nb    [int]  byte length of each token
      n     [int]  tokens per span (mostly 1)
      nc    [int]  characters (code points) per span
      show  [str]  each span's display text (display_text with VIEW_MARKS)
      parts [str]  each token's display text, for the tokens of spans of several tokens
                   only, in order (the table shows them)
    plus caption when given. Offsets are prefix sums of nb and nc. whitespace: as in
    display_text (None, "markers", "oneline" for one-line table cells, "gpt2").

    >>> row = view_row([b"a", "👋".encode(), "🏽".encode(), b"\\x00"], [1, 2, 3, 4])
    >>> row["n"], row["nc"], row["show"], row["parts"]
    ([1, 2, 1], [1, 2, 1], ['a', '👋🏽', '\\x01NUL\\x02'], ['👋', '🏽'])
    """
    if whitespace not in _WHITESPACE:
        raise ValueError(_WHITESPACE_ERROR.format(whitespace))
    token_bytes = list(token_bytes)
    nb = list(map(len, token_bytes))
    spans_n, spans_nc, show, parts = [], [], [], []
    if 0 in nb:  # an empty token: no byte to look at around it, take the careful path
        _view_spans(token_bytes, whitespace, spans_n, spans_nc, show, parts)
    else:
        # Most tokens are ASCII between ASCII neighbours: each is its own span, its
        # characters are its bytes and its display is one str.translate. Only runs of
        # tokens touching non-ASCII bytes or a CR|LF cut go through the careful path;
        # a run starts and ends at an ASCII|ASCII cut, always a grapheme boundary, so
        # the careful path sees each run exactly as it would inside the whole text.
        careful = _careful_tokens(token_bytes)
        at = 0
        for a, b in careful + [(len(nb), len(nb))]:
            if at < a:  # tokens at..a are plain ASCII spans
                spans_n.extend([1] * (a - at))
                spans_nc.extend(nb[at:a])
                show.extend(_ascii_show(token_bytes[at:a], whitespace))
            if a < b:
                _view_spans(token_bytes[a:b], whitespace, spans_n, spans_nc, show, parts)
            at = b
    row = {"ids": list(ids), "nb": nb, "n": spans_n, "nc": spans_nc, "show": show,
           "parts": parts}
    if caption is not None:
        row["caption"] = caption
    return row


def _careful_tokens(token_bytes):
    """Runs [(start, end), ...] of token indices that need the careful span rules: the
    non-ASCII tokens, with their neighbours when the cut between them is not ASCII|ASCII,
    and both tokens of a CR|LF cut (one grapheme cluster)."""
    n = len(token_bytes)
    joined = b"".join(token_bytes)
    marked = set()
    if not joined.isascii():
        for i in [i for i, token in enumerate(token_bytes) if not token.isascii()]:
            marked.add(i)
            if i > 0 and token_bytes[i][0] >= 0x80:
                marked.add(i - 1)
            if i + 1 < n and token_bytes[i][-1] >= 0x80:
                marked.add(i + 1)
    if b"\r\n" in joined:
        for i in [i for i, token in enumerate(token_bytes[:-1]) if token.endswith(b"\r")]:
            if token_bytes[i + 1].startswith(b"\n"):
                marked.update((i, i + 1))
    runs = []
    for i in sorted(marked):
        if runs and runs[-1][1] == i:
            runs[-1][1] = i + 1
        else:
            runs.append([i, i + 1])
    return [tuple(r) for r in runs]


# ASCII characters whose display is not themselves whatever the whitespace mode
_ASCII_CONTROL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
_CONTROL_SHOWN = {chr(c): VIEW_MARKS[0] + invisible_name(chr(c)) + VIEW_MARKS[1]
                  for c in [*range(0x20), 0x7F] if chr(c) not in "\t\n\r"}


def _ascii_show(tokens, whitespace):
    """display_text(token, whitespace=..., marks=VIEW_MARKS) of ASCII tokens, in bulk:
    for ASCII each character's display depends on that character alone, so one pass of
    str.replace over all of them does it."""
    if not tokens:
        return []
    # U+FFFF never occurs in ASCII text: a safe separator
    joined = "\uffff".join(map(bytes.decode, tokens))
    if _ASCII_CONTROL.search(joined):
        joined = _ASCII_CONTROL.sub(lambda m: _CONTROL_SHOWN[m[0]], joined)
    for ch, shown in (_WHITESPACE[whitespace] or {}).items():
        joined = joined.replace(ch, shown)
    return joined.split("\uffff")


def _view_spans(token_bytes, whitespace, spans_n, spans_nc, show, parts):
    """The careful span rules (character and grapheme-cluster boundaries) over a run of
    tokens that starts at a grapheme boundary; appends to the four lists."""
    joined = b"".join(token_bytes)
    text = None        # decoded only if a cut needs the grapheme rules
    n_bytes = len(joined)
    nb = [len(t) for t in token_bytes]
    grapheme = None
    gpos = 0           # a known grapheme boundary (char offset) at or after span start
    first = 0          # index of the first token of the open span
    byte_start = pos = char_start = 0
    # the last character boundary reached (bytes, chars): each byte is decoded once to
    # count characters, so a span of many tokens (a cluster of 1M combining marks) stays
    # linear; decoding from the span's start at every cut was quadratic (issue 24)
    seen_byte = seen_char = 0
    limit_at = None    # where the open span's cluster reached CLUSTER_LIMIT, if it did
    seen = {}          # display text per token (bytes) and span (str) met: they repeat
    last = len(nb) - 1
    for i, token in enumerate(token_bytes):
        pos += nb[i]
        if i == first and token.isascii() and i < last and joined[pos] < 0x80:
            # the common case: a whole ASCII token followed by ASCII: its own span
            if not (token.endswith(b"\r") and joined[pos] == 0x0A):
                spans_n.append(1)
                spans_nc.append(nb[i])
                shown = token.decode("ascii")
                show.append(shown if shown.isprintable() and (whitespace is None or " " not in shown) else
                            display_text(shown, whitespace=whitespace, marks=VIEW_MARKS))
                first, byte_start, char_start = i + 1, pos, char_start + nb[i]
                continue
        if i < last and pos < n_bytes:
            if 0x80 <= joined[pos] <= 0xBF:
                continue  # the next token continues this character
            # a cut before a byte that starts a character: decoding up to it stands alone
            char_end = seen_char + len(joined[seen_byte:pos].decode(
                "utf-8", errors="surrogateescape"))
            WORK["decode"] += pos - seen_byte
            seen_byte, seen_char = pos, char_end
            if text is None:
                text = joined.decode("utf-8", errors="surrogateescape")
            prev, nxt = text[char_end - 1], text[char_end]
            if not (prev.isascii() and nxt.isascii()) or (prev == "\r" and nxt == "\n"):
                grapheme = grapheme or _grapheme_re()
                gpos = max(gpos, char_start)
                while gpos < char_end:
                    # a cluster is read CLUSTER_LIMIT characters at a time: one longer
                    # (1M combining marks on one "e") closes its box at the first token
                    # end past the limit, and the rest goes on in the next box
                    stop = min(gpos + CLUSTER_LIMIT, len(text))
                    # read on a slice: what precedes gpos must not count (the browser's
                    # Intl.Segmenter reads the same slice, so both cut at the same place)
                    end = gpos + grapheme.match(text[gpos:stop]).end()
                    WORK["cluster"] += end - gpos
                    if end == stop < len(text) and limit_at is None:
                        limit_at = stop
                    gpos = end
                if gpos != char_end:
                    if limit_at is None or char_end < limit_at:
                        continue  # a cluster (👋🏽, 🇺🇳, a ZWJ family) goes on
                    gpos = char_end  # a cluster past the limit: this box ends here
        piece = joined[byte_start:pos]
        span_text = piece.decode("utf-8", errors="surrogateescape")
        WORK["decode"] += len(piece)
        if i > first:  # a multi-token span: each token's own display, for the table
            for t in token_bytes[first:i + 1]:
                shown = seen.get(t)
                if shown is None:
                    shown = seen[t] = display_text(t, whitespace=whitespace, marks=VIEW_MARKS)
                parts.append(shown)
        spans_n.append(i + 1 - first)
        spans_nc.append(len(span_text))
        shown = seen.get(span_text)
        if shown is None:
            shown = seen[span_text] = display_text(span_text, whitespace=whitespace,
                                                   marks=VIEW_MARKS)
        show.append(shown)
        if len(seen) > 100_000:  # a text of ever new spans: keep the memo small
            seen.clear()
        first, byte_start, char_start = i + 1, pos, char_start + len(span_text)
        limit_at = None


# Token backgrounds per theme; the text on them is INK. Light: pastels under near-black
# text; dark: deep tones under near-white text. tests/test_viz_tokens.py checks that every
# pair keeps a contrast of at least 4.5:1 (WCAG AA for normal text).
VIEW_PALETTE = {
    "light": list(PALETTE),
    "dark": ["#5c4514", "#1f5135", "#2a3f73", "#6b2846", "#3f5417", "#4a2f70",
             "#6e3a1c", "#155447", "#545014", "#1d4a66", "#6a3222", "#474747"],
    "ink_light": "#1b1b1b",
    "ink_dark": "#f2f2f2",
}


def contrast(fg, bg):
    """WCAG contrast ratio of two #rrggbb colors (1 to 21).

    >>> round(contrast("#000000", "#ffffff"), 1)
    21.0
    """
    def luminance(color):
        channels = [int(color[i:i + 2], 16) / 255 for i in (1, 3, 5)]
        r, g, b = [c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
        return 0.2126 * r + 0.7152 * g + 0.0722 * b
    hi, lo = sorted((luminance(fg), luminance(bg)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


def pair_view(row_a, row_b, text_bytes, *, whitespace=None):
    """Two tokenizations of the same text, aligned: the text once, cut into pieces at
    every span boundary of either row, so A's and B's cuts share x positions.

    row_a, row_b: view_row results over the same text_bytes. Returns {"a": row_a,
    "b": row_b, "pieces": {...}} where pieces has, per piece: nb (bytes), nc (chars),
    sa / sb (the A and B span it belongs to) and show (display text). The view draws A's
    spans as a band above the pieces and B's below, and marks a cut that only one has.
    A piece is never cut inside a character, yet a tokenizer may cut inside one (an emoji
    over several tokens): pieces["inner"] maps a piece (str index) whose inner token cuts
    differ between A and B to [A's cuts, B's cuts], byte offsets within the piece; the
    view marks those pieces red like any cut only one side makes.

    >>> a = view_row([b"ab", b"c"], [1, 2]); b = view_row([b"a", b"bc"], [3, 4])
    >>> p = pair_view(a, b, b"abc")["pieces"]
    >>> p["nb"], p["sa"], p["sb"], p["show"]
    ([1, 1, 1], [0, 0, 1], [0, 1, 1], ['a', 'b', 'c'])
    """
    def span_ends(row):
        ends, at, t = [], 0, 0
        for n in row["n"]:
            at += sum(row["nb"][t:t + n])
            t += n
            ends.append(at)
        return ends

    def token_ends(row):
        ends, at = [], 0
        for nb in row["nb"]:
            at += nb
            ends.append(at)
        return ends

    ends_a, ends_b = span_ends(row_a), span_ends(row_b)
    if ends_a[-1:] != ends_b[-1:] or (ends_a and ends_a[-1] != len(text_bytes)):
        raise ValueError("pair_view needs two rows over the same text")
    cuts = sorted(set(ends_a) | set(ends_b))
    pieces = {"nb": [], "nc": [], "sa": [], "sb": [], "show": [], "inner": {}}
    sa = sb = start = 0
    # the token cuts that are not piece boundaries: inside a character or cluster
    inner_a = sorted(set(token_ends(row_a)) - set(cuts))
    inner_b = sorted(set(token_ends(row_b)) - set(cuts))
    ia = ib = 0
    for p, end in enumerate(cuts):
        in_a, in_b = [], []
        while ia < len(inner_a) and inner_a[ia] < end:
            in_a.append(inner_a[ia] - start)
            ia += 1
        while ib < len(inner_b) and inner_b[ib] < end:
            in_b.append(inner_b[ib] - start)
            ib += 1
        if in_a != in_b:
            pieces["inner"][str(p)] = [in_a, in_b]
        piece = text_bytes[start:end]
        shown = piece.decode("utf-8", errors="surrogateescape")
        pieces["nb"].append(end - start)
        pieces["nc"].append(len(shown))
        pieces["sa"].append(sa)
        pieces["sb"].append(sb)
        pieces["show"].append(display_text(shown, whitespace=whitespace, marks=VIEW_MARKS))
        if end == ends_a[sa]:
            sa += 1
        if end == ends_b[sb]:
            sb += 1
        start = end
    return {"a": row_a, "b": row_b, "pieces": pieces}


def counts(text, ids):
    """The figures shown above the tokens: [label, value, help?] rows.

    >>> counts("héllo", [1, 2])[:3]
    [['Tokens', '2'], ['Characters', '5'], ['Bytes', '6', 'UTF-8 bytes: what BPE starts from.']]
    """
    n_bytes = len(text.encode("utf-8"))
    return [["Tokens", f"{len(ids):,}"], ["Characters", f"{len(text):,}"],
            ["Bytes", f"{n_bytes:,}", "UTF-8 bytes: what BPE starts from."],
            ["Bytes per token", f"{n_bytes / len(ids):.2f}" if ids else "–",
             "Higher is better compression."]]
