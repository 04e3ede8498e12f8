"""The Tokenizer base: vocab building, special tokens, encode/decode, save/load.

Subclasses say how text splits into chunks (`_split`) and how one chunk of bytes
becomes ids (`_encode_chunk`); everything else lives here once. Training lives in
train.py; this file never learns merges itself.
"""
import os
import unicodedata

from collections import Counter
from itertools import chain

import regex

from .train import train_merges

MODEL_VERSION = "minbpe v1"  # the first line of a .model file, as minbpe writes it
CACHE_LIMIT = 200_000        # chunks remembered by encode before the cache starts over
CACHE_CHUNK_CHARS = 256      # longer chunks are rare; caching them would only cost memory


def clean_text(text):
    """Check text is a str and replace lone surrogates (invalid in UTF-8) by U+FFFD,
    as tiktoken does, so every str can be encoded.

    >>> clean_text("a\\ud800b")
    'a\\ufffdb'
    """
    if not isinstance(text, str):
        raise TypeError(f"text must be a str, not {type(text).__name__}; "
                        "decode bytes first, e.g. data.decode('utf-8')")
    if text.isascii():
        return text  # O(1): CPython flags ASCII strings, and they hold no surrogates
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        text = text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")
    return text


def render_token(token: bytes) -> str:
    """Bytes as readable text: invalid UTF-8 replaced, control characters escaped.

    >>> render_token(b"hi\\n\\xff")
    'hi\\\\u000a\\ufffd'
    """
    text = token.decode("utf-8", errors="replace")
    return "".join(ch if unicodedata.category(ch)[0] != "C" else f"\\u{ord(ch):04x}"
                   for ch in text)


class Tokenizer:
    """Base class. Not usable on its own: see BasicTokenizer and RegexTokenizer."""

    def __init__(self):
        self.merges = {}          # (int, int) -> int
        self.merge_counts = {}    # int -> int, how often each merged pair occurred
        self.pattern = ""         # str, the split pattern ("" = no split)
        self.special_tokens = {}  # str -> int, e.g. {'<|endoftext|>': 100257}
        self.vocab = self._build_vocab()  # int -> bytes
        self._cache = _ChunkCache(self._encode_chunk)  # chunk str -> list of ids
        self.stop_reason = None   # why the last train() stopped

    # ------------------------------------------------------------------ vocab
    def _build_vocab(self):
        vocab = {idx: bytes([idx]) for idx in range(256)}
        for (p0, p1), idx in self.merges.items():
            vocab[idx] = vocab[p0] + vocab[p1]
        for special, idx in self.special_tokens.items():
            vocab[idx] = special.encode("utf-8")
        return vocab

    def _reset(self):
        """Call after merges or special tokens change: rebuild what derives from them."""
        self.vocab = self._build_vocab()
        self._cache = _ChunkCache(self._encode_chunk)
        self._special_regex = None

    @property
    def inverse_special_tokens(self):
        return {idx: special for special, idx in self.special_tokens.items()}

    def register_special_tokens(self, special_tokens):
        """Add special tokens, a dict str -> int, e.g. {"<|endoftext|>": 100257}."""
        if not isinstance(special_tokens, dict):
            raise TypeError("special_tokens must be a dict of str -> int, "
                            "e.g. {'<|endoftext|>': 100257}")
        ordinary = self.vocab.keys() - self.special_tokens.values()
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
        self.special_tokens = {**self.special_tokens, **special_tokens}
        self._reset()

    @property
    def n_vocab(self):
        """One more than the largest id, special tokens included."""
        return max(self.vocab) + 1

    # ------------------------------------------------------------------ train
    def train(self, text, vocab_size, verbose=False, *, min_frequency=1, progress=None):
        """Learn vocab_size - 256 merges from text (fewer if pairs run out or the best
        pair occurs fewer than min_frequency times; see self.stop_reason).

        progress, if given, is called after each merge with a MergeProgress
        (done, total, idx, pair, token, count, elapsed, merges_per_s).
        verbose=True prints each merge through the same path.
        """
        text = clean_text(text)
        if not isinstance(vocab_size, int) or isinstance(vocab_size, bool) or vocab_size < 256:
            raise ValueError(f"vocab_size must be an int of at least 256 (the 256 byte "
                             f"tokens), not {vocab_size!r}")
        if not isinstance(min_frequency, int) or min_frequency < 1:
            raise ValueError(f"min_frequency must be an int of at least 1, not {min_frequency!r}")
        clash = [s for s, idx in self.special_tokens.items() if 256 <= idx < vocab_size]
        if clash:
            raise ValueError(f"special tokens {clash} have ids inside the range training "
                             f"will fill (256..{vocab_size - 1}); register them with ids of "
                             f"at least {vocab_size}, or after training")
        if verbose:
            progress = _chain(progress, _print_progress)
        words = [(chunk.encode("utf-8"), freq)
                 for chunk, freq in self._count_chunks(text).items()]
        result = train_merges(words, vocab_size, min_frequency, progress)
        self.merges = result.merges
        self.merge_counts = result.merge_counts
        self.stop_reason = result.stop_reason
        self._reset()
        return self

    def _count_chunks(self, text):
        """Counter of the text's chunks, in order of first occurrence."""
        return Counter(self._split(text))

    # ----------------------------------------------------------------- encode
    def _split(self, text):
        """Split text into chunks that merges never cross."""
        raise NotImplementedError

    def _encode_chunk(self, text_bytes):
        raise NotImplementedError

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
        return list(chain.from_iterable(map(cache.__getitem__, self._split(text))))

    def encode(self, text, allowed_special="none_raise"):
        """Encode text to ids. allowed_special says which special tokens may appear:
        "all", "none" (encode them as ordinary text), "none_raise" (the default:
        raise if any appears) or a set of special-token strings (only those become
        special tokens; other special-token text is encoded as ordinary text).
        """
        text = clean_text(text)
        special = self._allowed(allowed_special, text)
        if not special:
            return self.encode_ordinary(text)
        # split on the allowed special tokens, longest first where two could match
        pattern = "(" + "|".join(regex.escape(k) for k in
                                 sorted(special, key=len, reverse=True)) + ")"
        ids = []
        for i, part in enumerate(regex.split(pattern, text)):
            if i % 2:
                ids.append(special[part])
            elif part:
                ids.extend(self.encode_ordinary(part))
        return ids

    def _allowed(self, allowed_special, text):
        """The special tokens (str -> int) that encode should honour."""
        if allowed_special == "all":
            return self.special_tokens
        if allowed_special == "none":
            return {}
        if allowed_special == "none_raise":
            for special in self.special_tokens:
                if special in text:
                    raise ValueError(
                        f"The text contains the special token {special!r}, which encode "
                        "does not allow by default (it may be untrusted input). To encode "
                        f"it as the special token, pass allowed_special={{{special!r}}} or "
                        "allowed_special='all'; to encode it as ordinary text, pass "
                        "allowed_special='none'.")
            return {}
        if isinstance(allowed_special, (set, frozenset, list, tuple)):
            unknown = [s for s in allowed_special if s not in self.special_tokens]
            if unknown:
                raise ValueError(f"allowed_special names unknown special tokens {unknown}; "
                                 f"registered ones are {sorted(self.special_tokens)}")
            return {s: self.special_tokens[s] for s in allowed_special}
        raise ValueError(f"allowed_special={allowed_special!r} is not understood; use "
                         "'all', 'none', 'none_raise' or a set of special-token strings")

    # ----------------------------------------------------------------- decode
    def decode_single_token_bytes(self, idx):
        """The bytes of one token id; KeyError for an id not in the vocabulary."""
        try:
            return self.vocab[idx]
        except (KeyError, TypeError):
            raise KeyError(f"unknown token id {idx!r}: ids run from 0 to "
                           f"{self.n_vocab - 1}, with gaps only between ordinary "
                           "and special tokens") from None

    def decode_tokens_bytes(self, ids):
        """The bytes of each token, one entry per id (useful for visualising)."""
        return [self.decode_single_token_bytes(idx) for idx in ids]

    def decode_bytes(self, ids):
        """The exact bytes the ids stand for."""
        return b"".join(self.decode_tokens_bytes(ids))

    def decode(self, ids, errors="replace"):
        """The text the ids stand for; invalid UTF-8 replaced by U+FFFD by default."""
        return self.decode_bytes(ids).decode("utf-8", errors=errors)

    def token_byte_offsets(self, ids):
        """The byte offset at which each token starts in decode_bytes(ids).

        >>> from bpe import BasicTokenizer
        >>> BasicTokenizer().token_byte_offsets([104, 105])
        [0, 1]
        """
        offsets = []
        pos = 0
        for token in self.decode_tokens_bytes(ids):
            offsets.append(pos)
            pos += len(token)
        return offsets

    # -------------------------------------------------------------- save/load
    def save(self, file_prefix):
        """Write file_prefix.model (minbpe's format, for loading) and file_prefix.vocab
        (for people). file_prefix is a path like "models/shakespeare"."""
        if "\n" in self.pattern or "\r" in self.pattern:
            raise ValueError("the split pattern contains a line break, which the .model "
                             "format cannot hold; write it as \\n or \\r inside the regex")
        prefix = os.fspath(file_prefix)
        directory = os.path.dirname(prefix)
        if directory:
            os.makedirs(directory, exist_ok=True)
        with open(prefix + ".model", "w", encoding="utf-8") as f:
            f.write(self.model_text())
        with open(prefix + ".vocab", "w", encoding="utf-8") as f:
            f.write(self.vocab_text())

    def model_text(self):
        """The contents of the .model file: version, pattern, special tokens, merges."""
        lines = [MODEL_VERSION, self.pattern, str(len(self.special_tokens))]
        lines += [f"{special} {idx}" for special, idx in self.special_tokens.items()]
        lines += [f"{p0} {p1}" for p0, p1 in self.merges]
        return "\n".join(lines) + "\n"

    def vocab_text(self):
        """The contents of the .vocab file: every token, how it was made, for people."""
        parents = {idx: pair for pair, idx in self.merges.items()}
        lines = []
        for idx, token in self.vocab.items():
            s = render_token(token)
            if idx in parents:
                p0, p1 = parents[idx]
                lines.append(f"[{render_token(self.vocab[p0])}][{render_token(self.vocab[p1])}]"
                             f" -> [{s}] {idx}")
            else:
                lines.append(f"[{s}] {idx}")
        return "\n".join(lines) + "\n"

    def load(self, model_file):
        """Read a .model file written by save() or by minbpe."""
        with open(os.fspath(model_file), "r", encoding="utf-8") as f:
            text = f.read()
        self.load_text(text, source=os.fspath(model_file))

    def load_text(self, text, source="model"):
        """Read the contents of a .model file; ValueError naming the line if malformed."""
        lines = text.split("\n")
        if lines and lines[-1] == "":
            lines.pop()
        if not lines or lines[0].strip() != MODEL_VERSION:
            found = lines[0][:40] if lines else "an empty file"
            raise ValueError(f"{source} line 1: expected {MODEL_VERSION!r}, found {found!r}; "
                             "is this a .model file written by save()?")
        if len(lines) < 3:
            raise ValueError(f"{source} line {len(lines) + 1}: the file ends before the "
                             "pattern and special-token count")
        pattern = lines[1]
        self._check_pattern(pattern, f"{source} line 2")
        try:
            num_special = int(lines[2])
            if num_special < 0:
                raise ValueError
        except ValueError:
            raise ValueError(f"{source} line 3: expected the number of special tokens, "
                             f"found {lines[2][:40]!r}") from None
        special_tokens = {}
        for lineno in range(4, 4 + num_special):
            if lineno > len(lines):
                raise ValueError(f"{source} line {lineno}: the file ends inside the "
                                 f"{num_special} special tokens it announces")
            special, _, idx = lines[lineno - 1].strip().rpartition(" ")
            if not special or not idx.isdigit():
                raise ValueError(f"{source} line {lineno}: expected '<special text> <id>', "
                                 f"found {lines[lineno - 1][:40]!r}")
            special_tokens[special] = int(idx)
        merges = {}
        idx = 256
        for lineno in range(4 + num_special, len(lines) + 1):
            parts = lines[lineno - 1].split()
            if len(parts) != 2 or not all(p.isdigit() for p in parts):
                raise ValueError(f"{source} line {lineno}: expected a merge '<id> <id>', "
                                 f"found {lines[lineno - 1][:40]!r}")
            p0, p1 = int(parts[0]), int(parts[1])
            if p0 >= idx or p1 >= idx:
                raise ValueError(f"{source} line {lineno}: merge ({p0}, {p1}) uses an id "
                                 f"not defined before id {idx}")
            merges[(p0, p1)] = idx
            idx += 1
        self._set_pattern(pattern)
        self.merges = merges
        self.merge_counts = {}  # the .model format has no counts
        self.special_tokens = {}
        self._reset()
        self.register_special_tokens(special_tokens)

    def _check_pattern(self, pattern, where):
        """Raise ValueError if this tokenizer cannot use pattern."""

    def _set_pattern(self, pattern):
        self.pattern = pattern


class _ChunkCache(dict):
    """chunk str -> list of ids; a missing chunk is encoded on lookup, and kept
    unless it is long (long chunks are rare, and keeping them would only cost memory)."""

    __slots__ = ("encode_chunk",)

    def __init__(self, encode_chunk):
        super().__init__()
        self.encode_chunk = encode_chunk  # text_bytes -> list of ids

    def __missing__(self, chunk):
        chunk_ids = self.encode_chunk(chunk.encode("utf-8"))
        if len(chunk) <= CACHE_CHUNK_CHARS:
            self[chunk] = chunk_ids
        return chunk_ids


def _print_progress(p):
    print(f"merge {p.done}/{p.total}: {p.pair} -> {p.idx} "
          f"({render_token(p.token)}) had {p.count} occurrences")


def _chain(first, second):
    if first is None:
        return second

    def both(p):
        first(p)
        second(p)
    return both
