"""GGUF, llama.cpp's model file: the tokenizer's metadata, read without the tensors.

A GGUF file starts "GGUF", a version (2 or 3 here; 1 predates the tokenizer keys as they
are now), the tensor count and the metadata count, then the metadata as key/typed-value
pairs, then the tensors' descriptions and data. The tokenizer lives in the metadata under
`tokenizer.ggml.*`: `model` (llama.cpp's family: "llama" SentencePiece-style, "gpt2"
byte-level BPE, "bert" WordPiece, "t5" Unigram...), `pre` (the name of the split
llama.cpp applies before a gpt2 BPE), `tokens`, `scores`, `token_type`, `merges`, the
special ids and flags (`bos_token_id`, `add_bos_token`, `add_space_prefix`...) and a t5
file's `precompiled_charsmap`.

`read_tokenizer(stream)` walks the metadata with bounded reads: every length and count is
checked against what is left of the file (and MAX_METADATA_BYTES) before anything is
allocated, values of other keys are skipped (seeked past, their strings never kept), and
reading stops at the end of the metadata, so a model of many GB costs its vocabulary's
memory only, kept packed: a strings array as one Strings (one str and an offset per
string), a numbers array as an array (issue 32). Anything damaged or unsupported is a
ValueError saying what. This module
returns data (a GGUFTokenizer) and knows nothing of what the keys mean to a tokenizer:
bpe.formats.gguf_families maps them to a tokenizer.json, bpe.gguf_tokenizer builds it.

>>> import io
>>> def s(text): return len(text.encode()).to_bytes(8, "little") + text.encode()
>>> data = (b"GGUF" + (3).to_bytes(4, "little") + (0).to_bytes(8, "little")
...         + (1).to_bytes(8, "little") + s("tokenizer.ggml.model") + (8).to_bytes(4, "little")
...         + s("gpt2"))
>>> read_tokenizer(io.BytesIO(data)).model
'gpt2'
"""
import io
import operator
import struct
import sys
from array import array
from collections.abc import Sequence
from dataclasses import dataclass, field
from itertools import accumulate

from .. import budgets

MAGIC = b"GGUF"
VERSIONS = (2, 3)
MAX_METADATA_BYTES = 256 << 20  # Gemma's 262k-token vocabulary is ~16 MB of metadata
MAX_KEYS = 100_000              # real files carry ~40 keys
PREFIX = "tokenizer.ggml."
# strings arrays are read this many bytes at a time (below budgets.MAX_VOCAB_BYTES, so a
# string held whole by a chunk is never too long for string())
CHUNK_BYTES = 1 << 20
# and joined every this many strings (a chunk of short tokens as strs was 4 x the chunk)
JOIN_STRINGS = 4096
_LENGTH = struct.Struct("<Q")

# GGUF's value types: id -> (name, struct format of one element, or None)
TYPES = {0: ("uint8", "<B"), 1: ("int8", "<b"), 2: ("uint16", "<H"), 3: ("int16", "<h"),
         4: ("uint32", "<I"), 5: ("int32", "<i"), 6: ("float32", "<f"), 7: ("bool", "<?"),
         8: ("string", None), 9: ("array", None), 10: ("uint64", "<Q"), 11: ("int64", "<q"),
         12: ("float64", "<d")}
STRING, ARRAY = 8, 9
TOKEN_TYPES = {1: "normal", 2: "unknown", 3: "control", 4: "user_defined", 5: "unused",
               6: "byte"}


@dataclass
class GGUFTokenizer:
    """What a GGUF file says about its tokenizer (the `tokenizer.ggml.*` keys)."""
    version: int
    model: str                   # llama.cpp's family: "llama", "gpt2", "bert", "t5"...
    pre: str | None = None       # the gpt2 family's split, by llama.cpp's name
    # the arrays as read: strings a Strings, numbers an array (a list in tests)
    tokens: Sequence = field(default_factory=list)  # id -> token text
    scores: Sequence | None = None   # id -> score (llama, t5)
    token_type: Sequence | None = None  # id -> 1 normal ... 6 byte (TOKEN_TYPES)
    merges: Sequence | None = None   # "left right" strings, in rank order (gpt2)
    charsmap: bytes | None = None  # t5's precompiled_charsmap
    values: dict = field(default_factory=dict)  # every other tokenizer.ggml.* scalar
    architecture: str | None = None  # general.architecture
    name: str | None = None          # general.name

    def flag(self, key, default=None):
        """A tokenizer.ggml.<key> value, or default when the file does not say."""
        return self.values.get(key, default)


class Strings(Sequence):
    """A GGUF array of strings kept packed: every string in one str, an offset per string
    (issue 32: Llama 3's 128k tokens and 280k merges as a list of strs were 4.6 x its file,
    alive beside the tokenizer built from them). A read-only sequence of strs; `text` and
    `offsets` are what PieceIds.from_packed takes, so the vocab shares the text.

    >>> list(Strings("abcd", array("I", [0, 1, 4]))), Strings.of(["x", "yz"])[-1]
    (['a', 'bcd'], 'yz')
    """

    __slots__ = ("text", "offsets")

    def __init__(self, text, offsets):
        self.text, self.offsets = text, offsets  # offsets: an array("I") from 0

    @classmethod
    def of(cls, strings):
        """The Strings of a list of strs."""
        return cls("".join(strings), array("I", accumulate(map(len, strings), initial=0)))

    def __len__(self):
        return len(self.offsets) - 1

    def __getitem__(self, i):
        if isinstance(i, slice):  # only the strings sliced are made
            text, offsets = self.text, self.offsets
            return [text[offsets[k]:offsets[k + 1]] for k in range(*i.indices(len(self)))]
        i = operator.index(i)
        n = len(self.offsets) - 1
        if i < 0:
            i += n
        if not 0 <= i < n:
            raise IndexError("Strings index out of range")
        return self.text[self.offsets[i]:self.offsets[i + 1]]

    def __iter__(self):
        text, offsets = self.text, self.offsets
        for i in range(len(offsets) - 1):
            yield text[offsets[i]:offsets[i + 1]]

    def __eq__(self, other):
        if isinstance(other, Strings):
            return self.text == other.text and self.offsets == other.offsets
        return isinstance(other, (list, tuple)) and list(self) == list(other)

    __hash__ = None

    def __repr__(self):
        return f"Strings({len(self):,} strings)"


def is_gguf(head):
    return head[:4] == MAGIC


def read_tokenizer(stream, source="file"):
    """The tokenizer metadata of the GGUF file open in stream (binary, seekable; read from
    its current position) -> GGUFTokenizer. ValueError for anything damaged or unsupported."""
    reader = _Reader(stream, source)
    if reader.take(4) != MAGIC:
        raise ValueError(f"{source} is not a GGUF file (it does not start 'GGUF')")
    version = reader.scalar("<I")
    if version not in VERSIONS:
        if version and version & 0xFFFF == 0:
            raise ValueError(f"{source} is a big-endian GGUF file; only little-endian ones "
                             "(what llama.cpp writes by default) are opened")
        raise ValueError(f"{source} is GGUF version {version}; versions "
                         f"{' and '.join(map(str, VERSIONS))} are opened (re-convert it with "
                         "a current llama.cpp)")
    reader.scalar("<Q")  # tensor count: the tensors are never read
    n_keys = reader.scalar("<Q")
    if n_keys > MAX_KEYS:
        raise ValueError(f"{source} says it holds {n_keys:,} metadata keys; real GGUF files "
                         f"hold a few dozen (at most {MAX_KEYS:,} are read): is it damaged?")
    out = GGUFTokenizer(version=version, model="")
    for _ in range(n_keys):
        key = reader.string("a metadata key")
        kind = reader.scalar("<I")
        wanted = key.startswith(PREFIX) or key in ("general.architecture", "general.name")
        value = reader.value(kind, key, keep=wanted)
        if wanted:
            _store(out, key, kind, value, source)
    if not out.model:
        raise ValueError(f"{source} is a GGUF file without a tokenizer (no "
                         "tokenizer.ggml.model key): it holds weights only")
    return out


def read_tokenizer_bytes(data, source="file"):
    """read_tokenizer on a file's bytes."""
    return read_tokenizer(io.BytesIO(data), source)


def _store(out, key, kind, value, source):
    name = key.removeprefix(PREFIX)
    if key == "general.architecture":
        out.architecture = value if isinstance(value, str) else None
    elif key == "general.name":
        out.name = value if isinstance(value, str) else None
    elif name in ("model", "pre"):
        if not isinstance(value, str):
            raise ValueError(f"{source}: {key} is a {TYPES[kind][0]}, not a string")
        setattr(out, name, value)
    elif name in ("tokens", "merges"):
        if not isinstance(value, Strings):
            raise ValueError(f"{source}: {key} is not an array of strings")
        setattr(out, name, value)
    elif name in ("scores", "token_type"):
        if not (isinstance(value, (list, array))
                and all(isinstance(v, (int, float)) for v in value)):
            raise ValueError(f"{source}: {key} is not an array of numbers")
        setattr(out, name, value)
    elif name == "precompiled_charsmap":
        if not (isinstance(value, (list, array)) and all(isinstance(v, int) for v in value)):
            raise ValueError(f"{source}: {key} is not an array of bytes")
        out.charsmap = bytes(v & 0xFF for v in value)
    elif not isinstance(value, (list, array, Strings)):
        out.values[name] = value


class _Reader:
    """Bounded reads from a binary stream: nothing is allocated before its length has been
    checked against the bytes left in the file and in MAX_METADATA_BYTES."""

    def __init__(self, stream, source):
        self.stream, self.source = stream, source
        start = stream.tell()
        self.size = stream.seek(0, io.SEEK_END)
        self.end = min(self.size, start + MAX_METADATA_BYTES)
        stream.seek(start)

    def left(self):
        return self.end - self.stream.tell()

    def need(self, n, what):
        if n <= self.left():
            return
        if self.size > self.end:
            raise ValueError(f"{self.source}: {what} goes past the first "
                             f"{MAX_METADATA_BYTES >> 20} MB, where a GGUF file's metadata "
                             "has ended in every real file; is it damaged?")
        raise ValueError(f"{self.source} is a GGUF file cut short or damaged: {what} needs "
                         f"{n:,} bytes and {max(self.left(), 0):,} are left")

    def take(self, n, what="the header"):
        self.need(n, what)
        return self.stream.read(n)

    def skip(self, n, what):
        self.need(n, what)
        self.stream.seek(n, io.SEEK_CUR)

    def scalar(self, fmt, what="the header"):
        size = struct.calcsize(fmt)
        return struct.unpack(fmt, self.take(size, what))[0]

    def string(self, what, keep=True):
        n = self.scalar("<Q", what)
        if not keep:
            self.skip(n, what)
            return None
        if n > budgets.MAX_VOCAB_BYTES:
            raise ValueError(f"{self.source}: {what} is a string of {n:,} bytes; longer than "
                             "any tokenizer's")
        raw = self.take(n, what)
        try:
            return raw.decode("utf-8")
        except UnicodeDecodeError:
            raise ValueError(f"{self.source}: {what} is not UTF-8 text; the GGUF file is "
                             "damaged") from None

    def strings(self, count, what):
        """count strings, as string(what) reads them, as a Strings, a chunk of the file at
        a time: each string is decoded from a slice of the chunk rather than by three reads
        and checks of its own (gemma-4's 262k tokens and 515k merges spent seconds there),
        and every JOIN_STRINGS strs are joined into one (no str per string kept).
        A string the chunk does not hold whole, or one that is not UTF-8, is read by
        string(), which reads it or says exactly what is wrong, as it would have alone."""
        texts, lengths = [], array("I")
        stream, length = self.stream, _LENGTH.unpack_from
        while len(lengths) < count:
            start = stream.tell()
            chunk = stream.read(min(CHUNK_BYTES, max(self.left(), 0)))
            pos, end, out, wanted = 0, len(chunk), [], count - len(lengths)
            while len(out) < wanted and pos + 8 <= end:
                n = length(chunk, pos)[0]
                if n > end - pos - 8:  # cut by the chunk's end (or by the file's)
                    break
                try:
                    out.append(chunk[pos + 8:pos + 8 + n].decode("utf-8"))
                except UnicodeDecodeError:
                    break
                pos += 8 + n
                if len(out) == JOIN_STRINGS:  # joined as they come: no str per string kept
                    texts.append("".join(out))
                    lengths.extend(map(len, out))
                    wanted -= len(out)
                    out.clear()
            stream.seek(start + pos)
            if len(out) < wanted:
                out.append(self.string(what))
            texts.append("".join(out))
            lengths.extend(map(len, out))
            del out
        return Strings("".join(texts), array("I", accumulate(lengths, initial=0)))

    def value(self, kind, key, keep):
        if kind not in TYPES:
            raise ValueError(f"{self.source}: metadata {key[:60]!r} has value type {kind}, "
                             "which GGUF does not define; the file is damaged or newer than "
                             "this reader")
        if kind == STRING:
            return self.string(f"the value of {key[:60]!r}", keep)
        if kind != ARRAY:
            return self.scalar(TYPES[kind][1], f"the value of {key[:60]!r}")
        item = self.scalar("<I", f"the array {key[:60]!r}")
        count = self.scalar("<Q", f"the array {key[:60]!r}")
        if item not in TYPES or item == ARRAY:
            raise ValueError(f"{self.source}: the array {key[:60]!r} holds type {item}, which "
                             "a tokenizer's metadata never does; the file is damaged")
        what = f"the array {key[:60]!r} ({count:,} items)"
        if item == STRING:
            self.need(8 * count, what)  # each string has at least its 8-byte length
            if keep:
                budgets.check_id(count, what)
            if not keep:
                for _ in range(count):
                    self.string(what, keep=False)
                return None
            return self.strings(count, what)
        fmt = TYPES[item][1]
        size = struct.calcsize(fmt) * count
        if not keep:
            self.skip(size, what)
            return None
        budgets.check_id(count, what)
        raw = self.take(size, what)
        if fmt[1] == "?":  # no array of bools
            return list(struct.unpack(f"<{count}{fmt[1]}", raw))
        # an array, not a list: no int or float object per item (a token_type per token)
        values = array(fmt[1], raw)
        if sys.byteorder == "big":
            values.byteswap()
        return values
