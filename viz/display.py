"""Bytes of text -> the text a person sees: the lab's one display renderer.

Every page shows token text through `display_text`: valid UTF-8 as itself, a byte that is
not part of a whole character as hex, every invisible, control or bidi-control character
as a named marker, whitespace as itself or as markers. `invisible_name` names those
characters. This module draws nothing (the token view does, lab/token_view/__init__.py) and knows
no tokenizer; viz.rows builds the token view's rows from it.
"""
import re

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
    if whitespace not in WHITESPACE:
        raise ValueError(WHITESPACE_ERROR.format(whitespace))
    ws = WHITESPACE[whitespace]
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

WHITESPACE = {None: None, "markers": {" ": "·", "\t": "→", "\n": "↵\n", "\r": "␍"},
              "oneline": {" ": "·", "\t": "→", "\n": "↵", "\r": "␍"},
              "gpt2": {" ": "Ġ", "\n": "Ċ", "\t": "ĉ", "\r": "č"}}
WHITESPACE_ERROR = "whitespace must be None, 'markers', 'oneline' or 'gpt2', not {!r}"

