"""Opening any tokenizer file: `load(path)`, `load_bytes(data, filename)`, `load_files(files)`.

A file is known by its content, not its name (`detect`):
- minbpe `.model`: text whose first line is "minbpe v1" (bpe.formats.model);
- tiktoken ranks: "base64 rank" lines, plain or gzip, under any name, Llama 3's and 4's
  `tokenizer.model` included (bpe.formats.ranks). A ranks file holds no split pattern and
  no special tokens: when its sha256 is a known file's (bpe.reference.known_ranks: every
  tiktoken encoding, Llama 3, Llama 4) it gets its owner's; otherwise `pattern=` must say,
  and a ValueError asks for it (no silent default: a pattern not the file's own gives
  other ids);
- SentencePiece `.model` (protobuf: Llama 2, Mistral, Gemma, T5), run by `sentencepiece`
  (bpe.formats.sentencepiece);
- Hugging Face tokenizer.json (bpe.formats.hf);
- GPT-2's pair, `encoder.json` + `vocab.bpe` or `vocab.json` + `merges.txt`
  (bpe.formats.gpt2): `load` takes either file (the other is found beside it) or their
  folder; `load_files` takes both files' bytes;
- GGUF, llama.cpp's model file (magic "GGUF"; bpe.formats.gguf): only its tokenizer's
  metadata is read, never the tensors, so `load` opens a model of any size; its gpt2,
  llama, bert and gemma4 families run as llama.cpp runs them (as a tokenizer.json, its
  BOS/EOS as the post-processor), and the tokenizer carries `gguf_family`
  (tokenizer.ggml.model) and `gguf_pre` (its split's name), through pickle too.
Anything else is a ValueError saying what it looked like and what is accepted; a binary
file is named by what its first bytes say it is (gzip, zip, protobuf, safetensors...). When the
content fits no kind, the name's ending (.model, .tiktoken, .json) picks the parser whose
message names the bad line. Sizes are bounded before parsing (MAX_FILE_BYTES, gzip too).
This file only detects and dispatches; each format's parsing lives in its own module.

>>> from bpe import RegexTokenizer
>>> tok = load_bytes(RegexTokenizer().model_text().encode(), "mine.model")
>>> type(tok).__name__, tok.pattern == RegexTokenizer().pattern, tok.name
('RegexTokenizer', True, 'mine.model')
"""
import functools
import hashlib
import os
import re
import zlib

from .. import budgets, sentencepiece_unigram
from ..basic import BasicTokenizer
from ..patterns import PATTERNS
from ..ranks_tokenizer import RanksTokenizer
from ..regex import RegexTokenizer
from . import gguf, gpt2, reading
from .method_file import looks_like_method_file, parse_method_file
from .hf import load_hf_bytes, tokenizer_from_hf
from .model import MODEL_VERSION
from .ranks import WHOLE_TEXT_PATTERN, parse_ranks, recover_merges
from .sentencepiece import load_sentencepiece, looks_like_sentencepiece, model_info

# what opens, by kind (detect's answers), as the messages name them
KINDS = {
    "minbpe": "minbpe .model (text starting 'minbpe v1')",
    "ranks": "tiktoken ranks ('<base64 token> <rank>' lines, plain or gzip, e.g. .tiktoken "
             "or Llama 3's tokenizer.model)",
    "sentencepiece": "SentencePiece .model (protobuf: Llama 2, Mistral, Gemma, T5)",
    "tokenizer.json": "Hugging Face tokenizer.json",
    "gpt2-vocab": "GPT-2's encoder.json / vocab.json (with its vocab.bpe / merges.txt)",
    "gpt2-merges": "GPT-2's vocab.bpe / merges.txt (with its encoder.json / vocab.json)",
    "gguf": "GGUF (llama.cpp's model file: its tokenizer's gpt2, llama, bert, gemma4 and t5 "
            "families)",
    "method": "the lab's method file (SuperBPE, BoundlessBPE or Picky BPE, written by "
              "python -m bpe train --method)",
}
ACCEPTED = "; ".join(KINDS.values())
EXTENSION_KINDS = {".model": "minbpe", ".tiktoken": "ranks", ".json": "tokenizer.json"}
MAX_FILE_BYTES = 2 * budgets.MAX_VOCAB_BYTES  # 128 MB; the largest tokenizer.json are ~35 MB,
# and a visitor's bomb may cost twice this while it is unpacked (issue 24: <= 512 MB)
_RANKS_LINE = re.compile(rb"[A-Za-z0-9+/]*={0,2} [0-9]+\r?")
_HF_MODEL = re.compile(rb'"model"\s*:\s*\{')  # a vocab.json maps "model" to an int, never {


def load(path=None, *, text=None, source=None, pattern=None, special_tokens=None):
    """The tokenizer in the file (or GPT-2 pair folder) at path, whatever its kind (see
    the module's docstring), or in text, the contents of a minbpe .model file.
    pattern, special_tokens: for ranks files, which hold neither (a known file's own are
    used when not given). ValueError saying what is wrong if malformed or unknown."""
    if text is not None:
        return load_model_text(text, source=source or "model")
    path = os.fspath(path)
    if os.path.isdir(path):
        return _load_folder(path, pattern, special_tokens)
    if os.path.isfile(path):
        with open(path, "rb") as f:  # a GGUF model may be many GB: read its metadata only
            if gguf.is_gguf(f.read(4)):
                f.seek(0)
                return tokenizer_from_gguf(gguf.read_tokenizer(f, path), path)
    data = _read(path)
    kind = detect(data, path, fallback=_extension_kind(path))
    if kind in ("gpt2-vocab", "gpt2-merges"):
        return _load_pair_beside(path, data, kind, pattern, special_tokens)
    return load_bytes(data, os.path.basename(path), pattern=pattern,
                      special_tokens=special_tokens, source=source or path)


def load_bytes(data, filename, *, pattern=None, special_tokens=None, source=None):
    """A tokenizer from one file's bytes (an upload): its kind from its content, its
    name only for messages and tok.name. A GPT-2 half is refused with what to do."""
    source = source or filename
    name = os.path.basename(filename)
    data = _bounded(data, source)
    kind = detect(data, source, fallback=_extension_kind(filename))
    if kind == "gzip":
        data = _gunzip(data, source)
        kind = detect(data, source)
        if kind != "ranks":
            raise ValueError(f"{source} is gzip; inside it is {KINDS.get(kind, kind)}, but only "
                             "tiktoken ranks are opened from gzip; unpack it first")
    if kind == "minbpe":
        tok = load_model_text(_text(data, source, "minbpe .model"), source)
    elif kind == "ranks":
        tok = _load_ranks(data, source, pattern, special_tokens)
    elif kind == "sentencepiece":
        tok = load_sentencepiece(data, source)
    elif kind == "tokenizer.json":
        tok = load_hf_bytes(data, source)
    elif kind == "gguf":
        tok = tokenizer_from_gguf(gguf.read_tokenizer_bytes(data, source), source)
    elif kind == "method":
        tok = _load_method(data, source)
    else:  # a GPT-2 half
        other = "vocab.bpe (or merges.txt)" if kind == "gpt2-vocab" else \
            "encoder.json (or vocab.json)"
        raise ValueError(f"{source} is {KINDS[kind]}: one half of a pair; open both together "
                         f"(add {other}: bpe.load_files, bpe.load on their folder, or upload "
                         "both files at once)")
    tok.name = name
    return tok


def load_files(files, *, pattern=None, special_tokens=None):
    """One tokenizer from files (filename -> bytes): one file of any kind, or GPT-2's two.

    >>> load_files({})
    Traceback (most recent call last):
    ValueError: no files given; give one tokenizer file, or GPT-2's encoder.json and vocab.bpe
    """
    files = {name: _bounded(data, name) for name, data in dict(files).items()}
    if not files:
        raise ValueError("no files given; give one tokenizer file, or GPT-2's encoder.json "
                         "and vocab.bpe")
    if len(files) == 1:
        (name, data), = files.items()
        return load_bytes(data, name, pattern=pattern, special_tokens=special_tokens)
    kinds = {name: detect(data, name, fallback=_extension_kind(name))
             for name, data in files.items()}
    vocab = [n for n, k in kinds.items() if k == "gpt2-vocab"]
    merges = [n for n, k in kinds.items() if k == "gpt2-merges"]
    if len(files) != 2 or len(vocab) != 1 or len(merges) != 1:
        found = ", ".join(f"{n} ({KINDS.get(k, k)})" for n, k in kinds.items())
        raise ValueError(f"{len(files)} files make one tokenizer only when they are GPT-2's "
                         f"pair (encoder.json + vocab.bpe, or vocab.json + merges.txt); got "
                         f"{found}. Open the others one at a time")
    tok = gpt2.load_gpt2_pair(files[vocab[0]], files[merges[0]], vocab_source=vocab[0],
                              merges_source=merges[0], pattern=pattern,
                              special_tokens=special_tokens)
    tok.name = os.path.basename(vocab[0])
    return tok


def detect(data, source="file", fallback=None):
    """The kind of a file's bytes: a key of KINDS, or "gzip" (look inside after
    gunzipping). fallback: the kind the file's name suggests, used (so its parser can
    name the bad line) when the content fits none; without one, a ValueError saying what
    it looked like and what is accepted."""
    head = data[:4096]
    if head[:2] == b"\x1f\x8b":
        return "gzip"
    if gguf.is_gguf(head):
        return "gguf"
    broken = None  # why a file that starts as a SentencePiece model is not one
    if head[:1] == b"\x0a" and looks_like_sentencepiece(data):
        try:
            model_info(data)
            return "sentencepiece"
        except ValueError as e:
            broken = e  # or text that starts with blank lines: read on
    text = head.removeprefix(b"\xef\xbb\xbf")
    stripped = text.lstrip()
    if stripped.startswith(MODEL_VERSION.encode()):
        return "minbpe"
    if looks_like_method_file(stripped):
        return "method"
    if stripped.startswith(b"{"):
        if _HF_MODEL.search(data):
            return "tokenizer.json"
        if _is_vocab_json(data, source):
            return "gpt2-vocab"
        return fallback or _unknown(source, "a JSON file, but neither a tokenizer.json (no "
                                    "\"model\" object) nor GPT-2's encoder.json (token -> id)")
    lines = text.split(b"\n")
    if len(data) > len(head) and len(lines) > 1:
        lines.pop()  # cut short by the 4 KB head (a head with no newline is all there is)
    lines = [line for line in lines if line.strip()][:20]
    if lines and all(_RANKS_LINE.fullmatch(line) for line in lines):
        return "ranks"
    try:
        decoded = b"\n".join(lines).decode("utf-8")
    except UnicodeDecodeError:
        if broken is not None:
            raise ValueError(f"{source} starts as a SentencePiece model but is not a readable "
                             f"one ({broken}); is the file complete?") from None
        return fallback or _unknown(source, binary_kind(head))
    if lines and gpt2.looks_like_merges(decoded):
        # without GPT-2's "#version" line, two words a line is a weak sign: a name's
        # ending (.tiktoken, .model) says more, and its parser names the bad line
        return fallback if fallback and not lines[0].startswith(b"#version") else "gpt2-merges"
    first = lines[0][:40].decode("utf-8", "replace") if lines else ""
    return fallback or _unknown(source, f"text starting {first!r}" if lines else "empty")


# what a binary file is, by its first bytes (for the message refusing it)
_MAGICS = [(b"PK\x03\x04", "a zip archive (a PyTorch checkpoint is one too)"),
           (b"\x93NUMPY", "a NumPy array"), (b"BZh", "bzip2-compressed data"),
           (b"\xfd7zXZ\x00", "xz-compressed data"), (b"\x28\xb5\x2f\xfd", "zstd-compressed data"),
           (b"\x89HDF", "an HDF5 file"), (b"\x7fELF", "an executable (ELF)"),
           (b"%PDF", "a PDF document"), (b"\x89PNG", "a PNG image"), (b"\xff\xd8\xff", "a JPEG image")]


def binary_kind(head):
    """What binary data is, by its first bytes: 'a zip archive...', 'protobuf data...', or
    'binary data' when they name nothing known.

    >>> binary_kind(b"PK\x03\x04rest"), binary_kind(bytes(8))
    ('a zip archive (a PyTorch checkpoint is one too)', 'binary data (zero bytes)')
    """
    for magic, kind in _MAGICS:
        if head.startswith(magic):
            return kind
    if head[:1] == b"\x80" and head[1:2] in (b"\x02", b"\x03", b"\x04", b"\x05"):
        return "a Python pickle (a PyTorch or scikit-learn file?)"
    if len(head) > 9 and head[8:10] == b'{"':
        return "a safetensors file (model weights, no tokenizer)"
    if head[:1] == b"\x0a":
        return ("protobuf data, but not a SentencePiece model (its pieces do not read as "
                "one)")
    if head and not head.strip(b"\x00"):
        return "binary data (zero bytes)"
    return "binary data, not text nor a SentencePiece model"


def tokenizer_from_gguf(info, source="file"):
    """A GGUFTokenizer (bpe.formats.gguf) -> the tokenizer llama.cpp runs, with its
    family and split's name as gguf_family and gguf_pre (for the app to show)."""
    doc = gguf.tokenizer_json(info, os.path.basename(source))
    scores = info.scores if info.model == "llama" else None
    return rebuild_gguf(info.model, info.pre, scores, doc, os.path.basename(source), None)


def rebuild_gguf(family, pre, scores, document, name, special_tokens):
    """The tokenizer of a GGUF file from its tokenizer.json (gguf.tokenizer_json), family,
    pre and (llama family) scores: what tokenizer_from_gguf builds, and what pickle calls
    to build it again (HFTokenizer.__reduce__ hands it the document, name and specials)."""
    tok = tokenizer_from_hf(document, source=name)
    if family == "t5":  # llama.cpp's Unigram, not tokenizers' (bpe.sentencepiece_unigram)
        sentencepiece_unigram.run_as_llama_cpp(tok, document)
    if scores is not None:
        rank_by_score(tok.model, scores)
    if special_tokens:
        tok.register_special_tokens(special_tokens)
    tok.gguf_family, tok.gguf_pre = family, pre
    tok.made_from = "a GGUF file (llama.cpp)"
    tok.name = name
    tok.rebuild = functools.partial(rebuild_gguf, family, pre, scores)
    return tok


def rank_by_score(model, scores):
    """SentencePiece's merge order in an HF BPE model: a merge ranks by the score of the
    piece it makes, equal scores equal, so among them the leftmost merges first (llama.cpp's
    queue orders by score, then position), where a tokenizer.json ranks each pair apart."""
    rank = {score: i for i, score in enumerate(sorted(set(scores), reverse=True))}
    model.merges = {pair: (rank[scores[idx]], idx) for pair, (_, idx) in model.merges.items()}


def kind_of(data, filename):
    """detect(data), the file's name's ending deciding only when the content fits no kind."""
    return detect(data, filename, fallback=_extension_kind(filename))


def _unknown(source, looked_like):
    raise ValueError(f"{source} is not a tokenizer file this lab can open: it looks like "
                     f"{looked_like}. Accepted: {ACCEPTED}")


def _is_vocab_json(data, source):
    try:
        return gpt2.is_vocab_json(budgets.parse_json(data.decode("utf-8"), source))
    except (UnicodeDecodeError, ValueError):
        return False


def load_model_text(text, source="model"):
    """A .model file's contents -> RegexTokenizer if it has a split pattern, else
    BasicTokenizer."""
    lines = text.split("\n", 2)
    has_pattern = len(lines) > 1 and lines[0].strip() == MODEL_VERSION and lines[1] != ""
    tok = RegexTokenizer() if has_pattern else BasicTokenizer()
    tok.load_text(text, source=source)
    tok.name = os.path.basename(source)
    return tok


def known_ranks(sha256_hex):
    """{"name", "pattern", "special_tokens"} of the known ranks file with this sha256
    (bpe.reference.known_ranks), or None."""
    from ..reference import known_ranks as lookup  # subtle: reference imports this file's classes
    return lookup(sha256_hex)


def known_file(data, source="file"):
    """known_ranks' answer for a file's bytes (gunzipped first), or None: not ranks, or
    not a ranks file this lab knows by its sha256."""
    kind = detect(data, source, fallback="none")
    if kind == "gzip":
        data = _gunzip(data, source)
        kind = detect(data, source, fallback="none")
    return known_ranks(hashlib.sha256(data).hexdigest()) if kind == "ranks" else None


def _load_ranks(data, source, pattern, special_tokens):
    known = known_ranks(hashlib.sha256(data).hexdigest())
    ranks = parse_ranks(data, source)
    if known is not None:
        pattern = known["pattern"] if pattern is None else pattern
        if special_tokens is None:
            special_tokens = known["special_tokens"]
        if "llama" in known["name"].lower():  # the owner's cut of long runs too
            from ..reference import LlamaTokenizer
            return LlamaTokenizer(ranks, PATTERNS.get(pattern, pattern), special_tokens,
                                  name=known["name"])
    elif pattern is None:
        raise ValueError(f"{source} holds tiktoken ranks, which do not say how text is split "
                         "before merging, and it is not a file this lab knows (by its "
                         "sha256); say which split pattern it was made with: pattern='gpt2', "
                         "'gpt4', 'gpt4o' or a regex (the sidebar asks for it). A wrong "
                         "pattern gives other ids than its owner's")
    return tokenizer_from_ranks(ranks, pattern, special_tokens, source=source)


def tokenizer_from_ranks(ranks, pattern="gpt4", special_tokens=None, source="ranks"):
    """A tokenizer over tiktoken ranks: a RegexTokenizer (BasicTokenizer for the whole-text
    pattern) with the merges recovered when the bytes have ids 0-255 and the ranks run on
    without gaps, as ours do; otherwise a RanksTokenizer, which encodes by rank directly."""
    pattern = PATTERNS.get(pattern, pattern)
    ours = (all(ranks.get(bytes([b])) == b for b in range(256))
            and sorted(ranks.values()) == list(range(len(ranks))))
    if not ours:
        return RanksTokenizer(ranks, pattern, special_tokens, name=os.path.basename(source))
    try:
        merges = recover_merges(ranks)
    except ValueError as e:
        raise ValueError(f"{source}: {e}") from None
    if pattern in ("", WHOLE_TEXT_PATTERN):
        return BasicTokenizer.from_merges(merges, special_tokens=special_tokens)
    return RegexTokenizer.from_merges(merges, pattern=pattern, special_tokens=special_tokens)


# ------------------------------------------------------------------ GPT-2 pairs and folders
def _load_pair_beside(path, data, kind, pattern, special_tokens):
    """GPT-2's pair, given one of its files: the other is looked for in the same folder."""
    folder, name = os.path.split(path)
    wanted = gpt2.MERGES_NAMES if kind == "gpt2-vocab" else gpt2.VOCAB_NAMES
    own = gpt2.VOCAB_NAMES if kind == "gpt2-vocab" else gpt2.MERGES_NAMES
    if name in own:  # encoder.json goes with vocab.bpe, vocab.json with merges.txt
        i = own.index(name)
        wanted = (wanted[i], wanted[1 - i])
    other = next((os.path.join(folder, n) for n in wanted
                  if os.path.isfile(os.path.join(folder, n))), None)
    if other is None:
        raise ValueError(f"{path} is {KINDS[kind]}, one half of a pair, and neither "
                         f"{' nor '.join(wanted)} is beside it; put the other file there, or "
                         "use bpe.load_files with both")
    return load_files({path: data, other: _read(other)}, pattern=pattern,
                      special_tokens=special_tokens)


def _load_folder(path, pattern, special_tokens):
    """A folder: GPT-2's pair in it, else its one tokenizer.json or tokenizer.model."""
    for vocab_name, merges_name in zip(gpt2.VOCAB_NAMES, gpt2.MERGES_NAMES):
        vocab, merges = os.path.join(path, vocab_name), os.path.join(path, merges_name)
        if os.path.isfile(vocab) and os.path.isfile(merges):
            return load_files({vocab: _read(vocab), merges: _read(merges)}, pattern=pattern,
                              special_tokens=special_tokens)
    for name in ("tokenizer.json", "tokenizer.model"):
        if os.path.isfile(os.path.join(path, name)):
            return load(os.path.join(path, name), pattern=pattern,
                        special_tokens=special_tokens)
    raise ValueError(f"{path} is a folder without GPT-2's pair (encoder.json + vocab.bpe, or "
                     "vocab.json + merges.txt), tokenizer.json or tokenizer.model; give the "
                     "tokenizer file itself")


# ------------------------------------------------------------------ bytes
def _read(path):
    """The file's bytes: a regular file of at most MAX_FILE_BYTES (a FIFO, a device or a
    socket is refused at once, never read)."""
    size = os.path.getsize(path)  # a stat: never blocks, even on a FIFO
    if size > MAX_FILE_BYTES:
        raise ValueError(f"{path} is {_size(size)}; tokenizer files this lab opens are at "
                         f"most {_size(MAX_FILE_BYTES)}")
    return reading.read_regular(path, MAX_FILE_BYTES, "the tokenizer file")


def _load_method(data, source):
    # subtle: bpe.methods builds tokenizers on the floors above this one, and imports
    # them (bpe.regex, bpe.reference) at its top; imported here, where it is used, so
    # loading bpe does not import it half-made (issue 29 moves building up a floor)
    from ..methods.saved import from_method_data
    return from_method_data(parse_method_file(data, source))


def _bounded(data, source):
    if not isinstance(data, (bytes, bytearray, memoryview)):
        raise TypeError(f"data must be the file's bytes, not {type(data).__name__}")
    if len(data) > MAX_FILE_BYTES:
        raise ValueError(f"{source} is {_size(len(data))}; tokenizer files this lab opens "
                         f"are at most {_size(MAX_FILE_BYTES)}")
    return bytes(data)


def _gunzip(data, source):
    """The gzip's content, refused once it passes MAX_FILE_BYTES (a small bomb stays small)."""
    unzip = zlib.decompressobj(wbits=16 + zlib.MAX_WBITS)
    try:
        out = unzip.decompress(data, MAX_FILE_BYTES + 1)
    except zlib.error as e:
        raise ValueError(f"{source} is not a valid gzip file ({e})") from None
    if len(out) > MAX_FILE_BYTES or unzip.unconsumed_tail:
        raise ValueError(f"{source} unpacks to more than {_size(MAX_FILE_BYTES)}; tokenizer "
                         "files this lab opens are smaller")
    if not unzip.eof:
        raise ValueError(f"{source} is not a valid gzip file (it ends early)")
    return out


def _size(n):
    """'256 MB', '1,000 bytes'."""
    return f"{n >> 20:,} MB" if n >= 1 << 20 else f"{n:,} bytes"


def _text(data, source, kind):
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise ValueError(f"{source} is not UTF-8 text, so not a {kind} file (nor a "
                         "SentencePiece model, which starts otherwise)") from None


def _extension_kind(filename):
    """The kind a file's name suggests ('x.tiktoken.gz' -> ranks), or None."""
    name = filename.lower().removesuffix(".gz")
    return EXTENSION_KINDS.get(os.path.splitext(name)[1])
