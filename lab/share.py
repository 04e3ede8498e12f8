"""Share links: a page's state in its URL, and back, for every page that has some.

A page lists its fields once (param -> Field: the session key and its kind) and calls
`read_once` at the top (the link's values win over the defaults on the session's first
visit to that page) and `write` once its widgets are drawn (the URL follows the state).
Kinds: "text" travels zlib-compressed in base64url (param "z"+name) up to MAX_TEXT
characters; "tokenizer" by its name, a tokenizer of the sender's own session marked so
the receiver can be told it was trained elsewhere; "flag" as "1"; "str" as itself.

What does not come is never silent: `read_once` returns a sentence per value the link
held that this page cannot use (a text too long or damaged, a tokenizer trained in
another session, a name no tokenizer has), and `write` one per value it left out. The
page shows them (`notes`). This module does not know any page's fields.

>>> unpack_text(pack_text("héllo " * 1000)) == "héllo " * 1000
True
>>> len(pack_text("a" * 65_536)) < 200
True
"""
import base64
import binascii
import zlib
from dataclasses import dataclass

import streamlit as st

from lab import state
from lab.safe import code

MAX_TEXT = 100_000        # characters of text a link carries (compressed)
MAX_PACKED = 150_000      # characters of the packed text in the URL, at most
SESSION_MARK = "session:"  # a tokenizer of the sender's session: the receiver lacks it


@dataclass(frozen=True)
class Field:
    key: str           # the st.session_state key
    kind: str = "str"  # "text", "tokenizer", "flag" or "str"


def pack_text(text):
    """text -> zlib + base64url (no padding), for a URL."""
    packed = base64.urlsafe_b64encode(zlib.compress(text.encode("utf-8", "surrogatepass"), 9))
    return packed.rstrip(b"=").decode("ascii")


def unpack_text(value):
    """pack_text's inverse; ValueError if the value is damaged or unpacks to too much."""
    try:
        data = base64.b64decode(value + "=" * (-len(value) % 4), altchars=b"-_", validate=True)
        inflate = zlib.decompressobj()
        raw = inflate.decompress(data, 4 * MAX_TEXT + 1)
        if len(raw) > 4 * MAX_TEXT or inflate.unconsumed_tail:
            raise ValueError("it unpacks to more than a link may hold")
        if not inflate.eof:
            raise ValueError("it is cut short (was the whole link copied?)")
        return raw.decode("utf-8")
    except (binascii.Error, zlib.error, UnicodeDecodeError) as e:
        raise ValueError(f"it is damaged ({e})") from None


def _param(name, field):
    return "z" + name if field.kind == "text" else name


def read_once(page, fields, defaults):
    """On the session's first visit to page, put the link's values into the session;
    returns (and keeps for `notes`) what the link held that did not come, as sentences."""
    seen = f"{page}_link_read"
    if st.session_state.get(seen):
        return st.session_state.get(f"{page}_link_notes", [])
    st.session_state[seen] = True
    notes = []
    names = set(state.tokenizer_names())
    for name, field in fields.items():
        value = st.query_params.get(_param(name, field))
        if value is None and field.kind == "text":
            value = st.query_params.get(name)  # an older link: the text as itself
            if value is not None:
                st.session_state[field.key] = value
            continue
        if value is None:
            continue
        if field.kind == "text":
            try:
                st.session_state[field.key] = unpack_text(value)
            except ValueError as e:
                notes.append(f"the text did not come: {e}; the page shows its default text")
        elif field.kind == "tokenizer":
            if value in names:
                st.session_state[field.key] = value
            elif value.startswith(SESSION_MARK):
                notes.append(f"the tokenizer {code(value[len(SESSION_MARK):])} was trained or "
                             "loaded in the sender's own session, so it is not here: ask them "
                             f"for its file and load it in the sidebar; showing "
                             f"{code(_shown(field, defaults))} instead")
            else:
                notes.append(f"{code(value)} is no tokenizer this lab has; showing "
                             f"{code(_shown(field, defaults))} instead")
        elif field.kind == "flag":
            st.session_state[field.key] = value == "1"
        else:
            st.session_state[field.key] = value
    st.session_state[f"{page}_link_notes"] = notes
    return notes


def _shown(field, defaults):
    return st.session_state.get(field.key) or defaults.get(field.key) or state.GPT4_NAME


def write(fields, defaults):
    """Write the state that differs from defaults into the URL; return what was left
    out, as sentences."""
    left_out = []
    references = set(state.reference_names())
    for name, field in fields.items():
        value = st.session_state.get(field.key)
        param = _param(name, field)
        wanted = None
        if field.kind == "flag":
            wanted = "1" if value and value != defaults.get(field.key) else None
        elif value is not None and value != defaults.get(field.key):
            wanted = value
        if field.kind == "text" and wanted:
            wanted = pack_text(value) if len(value) <= MAX_TEXT else None
            if wanted is None or len(wanted) > MAX_PACKED:
                wanted = None
                left_out.append(f"the text ({len(value):,} characters; a link holds at most "
                                f"{MAX_TEXT:,}): whoever opens it pastes the text")
        if field.kind == "tokenizer" and wanted and value not in references:
            wanted = SESSION_MARK + value
            left_out.append(f"the tokenizer {code(value)}, which lives only in this session "
                            "(the link names it, and the receiver is told to load its file): "
                            "download it (Train page) and send the file")
        if field.kind == "text":
            st.query_params.pop(name, None)  # an older link's plain text
        if wanted is None:
            st.query_params.pop(param, None)
        elif st.query_params.get(param) != wanted:
            st.query_params[param] = wanted
    return left_out


def notes(received, left_out):
    """Draw what the link did not bring (received) and what it does not carry (left_out)."""
    if received:
        st.warning("This link's state did not all come: " + "; ".join(received) + ".",
                   icon=":material/link_off:")
    if left_out:
        st.caption("Not in this page's link: " + "; ".join(left_out) + ".")
