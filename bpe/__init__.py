"""bpe: exact, fast byte-pair encoding tokenizers, after minbpe's API and tiktoken's manners.

Files: `load(path)` / `load_bytes(data, filename)` open every format (bpe.formats); each
format has one home: bpe.formats.model (minbpe .model/.vocab), bpe.formats.ranks (tiktoken ranks),
bpe.formats.hf (Hugging Face tokenizer.json, its pipeline in bpe.formats.hf_pipeline).
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
from .formats.loader import load, load_bytes
from .formats.model import render_token
from .health import health_report
from .patterns import PATTERNS
from .ranks_tokenizer import GPT4Tokenizer, RanksTokenizer
from .patterns import compile_pattern
from .regex import RegexTokenizer
from .registry import (
    Encoding,
    encoding_for_model,
    encoding_name_for_model,
    get_encoding,
    list_encoding_names,
)
from .train import MergeProgress

__all__ = [
    "Tokenizer", "BasicTokenizer", "RegexTokenizer", "GPT4Tokenizer", "RanksTokenizer",
    "MergeProgress", "PATTERNS", "compile_pattern", "render_token", "load", "load_bytes",
    "ExtendedTokenizer", "extend_vocabulary", "health_report",
    "Encoding", "get_encoding", "list_encoding_names", "encoding_for_model",
    "encoding_name_for_model",
]
