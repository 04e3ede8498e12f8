"""RegexTokenizer: BPE within the chunks of a split pattern.

A split pattern cuts text into chunks before BPE runs, so no token ever spans two
chunks: letters, digits, punctuation and whitespace stay apart. The presets, by name,
are bpe/patterns/__init__.py's (tiktoken's patterns of today, with the possessive quantifiers
and `\\s++$` that older copies lack). This file does not train; see train.py.
"""

from .base import Tokenizer
from .counting.chunks import auto_workers, count_chunks

# GPT2_SPLIT_PATTERN and GPT4_SPLIT_PATTERN are also minbpe's names in this module
from .patterns import GPT2_SPLIT_PATTERN, GPT4_SPLIT_PATTERN, PATTERNS, compile_pattern, safety  # noqa: F401
from .patterns import fast_split

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
        self.is_preset = self.pattern in PATTERNS.values()
        # each preset has an exact, faster pure-Python split (patterns/fast_split.py)
        if self.is_preset:
            self._findall = fast_split.for_pattern(self.pattern) or self.compiled_pattern.findall
        else:
            self._findall = self._findall_limited

    def _check_pattern(self, pattern, where):
        try:
            compile_pattern(pattern)
        except ValueError as e:
            raise ValueError(f"{where}: {e}") from None

    def split(self, text):
        chunks = self._findall(text)
        if not self.is_preset and sum(map(len, chunks)) != len(text):
            _raise_uncovered(self.compiled_pattern, text, self.pattern)
        return chunks

    def _findall_limited(self, text):
        """findall under bpe.patterns.safety' time limit; ValueError naming the pattern if it runs
        away."""
        return safety.findall_within(self.compiled_pattern, text, pattern=self.pattern)

    def count_chunks(self, text):
        if self.is_preset:
            return count_chunks(self.split, text, workers=auto_workers(text))
        return super().count_chunks(text)


def _raise_uncovered(compiled, text, pattern):
    pos, end = 0, len(text)
    for m in safety.finditer_within(compiled, text, pattern=pattern):
        if m.start() != pos:
            end = m.start()
            break
        pos = m.end()
    raise ValueError(f"the split pattern skips {text[pos:min(end, pos + 20)]!r} at character "
                     f"{pos}, so that text would be lost; add an alternative that matches it "
                     r"(ending the pattern with |\s+|. catches everything)")
