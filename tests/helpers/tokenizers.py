"""Small trained tokenizers for tests, made once per arguments and shared.

`small_tokenizer(text, vocab_size, kind="regex", pattern="gpt4")` trains a Regex (or
Basic) tokenizer on text and caches it for the whole test run: tests must not change
it. The `small_tok` fixture in tests/conftest.py hands this factory to a test.
"""
from functools import lru_cache


@lru_cache(maxsize=32)
def small_tokenizer(text, vocab_size, kind="regex", pattern="gpt4"):
    """A tokenizer trained on text to vocab_size (shared: do not mutate it)."""
    from bpe import BasicTokenizer, RegexTokenizer
    tok = BasicTokenizer() if kind == "basic" else RegexTokenizer(pattern)
    return tok.train(text, vocab_size)
