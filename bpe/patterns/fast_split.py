"""Exact, faster splits for the split patterns of the real tokenizers: each pattern run by
the stdlib `re` on ASCII stand-ins instead of by the `regex` module on the text.

A split pattern asks only a few questions of a character: is it a letter (an uppercase
one? lowercase?), a mark, a number, white space, CR or LF, "/", "'", a space, one of the
contraction letters? Two characters with the same answers to every question the pattern
asks cannot be told apart by it, so a text can be mapped, one character to one, onto
stand-ins with the same answers (str.translate; ASCII stands for itself, so an ASCII text
needs no mapping at all), split by a form of the pattern that spells those classes out
for the stand-ins, which `re` runs about twice as fast as `regex` runs the Unicode one,
and the chunks cut from the original text at the same offsets.

The answers for each non-ASCII character are asked of `regex` itself (pinned to the
Unicode version tiktoken's tables use) the first time it is met, and its stand-in is the
first candidate with exactly those answers; tests check every code point. A character
with no such candidate (none is known) sends the text to `regex`.

`for_pattern(pattern)` is the fast split of a known pattern (GPT-2's, GPT-4's, GPT-4o's,
Llama 3's, Tekken's), or None. It knows no tokenizer.
"""
import re
from bisect import bisect_left, bisect_right
from itertools import accumulate

import regex

RARE_SHIFT = 6  # fewer non-ASCII runs than 1 in 2**RARE_SHIFT characters: map run by run
STAND_INS_LIMIT = 1 << 16  # characters remembered per table; a server may meet all 1.1M

_S = r"\t\n\x0b\x0c\r "  # regex's \s within ASCII (not \x1c-\x1f, which re's \s takes)
# the contractions, spelled case by case (re's (?i) would also fold the stand-ins)
_CONTRACTIONS = r"'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD]"
# non-ASCII stand-ins for GPT-4o's classes that ASCII lacks: a caseless letter (U+00AA,
# Lo: upper and lower class at once) and a combining mark (U+0300, Mn: both, not \p{L})
_CASELESS, _MARK = "\u00aa", "\u0300"
_UP, _LOW = rf"A-Z{_CASELESS}{_MARK}", rf"a-z{_CASELESS}{_MARK}"
_L = rf"A-Za-z{_CASELESS}"


class Classes:
    """The questions a pattern asks of a character, and the stand-ins that answer them.

    tests: regexes each matching one character; candidates: the stand-ins, best first.
    """

    def __init__(self, tests, candidates):
        self.tests = [regex.compile(t).fullmatch for t in tests]
        self.by_answers = {}
        for c in candidates:
            self.by_answers.setdefault(self.answers(c), c)

    def answers(self, ch):
        return tuple(bool(test(ch)) for test in self.tests)

    def stand_in(self, ch):
        """The stand-in with ch's answers, or None."""
        return self.by_answers.get(self.answers(ch))


_CANDIDATES = "\t!0aA" + "".join(map(chr, range(128))) + _CASELESS + _MARK
_LETTERS = "sdmtlver"  # the contraction letters ('s 'd 'm 't 'll 've 're)
GPT4_CLASSES = Classes([r"\p{L}", r"\p{N}", r"\s", r"\r", r"\n", "'", " "] +
                       [f"(?i:{x})" for x in _LETTERS], _CANDIDATES)
GPT2_CLASSES = Classes([r"\p{L}", r"\p{N}", r"\s", "'", " "] + list(_LETTERS), _CANDIDATES)
GPT4O_CLASSES = Classes([r"[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]", r"[\p{Ll}\p{Lm}\p{Lo}\p{M}]",
                         r"\p{L}", r"\p{N}", r"\s", r"\r", r"\n", "/", "'", " "] +
                        [f"(?i:{x})" for x in _LETTERS], _CANDIDATES)


class _NoStandIn(Exception):
    """A character no candidate stands for: split this text with regex instead."""


class _StandIns(dict):
    """code point -> stand-in code point, filled the first time a character is met."""

    def __init__(self, classes):
        super().__init__(_ASCII)
        self.classes = classes

    def __missing__(self, cp):
        if len(self) > STAND_INS_LIMIT:
            self.clear()
            self.update(_ASCII)
        stand_in = self.classes.stand_in(chr(cp))
        if stand_in is None:
            raise _NoStandIn(cp)
        self[cp] = ord(stand_in)
        return self[cp]


_ASCII = {cp: cp for cp in range(128)}
_non_ascii_runs = re.compile(r"[^\x00-\x7f]+").finditer


class FastSplit:
    """A callable text -> regex.findall(pattern, text), computed with `re` on stand-ins
    (ascii_pattern) or, for an ASCII text, with ascii_only (by default ascii_pattern).
    It pickles as its pattern (a worker process rebuilds it with for_pattern)."""

    def __init__(self, ascii_pattern, classes, pattern, ascii_only=None):
        self.pattern = pattern
        self.ascii_findall = re.compile(ascii_pattern).findall
        self.only_findall = re.compile(ascii_only).findall if ascii_only else self.ascii_findall
        self.stand_ins = _StandIns(classes)
        self.slow = regex.compile(pattern).findall

    def __call__(self, text):
        if text.isascii():
            return self.only_findall(text)
        try:
            return _split_mapped(text, self.ascii_findall, self.stand_ins)
        except _NoStandIn:
            return self.slow(text)

    def __reduce__(self):
        return for_pattern, (self.pattern,)


def _split_mapped(text, ascii_findall, stand_ins):
    runs = [m.span() for m in _non_ascii_runs(text)]
    if len(runs) > len(text) >> RARE_SHIFT:
        # much non-ASCII text: map it all, then cut every chunk from the original
        coded = ascii_findall(text.translate(stand_ins))
        ends = list(accumulate(map(len, coded)))
        return list(map(text.__getitem__, map(slice, [0, *ends[:-1]], ends)))
    # mostly ASCII: map only the non-ASCII runs, and re-cut only the chunks they touch
    # (an ASCII character stands for itself, so every other chunk is already right)
    pieces = []
    done = 0
    for start, end in runs:
        pieces.append(text[done:start])
        pieces.append(text[start:end].translate(stand_ins))
        done = end
    pieces.append(text[done:])
    chunks = ascii_findall("".join(pieces))
    ends = list(accumulate(map(len, chunks)))
    for start, end in runs:
        i = bisect_right(ends, start)  # the chunk holding the run's first character
        j = bisect_left(ends, end)     # ... and its last
        for k in range(i, j + 1):
            chunks[k] = text[ends[k - 1] if k else 0:ends[k]]
    return chunks


# ------------------------------------------------------------------ the patterns
GPT4_ASCII_PATTERN = (
    r"'(?:[sdmtSDMT]|[lL][lL]|[vV][eE]|[rR][eE])"
    r"|[^\r\nA-Za-z0-9]?+[A-Za-z]++"
    r"|[0-9]{1,3}+"
    rf"| ?[^{_S}A-Za-z0-9]++[\r\n]*+"
    rf"|[{_S}]++$"
    rf"|[{_S}]*[\r\n]"
    rf"|[{_S}]+(?![^{_S}])"
    rf"|[{_S}]"
)
GPT2_ASCII_PATTERN = (
    r"'(?:[sdmt]|ll|ve|re)| ?[A-Za-z]++| ?[0-9]++"
    rf"| ?[^{_S}A-Za-z0-9]++|[{_S}]++$|[{_S}]+(?![^{_S}])|[{_S}]"
)
LLAMA3_ASCII_PATTERN = (
    rf"(?:{_CONTRACTIONS})|[^\r\nA-Za-z0-9]?[A-Za-z]+|[0-9]{{1,3}}"
    rf"| ?[^{_S}A-Za-z0-9]+[\r\n]*|[{_S}]*[\r\n]+|[{_S}]+(?![^{_S}])|[{_S}]+"
)
_GPT4O_WORDS = (rf"[^\r\n{_L}0-9]?[{_UP}]*[{_LOW}]+(?:{_CONTRACTIONS})?"
                rf"|[^\r\n{_L}0-9]?[{_UP}]+[{_LOW}]*(?:{_CONTRACTIONS})?")
_GPT4O_REST = (rf"| ?[^{_S}{_L}0-9]+[\r\n/]*|[{_S}]*[\r\n]+|[{_S}]+(?![^{_S}])|[{_S}]+")
GPT4O_ASCII_PATTERN = _GPT4O_WORDS + "|[0-9]{1,3}" + _GPT4O_REST
TEKKEN_ASCII_PATTERN = _GPT4O_WORDS.replace(f"(?:{_CONTRACTIONS})?", "") + "|[0-9]" + _GPT4O_REST

# For texts that are all ASCII, possessive forms (faster: no backtracking into a run). On
# ASCII the classes each run is made of are disjoint from what may follow it, and what
# follows is optional, so giving back a character never lets a match succeed that failed.
# (Not on mapped text: the caseless stand-in is in both the upper and the lower class.)
_GPT4O_ASCII_WORDS = (rf"[^\r\nA-Za-z0-9]?+[A-Z]*+[a-z]++(?:{_CONTRACTIONS})?+"
                      rf"|[^\r\nA-Za-z0-9]?+[A-Z]++[a-z]*+(?:{_CONTRACTIONS})?+")
_ASCII_REST = (rf"| ?+[^{_S}A-Za-z0-9]++[\r\n/]*+|[{_S}]*[\r\n]+|[{_S}]+(?![^{_S}])|[{_S}]+")
GPT4O_ASCII_ONLY = _GPT4O_ASCII_WORDS + "|[0-9]{1,3}+" + _ASCII_REST
TEKKEN_ASCII_ONLY = (_GPT4O_ASCII_WORDS.replace(f"(?:{_CONTRACTIONS})?+", "") + "|[0-9]"
                     + _ASCII_REST)
LLAMA3_ASCII_ONLY = (rf"(?:{_CONTRACTIONS})|[^\r\nA-Za-z0-9]?+[A-Za-z]++|[0-9]{{1,3}}+"
                     + _ASCII_REST.replace("/]*+", "]*+"))

# Llama 3's and Tekken's patterns (bpe.reference has Llama 3's; Tekken's is in its file)
LLAMA3_SPLIT_PATTERN = (
    r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*"
    r"|\s*[\r\n]+|\s+(?!\S)|\s+"
)
TEKKEN_SPLIT_PATTERN = (
    r"[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+"
    r"|[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*"
    r"|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+"
)
_splits = {}  # pattern -> its fast split, made on first use


def _known():
    from . import GPT2_SPLIT_PATTERN, GPT4_SPLIT_PATTERN, GPT4O_SPLIT_PATTERN
    return {
        GPT4_SPLIT_PATTERN: (GPT4_ASCII_PATTERN, GPT4_CLASSES),
        GPT2_SPLIT_PATTERN: (GPT2_ASCII_PATTERN, GPT2_CLASSES),
        GPT4O_SPLIT_PATTERN: (GPT4O_ASCII_PATTERN, GPT4O_CLASSES, GPT4O_ASCII_ONLY),
        LLAMA3_SPLIT_PATTERN: (LLAMA3_ASCII_PATTERN, GPT4_CLASSES, LLAMA3_ASCII_ONLY),
        TEKKEN_SPLIT_PATTERN: (TEKKEN_ASCII_PATTERN, GPT4O_CLASSES, TEKKEN_ASCII_ONLY),
    }


def for_pattern(pattern):
    """The fast split of pattern (a function text -> list of chunks, exactly
    regex.findall(pattern, text)), or None if it has none.

    >>> from bpe.patterns import GPT4O_SPLIT_PATTERN
    >>> for_pattern(GPT4O_SPLIT_PATTERN)("Hello WORLDs don't 12345 naïve ÉTÉ\\n")
    ['Hello', ' WORLDs', " don't", ' ', '123', '45', ' naïve', ' ÉTÉ', '\\n']
    """
    if pattern not in _splits:
        known = _known().get(pattern)
        if known is None:
            return None
        _splits[pattern] = FastSplit(known[0], known[1], pattern, *known[2:])
    return _splits[pattern]
