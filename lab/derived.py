"""The one cache of what the lab derives from a tokenizer: the vocabulary table, the merge
parents, token-count curves, the vocabulary's scripts, the browser encoder's files
(lab/token_view/browser_vocab.py), the Train result's export checks (lab/train/panels.py)
and a GGUF file's check on llama.cpp's test ids (lab/parity.py). Computed once, kept
across reruns and sessions; it imports no Streamlit and draws nothing (a page passes
`wait=st.spinner` to show what is being built).

One staleness rule: an entry belongs to the tokenizer's content and name, the key
(`content_digest(tok)`, `tok.name`). The digest is the sha256 of what the tokenizer is
(its class, split pattern, special tokens, vocab, merges and, for a tokenizer.json, its
document), so a trained tokenizer, an uploaded one and one loaded again from the same file
with another pattern each get their own entries, and a renamed one gets fresh ones (its
name is shown). Hashing GPT-4's vocabulary takes about 60 ms, so the digest is remembered
per tokenizer object and computed again only when the object changes: bpe's tokenizers
build a new `vocab` dict whenever their merges or special tokens change
(`Tokenizer._reset`), so "the same vocab dict, pattern and special tokens" means the same
content.

Entries live as long as some tokenizer with their key does: a session's upload and all
that was derived from it leave the server with the session (issue 24). So a value must
never hold its tokenizer (a bound method, a closure over it): that would keep both for
good; tests/lab/test_derived_cache_lab.py counts what is left. Everything returned is
shared between sessions: read it, never mutate it.

    frame = derived.vocab_table(tok, wait=st.spinner)   # built once per (content, name)
    spec = derived.remember(tok, "browser spec", lambda: build(tok))
"""
import contextlib
import hashlib
import pickle
import threading
import weakref
from collections import OrderedDict

from bpe.evaluate import script_shares as shares_by_script
from bpe.replay import merge_parents, token_counts_by_merge
from viz.rows import vocab_pieces
from viz.vocab import vocab_numbers

TEXTS_KEPT = 16  # token-count curves remembered per tokenizer (one per text)

_lock = threading.Lock()
_entries = {}   # (digest, name) -> {what: value}
_holders = {}   # (digest, name) -> how many live tokenizer objects have that key now
_seen = weakref.WeakKeyDictionary()  # tokenizer -> _Seen: its key, what it was made of
_gone = []      # keys of tokenizers collected since: let go at the next call (see _let_go)


class _Seen:
    """A tokenizer's last key and the objects it was computed from, to notice a change. It
    holds the tokenizer's vocab dict, never the tokenizer."""
    __slots__ = ("vocab", "pattern", "specials", "name", "digest", "key", "__weakref__")

    def __init__(self):
        self.vocab = self.pattern = self.specials = self.name = self.digest = self.key = None

    def same_content(self, tok):
        return (self.vocab is tok.vocab and self.pattern == tok.pattern
                and self.specials == tok.special_tokens)

    def matches(self, tok):
        return self.same_content(tok) and self.name == tok.name


def content_digest(tok):
    """The sha256 (hex) of what tok is: class, split pattern, special tokens, vocab, merges
    (and a tokenizer.json's document). Equal digests mean equal tokenizers; the name is
    not part of it.

    >>> from bpe import BasicTokenizer
    >>> content_digest(BasicTokenizer()) == content_digest(BasicTokenizer())
    True
    """
    # a tokenizer.json's pipeline (normalizers, pre-tokenizers...) shapes its ids beyond
    # its vocab and merges: its document is part of what it is
    # subtle: a ranks tokenizer's vocab is its ranks, and its `merges` is recovered from
    # them on first use (slow, and a ValueError for Llama 3's ranks): so it is left out
    # a tokenizer.json's merges are packed in its model: tok.merges would build a dict of
    # every merge for the digest (issue 32: 18 MB for a file of 100,000), packed_merges not
    merges = None if getattr(tok, "ranks", None) is not None else (
        tok.packed_merges if hasattr(tok, "packed_merges") else getattr(tok, "merges", None))
    content = (type(tok).__qualname__, tok.pattern, tok.special_tokens, tok.vocab, merges,
               getattr(tok, "document_zlib", None))  # the file, as kept: not inflated per digest
    digest = _Sha256Writer()
    pickler = pickle.Pickler(digest, protocol=5)
    # fast: no memo of every object pickled (issue 32: pickle.dumps of a 100,000-piece
    # upload held 16 MB at once, its memo and the whole byte string, 4.6x the file); a
    # tokenizer's content is plain data, never self-referential, and a shared object is
    # written again rather than referred to, so equal contents give equal bytes
    pickler.fast = True
    pickler.dump(content)
    return digest.sha256.hexdigest()


class _Sha256Writer:
    """A file-like sink for pickle that hashes what is written and keeps none of it."""

    def __init__(self):
        self.sha256 = hashlib.sha256()

    def write(self, data):
        self.sha256.update(data)
        return len(data)


def _let_go(seen):
    # subtle: a finalizer may run in the middle of any allocation, even one made while
    # this thread holds _lock; so it only notes the key (list.append is atomic) and the
    # next call drops it under the lock
    if seen.key is not None:
        _gone.append(seen.key)


def _drop(key):
    """One tokenizer object no longer has key (lock held): its entries go with the last."""
    _holders[key] -= 1
    if not _holders[key]:
        del _holders[key]
        _entries.pop(key, None)


def _drop_gone():
    while _gone:
        _drop(_gone.pop())


def key(tok):
    """(content digest, name): the key of tok's entries now."""
    with _lock:
        _drop_gone()
        seen = _seen.get(tok)
        if seen is None:
            seen = _seen[tok] = _Seen()
            weakref.finalize(tok, _let_go, seen)
        if seen.matches(tok):
            return seen.key
        digest = seen.digest if seen.same_content(tok) else None
    if digest is None:  # hashed outside the lock: two threads may hash at once, only waste
        digest = content_digest(tok)
    with _lock:
        if not seen.matches(tok):
            old = seen.key
            seen.vocab, seen.pattern = tok.vocab, tok.pattern
            seen.specials, seen.name = dict(tok.special_tokens), tok.name
            seen.digest, seen.key = digest, (digest, tok.name)
            _holders[seen.key] = _holders.get(seen.key, 0) + 1
            if old is not None:
                _drop(old)
        return seen.key


def remember(tok, what, build, *, still_good=None):
    """The value stored under tok's key for what, built by build() the first time (build
    must not hold tok). still_good(value) -> False: the value is gone (a file pruned from
    disk), so it is built again."""
    k = key(tok)
    with _lock:
        value = _entries.get(k, {}).get(what)
    if value is not None and (still_good is None or still_good(value)):
        return value
    # built outside the lock: two sessions may build it at once, and that is only waste
    value = build()
    with _lock:
        if k in _holders:  # tok may have changed meanwhile: its old key keeps nothing
            _entries.setdefault(k, {})[what] = value
    return value


def entries():
    """{(digest, name): [what, ...]} held now, for tests and the memory bench."""
    with _lock:
        _drop_gone()
        return {k: sorted(v) for k, v in _entries.items()}


def vocab_table(tok, *, wait=contextlib.nullcontext):
    """viz.vocab.vocab_numbers(tok) (no display text: the page adds it to the rows it
    shows), shared: never mutate it. wait(message) is a context
    manager shown while it is built (st.spinner on a page)."""
    def build():
        with wait("Building the vocabulary table…"):
            return vocab_numbers(tok)
    return remember(tok, "vocab table", build)


def parents(tok, *, wait=contextlib.nullcontext):
    """idx -> pair (bpe.replay.merge_parents), shared: never mutate it."""
    def build():
        with wait("Recovering the merges…"):
            return merge_parents(tok)
    return remember(tok, "parents", build)


def counts_by_merge(tok, text):
    """bpe.replay.token_counts_by_merge(tok, text), shared: never mutate it. The curves of
    the last TEXTS_KEPT texts are kept."""
    curves = remember(tok, "counts by merge", OrderedDict)
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


def pieces(tok):
    """viz.rows.vocab_pieces(tok): each id as the vocabulary writes it, for the hover
    card (None when its tokens are bytes); shared: never mutate it."""
    return remember(tok, "pieces", lambda: vocab_pieces(tok))


def script_shares(tok, *, wait=contextlib.nullcontext):
    """bpe.evaluate.script_shares(tok): script -> share of its ordinary tokens, shared."""
    def build():
        with wait("Sorting the vocabulary by script…"):
            return shares_by_script(tok)
    return remember(tok, "script shares", build)
