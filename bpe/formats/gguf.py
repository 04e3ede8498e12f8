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
memory only. Anything damaged or unsupported is a ValueError saying what. This module
returns data (a GGUFTokenizer); bpe.loading builds the tokenizer from it.

>>> import io
>>> def s(text): return len(text.encode()).to_bytes(8, "little") + text.encode()
>>> data = (b"GGUF" + (3).to_bytes(4, "little") + (0).to_bytes(8, "little")
...         + (1).to_bytes(8, "little") + s("tokenizer.ggml.model") + (8).to_bytes(4, "little")
...         + s("gpt2"))
>>> read_tokenizer(io.BytesIO(data)).model
'gpt2'
"""
import base64
import io
import struct
from dataclasses import dataclass, field

from .. import budgets
from . import sentencepiece

MAGIC = b"GGUF"
VERSIONS = (2, 3)
MAX_METADATA_BYTES = 256 << 20  # Gemma's 262k-token vocabulary is ~16 MB of metadata
MAX_KEYS = 100_000              # real files carry ~40 keys
PREFIX = "tokenizer.ggml."

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
    tokens: list = field(default_factory=list)      # id -> token text
    scores: list | None = None   # id -> score (llama, t5)
    token_type: list | None = None  # id -> 1 normal ... 6 byte (TOKEN_TYPES)
    merges: list | None = None   # "left right" strings, in rank order (gpt2)
    charsmap: bytes | None = None  # t5's precompiled_charsmap
    values: dict = field(default_factory=dict)  # every other tokenizer.ggml.* scalar
    architecture: str | None = None  # general.architecture
    name: str | None = None          # general.name

    def flag(self, key, default=None):
        """A tokenizer.ggml.<key> value, or default when the file does not say."""
        return self.values.get(key, default)


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
        if not (isinstance(value, list) and all(isinstance(v, str) for v in value)):
            raise ValueError(f"{source}: {key} is not an array of strings")
        setattr(out, name, value)
    elif name in ("scores", "token_type"):
        if not (isinstance(value, list) and all(isinstance(v, (int, float)) for v in value)):
            raise ValueError(f"{source}: {key} is not an array of numbers")
        setattr(out, name, value)
    elif name == "precompiled_charsmap":
        if not (isinstance(value, list) and all(isinstance(v, int) for v in value)):
            raise ValueError(f"{source}: {key} is not an array of bytes")
        out.charsmap = bytes(v & 0xFF for v in value)
    elif not isinstance(value, list):
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
            return [self.string(what) for _ in range(count)]
        fmt = TYPES[item][1]
        size = struct.calcsize(fmt) * count
        if not keep:
            self.skip(size, what)
            return None
        budgets.check_id(count, what)
        raw = self.take(size, what)
        return list(struct.unpack(f"<{count}{fmt[1]}", raw))


# ------------------------------------------------------------------ as a tokenizer.json
# llama.cpp's split before a gpt2-family BPE, by the `pre` name the file carries: the
# regexes of llm_tokenizer_bpe in llama.cpp's src/llama-vocab.cpp, applied one after the
# other (each splits the pieces the last one left, keeping what it does not match), and
# whether that name turns on ignore_merges. Only names whose llama.cpp test vocabulary
# (ggml-vocab-*.gguf with its .inp/.out) gives llama.cpp's ids here are listed; the rest are
# refused by name (PRE_REFUSED says why), as guessing a split gives other ids.
_GPT2 = r"'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)"
_LLAMA3 = (r"(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])|[^\r\n\p{L}\p{N}]?"
           r"\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+")
_QWEN2 = (r"(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])|[^\r\n\p{L}\p{N}]?"
          r"\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+")
_QWEN35 = (r"(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])|[^\r\n\p{L}\p{N}]?"
           r"[\p{L}\p{M}]+|\p{N}| ?[^\s\p{L}\p{M}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+")
_DEEPSEEK_LLM = [  # its letters and punctuation as llama.cpp lists them
    '[\r\n]',
    '\\s?[A-Za-zµÀ-ÖØ-öø-ƺƼ-ƿǄ-ʓʕ-ʯͰ-ͳͶͷͻ-ͽͿΆΈ-ΊΌΎ-ΡΣ-ϵϷ-ҁҊ-ԯԱ-ՖႠ-ჅᎠ-Ᏽᏸ-ᏽᲐ-ᲺᲽ-Ჿᴀ-ᴫᵫ-ᵷᵹ-ᶚḀ-ἕἘ-Ἕἠ-ὅὈ-Ὅὐ-ὗὙὛὝὟ-ώᾀ-ᾴᾶ-ᾼιῂ-ῄῆ-ῌῐ-ΐῖ-Ίῠ-Ῥῲ-ῴῶ-ῼℂℇℊ-ℓℕℙ-ℝℤΩℨK-ℭℯ-ℴℹℼ-ℿⅅ-ⅉⅎↃↄⰀ-ⱻⱾ-ⳤⳫ-ⳮⳲⳳꙀ-ꙭꚀ-ꚛꜢ-ꝯꝱ-ꞇꞋ-ꞎꭰ-ꮿﬀ-ﬆﬓ-ﬗＡ-Ｚａ-ｚ𐐀-𐑏𐒰-𐓓𐓘-𐓻𐲀-𐲲𐳀-𐳲𑢠-𑣟𞤀-𞥃]+',
    '\\s?[!-/:-~！-／：-～‘-‟\u3000-。]+',
    '\\s+$',
    '[一-龥ࠀ-一가-\ud7ff]+',
    '\\p{N}+',
]
PRE_SPLITS = {  # pre name -> (regexes, ignore_merges)
    "llama-bpe": ([_LLAMA3], True), "llama3": ([_LLAMA3], True), "llama-v3": ([_LLAMA3], True),
    "gpt-2": ([_GPT2], False), "mpt": ([_GPT2], False),
    "starcoder": ([r"\p{N}", _GPT2], False), "refact": ([r"\p{N}", _GPT2], False),
    "command-r": ([r"\p{N}", _GPT2], False),
    "qwen2": ([_QWEN2], False), "qwen35": ([_QWEN35], False),
    "deepseek-coder": ([r"[\r\n]", r"\s?\p{L}+", r"\s?\p{P}+", "[一-龥ࠀ-一가-퟿]+", r"\p{N}"], False),
    "deepseek-llm": (_DEEPSEEK_LLM, False),
    "falcon": ([r"[\p{P}\$\+<=>\^~\|`]+", _GPT2, "[0-9][0-9][0-9]"], False),
}
PRE_REFUSED = {  # pre name -> why it is not opened
    "default": "llama.cpp ships no test ids for its files with this split (aquila, gpt-neox), "
               "so ids from its four-regex default could not be proven to be llama.cpp's",
}


def tokenizer_json(info, source="file"):
    """A GGUFTokenizer -> the tokenizer.json (a dict) that runs as llama.cpp runs it, for
    bpe.formats.hf.tokenizer_json to build: gpt2 (byte-level BPE with its pre's split), llama
    (SentencePiece-style BPE: merges by the made piece's score, byte fallback, a "▁" for
    each space and one in front), bert (llama.cpp's WordPiece), gemma4 (BPE over UTF-8
    characters) and t5 (Unigram; bpe.sentencepiece_unigram runs it as llama.cpp does,
    which this form alone does not say). Control tokens are added tokens marked special; user-defined ones are
    added tokens llama.cpp always cuts out; the BOS/EOS llama.cpp adds with add_special are
    the post-processor. ValueError naming the family or the pre when it cannot be
    reproduced."""
    if not info.tokens:
        raise ValueError(f"{source} is a GGUF file whose tokenizer has no tokens")
    types = info.token_type or [1] * len(info.tokens)
    if len(types) != len(info.tokens):
        raise ValueError(f"{source}: the GGUF file has {len(info.tokens):,} tokens but "
                         f"{len(types):,} token types; it is damaged")
    if info.model not in FAMILIES:
        why = FAMILIES_REFUSED.get(info.model, "its tokenizer is not implemented here")
        raise ValueError(f"{source} is a GGUF file whose tokenizer is llama.cpp's "
                         f"{info.model!r} family: {why}. This lab opens the "
                         f"{', '.join(repr(f) for f in FAMILIES)} families")
    doc = FAMILIES[info.model](info, source)
    doc["post_processor"] = _post_processor(info, source)
    doc["added_tokens"] = [
        {"id": idx, "content": token, "single_word": False, "lstrip": False, "rstrip": False,
         "normalized": False, "special": types[idx] == 3}
        for idx, token in enumerate(info.tokens) if types[idx] in (3, 4)]
    return doc


def _gpt2_json(info, source):
    pre = info.pre or "default"
    if pre not in PRE_SPLITS:
        why = PRE_REFUSED.get(pre, "its split has not been proven against llama.cpp's tests "
                              "here")
        raise ValueError(f"{source} is a GGUF byte-level BPE whose pre-tokenizer is "
                         f"llama.cpp's {pre!r}: {why}. Opened: "
                         f"{', '.join(sorted(PRE_SPLITS))}")
    regexes, ignore_merges = PRE_SPLITS[pre]
    if info.merges is None:
        raise ValueError(f"{source} is a GGUF byte-level BPE without tokenizer.ggml.merges")
    merges = _split_merges(info, source)
    byte_level = {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": False,
                  "use_regex": False}
    splits = [{"type": "Split", "pattern": {"Regex": regex}, "behavior": "Isolated",
               "invert": False} for regex in regexes]
    return {"version": "1.0", "normalizer": None,
            "pre_tokenizer": {"type": "Sequence", "pretokenizers": splits + [byte_level]},
            "post_processor": None, "decoder": byte_level,
            "model": {"type": "BPE", "dropout": None, "unk_token": None,
                      "continuing_subword_prefix": None, "end_of_word_suffix": None,
                      "fuse_unk": False, "byte_fallback": False,
                      "ignore_merges": ignore_merges, "vocab": _vocab(info),
                      "merges": merges}}


def _split_merges(info, source):
    merges = []
    for rank, merge in enumerate(info.merges):
        cut = merge.find(" ", 1)  # llama.cpp's split: the first space after the first character
        if cut < 0:
            raise ValueError(f"{source}: GGUF merge {rank} is {merge[:40]!r}; expected "
                             "'left right'")
        merges.append([merge[:cut], merge[cut + 1:]])
    return merges


def _llama_json(info, source):
    if info.scores is None or len(info.scores) != len(info.tokens):
        raise ValueError(f"{source} is a GGUF SentencePiece-style ('llama') tokenizer without "
                         "a score for each token; it is damaged")
    vocab = _vocab(info)
    unk = info.flag("unknown_token_id", 0)
    if not (isinstance(unk, int) and 0 <= unk < len(info.tokens)):
        raise ValueError(f"{source}: the GGUF unknown_token_id {unk!r} is not a token")
    normalizers = [{"type": "Replace", "pattern": {"String": " "}, "content": "\u2581"}]
    if info.flag("add_space_prefix", True):
        normalizers.insert(0, {"type": "Prepend", "prepend": "\u2581"})
    return {"version": "1.0",
            "normalizer": {"type": "Sequence", "normalizers": normalizers},
            "pre_tokenizer": None, "post_processor": None,
            "decoder": {"type": "Sequence", "decoders": [
                {"type": "Replace", "pattern": {"String": "\u2581"}, "content": " "},
                {"type": "ByteFallback"}, {"type": "Fuse"},
                {"type": "Strip", "content": " ", "start": 1, "stop": 0}]},
            "model": {"type": "BPE", "dropout": None, "unk_token": info.tokens[unk],
                      "continuing_subword_prefix": None, "end_of_word_suffix": None,
                      "fuse_unk": True, "byte_fallback": True, "ignore_merges": False,
                      "vocab": vocab, "merges": score_merges(vocab, info.scores)}}


def _gemma4_json(info, source):
    """llama.cpp's Gemma 4 (a BPE over raw UTF-8 characters, LLAMA_VOCAB_PRE_TYPE_GEMMA4):
    each space written "▁", the text cut into lines and runs of newlines, merges by rank,
    a run of newlines that is a token taken whole, and a piece no token holds written as its
    <0xXX> byte tokens."""
    if info.merges is None:
        raise ValueError(f"{source} is a GGUF Gemma 4 BPE without tokenizer.ggml.merges")
    return {"version": "1.0",
            "normalizer": {"type": "Replace", "pattern": {"String": " "}, "content": "\u2581"},
            "pre_tokenizer": {"type": "Split", "pattern": {"Regex": "[^\n]+|[\n]+"},
                              "behavior": "Isolated", "invert": False},
            "post_processor": None,
            "decoder": {"type": "Sequence", "decoders": [
                {"type": "Replace", "pattern": {"String": "\u2581"}, "content": " "},
                {"type": "ByteFallback"}, {"type": "Fuse"}]},
            "model": {"type": "BPE", "dropout": None, "unk_token": None,
                      "continuing_subword_prefix": None, "end_of_word_suffix": None,
                      "fuse_unk": False, "byte_fallback": True, "ignore_merges": True,
                      "vocab": _vocab(info), "merges": _split_merges(info, source)}}


def _bert_json(info, source):
    """llama.cpp's WordPiece (its llm_tokenizer_wpm): words split as BERT splits them, each
    written "▁word" and covered by the longest tokens from the left, a word no tokens cover
    being one unknown. In a tokenizer.json's terms a "▁x" token is WordPiece's word-start "x"
    and any other is its continuation "##x", which is the same search; control and
    user-defined tokens keep their text (they are added tokens), and so does the unknown."""
    opts = info.flag("lowercase", True)  # llama.cpp's defaults: lowercase, and strip accents
    strip = info.flag("strip_accents", opts)  # as lowercase says unless the file says
    unk = info.flag("unknown_token_id", 100)
    if not (isinstance(unk, int) and 0 <= unk < len(info.tokens)):
        raise ValueError(f"{source}: the GGUF unknown_token_id {unk!r} is not a token")
    types = info.token_type or [1] * len(info.tokens)
    vocab, owner = {}, {}
    for idx, token in enumerate(info.tokens):
        if types[idx] in (2, 3, 4):  # unknown, control, user-defined: their own text
            name = token
        elif token.startswith("\u2581"):
            if len(token) == 1:
                raise ValueError(f"{source}: the GGUF WordPiece token {idx} is a lone '\u2581' (a "
                                 "word start covering no character), which a tokenizer.json "
                                 "cannot express; not supported")
            name = token[1:]
        else:
            name = "##" + token
        if name in owner and owner[name] != token:
            raise ValueError(f"{source}: GGUF WordPiece tokens {owner[name]!r:.40} and "
                             f"{token!r:.40} are one token in WordPiece's terms; not supported")
        owner[name] = token
        vocab[name] = idx
    return {"version": "1.0",
            "normalizer": {"type": "BertNormalizer", "clean_text": True,
                           "handle_chinese_chars": True, "strip_accents": bool(strip),
                           "lowercase": bool(opts)},
            "pre_tokenizer": {"type": "BertPreTokenizer"},
            "post_processor": None,
            "decoder": {"type": "WordPiece", "prefix": "##", "cleanup": True},
            "model": {"type": "WordPiece", "unk_token": info.tokens[unk],
                      "continuing_subword_prefix": "##",
                      # llama.cpp has no longest word: every word is searched
                      "max_input_chars_per_word": budgets.MAX_VOCAB_BYTES,
                      "vocab": vocab}}


# llama.cpp's BOS/EOS (llama_vocab::impl::load): per family, the default ids and whether
# they are added, which the file's add_bos_token/add_eos_token and *_token_id override.
# A bert (WordPiece) file always gets its BOS ([CLS]) and its separator ([SEP]).
_SPECIAL_DEFAULTS = {  # family -> (bos id, eos id, add bos, add eos)
    "llama": (1, 2, True, False), "gpt2": (11, 11, False, False), "t5": (None, 1, False, True),
    "gemma4": (None, None, True, False),  # llama.cpp turns a Gemma 4 file's BOS on always
}
_ADD_BOS_PRES = {"llama3", "llama-v3", "llama-bpe"}  # gpt2 splits whose BOS is on by default


def _post_processor(info, source):
    """A TemplateProcessing with the ids llama.cpp adds when asked for special tokens
    (llama_tokenize's add_special), or None when it adds none."""
    if info.model == "bert":
        before = [_special_id(info, "bos", 101, source)]
        after = [_special_id(info, "seperator", 102, source)]
    else:
        bos, eos, add_bos, add_eos = _SPECIAL_DEFAULTS[info.model]
        add_bos = info.flag("add_bos_token", add_bos or info.pre in _ADD_BOS_PRES) \
            or info.model == "gemma4"  # llama.cpp overrides a Gemma 4 file's false
        before = [_special_id(info, "bos", bos, source)] if add_bos else []
        after = [_special_id(info, "eos", eos, source)] if info.flag("add_eos_token", add_eos) \
            else []
    if not before and not after:
        return None

    def template(type_id, sequence):
        return ([{"SpecialToken": {"id": info.tokens[i], "type_id": type_id}} for i in before]
                + [{"Sequence": {"id": sequence, "type_id": type_id}}]
                + [{"SpecialToken": {"id": info.tokens[i], "type_id": type_id}} for i in after])
    return {"type": "TemplateProcessing", "single": template(0, "A"),
            "pair": template(0, "A") + template(1, "B"),
            "special_tokens": {info.tokens[i]: {"id": info.tokens[i], "ids": [i],
                                                "tokens": [info.tokens[i]]}
                               for i in before + after}}


def _special_id(info, name, default, source):
    idx = info.flag(f"{name}_token_id", default)
    if not (isinstance(idx, int) and 0 <= idx < len(info.tokens)):
        raise ValueError(f"{source}: the GGUF file adds its {name.upper()} token when asked for "
                         f"special tokens, but its {name}_token_id {idx!r} is not a token")
    return idx


def score_merges(vocab, scores):
    """SentencePiece's BPE as merges: every split of a piece into two pieces, the piece of
    higher score first (llama.cpp's and sentencepiece's order), then by the piece's id.

    >>> score_merges({"a": 0, "b": 1, "ab": 2, "abb": 3}, [0.0, 0.0, -1.0, -2.0])
    [['a', 'b'], ['ab', 'b']]
    """
    merges = []
    for piece, idx in vocab.items():
        for cut in range(1, len(piece)):
            left, right = piece[:cut], piece[cut:]
            if left in vocab and right in vocab:
                merges.append((-scores[idx], idx, cut, left, right))
    merges.sort()
    return [[left, right] for *_, left, right in merges]


def _vocab(info):
    """token -> id; a token listed twice keeps its last id, as llama.cpp's token_to_id."""
    return {token: idx for idx, token in enumerate(info.tokens)}


def _t5_json(info, source):
    """llama.cpp's Unigram (its llm_tokenizer_ugm, SentencePiece's algorithm) in
    tokenizer.json terms: the pieces and scores as a Unigram model, the charsmap as a
    Precompiled normalizer, the spaces as T5's own tokenizer.json writes them
    (WhitespaceSplit when remove_extra_whitespaces, Metaspace prepending "▁" when
    add_space_prefix). `tokenizers` runs such a form differently (its charsmap match is the
    shortest, its unknown score the lowest of all pieces): bpe.sentencepiece_unigram
    builds llama.cpp's tokenizer from it, and `sentencepiece` is its check
    (t5_sentencepiece_model)."""
    types = info.token_type or [1] * len(info.tokens)
    if info.scores is None or len(info.scores) != len(info.tokens):
        raise ValueError(f"{source} is a GGUF Unigram ('t5') tokenizer without a score for "
                         "each token; it is damaged")
    unk = info.flag("unknown_token_id", 2)  # llama.cpp's t5 default
    if not (isinstance(unk, int) and 0 <= unk < len(info.tokens)):
        raise ValueError(f"{source}: the GGUF unknown_token_id {unk!r} is not a token")
    if 6 in types:
        raise ValueError(f"{source} is a GGUF Unigram ('t5') tokenizer with byte pieces: "
                         "llama.cpp's Unigram never uses them where sentencepiece falls back "
                         "to them, so its ids could not be proven; not supported")
    prefix, merge = _t5_spaces(info, source)
    metaspace = {"type": "Metaspace", "replacement": "\u2581",
                 "prepend_scheme": "always" if prefix else "never", "split": True}
    steps = [{"type": "WhitespaceSplit"}, metaspace] if merge else [metaspace]
    return {"version": "1.0",
            "normalizer": {"type": "Precompiled", "precompiled_charsmap":
                           base64.b64encode(info.charsmap or b"").decode("ascii")},
            "pre_tokenizer": {"type": "Sequence", "pretokenizers": steps},
            "post_processor": None, "decoder": metaspace,
            # gguf_token_type (tokenizers ignores it) keeps what its terms cannot say:
            # which pieces are unused ones, outside the unknown's score
            "model": {"type": "Unigram", "unk_id": unk, "byte_fallback": False,
                      "vocab": [[token, float(score)]
                                for token, score in zip(info.tokens, info.scores)],
                      "gguf_token_type": list(types)}}


def _t5_spaces(info, source):
    """(add_space_prefix, remove_extra_whitespaces) as llama.cpp reads them for a t5 file
    (both false unless the file says). Only the pairings where llama.cpp's normalizer is
    sentencepiece's are opened: both on (real files) or both off. With one on, llama.cpp
    parts from it: extra spaces removed with no prefix, it still writes a '\u2581' before
    the first word; a prefix with every space kept, a text of spaces only gets no prefix."""
    prefix = bool(info.flag("add_space_prefix", False))
    merge = bool(info.flag("remove_extra_whitespaces", False))
    if merge != prefix:
        why = ("removes extra spaces without a space prefix: llama.cpp then still writes a "
               "'\u2581' before the first word where sentencepiece does not") if merge else (
               "adds a space prefix but keeps extra spaces: llama.cpp then gives a text of "
               "spaces only no prefix where sentencepiece gives one")
        raise ValueError(f"{source} is a GGUF Unigram ('t5') tokenizer that {why}, so its "
                         "ids could not be proven; not supported")
    return prefix, merge


def t5_sentencepiece_model(info, source="file"):
    """The SentencePiece ModelProto (bytes) holding a t5 GGUF file's tokenizer: the same
    pieces, scores, types, charsmap and space settings, for `sentencepiece` to check the
    ids bpe.sentencepiece_unigram gives."""
    _t5_json(info, source)  # the same refusals
    prefix, merge = _t5_spaces(info, source)
    return sentencepiece.unigram_model(
        info.tokens, info.scores, info.token_type or [1] * len(info.tokens),
        unk_id=info.flag("unknown_token_id", 2), charsmap=info.charsmap or b"",
        add_dummy_prefix=prefix, remove_extra_whitespaces=merge)


FAMILIES = {"gpt2": _gpt2_json, "llama": _llama_json, "bert": _bert_json,
            "gemma4": _gemma4_json, "t5": _t5_json}
FAMILIES_REFUSED = {}  # family -> why it is not opened (none today)
