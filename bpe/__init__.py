"""bpe: exact, fast byte-pair encoding tokenizers, after minbpe's API and tiktoken's manners.

Files: `load(path)` / `load_bytes(data, filename)` / `load_files({name: data})` open every
format, known by its content, not its name (bpe.loading builds it); each format has one home
in bpe.formats: model (minbpe .model/.vocab), ranks (tiktoken ranks, plain or gzip),
sentencepiece (SentencePiece .model protobuf), hf (Hugging Face tokenizer.json), gpt2
(GPT-2's encoder.json + vocab.bpe). `from_vocab_merges(vocab, merges)` builds an exact
tokenizer from any id layout.
Drop-in: minbpe's classes and signatures (encode(text, "all") included), tiktoken's registry
(`get_encoding`, `encoding_for_model`, `Encoding`; bpe.registry), CS336's
`train(text, vocab_size, special_tokens=[...])` and `encode_iterable`.

>>> from bpe import RegexTokenizer
>>> tok = RegexTokenizer().train("aaabdaaabac", 256 + 3)
>>> tok.encode("aaabdaaabac")
[258, 100, 258, 97, 99]
"""
from .base import Tokenizer
from .basic import BasicTokenizer
from .extend import ExtendedTokenizer, extend_vocabulary
from .loading import load, load_bytes, load_files
from .formats.model import render_token
from .health import health_report
from .patterns import PATTERNS
from .patterns import compile_pattern
from .ranks_tokenizer import GPT4Tokenizer, RanksTokenizer
from .regex import RegexTokenizer
from .registry import (
    Encoding,
    encoding_for_model,
    encoding_name_for_model,
    get_encoding,
    list_encoding_names,
)
from .sentencepiece_bpe import SentencePieceTokenizer
from .train import MergeProgress
from .vocab_merges import from_vocab_merges

__all__ = [
    "Tokenizer", "BasicTokenizer", "RegexTokenizer", "GPT4Tokenizer", "RanksTokenizer",
    "MergeProgress", "PATTERNS", "compile_pattern", "render_token", "load", "load_bytes",
    "ExtendedTokenizer", "extend_vocabulary", "health_report",
    "Encoding", "get_encoding", "list_encoding_names", "encoding_for_model",
    "encoding_name_for_model", "load_files", "from_vocab_merges", "SentencePieceTokenizer",
]
