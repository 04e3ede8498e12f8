"""Tokenize (the home page): type or paste text, see its tokens, ids and counts as you type.

The text box lives inside the token view (lab/token_view/__init__.py): it sends the text back,
this page encodes it and hands the view the tokens (viz/rows.py view_row), so Python
stays the one source of token data. When the browser encoded and drew the typed text
itself, the page sends only its ids, which the view checks against its own. Counts cover
the whole text; the browser draws only the part of a big text that is on screen. The
tokenizer, the toggles and the text (up to 100,000 characters, compressed) live in the URL
(lab/share.py), so a copied link reproduces the view; what cannot travel, or did not come,
is named.
"""
import json
import re

import streamlit as st

from lab.pages_guard import run_inside_frame

run_inside_frame()

from lab import derived, parity, share, state, widgets
from lab.token_view.browser_vocab import browser_spec
from lab.guard import guarded
from lab.lessons import lesson_link
from lab.memory import remember
from lab.safe import md
from lab.share import Field
from lab.token_view import (
    drawn_in_browser,
    editor_for,
    ids_only_row,
    set_text,
    text_changed,
    token_view,
)
from viz.marks import spans_holding
from viz.samples import DEFAULT_SAMPLE, SAMPLES
from viz.rows import VIEW_TOKEN_LIMIT, box_row, counts, piece_strings, view_row
from viz.tokens import parse_ids, without_post

TEXT_LIMIT = 5_000_000  # characters; bigger texts belong to the CLI (python -m bpe encode)
# ids "Decode ids" takes: each becomes a box of the view (300,000 of them cost +989 MB)
DECODE_LIMIT = 20_000
ID_DIGITS = 20  # longer than any id can be (they are below 2**32)
ROUNDTRIP_FACTOR = 4  # tokens' bytes past this many times the text's: no round trip check

DEFAULTS = {"tokenize_text": SAMPLES[DEFAULT_SAMPLE], "tokenize_tokenizer": state.GPT4_NAME,
            "tokenize_by_id": False, "tokenize_markers": False, "tokenize_gpt2": False,
            "tokenize_specials": False}  # key -> default, remembered across pages
# what a link carries (lab/share.py): query parameter -> field
LINK = {"tokenizer": Field("tokenize_tokenizer", "tokenizer"),
        "by_id": Field("tokenize_by_id", "flag"), "markers": Field("tokenize_markers", "flag"),
        "gpt2": Field("tokenize_gpt2", "flag"), "specials": Field("tokenize_specials", "flag"),
        "text": Field("tokenize_text", "text")}


def load_sample():
    name = st.session_state["tokenize_sample"]
    if name:
        set_text("tokenize_text", SAMPLES[name])


def encode_or_refuse(tok, text, specials):
    """(ids, None), or (None, the core's message) when it refuses the text."""
    try:
        return tok.encode(text, allowed_special="all" if specials else "none"), None
    except ValueError as e:
        return None, str(e)


def once(slot, key, make):
    """make()'s value, remembered for one key per slot in this session: a toggle that
    leaves the text alone does not encode 1 MB again."""
    memo = st.session_state.setdefault("tokenize_memo", {})
    held = memo.get(slot)
    if held is None or held[0] != key:
        # subtle: stored in the dict, not through st.session_state: a newer rerun abandons
        # this one (Streamlit's fast reruns) and touching st.* is where it stops, so a slow
        # result would be lost; kept, the newer run for the same text finds it
        held = memo[slot] = (key, make())
    return held[1]


def unknown_marks(tok, row):
    """Row keys outlining the spans that hold an unknown token (a WordPiece or Unigram
    tokenizer.json's [UNK]/<unk>): the text they stand for is not in the vocabulary."""
    unknown = getattr(tok, "unk_ids", None)
    spans = spans_holding(row, unknown) if unknown else []
    if not spans:
        return {}
    note = ("an unknown token: the vocabulary has no piece for this text, so the model "
            "sees only its unk id")
    return {"marks": {"outline": spans}, "notes": {str(s): note for s in spans}}


# The page is one fragment: a key press in the box (or any widget here) reruns this page
# only, not the app's frame and sidebar, so the view's data leaves the server sooner and
# the browser has fewer elements to update (bench/results/keyfast.md).
@st.fragment
@guarded  # a fragment's errors are drawn in place: the frame's guard never sees them
def page():
    """Everything the page draws."""
    received = share.read_once("tokenize", LINK, DEFAULTS)
    remember(DEFAULTS)
    st.title("Tokenize")
    lesson_link("pages/tokenize.py")
    st.caption("Type or paste text and watch a tokenizer cut it into tokens as you type. "
               "Hover a token for its id, bytes and offsets; click it to pin the card.")

    # one row that wraps: on a narrow screen the samples go under the picker rather than
    # being cut off at the column's edge
    pick_row = st.container(horizontal=True, gap="medium", vertical_alignment="bottom")
    with pick_row.container(width=320):
        name, tok = widgets.tokenizer_picker("tokenize_tokenizer",
                                           help="GPT-4's cl100k_base, or one you trained or "
                                                "loaded in this session.")
    with pick_row.container(width="stretch"):
        # the pill lights up while the text is that sample, and goes dark once it is edited
        st.session_state["tokenize_sample"] = next(
            (s for s, t in SAMPLES.items() if t == st.session_state["tokenize_text"]), None)
        st.pills("Samples", list(SAMPLES), key="tokenize_sample", on_change=load_sample)
    loaded_from = state.describe(name)  # an uploaded file: what it is (a GGUF's family, pre)
    if loaded_from:
        st.caption(f"Loaded from {loaded_from}")

    toggles = st.container(horizontal=True, gap="medium")  # wraps on narrow screens
    by_id = toggles.toggle("Color by token id", key="tokenize_by_id",
                      help="Same token, same color. Off: neighbours never share a color.")
    markers = toggles.toggle("Whitespace markers", key="tokenize_markers",
                        help="Space ·, tab →, newline ↵ (then a real line break).")
    gpt2 = toggles.toggle("Show spaces as Ġ (GPT-2 style)", key="tokenize_gpt2",
                     help="As GPT-2's byte-level vocabulary prints them: space Ġ, newline Ċ.")
    specials = toggles.toggle("Encode special tokens", key="tokenize_specials",
                         help="Off: text like <|endoftext|> is encoded as ordinary text "
                              "(allowed_special='none'). On: as the special token ('all').")
    left_out = share.write(LINK, DEFAULTS)

    text = st.session_state["tokenize_text"]
    whitespace = "gpt2" if gpt2 else "markers" if markers else None
    # the browser encodes each key press itself when it can do so exactly; our ids below
    # stay the truth it is checked against
    browser = dict(browser_spec(tok), specials=specials, whitespace=whitespace,
                   color_by="id" if by_id else "position")
    # the box's typing of a text the browser encoded and drew itself: the view needs only
    # our ids, to check its own against, not a row to draw (a key press's server share)
    checks_only = drawn_in_browser("tokenize_text") and not browser.get("why")
    badges = st.container(horizontal=True)
    ids, rows, summary, row_note = [], [], None, None
    if len(text) > TEXT_LIMIT:
        st.error(f"The text has {len(text):,} characters; this page tokenizes up to "
                 f"{TEXT_LIMIT:,}. For bigger inputs use the command line: "
                 "`python -m bpe encode`.", icon=":material/block:")
        text = ""
    elif text:
        found = [s for s in tok.special_tokens if s in text]
        if found and not specials:
            st.info(f"The text contains special-token text ({md(', '.join(found))}). It is "
                    "encoded as ordinary text (allowed_special='none'), the safe choice for "
                    "untrusted input; turn on **Encode special tokens** to encode it as the "
                    "special token.")
        run = (name, id(tok), specials, text)  # what the ids depend on; toggles do not
        # a refusal is remembered like ids: a pattern the core stops costs a second of CPU a
        # try, the box resends a text unanswered after a second, and each resend starts a new
        # run; encoding again every time, the page reran every second for good
        ids, refusal = once("ids", run, lambda: encode_or_refuse(tok, text, specials))
        if refusal:  # e.g. a custom split pattern that skips characters or runs away
            st.error(f"{md(name)} cannot encode this text: {md(refusal)}")
        if ids is not None and len(ids) > VIEW_TOKEN_LIMIT:
            # e.g. an NFKC tokenizer on 1M x U+FDFA: 18 characters each, 18M in all
            row_note = (f"{len(ids):,} tokens: the view draws texts of up to "
                        f"{VIEW_TOKEN_LIMIT:,} tokens (laying out more would cost the server "
                        "gigabytes); the figures and the ids download cover them all.")
            summary = counts(text, ids)
        elif ids is not None and checks_only:
            rows = [ids_only_row(ids)]
        elif ids is not None:
            row = once("row", (run, whitespace), lambda: box_row(
                tok.decode_tokens_bytes(ids), ids, text, whitespace=whitespace))
            # its text: the box's, unless the tokens cover other bytes (box_row)
            rows = [dict(row, color_by="id" if by_id else "position",
                         **unknown_marks(tok, row))]
            # the vocabulary's own strings ("##ing", "▁the"), for the hover card
            pieces = once("pieces", run, lambda: piece_strings(tok, ids, derived.pieces(tok)))
            if pieces is not None:
                rows[0]["pieces"] = pieces
            summary = counts(text, ids)

    # a run the box's own typing started leaves the box's text alone (text None: the box
    # keeps what it has, 10 KB less per key press on a 10 KB text); any other run (a
    # sample, the URL, a toggle, a visit) sends it
    token_view(rows, key="tokenize_view", lists=True, summary=summary, note=row_note,
               on_text_change=text_changed("tokenize_view", "tokenize_text"), browser=browser,
               editor=editor_for(
                   "tokenize_text", height=180, max_chars=TEXT_LIMIT,
                   placeholder="Type or paste text here: tokens follow as you type.",
                   status="" if text else "Type or paste some text, or pick a sample."))
    if ids:  # the badges are checks the view need not wait for: drawn into their row after it
        with badges:
            text_ids, around = without_post(tok, ids)
            ok = once("roundtrip", run, lambda: roundtrip(tok, text_ids, text))
            if ok is None or isinstance(ok, str):  # str: why the tokenizer could not decode
                st.badge("decode(encode(text)) not checked: " + (
                    md(ok[:200]) if ok else "the tokens stand for far more text than was "
                    "typed"), color="orange", icon=":material/help:")
            else:
                st.badge(f"decode(encode(text)) {'==' if ok else '!='} text" + (
                    f" (the post-processor's {md(around)} left out)" if around else ""),
                    color="green" if ok else "red",
                    icon=f":material/{'check' if ok else 'close'}:")
            parity.draw_badge(once("parity", run, lambda: parity.check(
                name, text, None if specials else ids)))
        st.download_button("Download the ids (JSON)", lambda: json.dumps(ids), "ids.json",
                           mime="application/json", key="tokenize_download_ids")
    share.notes(received, left_out)

    with st.expander("Decode ids"):
        typed_ids = st.text_area("Token ids to decode with this tokenizer", key="tokenize_decode",
                                 placeholder="[15339, 1917] or 15339 1917", height=80,
                                 help=f"Up to {DECODE_LIMIT:,} ids.")
        if typed_ids.strip():
            try:
                decoded_ids = typed_id_list(typed_ids)
                decoded_bytes = tok.decode_tokens_bytes(decoded_ids)
            except (ValueError, OverflowError) as e:  # OverflowError: an id past 2**32
                st.error(md(e), icon=":material/error:")
            except KeyError as e:  # an id the vocabulary does not have
                st.error(md(e.args[0]), icon=":material/error:")
            else:
                joined = b"".join(decoded_bytes)
                st.caption(f"{len(decoded_ids):,} ids decode to {len(joined):,} bytes:")
                row = view_row(decoded_bytes, decoded_ids)
                row["hex"] = joined.hex()
                token_view([row], key="tokenize_decoded")


def roundtrip(tok, ids, text):
    """decode(ids) == text, or None (not checked) when the tokens' own bytes are over
    ROUNDTRIP_FACTOR times the text's (a 25 MB unk_token a word: decoding would build
    gigabytes to compare with a short text), or the sentence of the ValueError decode
    raised (a visitor's decoder stopped by its growth budget)."""
    vocab = tok.vocab
    size = sum(len(vocab.get(idx, b"")) for idx in ids)
    if size > ROUNDTRIP_FACTOR * len(text) * 4 + 65_536:  # 4: UTF-8 bytes a character at most
        return None
    try:
        return tok.decode(ids) == text
    except ValueError as e:
        return str(e)


def typed_id_list(text):
    """The ids typed into "Decode ids", counted and measured before any is parsed: a
    ValueError saying so beyond DECODE_LIMIT ids or for an item too long to be an id."""
    for n, item in enumerate(re.finditer(r"[^\s,\[\]]+", text), 1):
        if n > DECODE_LIMIT:
            raise ValueError(f"More than {DECODE_LIMIT:,} ids: this view decodes up to "
                             f"{DECODE_LIMIT:,} at a time: decode them in parts, or in Python "
                             "with tok.decode(ids).")
        if item.end() - item.start() > ID_DIGITS:
            raise ValueError(f"item {n} has {item.end() - item.start():,} characters, too "
                             "many for a token id (ids are below 4,294,967,296)")
    return parse_ids(text)


page()
