"""Share links: a page's state in its URL, and back, for every page that has some.

A page lists its fields once (param -> Field: the session key and its kind) and calls
`read_once` at the top (the link's values win over the defaults on the session's first
visit to that page) and `write` once its widgets are drawn (the URL follows the state).
Kinds: "text" travels zlib-compressed in base64url (param "z"+name) up to MAX_TEXT
characters; "tokenizer" by its name, a tokenizer of the sender's own session marked so
the receiver can be told it was trained elsewhere; "tokenizers" (a list, e.g. Arena's
picks) as one such name per repeated param; "flag" as "1"; "int" as ASCII digits;
"str" as itself. A field with choices takes only those values.

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
    kind: str = "str"  # "text", "tokenizer", "tokenizers" (a list), "flag", "int" or "str"
    choices: tuple = ()  # "str"/"int": the values a page can take (empty: any)


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
        if field.kind == "tokenizers":
            values = st.query_params.get_all(name)
            if values:
                st.session_state[field.key] = [v for v in values if v in names]
                notes.extend(_missing_tokenizer(v, "leaves it out") for v in values
                             if v not in names)
            continue
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
            else:
                notes.append(_missing_tokenizer(
                    value, f"shows {code(_shown(field, defaults))} instead"))
        elif field.kind == "flag":
            st.session_state[field.key] = value == "1"
        else:
            if field.kind == "int":
                number = int(value) if value.isascii() and value.isdigit() and len(value) < 10 \
                    else None
                taken = number if number is not None and (
                    not field.choices or number in field.choices) else None
            else:
                taken = value if not field.choices or value in field.choices else None
            if taken is None:
                notes.append(f"{name} {code(value[:40])} is not a value this page takes "
                             f"({_choices(field)}); it shows "
                             f"{code(str(st.session_state.get(field.key, defaults.get(field.key))))}")
            else:
                st.session_state[field.key] = taken
    st.session_state[f"{page}_link_notes"] = notes
    return notes


def _missing_tokenizer(value, instead):
    """The note for a tokenizer a link names that this session does not have."""
    if value.startswith(SESSION_MARK):
        return (f"the tokenizer {code(value[len(SESSION_MARK):])} was trained or loaded in "
                "the sender's own session, so it is not here: ask them for its file and load "
                f"it in the sidebar; the page {instead}")
    return f"{code(value[:80])} is no tokenizer this lab has; the page {instead}"


def _choices(field):
    if not field.choices:
        return "a whole number" if field.kind == "int" else "text"
    if field.kind == "int":
        return f"{min(field.choices)} to {max(field.choices)}"
    return "one of " + ", ".join(code(c) for c in field.choices)


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
        elif field.kind == "tokenizers":
            wanted = None
            if value is not None and list(value) != list(defaults.get(field.key) or []):
                wanted = [v if v in references else SESSION_MARK + v for v in value]
                left_out.extend(_session_only(v) for v in value if v not in references)
        elif value is not None and value != defaults.get(field.key):
            wanted = str(value) if field.kind == "int" else value
        if field.kind == "text" and wanted:
            wanted = pack_text(value) if len(value) <= MAX_TEXT else None
            if wanted is None or len(wanted) > MAX_PACKED:
                wanted = None
                left_out.append(f"the text ({len(value):,} characters; a link holds at most "
                                f"{MAX_TEXT:,}): whoever opens it pastes the text")
        if field.kind == "tokenizer" and wanted and value not in references:
            wanted = SESSION_MARK + value
            left_out.append(_session_only(value))
        if field.kind == "text":
            st.query_params.pop(name, None)  # an older link's plain text
        if wanted is None:
            st.query_params.pop(param, None)
        elif isinstance(wanted, list):
            if st.query_params.get_all(param) != wanted:
                st.query_params[param] = wanted
        elif st.query_params.get(param) != wanted:
            st.query_params[param] = wanted
    return left_out


def _session_only(value):
    return (f"the tokenizer {code(value)}, which lives only in this session (the link names "
            "it, and the receiver is told to load its file): download it (Train page) and "
            "send the file")


def notes(received, left_out):
    """Draw what the link did not bring (received) and what it does not carry (left_out)."""
    if received:
        st.warning("This link's state did not all come: " + "; ".join(received) + ".",
                   icon=":material/link_off:")
    if left_out:
        st.caption("Not in this page's link: " + "; ".join(left_out) + ".")
