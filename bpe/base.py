"""The Tokenizer base: vocab building, special tokens, encode/decode, save/load.

Subclasses say how text splits into chunks (`split`) and how one chunk of bytes
becomes ids (`_encode_chunk`); everything else lives here once. The training family
lives in trainable.py (the merges are learned in train.py), the decode family in decode.py,
special-token policy in specials.py and the .model format in formats/model.py; this file
never learns merges itself.

encode follows tiktoken (special-token text raises unless the caller says what it means)
and minbpe: "all", "none_raise" (tiktoken's default), "none" (= disallowed_special=()),
and minbpe's positional `encode(text, "all")` (bpe/specials.py).
"""
import copy
import os
from array import array
from itertools import chain

from . import budgets, encode_stream
from .decode import MAX_ID, DecodeMethods  # noqa: F401 (MAX_ID re-exported)
from .encode import apply_merges
from .chunk_cache import CACHE_LIMIT, ChunkCache  # noqa: F401 (CACHE_LIMIT re-exported)
from .encoding import corpus as corpus_encoding
from .formats import atomic
from .formats.hf.packed_vocab import PackedPieces, PackedVocab
from .formats.model import MODEL_VERSION, model_text, parse_model, render_token  # noqa: F401 (re-exported)
from .formats.model import PackedMerges
from .formats.model import vocab_text as _vocab_text
from .specials import NO_SPECIALS, SpecialFinders, minbpe_policy, raise_disallowed, special_policy  # noqa: F401
from .text import clean_text
from .trainable import TrainMethods



class Tokenizer(DecodeMethods, TrainMethods):
    """Base class. Not usable on its own: see BasicTokenizer and RegexTokenizer."""

    is_preset = False  # True when split is one of bpe.patterns' presets (counting in pieces)

    def __init__(self):
        self.merges = {}          # (int, int) -> int, held packed (the merges property)
        self.merge_counts = {}    # int -> int, how often each merged pair occurred
        self.merge_ties = {}      # idx -> [pair, ...] tied at the top count (winner first);
                                  # filled by train(record_ties=True)
        self.pattern = ""         # str, the split pattern ("" = no split)
        self.special_tokens = {}  # str -> int, e.g. {'<|endoftext|>': 100257}
        self.stop_reason = None   # why the last train() stopped
        # what people call it (a subclass may have set it already): "cl100k_base", "regex"...
        self.name = self.__dict__.get("name") or type(self).__name__.removesuffix("Tokenizer").lower()
        self._reset()             # vocab (int -> bytes) and the caches derived from it

    # ------------------------------------------------------------------ merges
    @property
    def merges(self):
        """(int, int) -> int, merge order: a read-only PackedMerges (issue 32: a dict of
        tuples cost ~180 B a merge). Assigning a dict (minbpe's `tok.merges = {...}`,
        training's result) packs it at once, so every reader sees one form; call _reset
        after, as before, for the vocab."""
        return self._packed_merges

    @merges.setter
    def merges(self, merges):
        self._packed_merges = PackedMerges.of(merges)

    # ------------------------------------------------------------------ vocab
    def _build_vocab(self):
        """A PackedVocab: the 256 bytes, each merge's token, then the special tokens; the
        merges' tokens packed once per merges (a copy with other special tokens shares
        them), leaving out the ids _left_out names."""
        merges = PackedMerges.of(self.merges)
        left_out = frozenset(self._left_out())
        made = self.__dict__.get("_pieces")
        if made is None or made[0] is not merges or made[1] != left_out:
            made = self._pieces = (merges, left_out, merged_pieces(merges, left_out))
        return PackedVocab(made[2], {idx: special.encode("utf-8")
                                     for special, idx in self.special_tokens.items()})

    def _left_out(self):
        """Ids the merges make that the vocab leaves out (Picky BPE's removed tokens)."""
        return ()

    def merge_columns(self):
        """(made ids, left ids, right ids) of every merge, in merge order, as three arrays:
        what `merges` says, for a reader of every merge (the Vocabulary page) that needs no
        dict; a tokenizer.json's are read from its packed model (issue 32)."""
        merges = self.merges
        if isinstance(merges, PackedMerges):
            return merges.merge_columns()
        # a subclass's own merges (a dict: an extended or a ranks tokenizer's)
        return (array("q", merges.values()), array("q", [a for a, _ in merges]),
                array("q", [b for _, b in merges]))

    def _reset(self):
        """Call after merges or special tokens change: rebuild what derives from them."""
        self.vocab = self._build_vocab()  # int -> bytes
        self._cache = ChunkCache(self._encode_chunk)  # chunk str -> list of ids
        self._special_regex = SpecialFinders()  # special tokens -> compiled regex finding them
        self._token_ids = None    # bytes -> id, for encode_single_token

    @classmethod
    def from_merges(cls, merges, *, pattern=None, special_tokens=None):
        """A tokenizer of this class with the given merges ((int, int) -> int, ids from 256
        on, each pair made of ids below its own), split pattern (a RegexTokenizer's; None
        keeps the class's default) and special tokens (str -> int).

        >>> from bpe import BasicTokenizer
        >>> BasicTokenizer.from_merges({(97, 98): 256}).encode_ordinary("abab")
        [256, 256]
        """
        tok = cls()
        if pattern is not None:
            tok._check_pattern(pattern, "pattern")
            tok._set_pattern(pattern)
        tok._set_merges(merges)
        if special_tokens:
            tok.register_special_tokens(dict(special_tokens))
        return tok

    def _set_merges(self, merges, merge_counts=None):
        self.merges = merges  # packed and checked: ids 256, 257, ... in turn
        self.merge_counts = dict(merge_counts or {})
        self.merge_ties = {}
        self._reset()

    def with_special_tokens(self, special_tokens):
        """A copy of this tokenizer with special_tokens (str -> int) registered too; this
        one is left as it was. The copy shares only read-only tables (ranks, merges).

        >>> from bpe import BasicTokenizer
        >>> tok = BasicTokenizer()
        >>> tok.with_special_tokens({"<|x|>": 300}).special_tokens, tok.special_tokens
        ({'<|x|>': 300}, {})
        """
        twin = copy.copy(self)
        twin.special_tokens = dict(self.special_tokens)
        # subtle: the shallow copy still shares this one's vocab and chunk cache (bound to
        # self); _reset gives the copy its own, so its encodes never fill ours
        twin._reset()
        twin.register_special_tokens(special_tokens)
        return twin

    def unregister_special_tokens(self, specials):
        """Forget the special tokens named in specials (str), so their ids are free again
        (training with special_tokens= registers them after the merges)."""
        self.special_tokens = {s: i for s, i in self.special_tokens.items() if s not in specials}
        self._reset()

    @property
    def inverse_special_tokens(self):
        return {idx: special for special, idx in self.special_tokens.items()}

    def register_special_tokens(self, special_tokens):
        """Add special tokens, a dict str -> int, e.g. {"<|endoftext|>": 100257}."""
        if not isinstance(special_tokens, dict):
            raise TypeError("special_tokens must be a dict of str -> int, "
                            "e.g. {'<|endoftext|>': 100257}")
        ordinary = _OrdinaryIds(self.vocab, set(self.special_tokens.values()))
        for special, idx in special_tokens.items():
            if not isinstance(special, str) or not special:
                raise ValueError(f"special token {special!r} must be a non-empty str")
            if not isinstance(idx, int) or isinstance(idx, bool) or idx < 0:
                raise ValueError(f"special token {special!r} needs a non-negative int id, "
                                 f"not {idx!r}")
            if idx in ordinary:
                raise ValueError(f"id {idx} for special token {special!r} is already an "
                                 f"ordinary token; pick an id of at least {self.n_vocab}")
            owner = self.inverse_special_tokens.get(idx)
            if owner is not None and owner != special:
                raise ValueError(f"id {idx} is already taken by special token {owner!r}; "
                                 "pick another id")
        # ids unique among the new ones too, bounded, and not too many or too long
        merged = budgets.check_special_ids({**self.special_tokens, **special_tokens}, ordinary)
        self.special_tokens = merged
        self._reset()

    @property
    def n_vocab(self):
        """One more than the largest id, special tokens included."""
        return max(self.vocab) + 1

    @property
    def max_token_value(self):
        """The largest id, special tokens included (tiktoken's name)."""
        return self.n_vocab - 1

    @property
    def special_tokens_set(self):
        """The special tokens' texts, as tiktoken gives them."""
        return set(self.special_tokens)

    # ----------------------------------------------------------------- encode
    def split(self, text):
        """Split text into chunks that merges never cross."""
        raise NotImplementedError

    def _encode_chunk(self, text_bytes):
        """The chunk's ids by self.merges, lowest merged id first (minbpe's rule; a
        tokenizer of ranks or of a pipeline overrides it)."""
        return apply_merges(list(text_bytes), self.merges.find)

    def encode_chunks(self, chunks):
        """The ids of chunks (str, as split gives them), through this tokenizer's chunk
        cache; for streams that split text themselves (bpe.encode_stream, bpe.encoding)."""
        cache = self._cache
        if len(cache) > CACHE_LIMIT:
            cache.clear()
        return list(chain.from_iterable(map(cache.__getitem__, chunks)))

    def encode_chunk(self, text_bytes):
        """The ids of one chunk of bytes, as if no split pattern cut it.

        >>> from bpe import BasicTokenizer
        >>> BasicTokenizer().encode_chunk(b"hi")
        [104, 105]
        """
        return self._encode_chunk(bytes(text_bytes))

    def encode_ordinary(self, text):
        """Encode text, treating special-token text as ordinary text."""
        text = clean_text(text)
        cache = self._cache
        if len(cache) > CACHE_LIMIT:
            cache.clear()
        # one C-level pass: the cache encodes (and keeps) each chunk it has not seen
        return list(chain.from_iterable(map(cache.__getitem__, self.split(text))))

    def encode(self, text, *policy, allowed_special=NO_SPECIALS, disallowed_special="all"):
        """Encode text to ids, as tiktoken does: special-token text becomes a special token
        only if allowed_special names it ("all" or a set of special-token strings); if it
        appears and disallowed_special names it ("all", the default, means every special
        token not allowed), ValueError. disallowed_special=() encodes it as ordinary text.
        minbpe's spellings: allowed_special="none_raise" (the default), "none" (= tiktoken's
        disallowed_special=()) and "all"; given positionally, minbpe's meaning: encode(text,
        "all"), or encode(text, {"<|x|>"}) where the specials not named are ordinary text.

        >>> from bpe import BasicTokenizer
        >>> tok = BasicTokenizer().with_special_tokens({"<|x|>": 300})
        >>> tok.encode("a<|x|>", allowed_special="all"), tok.encode("<|x|>", disallowed_special=())
        ([97, 300], [60, 124, 120, 124, 62])
        >>> tok.encode("<|x|>")
        Traceback (most recent call last):
        ValueError: Encountered text corresponding to disallowed special token '<|x|>'...
        """
        if policy:  # minbpe's encode(text, "all"): its positional meaning (specials.py)
            allowed_special, disallowed_special = minbpe_policy(policy, allowed_special,
                                                                disallowed_special)
        text = clean_text(text)
        allowed, disallowed = self._policy(allowed_special, disallowed_special)
        if disallowed:
            found = self._special_finder(disallowed).search(text)
            if found:
                raise_disallowed(found.group())
        if not allowed:
            return self.encode_ordinary(text)
        ids = []
        for i, part in enumerate(self._special_finder(allowed, group=True).split(text)):
            if i % 2:
                ids.append(self.special_tokens[part])
            elif part:
                ids.extend(self.encode_ordinary(part))
        return ids

    def _policy(self, allowed_special, disallowed_special):
        """(allowed, disallowed): frozensets of special-token strings, tiktoken's meaning."""
        return special_policy(self.special_tokens, allowed_special, disallowed_special)

    def _special_finder(self, specials, group=False):
        """A compiled regex matching any of specials (longest first), cached per set."""
        return self._special_regex.find(specials, group)

    def encode_batch(self, texts, *, num_threads=8, allowed_special=NO_SPECIALS,
                     disallowed_special="all"):
        """encode on each text (num_threads is accepted for tiktoken's signature; one
        Python thread would gain nothing from more).

        >>> from bpe import BasicTokenizer
        >>> BasicTokenizer().encode_batch(["a", "bc"])
        [[97], [98, 99]]
        """
        return [self.encode(text, allowed_special=allowed_special,
                            disallowed_special=disallowed_special) for text in texts]

    def encode_ordinary_batch(self, texts, *, num_threads=8):
        """encode_ordinary on each text; big batches (megabytes) in up to num_threads
        processes, the same ids (bpe.encoding.corpus)."""
        return corpus_encoding.encode_ordinary_batch(self, texts, num_threads)

    def encode_file(self, paths, out=None, **options):
        """UTF-8 files (each one document, encode_ordinary) to one flat array of ids, or
        written to out with a JSON sidecar; options: dtype, workers, eot, progress, engine,
        scheduler. Streamed: memory stays flat as the files grow (bpe.encoding.corpus)."""
        return corpus_encoding.encode_file(self, paths, out, **options)

    def encode_iterable(self, iterable, *, allowed_special=NO_SPECIALS, disallowed_special="all"):
        """Yield the ids of "".join(iterable) (e.g. a file's lines), exactly encode's, in
        memory bounded by the longest chunk, not the text (bpe.encode_stream)."""
        return encode_stream.encode_iterable(self, iterable, allowed_special, disallowed_special)

    def encode_single_token(self, text_or_bytes):
        """The id of text_or_bytes (str or bytes) if it is exactly one token, special
        tokens included; KeyError otherwise.

        >>> from bpe import BasicTokenizer
        >>> BasicTokenizer().encode_single_token("a")
        97
        """
        if isinstance(text_or_bytes, str):
            special = text_or_bytes
            token = text_or_bytes.encode("utf-8")
        elif isinstance(text_or_bytes, (bytes, bytearray)):
            token = bytes(text_or_bytes)
            special = token.decode("utf-8", errors="replace")
        else:
            raise TypeError(f"'{type(text_or_bytes).__name__}' object is not an instance of "
                            "str or bytes")
        if special in self.special_tokens:
            return self.special_tokens[special]
        if self._token_ids is None:  # built on first use: bytes -> id of ordinary tokens
            specials = set(self.special_tokens.values())
            self._token_ids = {token: idx for idx, token in reversed(self.vocab.items())
                               if idx not in specials}
        return self._token_ids[token]

    # -------------------------------------------------------------- save/load
    def save(self, file_prefix):
        """Write file_prefix.model (minbpe's format, for loading) and file_prefix.vocab
        (for people). file_prefix is a path like "models/shakespeare". Atomic (bpe.formats.atomic):
        both files are written or neither, and a failed save leaves the old pair whole."""
        prefix = atomic.check_prefix(file_prefix)
        text = self.model_text()  # before any file is opened, so a refusal leaves none
        atomic.write_files({prefix + ".model": text, prefix + ".vocab": self.vocab_text()})

    def model_text(self):
        """The contents of the .model file: version, pattern, special tokens, merges."""
        return model_text(self.pattern, self.special_tokens, self.merges)

    def vocab_text(self):
        """The contents of the .vocab file: every token, how it was made, for people."""
        return _vocab_text(self.vocab, self.merges)

    def load(self, model_file):
        """Read a .model file written by save() or by minbpe."""
        with open(os.fspath(model_file), "r", encoding="utf-8", newline="") as f:
            text = f.read()
        self.load_text(text, source=os.fspath(model_file))

    def load_text(self, text, source="model"):
        """Read the contents of a .model file; ValueError naming the line if malformed."""
        pattern, special_tokens, merges = parse_model(text, source)
        self._check_pattern(pattern, f"{source} line 2")
        self._set_pattern(pattern)
        self.special_tokens = {}
        self._set_merges(merges)  # the .model format has no merge counts
        self.register_special_tokens(special_tokens)

    def _check_pattern(self, pattern, where):
        """Raise ValueError if this tokenizer cannot use pattern."""

    def _set_pattern(self, pattern):
        self.pattern = pattern


class _OrdinaryIds:
    """`idx in` it: idx is an id of vocab that no special token has (the ids in specials).
    A container, not the set of every id, which a 100,000-piece file's load made at its
    peak (issue 32: ~60 B a piece)."""

    __slots__ = ("specials", "vocab")

    def __init__(self, vocab, specials):
        self.vocab, self.specials = vocab, specials

    def __contains__(self, idx):
        return idx in self.vocab and idx not in self.specials


def merged_pieces(merges, left_out=frozenset()):
    """PackedPieces of the 256 bytes and each merge's token (its two parts' bytes), ids
    in left_out left out. Each token is copied within one growing buffer from those before
    it, so no bytes object per token is made (issue 32: ~100 B a token in a dict); the
    buffer and its offsets become the pieces' own, in PackedVocab's dense layout."""
    data = bytearray(range(256))
    offsets = array("i", range(257))  # idx's bytes: data[offsets[idx]:offsets[idx + 1]]
    for a, b in zip(merges.left, merges.right):
        data += data[offsets[a]:offsets[a + 1]]
        data += data[offsets[b]:offsets[b + 1]]
        offsets.append(len(data))
    present = bytearray(b"\1") * (256 + len(merges))
    for idx in left_out:
        present[idx] = 0
    return PackedPieces.from_parts(bytes(data), offsets, bytes(present), None)
