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
Unicode version tiktoken's tables use) the first time it is met, together with the rest
of its block of STAND_INS_BLOCK code points (one regex scan per question), and its stand-in
is the first candidate with exactly those answers; tests check every code point. A
character with no such candidate (none is known) sends the text to `regex`.

`for_pattern(pattern)` is the fast split of a known pattern (GPT-2's, GPT-4's, GPT-4o's,
Llama 3's, Tekken's), or None. Its `encode` also turns the chunks into ids through the
caller's caches, ASCII text a word at a time (see "encoding by words" below). It knows no
tokenizer and encodes no chunk itself.
"""
import re
from itertools import accumulate, chain, compress, repeat
from operator import add, is_, lt
from string import ascii_letters

import regex

RARE_SHIFT = 6  # non-ASCII runs closer than 2**RARE_SHIFT characters are mapped together
STAND_INS_LIMIT = 1 << 16  # characters remembered per table; a server may meet all 1.1M
STAND_INS_BLOCK = 128  # code points given stand-ins together (0x110000 is a multiple)

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
        self.finders = [regex.compile(t).finditer for t in tests]
        self.by_bits = {}
        for c, bits in zip(candidates, self.bits(candidates)):
            self.by_bits.setdefault(bits, c)

    def answers(self, ch):
        """ch's answers, a fullmatch per question (tests/bpe/test_split.py checks bits by it)."""
        return tuple(bool(test(ch)) for test in self.tests)

    def bits(self, chars):
        """Each character's answers as an int (bit k: the k-th question's), every question
        asked once of all of chars: one regex scan per question instead of a call per
        question and character (15 calls a new character cost ~15 us, and a cold server may
        meet 1.1M). subtle: each question matches exactly one character, so the scan's
        matches are exactly the characters it answers yes for."""
        out = [0] * len(chars)
        for k, finditer in enumerate(self.finders):
            bit = 1 << k
            for m in finditer(chars):
                out[m.start()] |= bit
        return out

    def stand_ins_of(self, chars):
        """The stand-in with each character's answers (None where there is none)."""
        return list(map(self.by_bits.get, self.bits(chars)))

    def stand_in(self, ch):
        """The stand-in with ch's answers, or None."""
        return self.stand_ins_of(ch)[0]


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
    """code point -> stand-in code point, filled a block of STAND_INS_BLOCK code points at a
    time the first time one of them is met (a script's characters sit together, and one
    scan per question answers a block)."""

    def __init__(self, classes):
        super().__init__(_ASCII)
        self.classes = classes
        self.answered = set()  # first code points of the blocks filled since the last clear

    def __missing__(self, cp):
        block = cp - cp % STAND_INS_BLOCK
        if block not in self.answered:
            if len(self) + STAND_INS_BLOCK > STAND_INS_LIMIT:
                self.clear()
                self.update(_ASCII)
                self.answered.clear()
            cps = range(block, block + STAND_INS_BLOCK)
            stand_ins = self.classes.stand_ins_of("".join(map(chr, cps)))
            self.update((c, ord(s)) for c, s in zip(cps, stand_ins) if s is not None)
            self.answered.add(block)
        # answered, and no candidate has its answers (or another thread's clear came
        # between: a race can only send a text to regex, which is exact)
        if cp not in self:
            raise _NoStandIn(cp)
        return self[cp]


_ASCII = {cp: cp for cp in range(128)}
_non_ascii_run = re.compile(r"[^\x00-\x7f]+").search
ASCII_BLOCK = 1024  # characters checked at once for being all ASCII


def _next_non_ascii(text, pos=0):
    """The match of the next run of non-ASCII characters at or after pos, or None.
    subtle: `re` tests a character class at ~12 ns a character, while slicing and
    str.isascii check a block at ~1 ns a character: mostly-ASCII text is skipped by blocks."""
    n = len(text)
    while pos < n and text[pos:pos + ASCII_BLOCK].isascii():
        pos += ASCII_BLOCK
    return _non_ascii_run(text, pos)
# an ASCII letter before a space or LF: a chunk boundary in every pattern here (no chunk
# holds a letter and then white space), and where the text can be cut: the piece before
# ends in a letter, so no test that looks at the end of the text ($, (?!\S)) can
# succeed there, and none of the patterns looks behind
_next_boundary = re.compile(r"[A-Za-z](?=[ \n])").search


class FastSplit:
    """A callable text -> regex.findall(pattern, text), computed with `re` on stand-ins
    (ascii_pattern) or, for ASCII text and the ASCII stretches of a text, with ascii_only
    (by default ascii_pattern).
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
            return _split_mapped(text, self.ascii_findall, self.only_findall, self.stand_ins)
        except _NoStandIn:
            return self.slow(text)

    def __reduce__(self):
        return for_pattern, (self.pattern,)

    def encode(self, text, chunk_ids, words):
        """The ids of text: chunk_ids[chunk] for each chunk of self(text), joined in order.
        chunk_ids: chunk str -> list of ids, a dict that fills itself (bpe.chunk_cache's
        ChunkCache). words: word -> the ids of " " + word, a plain dict this fills (kept
        under WORDS_LIMIT entries) and reads.

        >>> from bpe.patterns import GPT2_SPLIT_PATTERN
        >>> class Lengths(dict):
        ...     def __missing__(self, chunk):
        ...         return [len(chunk)]
        >>> for_pattern(GPT2_SPLIT_PATTERN).encode("Hi  you,\\n all", Lengths(), {})
        [2, 1, 4, 1, 1, 4]
        """
        glued = _glue(text)
        if glued is None:  # the text holds WORD_GLUE itself: chunk by chunk
            return list(chain.from_iterable(map(chunk_ids.__getitem__, self(text))))
        parts = glued.split(" ")
        # the text before the first space is a unit with no space in front
        ids = list(chain.from_iterable(map(chunk_ids.__getitem__, self(
            parts[0].replace(WORD_GLUE, " ")))))
        del parts[0]
        found = list(map(words.get, parts))
        if None in found:
            new = self._new_words(list(dict.fromkeys(compress(parts, map(is_, found, repeat(None))))),
                                  chunk_ids)
            found = list(map(new.get, parts, found))
            if len(words) + len(new) > WORDS_LIMIT:
                words.clear()
            words.update(new)
            # long words are rare: kept, they would only cost memory (as in the chunk cache)
            if max(map(len, new)) > WORD_CHARS:
                for word in compress(new, map(lt, repeat(WORD_CHARS), map(len, new))):
                    del words[word]
        ids += chain.from_iterable(found)
        return ids

    def _new_words(self, missing, chunk_ids):
        """{word: ids of " " + word} for words not seen before, all split by one call of
        the split on " " + the words joined by spaces (each but the last ends in a character that
        is not white space, so the chunks break where the words do)."""
        joined = " " + " ".join(missing)
        glued = WORD_GLUE in joined
        if glued:
            joined = joined.replace(WORD_GLUE, " ")
        chunks = self(joined)
        chunk_lists = list(map(chunk_ids.__getitem__, chunks))
        flat = list(chain.from_iterable(chunk_lists))  # the ids of joined
        # which chunks begin a word (and the end, the last "start"). subtle: every word
        # begins a chunk, as the patterns never let a chunk cross a word's end (see
        # "encoding by words"); without glue a space is found only where a word begins
        if glued:  # a glued word holds spaces: a chunk's start offset tells instead
            word_starts = set(accumulate(map(add, map(len, missing), repeat(1)), initial=0))
            begins = map(word_starts.__contains__, accumulate(map(len, chunks), initial=0))
        else:
            begins = chain(map(str.startswith, chunks, repeat(" ")), (True,))
        bounds = list(compress(accumulate(map(len, chunk_lists), initial=0), begins))
        return dict(zip(missing, map(flat.__getitem__, map(slice, bounds, bounds[1:]))))


def _split_mapped(text, ascii_findall, only_findall, stand_ins):
    """The split of a text that is not all ASCII. Each stretch around non-ASCII runs, from
    a boundary (see _next_boundary) before to one after, is mapped onto stand-ins, split by
    ascii_findall and its chunks cut from the original at the same offsets; the ASCII
    text between such stretches is split in place by only_findall (no mapping, no cutting,
    and the possessive ASCII pattern where there is one)."""
    chunks = []
    for start, end, mapped in _stretches(text):
        if mapped:
            chunks += _mapped_chunks(text[start:end], ascii_findall, stand_ins)
        else:
            chunks += only_findall(text, start, end)
    return chunks


def _mapped_chunks(stretch, ascii_findall, stand_ins):
    """stretch split by ascii_findall on its stand-ins, the chunks cut from stretch."""
    ends = list(accumulate(map(len, ascii_findall(stretch.translate(stand_ins)))))
    return list(map(stretch.__getitem__, map(slice, [0, *ends[:-1]], ends)))


def _stretches(text):
    """(start, end, mapped) covering text in order, each from a boundary (see
    _next_boundary) to one: mapped stretches hold non-ASCII runs (those closer than
    2**RARE_SHIFT characters together), the others are all ASCII."""
    done = 0  # text[:done] is covered, and done is a boundary
    run = _next_non_ascii(text)
    while run:
        start = _boundary_before(text, run.start(), done)
        end = run.end()
        while True:  # take in the runs that follow closely (each stretch costs a few calls)
            after = _next_boundary(text, end)
            end = after.end() if after else len(text)
            run = _next_non_ascii(text, end)
            if run is None or run.start() - end >= 1 << RARE_SHIFT:
                break
            end = run.end()
        if done < start:
            yield done, start, False
        yield start, end, True
        done = end
    if done < len(text):
        yield done, len(text), False


# ------------------------------------------------------------------ encoding by words
# In every pattern here a space right after a character that is not white space begins a
# chunk: no chunk holds such a character followed by a space (letters, digits and
# punctuation runs stop before white space; only a chunk's optional first character may
# be a space). So ASCII text cut before those spaces falls into units " " + word, and each
# unit alone splits as it does in place: it ends in a character that is not white space,
# where `$` fails and `(?!\S)` succeeds in both (a space follows in place). str.split(" ")
# cuts at every space in C, so first every space right after white space (which may
# belong to the chunk before, as in cl100k's "\n \n") is glued to its word as WORD_GLUE.
# A known word's ids are then one dict look-up instead of a regex match and a look-up per
# chunk; the new words of a text are split together by one call of the split. The same
# holds of any text (no \p class holds white space), with Unicode's white space glued too.
WORD_GLUE = "\x00"      # stands for a space glued to its word (a text holding it is not cut)
WORD_CHARS = 256        # longer words are encoded but not kept
WORDS_LIMIT = 200_000   # words kept before the dict starts over
# what `regex` calls white space (\s), but the space: a test checks every code point
WHITE_SPACE = ("\t\n\x0b\x0c\r", "\x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006"
               "\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000")  # (ASCII, the rest)
# one C scan finds each run of spaces after white space (or after a space), rather than a
# str.replace scan per kind of white space
_white_then_spaces = re.compile(f"[ {re.escape(''.join(WHITE_SPACE))}] +").sub


def _glue(text):
    """text with each space that follows white space replaced by WORD_GLUE, or None if
    text holds WORD_GLUE itself. (Gluing a space that needed none would only make a longer
    word: a space after white space must never be missed, so the list may hold more.)

    >>> _glue("a  b\\n c d")
    'a \\x00b\\n\\x00c d'
    """
    if WORD_GLUE in text:
        return None
    return _white_then_spaces(_glue_spaces, text)


def _glue_spaces(match):
    """A white space character and the spaces after it: the spaces become WORD_GLUE."""
    found = match[0]
    return found[0] + WORD_GLUE * (len(found) - 1)


def _boundary_before(text, pos, lo):
    """The last boundary (see _next_boundary) at or before pos, and not before lo (which
    is one)."""
    while pos > lo:
        pos = text.rfind(" ", lo, pos)
        if pos <= lo:
            break
        if text[pos - 1] in ascii_letters:
            return pos
    return lo


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
    # inside: bpe.patterns' __init__ imports this module, and the patterns live there
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
