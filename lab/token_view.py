"""The token view: one Streamlit Custom Components v2 component that draws tokens.

Every page that shows tokens calls `token_view`; the browser does the layout, hover and
scrolling, Python stays the single source of token data (viz/tokens.py `view_row`).
Its HTML/CSS/JS live in lab/token_view/ (no build step, nothing from a CDN).

    from lab.token_view import token_view
    from viz.tokens import view_row
    row = view_row(tok.decode_tokens_bytes(ids), ids, caption="GPT-4")
    row["text"] = text                # the text the tokens cover (for the hover card's bytes)
    token_view([row], key="tokenize_view", lists=True)

Call signature:

    token_view(rows, *, key, editor=None, lists=False, summary=None, note=None,
               box_height=420, on_text_change=None) -> ComponentResult

rows: a list of row dicts, drawn one under the other. A row is what `viz.tokens.view_row`
returns (columns, so a 1 MB text is cheap to send):
    ids   [int]   every token id, in order
    nb    [int]   byte length of each token
    n     [int]   tokens per span; a span is one box (tokens that split a character or a
                  grapheme cluster share one box, drawn with the cuts inside it)
    nc    [int]   characters per span
    show  [str]   each span's display text, from viz.tokens.display_text(marks=VIEW_MARKS)
    parts {str(span): [str]}  display text of each token of a multi-token span (table)
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
Two tokenizers on the same text (Compare): two rows built from the same text; the byte
offsets (data-bytes) of both rows refer to the same bytes, so cuts line up by offset.

editor: None (no text box), or a dict for the live text box drawn above the rows:
    {"text": str or None,  # set the box to this text (when version changes); None: keep
     "version": int,       # bump it whenever Python replaces the text
     "echo": int or None,  # the seq of the browser's text these rows were made from
     "placeholder": str, "height": px, "max_chars": int, "status": str}
The box sends {"seq": int, "text": str} as the state value "text", debounced 150 ms,
only when the text changed; read it in `on_text_change` from st.session_state[key].text.
lists: draw the Ids and Table tabs for the first row (windowed like the text).
summary: figures drawn between the text box and the rows: [[label, value, help?], ...]
(e.g. Tokens, Characters); they have data-label=label for tests.
note: a caption line above the rows.

In the browser every drawn token box carries data-ids="id id" and data-bytes="START-END"
(byte offsets in the row's text), data-r (row) and data-i (span); a line break inside a
token continues it in a second box of class "tok cont" (data-i only, no data-ids).
"""
from pathlib import Path

import streamlit as st

from viz.tokens import VIEW_PALETTE

_HERE = Path(__file__).with_name("token_view")
_component = st.components.v2.component(
    "lab_token_view",
    html='<div class="tv"></div>',
    css=(_HERE / "token_view.css").read_text(encoding="utf-8"),
    js=(_HERE / "token_view.js").read_text(encoding="utf-8"),
)


def token_view(rows, *, key, editor=None, lists=False, summary=None, note=None,
               box_height=420, on_text_change=None):
    """Draw rows of tokens (see the module docstring for the data format)."""
    data = {"rows": rows, "editor": editor, "lists": lists, "summary": summary, "note": note,
            "box_height": box_height, "palette": VIEW_PALETTE}
    callbacks = {}
    if editor is not None:
        callbacks["on_text_change"] = on_text_change or (lambda: None)
    return _component(key=key, data=data, **callbacks)
