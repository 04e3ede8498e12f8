"""What the views derive from a tokenizer, computed once and kept across reruns.

GPT-4's vocabulary table or its 100,000 merge parents take a good part of a second to
build, and every widget change reruns the page, so they are cached per tokenizer with
st.cache_resource (one copy per server, not pickled per rerun). Everything returned is
shared between sessions: read it, never mutate it (pandas operations that return new
frames are fine).

A tokenizer is named in the cache by (picker name, id of the object, vocabulary size,
number of special tokens): GPT-4's object is one per server, and a session's trained
tokenizer is a distinct object that lives as long as the session keeps it.
"""
import streamlit as st

from bpe.replay import merge_parents, token_counts_by_merge
from viz.vocab import vocab_frame

MAX_TOKENIZERS = 6  # tokenizers whose tables stay cached at once (GPT-4's is ~50 MB)


def tokenizer_key(name, tok):
    """The cache key of a picked tokenizer."""
    return (name, id(tok), len(tok.vocab), len(tok.special_tokens))


@st.cache_resource(max_entries=MAX_TOKENIZERS, show_spinner="Building the vocabulary table…")
def cached_vocab_frame(key, _tok):
    """viz.vocab.vocab_frame(tok), shared: never mutate it."""
    return vocab_frame(_tok)


@st.cache_resource(max_entries=MAX_TOKENIZERS, show_spinner="Recovering the merges…")
def cached_parents(key, _tok):
    """idx -> pair (bpe.replay.merge_parents), shared: never mutate it."""
    return merge_parents(_tok)


@st.cache_resource(max_entries=32, show_spinner=False)
def cached_counts_by_merge(key, _tok, text):
    """bpe.replay.token_counts_by_merge(tok, text), shared: never mutate it."""
    return token_counts_by_merge(_tok, text)
