"""A per-tokenizer cache: what the views derive from a tokenizer, computed once per
tokenizer and kept across reruns.

GPT-4's vocabulary table takes about 0.4 s to build and every widget change reruns the
page, so the table, the merge parents and the token-count curves are remembered. They
are kept beside the tokenizer object itself, in a WeakKeyDictionary: they live exactly as
long as the tokenizer does (GPT-4's, shared by the server, for good; a session's trained
one until the session drops it) and can never be served for another tokenizer — a cache
keyed by name or id() could, once a dropped tokenizer's id is reused by a new one.
The key also holds the vocabulary's and special tokens' sizes, so registering tokens on
a tokenizer in place is noticed.

Everything returned is shared between sessions: read it, never mutate it (pandas
operations that return new frames are fine). This file renders nothing.
"""
import threading
import weakref
from collections import OrderedDict

import streamlit as st

from bpe.replay import merge_parents, token_counts_by_merge
from viz.vocab import vocab_numbers

TEXTS_KEPT = 16  # token-count curves remembered per tokenizer (one per text)

_derived = weakref.WeakKeyDictionary()  # tokenizer -> {key: value}
_lock = threading.Lock()


def _remember(tok, key, build, spinner=None):
    """The value stored for (tok, key), built by build() the first time."""
    key = (key, len(tok.vocab), len(tok.special_tokens))
    with _lock:
        store = _derived.setdefault(tok, {})
        if key in store:
            return store[key]
    # built outside the lock: two sessions may build it at once, and that is only waste
    if spinner:
        with st.spinner(spinner):
            value = build()
    else:
        value = build()
    with _lock:
        return _derived.setdefault(tok, {}).setdefault(key, value)


def vocab_table(tok):
    """viz.vocab.vocab_numbers(tok) (no display text: the page adds it to the rows it
    shows), shared: never mutate it."""
    return _remember(tok, "vocab", lambda: vocab_numbers(tok), "Building the vocabulary table…")


def parents(tok):
    """idx -> pair (bpe.replay.merge_parents), shared: never mutate it."""
    return _remember(tok, "parents", lambda: merge_parents(tok), "Recovering the merges…")


def counts_by_merge(tok, text):
    """bpe.replay.token_counts_by_merge(tok, text), shared: never mutate it. The curves of
    the last TEXTS_KEPT texts are kept."""
    curves = _remember(tok, "counts", OrderedDict)
    with _lock:
        counts = curves.get(text)
        if counts is not None:
            curves.move_to_end(text)
            return counts
    counts = token_counts_by_merge(tok, text)
    with _lock:
        curves[text] = counts
        while len(curves) > TEXTS_KEPT:
            curves.popitem(last=False)
    return counts
