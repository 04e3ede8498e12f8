"""Token bytes -> the token view's rows: the typed contract lab/token_view/__init__.py draws.

A row describes tokens in columns (cheap to send for 1 MB texts) and groups them into
spans, the boxes a reader sees: a span closes where a token ends on a character boundary
that is also a grapheme-cluster boundary. Every step is linear in the text: a cluster is
read CLUSTER_LIMIT characters at a time (one longer is drawn as several boxes) and no
bytes are decoded twice; WORK counts that work for the tests. A page lays out at most
VIEW_TOKEN_LIMIT tokens. `piece_strings` adds what the hover card shows beside a token's
text when the vocabulary writes its tokens its own way ("##ing", "▁the", "Ġthe").
Nothing here imports streamlit.
"""
import re
from typing import TypedDict

from viz.display import (
    VIEW_MARKS,
    WHITESPACE,
    WHITESPACE_ERROR,
    display_text,
    invisible_name,
)


class ViewRow(TypedDict, total=False):
    """What view_row returns and the token view reads (the optional keys a page adds are
    in lab/token_view/__init__.py's docstring)."""
    ids: list      # every token id, in order
    nb: list       # byte length of each token
    n: list        # tokens per span (mostly 1)
    nc: list       # characters (code points) per span
    show: list     # each span's display text (display_text with VIEW_MARKS)
    parts: list    # each token's display text, for the tokens of multi-token spans only
    caption: str
    pieces: list   # optional: each token as its vocabulary writes it (piece_strings)


# a grapheme cluster longer than this (in characters) is drawn as several boxes: real
# ones are short (👨‍👩‍👧‍👦 is 7; Unicode's stream-safe text allows 31 combining marks), and
# reading a cluster of 1M combining marks whole costs time and makes a box nobody can see
CLUSTER_LIMIT = 64
# tokens a page lays out as a view at most: a row costs the server ~150 bytes a token
# (bench/results/view2.md), so 2M tokens stay near 300 MB. Pages count and list more, but
# draw none of them and say so (an NFKC tokenizer on 1M x U+FDFA: 18M characters).
VIEW_TOKEN_LIMIT = 2_000_000
# bytes of one token the view shows: a longer one (a WordPiece unk_token of 25 MB, a
# SentencePiece unk_surface of 8 MB) is shown cut, ending in "…" (nb and nc stay true)
TOKEN_SHOW_BYTES = 4096
# work done by the careful span rules, in characters and bytes: the tests read it to check
# it grows linearly with the text (a counter, not a clock: tests assert no timings)
WORK = {"decode": 0, "cluster": 0}
_GRAPHEME = None  # regex's \X, compiled on first use


def _grapheme_re():
    global _GRAPHEME
    if _GRAPHEME is None:
        import regex
        _GRAPHEME = regex.compile(r"\X")
    return _GRAPHEME


def view_row(token_bytes, ids, *, whitespace=None, caption=None) -> ViewRow:
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
    if whitespace not in WHITESPACE:
        raise ValueError(WHITESPACE_ERROR.format(whitespace))
    token_bytes = list(token_bytes)
    nb = list(map(len, token_bytes))
    if max(nb, default=0) > TOKEN_SHOW_BYTES:
        return _with_long_tokens(token_bytes, nb, ids, whitespace, caption)
    spans_n, spans_nc, show, parts = [], [], [], []
    if 0 in nb:  # an empty token: no byte to look at around it, take the careful path
        view_spans(token_bytes, whitespace, spans_n, spans_nc, show, parts)
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
                view_spans(token_bytes[a:b], whitespace, spans_n, spans_nc, show, parts)
            at = b
    row = {"ids": list(ids), "nb": nb, "n": spans_n, "nc": spans_nc, "show": show,
           "parts": parts}
    if caption is not None:
        row["caption"] = caption
    return row


def _with_long_tokens(token_bytes, nb, ids, whitespace, caption):
    """view_row when some token is over TOKEN_SHOW_BYTES (a 25 MB unk_token, an 8 MB
    unk_surface): the rows are made from each such token's first TOKEN_SHOW_BYTES (cut
    at a character's start), so a page run costs what it shows, not the token's size a
    time it occurs; then nb and nc are made true again (nc counts the whole token's
    characters, once per distinct long token) and its span's text ends with "…"."""
    cut_bytes, long_at = [], {}
    for i, token in enumerate(token_bytes):
        if len(token) > TOKEN_SHOW_BYTES:
            end = TOKEN_SHOW_BYTES
            while end > 0 and 0x80 <= token[end] <= 0xBF:  # not inside a character
                end -= 1
            long_at[i] = token
            token = token[:end]
        cut_bytes.append(token)
    row = view_row(cut_bytes, ids, whitespace=whitespace, caption=caption)
    row["nb"] = nb
    chars = {}  # a long token -> its characters, counted once
    t = 0
    for s, n in enumerate(row["n"]):
        extra = 0
        for i in range(t, t + n):
            token = long_at.get(i)
            if token is not None:
                if token not in chars:
                    chars[token] = _characters(token)
                extra += chars[token] - _characters(cut_bytes[i])
        if extra:
            row["nc"][s] += extra
            row["show"][s] += "…"
        t += n
    return row


_CONTINUATION = [bytes([b]) for b in range(0x80, 0xC0)]


def _characters(token):
    """The characters of a token's UTF-8 (its bytes that start one), counted without
    decoding it: a 25 MB token is not copied to be measured."""
    if token.isascii():
        return len(token)
    return len(token) - sum(token.count(b) for b in _CONTINUATION)


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
    for ch, shown in (WHITESPACE[whitespace] or {}).items():
        joined = joined.replace(ch, shown)
    return joined.split("\uffff")


def view_spans(token_bytes, whitespace, spans_n, spans_nc, show, parts):
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


def covered_text(row, joined):
    """row with the bytes its tokens cover, for the hover card's text, offsets and hex:
    "text" when they are UTF-8, else "hex". Returns row.

    >>> covered_text({}, b"h\\xff")
    {'hex': '68ff'}
    """
    try:
        row["text"] = joined.decode("utf-8")
    except UnicodeDecodeError:
        row["hex"] = joined.hex()
    return row


def box_row(token_bytes, ids, text, *, whitespace=None):
    """view_row of the ids a box's text encodes to. The hover card reads the box's text
    at the tokens' byte offsets, so where the tokens cover other bytes than the text (a
    Metaspace tokenizer.json's "▁" before the first word, a normalizer's changes) the row
    carries its own (covered_text); else nothing more is sent. Not when a token is over
    TOKEN_SHOW_BYTES: view_row then cuts the long tokens, and their whole bytes (200 unk
    tokens of a 2 MB unk_token: 400 MB) must not be sent beside.

    >>> "text" in box_row([b"h", b"i"], [104, 105], "hi")
    False
    >>> box_row([b" h", b"i"], [1, 105], "hi")["text"]
    ' hi'
    """
    token_bytes = list(token_bytes)
    row = view_row(token_bytes, ids, whitespace=whitespace)
    if max(map(len, token_bytes), default=0) > TOKEN_SHOW_BYTES:
        return row
    joined = b"".join(token_bytes)
    if joined != text.encode("utf-8", "surrogatepass"):
        covered_text(row, joined)
    return row


def vocab_pieces(tok):
    """{id: the piece} of a SentencePiece model (from its public model_proto), or None for
    any other tokenizer: a tokenizer.json gives its strings by id itself
    (token_strings_of, read from its packed table: no dict of every piece), and ranks and
    minbpe write tokens as their bytes. lab.derived keeps one per tokenizer."""
    if hasattr(tok, "token_strings_of") or not getattr(tok, "model_proto", None):
        return None
    import sentencepiece as spm  # third-party, and only a SentencePiece model has one
    sp = spm.SentencePieceProcessor(model_proto=tok.model_proto)
    return {idx: sp.id_to_piece(idx) for idx in range(sp.get_piece_size())}


def piece_strings(tok, ids, pieces=None):
    """Each token of ids as the tokenizer's vocabulary writes it (WordPiece "##ing",
    SentencePiece and Metaspace "▁the", byte-level "Ġthe"), for the hover card; None when
    the vocabulary has no strings of its own (its tokens are bytes: GPT-4's ranks, minbpe).
    An id the vocabulary lacks gives "". A huge piece (a 25 MB unk_token) is cut, as in
    rows. U+0003 becomes "␃" (the view's wire format joins strings with it). pieces:
    vocab_pieces(tok) when the caller keeps it (lab.derived).

    >>> from bpe import BasicTokenizer
    >>> piece_strings(BasicTokenizer(), [104, 105]) is None
    True
    """
    if hasattr(tok, "token_strings_of"):
        strings = tok.token_strings_of(ids)
    else:
        if pieces is None:
            pieces = vocab_pieces(tok)
        if pieces is None:
            return None
        strings = [pieces.get(idx) for idx in ids]
    return [("" if piece is None else piece if len(piece) <= TOKEN_SHOW_BYTES
             else piece[:TOKEN_SHOW_BYTES] + "…").replace("\x03", "\u2403")
            for piece in strings]
