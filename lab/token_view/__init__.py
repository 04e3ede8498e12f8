"""The token view: one Streamlit Custom Components v2 component that draws tokens.

Every page that shows tokens calls `token_view`; the browser does the layout, hover and
scrolling, Python stays the single source of token data (viz/rows.py `view_row`).
Its CSS/JS live in lab/token_view/ and are served from there as files the browser
fetches once (no build step, no install, nothing from a CDN; see "serving" below).

    from lab.token_view import token_view
    from viz.rows import view_row
    row = view_row(tok.decode_tokens_bytes(ids), ids, caption="GPT-4")
    row["text"] = text                # the text the tokens cover (for the hover card's bytes)
    token_view([row], key="tokenize_view", lists=True)

Call signature:

    token_view(rows, *, key, editor=None, lists=False, summary=None, note=None,
               box_height=420, on_text_change=None, pair=None, browser=None)
               -> ComponentResult

rows: a list of row dicts, drawn one under the other. A row is what `viz.rows.view_row`
returns (columns, so a 1 MB text is cheap to send):
    ids   [int]   every token id, in order
    nb    [int]   byte length of each token
    n     [int]   tokens per span; a span is one box (tokens that split a character or a
                  grapheme cluster share one box, drawn with the cuts inside it)
    nc    [int]   characters per span
    show  [str]   each span's display text, from viz.display.display_text(marks=VIEW_MARKS)
    parts [str]   display text of each token of the multi-token spans, in order (table)
and optional keys a page may add:
    caption  str             a line above the row
    text     str             the text the row covers (hover card: escapes and hex bytes);
    hex      str             ...or its bytes as one hex string when they are not UTF-8
    color_by "position"|"id" default "position" (neighbours differ); "id": same id, same color
    colors   [int]           a palette index per span, overriding color_by
    marks    {name: [span]}  extra marks per span: "outline" (red outline), "cross" (dashed
                             underline, e.g. a token crossing a chunk), "special" (bold,
                             framed: a special token), "differs" (wavy underline), "dim"
    chunk    [int]           a chunk number per span: alternating underline per chunk
    notes    {str(span): str} an extra line in that span's hover card
    pieces   [str]           each token as the vocabulary writes it ("##ing", "▁the"; from
                             viz.rows.piece_strings), shown in the hover card
Two tokenizers on the same text (Compare), two ways:
  - pair=viz.pair.pair_view(row_a, row_b, text.encode(), whitespace=...) with rows=[]:
    ONE aligned view. The text is drawn once, in pieces cut at every span boundary of
    A or B; A's spans are a colored band above the pieces and B's a band below, A's cuts
    a mark on the top half of a piece's left edge and B's on the bottom half, red when
    only one of them cuts there (class "cut-diff"). So A's and B's cut marks for one
    byte offset share an x position by construction. Each piece carries data-bytes,
    data-pa / data-pb (its A and B span), and the first piece of each span
    data-ids-a / data-ids-b (its ids; so [data-ids-a] lists A's tokens in order).
    Hovering a piece outlines A's span and dashes every B span overlapping it; the
    card shows both. Give row_a["text"] = text and captions in row_a/row_b["caption"].
    Pieces between two cuts that A and B both make sit in one element of class "run"
    that never breaks across lines, so a line wraps only where both cut (or at a
    newline); a run wider than the whole line is the exception, marked "run wrapped".
  - or two rows (rows=[row_a, row_b]), each drawn on its own, wrapping on its own.

editor: None (no text box), or a dict for the live text box drawn above the rows:
    {"text": str or None,  # set the box to this text (when version changes); None: keep
     "version": int,       # bump it whenever Python replaces the text
     "echo": int or None,  # the seq of the browser's text these rows were made from
     "placeholder": str, "height": px, "max_chars": int, "status": str,
     "label": str}          # the box's accessible name (default "Text to tokenize")
A page keeps such a box's text with set_text / text_changed / editor_for, or live_box.
The box sends {"seq": int, "text": str, "drawn": bool} as the state value "text" when its
text changed. drawn is True when the browser encoded and drew this text itself (see
browser below); such a text goes out once typing has paused for 400 ms (a typed word costs
one rerun; the engine line says the check is pending). Any other text goes out
at once when nothing was sent in the last 150 ms (600 ms for texts over 200k characters),
and never while the page has not yet answered the last send (an answer is a rerun whose
editor "echo" is at least that seq; unanswered after 1 s, 15 s for big texts, it sends
again, a rerun can be lost, e.g. when it meets a run_every fragment's rerun; each resend
waits twice as long as the one before, up to 30 s, until an answer comes, so a page that
is slow to answer is not restarted over and over), so a
single key press costs one round trip and fast typing one rerun at a time. Read it in
`on_text_change` from st.session_state[key].text and echo its seq back in editor["echo"].
A rerun that hands the view the same data as the last one does not redraw it.
A redraw keeps what did not change: the box of a windowed row, the Ids/Table boxes (and
the tab shown) and every drawn window whose spans are the same, in place; a changed window
that was drawn is redrawn at once. So a key press at the end of a long text rebuilds one
window. A page whose rerun comes from the box's own typing need not send the text back
(editor "text": None; pages/tokenize.py does so): the box already holds it.
browser: None, or with an editor: encode in the browser on every key press (for the first
row). lab.token_view.browser_vocab.browser_spec(tok) plus "specials" (bool: allowed_special "all"
rather than "none"), "whitespace" and "color_by" as the row has them; a spec with "why"
says why the server encodes, and the view shows it. The browser draws its own row for
the box's text at once (lab/token_view/rows.js) and, on each rerun, compares its ids
with rows[0]["ids"] for the text they answer: "browser ids == Python", or a red error
(and from then on Python's rows only). Older answers never overwrite a newer local row.
A page that knows the browser drew the text (drawn_in_browser) may send
rows=[ids_only_row(ids)]: the view checks those ids and keeps its own drawing; on a
difference it sends the text again with drawn False and draws the rows that come back.
lists: draw the Ids and Table tabs for the first row (windowed like the text).
summary: figures drawn between the text box and the rows: [[label, value, help?], ...]
(e.g. Tokens, Characters); they have data-label=label for tests.
note: a caption line above the rows.

The component is named NAME ("lab.token_view"); AppTest finds its elements by
e.proto.component_name == NAME (tests/helpers/component_data.py).

In the browser every drawn token box carries data-ids="id id" and data-bytes="START-END"
(byte offsets in the row's text), data-r (row) and data-i (span); a line break inside a
token continues it in a second box of class "tok cont" (data-i only, no data-ids).
"""
import json
import struct
import threading
from array import array
from pathlib import Path

import streamlit as st
from streamlit.components.v2.get_bidi_component_manager import get_bidi_component_manager
from streamlit.components.v2.manifest_scanner import ComponentConfig, ComponentManifest

from viz.palette import VIEW_PALETTE

# --- serving the JS and CSS ------------------------------------------------------------
# Given as strings, the JS and CSS (~35 KB) would travel inside every rerun's message to
# the browser. Given as file names, the browser is sent only those names and fetches the
# files once from /_stcore/bidi-components/lab.token_view/<file>. Streamlit serves a
# component's files only from an asset_dir it knows from a manifest; it reads manifests
# from the pyproject.toml of installed packages at start-up. The lab is a plain checkout,
# not an installed package, so it hands the running server the same manifest itself:
# package "lab", component "token_view", asset_dir lab/token_view/ (hence the name).
NAME = "lab.token_view"
_MANIFEST = ComponentManifest(name="lab", version="0",
                              components=[ComponentConfig(name="token_view",
                                                          asset_dir="token_view")])
_lock = threading.Lock()
_component = None


def _mount():
    """The component's mount function, with its asset_dir known to the running server.
    Each Streamlit runtime (the server; every AppTest has its own) has its own component
    manager, so this checks the current one on every call (a dict lookup)."""
    global _component
    manager = get_bidi_component_manager()
    with _lock:
        if manager.get_component_asset_root(NAME) is None:
            manager.register_from_manifest(_MANIFEST, Path(__file__).parent.parent)
        if _component is None:
            _component = st.components.v2.component(
                NAME, html='<div class="tv"></div>', css="token_view.css", js="token_view.js")
    return _component


def token_view(rows, *, key, editor=None, lists=False, summary=None, note=None,
               box_height=420, on_text_change=None, pair=None, browser=None):
    """Draw rows of tokens (see the module docstring for the data format)."""
    data = {"rows": rows, "pair": pair, "editor": editor, "lists": lists, "summary": summary,
            "note": note, "browser": browser,
            "box_height": box_height, "palette": VIEW_PALETTE}
    callbacks = {}
    if editor is not None:
        callbacks["on_text_change"] = on_text_change or (lambda: None)
    return _mount()(key=key, data=pack(data), **callbacks)


# --- a live text box: its text kept in st.session_state[key] ----------------------------
# Every page with a box that follows typing (Tokenize, Compare, Arena's text and chat
# messages) keeps the text the same way: the box sends it, text_changed stores it and
# its seq, and the next run's editor_for echoes the seq and sends no text back (the box
# holds it); Python replacing the text (a sample, a link) bumps the version: set_text.

def set_text(key, text):
    """Python replaces the text of the box kept under key: the box takes it."""
    st.session_state[key] = text
    st.session_state[key + "_version"] = st.session_state.get(key + "_version", 0) + 1


def text_changed(view_key, key):
    """The on_text_change callback of the token view view_key whose box keeps its text
    in st.session_state[key]."""
    def typed():
        sent = st.session_state[view_key].get("text") or {}
        st.session_state[key] = sent.get("text", "")
        st.session_state[key + "_echo"] = sent.get("seq")
        st.session_state[key + "_typed"] = True
        st.session_state[key + "_drawn"] = bool(sent.get("drawn"))
    return typed


def drawn_in_browser(key):
    """True when this run comes from the typing of the box kept in st.session_state[key]
    and the browser said it drew that text's tokens itself: the page then owes the view
    only Python's ids to check (ids_only_row), not a row to draw. Call before editor_for."""
    return bool(st.session_state.get(key + "_typed") and st.session_state.get(key + "_drawn"))


def ids_only_row(ids):
    """The row a page sends when the browser drew the text itself: Python's ids, which the
    view compares with its own (a difference is a red error, and the view then asks for
    Python's full rows)."""
    return {"ids": ids, "ids_only": True}


def editor_for(key, **options):
    """The editor dict (see the module docstring) of the box kept in st.session_state[key]:
    a run the box's own typing started sends no text back. options: placeholder, height,
    max_chars, status, label (the box's accessible name)."""
    typing = st.session_state.pop(key + "_typed", False)
    return {"text": None if typing else st.session_state.get(key, ""),
            "version": st.session_state.setdefault(key + "_version", 0),
            "echo": st.session_state.get(key + "_echo"), **options}


def live_box(key, view_key=None, *, rows=(), **view_options):
    """A token view whose box follows typing, its text in st.session_state[key]; rows and
    view_options (pair, summary, note, box_height, ...) as token_view takes them, editor
    options (placeholder, height, max_chars, status, label) in view_options["editor"]."""
    view_key = view_key or key + "_view"
    editor = editor_for(key, **view_options.pop("editor", {}))
    return token_view(list(rows), key=view_key, editor=editor,
                      on_text_change=text_changed(view_key, key), **view_options)


# --- the wire format -------------------------------------------------------------------
# A 1 MB text has ~250k tokens: as JSON its columns are ~12 MB and cost seconds to build,
# send and parse. So the data travels as one bytes payload: "TV1\0", a uint32 length, a
# JSON header, then binary blobs. In the header a long list of ints becomes
# {"$a": [offset, count, type]} (a typed array in the browser), a long list of strings
# {"$s": [offset, nbytes]} (UTF-8, joined by \x03, which display text never holds), and
# a long string {"$t": [offset, nbytes]}.
MAGIC = b"TV1\0"
_TYPES = (("B", 0xFF), ("H", 0xFFFF), ("i", 0x7FFFFFFF))
_LONG = 64          # lists longer than this travel as blobs
_LONG_TEXT = 4096   # strings longer than this travel as blobs


def pack(data):
    """data (JSON-like) -> the bytes the component reads (see above)."""
    blobs = []
    size = 0

    def add(blob):
        nonlocal size
        offset = size
        blobs.append(blob)
        size += len(blob)
        pad = -size % 4
        if pad:
            blobs.append(b"\0" * pad)
            size += pad
        return offset

    def walk(value):
        if isinstance(value, dict):
            return {k: walk(v) for k, v in value.items()}
        if isinstance(value, (list, tuple)):
            if len(value) > _LONG and type(value[0]) is int:
                low, high = min(value), max(value)
                code = "i" if low < 0 else next(c for c, top in _TYPES if high <= top)
                return {"$a": [add(array(code, value).tobytes()), len(value), code]}
            if len(value) > _LONG and type(value[0]) is str:
                blob = "\x03".join(value).encode("utf-8", errors="surrogatepass")
                return {"$s": [add(blob), len(blob)]}
            return [walk(v) for v in value]
        if isinstance(value, str) and len(value) > _LONG_TEXT:
            blob = value.encode("utf-8", errors="surrogatepass")
            return {"$t": [add(blob), len(blob)]}
        return value

    header = json.dumps(walk(data), ensure_ascii=False).encode("utf-8")
    head = MAGIC + struct.pack("<I", len(header)) + header
    head += b"\0" * (-len(head) % 4)
    return head + b"".join(blobs)


def unpack(payload):
    """The inverse of pack (for tests): bytes -> the data as JSON-like Python values."""
    assert payload[:4] == MAGIC
    (length,) = struct.unpack("<I", payload[4:8])
    header = json.loads(payload[8:8 + length].decode("utf-8"))
    base = 8 + length + (-(8 + length) % 4)

    def walk(value):
        if isinstance(value, dict):
            if "$a" in value:
                offset, count, code = value["$a"]
                arr = array(code)
                arr.frombytes(payload[base + offset:base + offset + count * arr.itemsize])
                return arr.tolist()
            if "$s" in value:
                offset, n = value["$s"]
                return payload[base + offset:base + offset + n].decode("utf-8").split("\x03")
            if "$t" in value:
                offset, n = value["$t"]
                return payload[base + offset:base + offset + n].decode("utf-8")
            return {k: walk(v) for k, v in value.items()}
        if isinstance(value, list):
            return [walk(v) for v in value]
        return value

    return walk(header)
