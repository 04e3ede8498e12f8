"""Opening any tokenizer file: `load(path)` and `load_bytes(data, filename)` (for uploads).

By the file name's ending: `.model` (minbpe's format, bpe.formats.model), `.tiktoken` (tiktoken
ranks, bpe.formats.ranks; also `.tiktoken.gz`) or `.json` (Hugging Face tokenizer.json, bpe.formats.hf).
A ranks file holds neither a split pattern nor special tokens, so those are arguments.
This file only dispatches and builds; each format's parsing lives in its own module.

>>> from bpe import RegexTokenizer
>>> tok = load_bytes(RegexTokenizer().model_text().encode(), "mine.model")
>>> type(tok).__name__, tok.pattern == RegexTokenizer().pattern
('RegexTokenizer', True)
"""
import gzip
import os

from ..basic import BasicTokenizer
from ..patterns import PATTERNS
from ..ranks_tokenizer import RanksTokenizer
from ..regex import RegexTokenizer
from .hf import load_hf_bytes
from .model import MODEL_VERSION
from .ranks import WHOLE_TEXT_PATTERN, parse_ranks, recover_merges

FORMATS = {".model": "minbpe .model", ".tiktoken": "tiktoken ranks", ".json": "tokenizer.json"}


def load(path=None, *, text=None, source=None, pattern="gpt4", special_tokens=None):
    """The tokenizer in the file at path, whichever format its name says (see FORMATS), or
    in text, the contents of a .model file. ValueError saying what is wrong if malformed."""
    if text is not None:
        return load_model_text(text, source=source or "model")
    path = os.fspath(path)
    with open(path, "rb") as f:
        data = f.read()
    name = os.path.basename(path)
    if _extension(name) not in FORMATS:
        name += ".model"  # minbpe's load takes any name for a .model file
    return load_bytes(data, name, pattern=pattern, special_tokens=special_tokens,
                      source=source or path)


def load_bytes(data, filename, *, pattern="gpt4", special_tokens=None, source=None):
    """A tokenizer from a file's bytes, by its name's ending: .model (minbpe), .tiktoken
    (ranks; pattern and special_tokens say what the format cannot hold) or .json
    (Hugging Face). ValueError saying what is wrong for anything else or malformed."""
    source = source or filename
    ext = _extension(filename)
    if ext not in FORMATS:
        raise ValueError(f"{filename}: unknown kind of file; expected one of "
                         f"{', '.join(FORMATS)} ({', '.join(FORMATS.values())})")
    if filename.lower().endswith(".gz"):
        try:
            data = gzip.decompress(data)
        except (OSError, EOFError) as e:
            raise ValueError(f"{source} is not a valid gzip file ({e})") from None
    if ext == ".tiktoken":
        return tokenizer_from_ranks(parse_ranks(data, source), pattern, special_tokens,
                                    source=source)
    if ext == ".json":
        return load_hf_bytes(data, source)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise ValueError(f"{source} is not UTF-8 text, so not a {FORMATS[ext]} file") from None
    return load_model_text(text, source)


def load_model_text(text, source="model"):
    """A .model file's contents -> RegexTokenizer if it has a split pattern, else
    BasicTokenizer."""
    lines = text.split("\n", 2)
    has_pattern = len(lines) > 1 and lines[0].strip() == MODEL_VERSION and lines[1] != ""
    tok = RegexTokenizer() if has_pattern else BasicTokenizer()
    tok.load_text(text, source=source)
    return tok


def tokenizer_from_ranks(ranks, pattern="gpt4", special_tokens=None, source="ranks"):
    """A tokenizer over tiktoken ranks: a RegexTokenizer (BasicTokenizer for the whole-text
    pattern) with the merges recovered when the bytes have ids 0-255 and the ranks run on
    without gaps, as ours do; otherwise a RanksTokenizer, which encodes by rank directly."""
    pattern = PATTERNS.get(pattern, pattern)
    ours = (all(ranks.get(bytes([b])) == b for b in range(256))
            and sorted(ranks.values()) == list(range(len(ranks))))
    if not ours:
        return RanksTokenizer(ranks, pattern, special_tokens, name=source)
    try:
        merges = recover_merges(ranks)
    except ValueError as e:
        raise ValueError(f"{source}: {e}") from None
    if pattern in ("", WHOLE_TEXT_PATTERN):
        return BasicTokenizer.from_merges(merges, special_tokens=special_tokens)
    return RegexTokenizer.from_merges(merges, pattern=pattern, special_tokens=special_tokens)


def _extension(filename):
    """'.tiktoken' for 'x.tiktoken' and 'x.tiktoken.gz'; '' if none."""
    name = filename.lower()
    if name.endswith(".gz"):
        name = name[:-3]
    return os.path.splitext(name)[1]
