"""Building a tokenizer from a file: `load(path)`, `load_bytes(data, filename)`,
`load_files(files)` and, for the app's uploads, `read_uploads(files)`.

bpe.formats reads each format into data (ranks, merges, vocab, pieces, a tokenizer.json's
pipeline) and bpe.formats.kinds says which kind some bytes are; this module is the one
floor above them that turns that data into tokenizer objects:
- minbpe `.model` -> RegexTokenizer (BasicTokenizer without a split pattern);
- tiktoken ranks (plain or gzip) -> RegexTokenizer with its merges recovered, or a
  RanksTokenizer when its ids are not ours. A ranks file holds no split pattern and no special
  tokens: when its sha256 is a known file's (bpe.reference.known_ranks: every tiktoken
  encoding, Llama 3, Llama 4) it gets its owner's; otherwise `pattern=` must say, and a
  ValueError asks for it (no silent default: a pattern not the file's own gives other ids);
- SentencePiece `.model` -> SentencePieceTokenizer (run by the `sentencepiece` library);
- Hugging Face tokenizer.json -> bpe.hf_tokenizer.tokenizer_from_hf;
- GPT-2's pair -> bpe.vocab_merges.load_gpt2_pair (packed tables): `load` takes either
  file (the other is found beside it) or their folder; `load_files` takes both files' bytes;
- GGUF (llama.cpp's model file): only its tokenizer's metadata is read, never the tensors,
  so `load` opens a model of any size; bpe.gguf_tokenizer builds it: its gpt2, llama, bert,
  gemma4 and t5 families run as llama.cpp runs them (as a tokenizer.json, its BOS/EOS as the
  post-processor), and the tokenizer carries `gguf_family` (tokenizer.ggml.model) and
  `gguf_pre` (its split's name), through pickle too;
- the lab's method file -> bpe.methods.saved.from_method_data.

An upload is read once (`read_uploads`): each file is bounded, sniffed, gunzipped and hashed
one time, and the Upload it makes carries the kind, the known file's name, the tokenizer and
the digest, so the app asks nothing of the bytes again.

>>> from bpe import RegexTokenizer
>>> tok = load_bytes(RegexTokenizer().model_text().encode(), "mine.model")
>>> type(tok).__name__, tok.pattern == RegexTokenizer().pattern, tok.name
('RegexTokenizer', True, 'mine.model')
"""
import hashlib
import os
from dataclasses import dataclass

from . import reference
from .basic import BasicTokenizer
from .formats import gguf, gpt2
from .formats.hf.document_parse import parse_document
from .formats.kinds import (KINDS, as_text, bounded, detect, extension_kind, gunzip,
                            read_file)
from .formats.method_file import parse_method_file
from .formats.model import MODEL_VERSION
from .formats.ranks import WHOLE_TEXT_PATTERN, parse_ranks
from .formats.ranks_merges import recover_merges
from .formats.sentencepiece import model_info
from .gguf_tokenizer import tokenizer_from_gguf
from .hf_tokenizer import tokenizer_from_hf
from .methods.saved import from_method_data
from .patterns import PATTERNS
from .ranks_tokenizer import RanksTokenizer
from .reference import LlamaTokenizer
from .regex import RegexTokenizer
from .sentencepiece_bpe import SentencePieceTokenizer
from .vocab_merges import load_gpt2_pair

GPT2_HALVES = ("gpt2-vocab", "gpt2-merges")


@dataclass(frozen=True)
class Upload:
    """What one upload made: kind (a key of bpe.formats.kinds.KINDS, "ranks" for gzipped
    ranks, "gpt2-pair" for GPT-2's two files), known (the known ranks file's name, or ""),
    the tokenizer, digest (sha256 of the files' bytes as given, joined in order) and files
    ((name, bytes as given) pairs)."""
    kind: str
    known: str
    tokenizer: object
    digest: str
    files: tuple


@dataclass(frozen=True)
class _Sniffed:
    """One file read once: its name, bytes as given, kind, content (gunzipped), and the
    known ranks file it is (or None)."""
    name: str
    raw: bytes
    kind: str
    data: bytes
    known: dict | None


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
    data = read_file(path)
    kind = detect(data, path, fallback=extension_kind(path))
    if kind in GPT2_HALVES:
        return _load_pair_beside(path, data, kind, pattern, special_tokens)
    return load_bytes(data, os.path.basename(path), pattern=pattern,
                      special_tokens=special_tokens, source=source or path)


def load_bytes(data, filename, *, pattern=None, special_tokens=None, source=None):
    """A tokenizer from one file's bytes (an upload): its kind from its content, its
    name only for messages and tok.name. A GPT-2 half is refused with what to do."""
    source = source or filename
    one = _sniff(filename, data, source)
    return _build([one], pattern, special_tokens, source).tokenizer


def load_files(files, *, pattern=None, special_tokens=None):
    """One tokenizer from files (filename -> bytes): one file of any kind, or GPT-2's two.

    >>> load_files({})
    Traceback (most recent call last):
    ValueError: no files given; give one tokenizer file, or GPT-2's encoder.json and vocab.bpe
    """
    files = {name: bounded(data, name) for name, data in dict(files).items()}
    if not files:
        raise ValueError("no files given; give one tokenizer file, or GPT-2's encoder.json "
                         "and vocab.bpe")
    sniffed = [_sniff(name, data) for name, data in files.items()]
    if len(sniffed) > 1:
        _check_pair(sniffed)
    return _build(sniffed, pattern, special_tokens).tokenizer


def read_uploads(files, *, unknown_pattern=None, before_build=None):
    """One Upload (or the ValueError saying why not) per tokenizer in uploaded files
    ((filename, bytes) pairs): each file alone, except GPT-2's halves, which make one
    together; in the order of each group's first file. Every file is read once.
    unknown_pattern: the split pattern for a ranks file this lab does not know by its sha256
    (a known one keeps its owner's); before_build(kind, files): called before a tokenizer
    is built, may raise ValueError to refuse it (the app opens a SentencePiece model in a
    capped worker first)."""
    sniffed = []
    for name, data in files:
        try:
            sniffed.append(_sniff(name, bounded(data, name)))
        except ValueError as e:
            sniffed.append(e)
    halves = [i for i, one in enumerate(sniffed)
              if not isinstance(one, ValueError) and one.kind in GPT2_HALVES]
    groups = sorted([[i] for i in range(len(sniffed)) if i not in halves]
                    + ([halves] if halves else []))
    out = []
    for group in groups:
        chosen = [sniffed[i] for i in group]
        if isinstance(chosen[0], ValueError):
            out.append(chosen[0])
            continue
        try:
            if len(chosen) > 1:
                _check_pair(chosen)
            if before_build is not None:
                before_build(chosen[0].kind, tuple((one.name, one.raw) for one in chosen))
            known = len(chosen) == 1 and chosen[0].known
            out.append(_build(chosen, None if known else unknown_pattern, None))
        except ValueError as e:
            out.append(e)
    return out


def _sniff(name, data, source=None):
    """A file read once: bounded, its kind, gunzipped (ranks only), hashed when it is ranks
    (to know whose it is)."""
    source = source or name
    raw = data = bounded(data, source)
    kind = detect(data, source, fallback=extension_kind(name))
    if kind == "gzip":
        data = gunzip(data, source)
        kind = detect(data, source)
        if kind != "ranks":
            raise ValueError(f"{source} is gzip; inside it is {KINDS.get(kind, kind)}, but only "
                             "tiktoken ranks are opened from gzip; unpack it first")
    known = reference.known_ranks(hashlib.sha256(data).hexdigest()) if kind == "ranks" else None
    return _Sniffed(name, raw, kind, data, known)


def _build(sniffed, pattern, special_tokens, source=None):
    """The Upload of sniffed files: one file of any kind, or GPT-2's pair (checked)."""
    digest = hashlib.sha256(b"".join(one.raw for one in sniffed)).hexdigest()
    files = tuple((one.name, one.raw) for one in sniffed)
    if len(sniffed) > 1:
        vocab, merges = sorted(sniffed, key=lambda one: one.kind != "gpt2-vocab")
        tok = load_gpt2_pair(vocab.data, merges.data, vocab_source=vocab.name,
                             merges_source=merges.name, pattern=pattern,
                             special_tokens=special_tokens)
        tok.name = os.path.basename(vocab.name)
        return Upload("gpt2-pair", "", tok, digest, files)
    one, = sniffed
    source = source or one.name
    if one.kind == "minbpe":
        tok = load_model_text(as_text(one.data, source, "minbpe .model"), source)
    elif one.kind == "ranks":
        tok = _load_ranks(one.data, source, pattern, special_tokens, one.known)
    elif one.kind == "sentencepiece":
        tok = load_sentencepiece(one.data, source)
    elif one.kind == "tokenizer.json":
        tok = load_hf_bytes(one.data, source)
    elif one.kind == "gguf":
        tok = tokenizer_from_gguf(gguf.read_tokenizer_bytes(one.data, source), source)
    elif one.kind == "method":
        tok = from_method_data(parse_method_file(one.data, source))
    else:  # a GPT-2 half
        other = "vocab.bpe (or merges.txt)" if one.kind == "gpt2-vocab" else \
            "encoder.json (or vocab.json)"
        raise ValueError(f"{source} is {KINDS[one.kind]}: one half of a pair; open both "
                         f"together (add {other}: bpe.load_files, bpe.load on their folder, "
                         "or upload both files at once)")
    tok.name = os.path.basename(one.name)
    return Upload(one.kind, one.known["name"] if one.known else "", tok, digest, files)


def _check_pair(sniffed):
    """ValueError unless the files are GPT-2's two halves, one of each."""
    kinds = [one.kind for one in sniffed]
    if len(sniffed) != 2 or kinds.count("gpt2-vocab") != 1 or kinds.count("gpt2-merges") != 1:
        found = ", ".join(f"{one.name} ({KINDS.get(one.kind, one.kind)})" for one in sniffed)
        raise ValueError(f"{len(sniffed)} files make one tokenizer only when they are GPT-2's "
                         f"pair (encoder.json + vocab.bpe, or vocab.json + merges.txt); got "
                         f"{found}. Open the others one at a time")


def load_model_text(text, source="model"):
    """A .model file's contents -> RegexTokenizer if it has a split pattern, else
    BasicTokenizer."""
    lines = text.split("\n", 2)
    has_pattern = len(lines) > 1 and lines[0].strip() == MODEL_VERSION and lines[1] != ""
    tok = RegexTokenizer() if has_pattern else BasicTokenizer()
    tok.load_text(text, source=source)
    tok.name = os.path.basename(source)
    return tok


def _load_ranks(data, source, pattern, special_tokens, known):
    ranks = parse_ranks(data, source)
    if known is not None:
        pattern = known["pattern"] if pattern is None else pattern
        if special_tokens is None:
            special_tokens = known["special_tokens"]
        if "llama" in known["name"].lower():  # the owner's cut of long runs too
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
    return load_files({path: data, other: read_file(other)}, pattern=pattern,
                      special_tokens=special_tokens)


def _load_folder(path, pattern, special_tokens):
    """A folder: GPT-2's pair in it, else its one tokenizer.json or tokenizer.model."""
    for vocab_name, merges_name in zip(gpt2.VOCAB_NAMES, gpt2.MERGES_NAMES):
        vocab, merges = os.path.join(path, vocab_name), os.path.join(path, merges_name)
        if os.path.isfile(vocab) and os.path.isfile(merges):
            return load_files({vocab: read_file(vocab), merges: read_file(merges)}, pattern=pattern,
                              special_tokens=special_tokens)
    for name in ("tokenizer.json", "tokenizer.model"):
        if os.path.isfile(os.path.join(path, name)):
            return load(os.path.join(path, name), pattern=pattern,
                        special_tokens=special_tokens)
    raise ValueError(f"{path} is a folder without GPT-2's pair (encoder.json + vocab.bpe, or "
                     "vocab.json + merges.txt), tokenizer.json or tokenizer.model; give the "
                     "tokenizer file itself")


# ------------------------------------------------------------------ one format each
def load_hf_bytes(data, source="tokenizer.json"):
    """tokenizer_from_hf on a file's bytes; ValueError naming the file for anything that is
    not a tokenizer.json we can read (not UTF-8, not JSON, nested too deep, a wrong shape)."""
    parsed = parse_document(data, source)  # a Unigram vocab stays text until it is read
    try:
        # the parse is ours alone: its model lists may go once the model is built from them
        return tokenizer_from_hf(parsed, source=source, consume=True)
    except (TypeError, AttributeError, KeyError, IndexError, RecursionError) as e:
        # a shape no check above foresaw: still one message naming the file, no traceback
        raise ValueError(f"{source}: not a tokenizer.json this lab can read "
                         f"({type(e).__name__}: {str(e)[:80]})") from None


def load_sentencepiece(data, source="tokenizer.model", name=None):
    """A SentencePieceTokenizer over a SentencePiece model's bytes; ValueError naming the
    file when it is not a model sentencepiece can run."""
    try:
        info = model_info(data)
    except ValueError as e:
        raise ValueError(f"{source} looks like a SentencePiece model but is not a readable "
                         f"one ({e})") from None
    try:
        import sentencepiece  # noqa: F401  (optional: only this kind needs it)
    except ImportError:
        raise ValueError(f"{source} is a SentencePiece model; opening it needs the "
                         "sentencepiece package: pip install sentencepiece") from None
    try:
        return SentencePieceTokenizer(bytes(data), name=name or source,
                                      model_type=info.model_type,
                                      dummy_prefix=info.dummy_prefix)
    except RuntimeError as e:  # sentencepiece's own refusal
        why = str(e).splitlines()[-1][:200]
        raise ValueError(f"{source}: sentencepiece could not load this model ({why})") from None
