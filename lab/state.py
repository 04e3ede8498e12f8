"""The tokenizers a session can pick: the reference tokenizers for everyone, plus the session's own.

References (GPT-4 always; GPT-2, GPT-4o, Llama 3 and 4, Mistral v1, v3 and Tekken when the
package that ships their vocabulary is installed) are
built once per server (`st.cache_resource`) and shared by every session, so nothing here
may mutate them. The ones that cannot be had offline are listed with the reason, in the
picker's help and the sidebar. Tokenizers trained or uploaded in a session live in
`st.session_state` under one key, name -> Tokenizer, in the order they were added.
"""
import functools
import os

import streamlit as st

import bpe
from bpe import reference
from bpe.formats import ranks
from lab.safe import md

GPT4_NAME = reference.REFERENCES["cl100k_base"].label  # "GPT-4 (cl100k_base)"
SESSION_KEY = "lab_tokenizers"  # name -> bpe.Tokenizer, this session's own
NEWEST = "lab_newest_tokenizer"  # (serial, name) of the latest one added with select
UPLOAD_TYPES = ["model", "tiktoken", "json"]
# A .tiktoken file holds no split pattern, so the uploader asks for one: label -> pattern
TIKTOKEN_PATTERNS = {"GPT-4's (gpt4)": "gpt4", "GPT-2's (gpt2)": "gpt2",
                     "GPT-4o's (gpt4o)": "gpt4o",
                     "None: the whole text (a Basic tokenizer)": ranks.WHOLE_TEXT_PATTERN}


@st.cache_resource(show_spinner="Loading GPT-4's vocabulary…")
def gpt4():
    """The one GPT4Tokenizer of this server. Shared: never mutate it."""
    return bpe.GPT4Tokenizer()


@st.cache_resource(show_spinner="Loading the reference vocabulary…")
def _reference(name):
    """The one reference tokenizer called name (a key of bpe.reference.REFERENCES). Shared."""
    return reference.load_reference(name)


@functools.lru_cache(maxsize=1)
def _reference_status():
    """label -> (name, None if available here else the reason), GPT-4 first."""
    reasons = reference.available_references()
    return {ref.label: (name, reasons[name]) for name, ref in reference.REFERENCES.items()}


def reference_names():
    """The labels of the reference tokenizers this server can load, GPT-4 first."""
    return [label for label, (_, reason) in _reference_status().items() if reason is None]


def unavailable_references():
    """label -> why it cannot be had offline, for the references that cannot."""
    return {label: reason for label, (_, reason) in _reference_status().items() if reason}


def session_tokenizers():
    """name -> Tokenizer for the tokenizers trained or loaded in this session."""
    return st.session_state.setdefault(SESSION_KEY, {})


def add_tokenizer(name, tok, *, select=True):
    """Keep tok in this session under name (made unique with a suffix); returns the name.
    select: the pickers that follow new tokenizers switch to it when next drawn."""
    owned = session_tokenizers()
    name = (name or "").strip() or "tokenizer"
    taken = set(owned) | set(_reference_status())
    unique, n = name, 2
    while unique in taken:
        unique, n = f"{name} ({n})", n + 1
    owned[unique] = tok
    if select:
        serial = st.session_state.get(NEWEST, (0, None))[0] + 1
        st.session_state[NEWEST] = (serial, unique)
    return unique


def tokenizer_names():
    """Every name the picker offers: the references first (GPT-4 leading), then this
    session's in the order they were added."""
    return [*reference_names(), *session_tokenizers()]


def get_tokenizer(name):
    """The tokenizer called name; GPT-4's if the name is gone (e.g. a stale link)."""
    if name == GPT4_NAME:
        return gpt4()
    owned = session_tokenizers().get(name)
    if owned is not None:
        return owned
    ref, reason = _reference_status().get(name, (None, "unknown"))
    if reason is None:
        try:
            return _reference(ref)
        except ValueError as e:  # a damaged file: its sha256 did not match
            st.error(f"{md(name)} could not be loaded, so GPT-4 is used instead: {md(e)}")
    return gpt4()


def references_help():
    """One line per reference that cannot be loaded here, with its reason ('' if none)."""
    missing = unavailable_references()
    if not missing:
        return ""
    return ("Not installed here (nothing is downloaded at run time): "
            + "; ".join(f"{label}: {reason}" for label, reason in missing.items()))


def load_model_upload(uploaded, *, pattern="gpt4"):
    """Add a tokenizer from an uploaded .model (minbpe), .tiktoken (ranks; split with
    pattern, which that format does not hold) or tokenizer.json (Hugging Face) file;
    returns its name. Raises ValueError with what is wrong (not UTF-8, malformed line...)."""
    tok = bpe.load_bytes(uploaded.getvalue(), uploaded.name, pattern=pattern)
    stem = os.path.splitext(uploaded.name)[0]
    return add_tokenizer(f"{stem} (uploaded)", tok)
