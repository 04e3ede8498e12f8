"""bpe: exact, fast byte-pair encoding tokenizers, after minbpe's API and tiktoken's manners.

Files: `load(path)` / `load_bytes(data, filename)` open every format (bpe.formats); each
format has one home: bpe.model (minbpe .model/.vocab), bpe.ranks (tiktoken ranks),
bpe.hf (Hugging Face tokenizer.json, its pipeline in bpe.hf_pipeline).

>>> from bpe import RegexTokenizer
>>> tok = RegexTokenizer().train("aaabdaaabac", 256 + 3)
>>> tok.encode("aaabdaaabac")
[258, 100, 258, 97, 99]
"""
from .base import Tokenizer
from .basic import BasicTokenizer
from .extend import ExtendedTokenizer, extend_vocabulary
from .formats import load, load_bytes
from .gpt4 import GPT4Tokenizer, RanksTokenizer
from .health import health_report
from .model import render_token
from .patterns import PATTERNS
from .regex import RegexTokenizer, compile_pattern
from .train import MergeProgress

__all__ = [
    "Tokenizer", "BasicTokenizer", "RegexTokenizer", "GPT4Tokenizer", "RanksTokenizer",
    "MergeProgress", "PATTERNS", "compile_pattern", "render_token", "load", "load_bytes",
    "ExtendedTokenizer", "extend_vocabulary", "health_report",
]
