"""BasicTokenizer: BPE over the raw bytes of the whole text, with no split pattern.

Merges may cross word, digit and whitespace boundaries: the tokenizer the regex
split exists to improve on. Training and encoding are the base class's.
"""
from .base import Tokenizer


class BasicTokenizer(Tokenizer):
    """BPE over the bytes of the whole text."""

    def split(self, text):
        return [text] if text else []

    def _check_pattern(self, pattern, where):
        if pattern:
            raise ValueError(f"{where}: this model has a split pattern, so it is a "
                             "RegexTokenizer's; load it with RegexTokenizer or bpe.load()")
