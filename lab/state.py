"""The tokenizers a session can pick: GPT-4 for everyone, plus the session's own.

GPT-4's tokenizer is built once per server (`st.cache_resource`) and shared by every
session, so nothing here may mutate it. Tokenizers trained or uploaded in a session live
in `st.session_state` under one key, name -> Tokenizer, in the order they were added.
"""
import streamlit as st

import bpe

GPT4_NAME = "GPT-4 (cl100k_base)"
SESSION_KEY = "lab_tokenizers"  # name -> bpe.Tokenizer, this session's own


@st.cache_resource(show_spinner="Loading GPT-4's vocabulary…")
def gpt4():
    """The one GPT4Tokenizer of this server. Shared: never mutate it."""
    return bpe.GPT4Tokenizer()


def session_tokenizers():
    """name -> Tokenizer for the tokenizers trained or loaded in this session."""
    return st.session_state.setdefault(SESSION_KEY, {})


def add_tokenizer(name, tok):
    """Keep tok in this session under name (made unique with a suffix); returns the name."""
    owned = session_tokenizers()
    name = (name or "").strip() or "tokenizer"
    unique, n = name, 2
    while unique in owned or unique == GPT4_NAME:
        unique, n = f"{name} ({n})", n + 1
    owned[unique] = tok
    return unique


def tokenizer_names():
    """Every name the picker offers: GPT-4 first, then this session's in order."""
    return [GPT4_NAME, *session_tokenizers()]


def get_tokenizer(name):
    """The tokenizer called name; GPT-4's if the name is gone (e.g. a stale link)."""
    if name == GPT4_NAME:
        return gpt4()
    return session_tokenizers().get(name) or gpt4()


def tokenizer_picker(key, label="Tokenizer", default=GPT4_NAME, help=None):
    """A selectbox over tokenizer_names(); returns (name, tokenizer)."""
    names = tokenizer_names()
    if st.session_state.get(key) not in names:
        st.session_state[key] = default if default in names else names[0]
    name = st.selectbox(label, names, key=key, help=help)
    return name, get_tokenizer(name)


def load_model_upload(uploaded):
    """Add a tokenizer from an uploaded .model file; returns its name.
    Raises ValueError with what is wrong (not UTF-8, malformed line...)."""
    try:
        text = uploaded.getvalue().decode("utf-8")
    except UnicodeDecodeError:
        raise ValueError(f"{uploaded.name} is not UTF-8 text, so it is not a .model file "
                         "written by save() or minbpe") from None
    tok = bpe.load(text=text, source=uploaded.name)
    stem = uploaded.name.rsplit(".", 1)[0]
    return add_tokenizer(f"{stem} (uploaded)", tok)
