"""GPT-4's split pattern, run by the stdlib `re` instead of the `regex` module: the GPT-4
case of bpe.patterns.fast_split (which holds the method, the ASCII form of the pattern
and the character classes), kept under its old name.

>>> gpt4_split("Hello world's 1234 naïve  ſ!\\n")
['Hello', ' world', "'s", ' ', '123', '4', ' naïve', ' ', ' ſ', '!\\n']
"""
from . import GPT4_SPLIT_PATTERN
from .fast_split import GPT4_ASCII_PATTERN, for_pattern  # noqa: F401 (re-exported)

gpt4_split = for_pattern(GPT4_SPLIT_PATTERN)
