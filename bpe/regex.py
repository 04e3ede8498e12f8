"""RegexTokenizer: BPE within the chunks of a split pattern.

A split pattern cuts text into chunks before BPE runs, so no token ever spans two
chunks: letters, digits, punctuation and whitespace stay apart. The presets, by name,
are bpe/patterns.py's (tiktoken's patterns of today, with the possessive quantifiers
and `\\s++$` that older copies lack). This file does not train; see train.py.
"""
import regex

from . import limits
from .base import Tokenizer
from .count import auto_workers, count_chunks
# GPT2_SPLIT_PATTERN and GPT4_SPLIT_PATTERN are also minbpe's names in this module
from .patterns import GPT2_SPLIT_PATTERN, GPT4_SPLIT_PATTERN, PATTERNS  # noqa: F401
from .split import gpt4_split

# A custom pattern (a visitor's or a file's) is bounded before it compiles and split under
# a time limit (catastrophic backtracking, e.g. "(a|a)+$"): both are bpe.limits', the one
# home of those budgets. The presets are ours, compiled as they are and run with no limit.


def compile_pattern(pattern):
    """A preset name or a regex string -> (pattern string, compiled regex). A regex that
    is not a preset goes through bpe.limits.compile_pattern: bounded before it compiles,
    kept out of the regex module's cache, capture groups made non-capturing (the pattern
    string returned is still the one given).

    >>> compile_pattern("gpt2")[1].findall("Hello world!!")
    ['Hello', ' world', '!!']
    >>> compile_pattern(r"(\\w+)|(\\W+)")[1].findall("hi!")
    ['hi', '!']
    """
    if pattern is None:
        pattern = "gpt4"
    if not isinstance(pattern, str):
        raise TypeError(f"pattern must be a str (a regex or one of {sorted(PATTERNS)}), "
                        f"not {type(pattern).__name__}")
    pattern = PATTERNS.get(pattern, pattern)
    if not pattern:
        raise ValueError(f"the split pattern is empty; give a regex or one of {sorted(PATTERNS)}"
                         ", or use BasicTokenizer for no split at all")
    if pattern in PATTERNS.values():
        return pattern, regex.compile(pattern)
    return pattern, limits.compile_pattern(pattern)


class RegexTokenizer(Tokenizer):
    """BPE over bytes, within the chunks of a split pattern (GPT-4's by default)."""

    def __init__(self, pattern=None):
        """pattern: None (GPT-4's), a preset name ("gpt2", "gpt4", "gpt4o") or a regex."""
        super().__init__()
        self._set_pattern(pattern)

    def _set_pattern(self, pattern):
        self.pattern, self.compiled_pattern = compile_pattern(pattern)
        # the presets match every character and look neither behind nor far ahead; a
        # custom pattern may skip characters (findall would silently drop them, so its
        # splits are checked) and is split whole, not piece by piece
        self._is_preset = self.pattern in PATTERNS.values()
        # GPT-4's pattern has an exact, faster splitter (split.py); the others use regex
        if self.pattern == GPT4_SPLIT_PATTERN:
            self._findall = gpt4_split
        elif self._is_preset:
            self._findall = self.compiled_pattern.findall
        else:
            self._findall = self._findall_limited

    def _check_pattern(self, pattern, where):
        try:
            compile_pattern(pattern)
        except ValueError as e:
            raise ValueError(f"{where}: {e}") from None

    def _split(self, text):
        chunks = self._findall(text)
        if not self._is_preset and sum(map(len, chunks)) != len(text):
            _raise_uncovered(self.compiled_pattern, text, self.pattern)
        return chunks

    def _findall_limited(self, text):
        """findall under bpe.limits' time limit; ValueError naming the pattern if it runs
        away."""
        return limits.findall_within(self.compiled_pattern, text, pattern=self.pattern)

    def _count_chunks(self, text):
        if self._is_preset:
            return count_chunks(self._split, text, workers=auto_workers(text))
        return super()._count_chunks(text)

    def _encode_chunk(self, text_bytes):
        return _merge_by_pairs(text_bytes, self.merges)


def _raise_uncovered(compiled, text, pattern):
    pos, end = 0, len(text)
    for m in limits.finditer_within(compiled, text, pattern=pattern):
        if m.start() != pos:
            end = m.start()
            break
        pos = m.end()
    raise ValueError(f"the split pattern skips {text[pos:min(end, pos + 20)]!r} at character "
                     f"{pos}, so that text would be lost; add an alternative that matches it "
                     r"(ending the pattern with |\s+|. catches everything)")


def _merge_by_pairs(text_bytes, merges):
    from .encode import apply_merges
    return apply_merges(list(text_bytes), lambda a, b: merges.get((a, b)))
