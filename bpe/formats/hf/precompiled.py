"""SentencePiece's precompiled normalizer (tokenizer.json's `Precompiled`, from a model's
`normalizer_spec.precompiled_charsmap`), applied as `tokenizers` applies it.

The charsmap blob (base64 in the file) is a little-endian u32 giving the trie's size in
bytes, the trie (a darts-clone double array of u32 units), then the replacement strings,
each ending in NUL. A text is read grapheme cluster by grapheme cluster: a cluster shorter
than 6 UTF-8 bytes whose start the trie knows is replaced whole by the replacement of the
SHORTEST key that prefixes it; otherwise each character of it is looked up the same way
and replaced, or kept. (That is what tokenizers does, quirks included; it is not quite
SentencePiece's own longest-match normalizer, which bpe does not claim to reproduce.)
Bounds (bpe.budgets): no replacement string is longer than MAX_REPLACEMENT_BYTES (checked
at load, so a charsmap bomb is refused before it runs: bpe.formats.sentencepiece checks a
.model's charsmap with the same `Precompiled`), and each text's output is counted against
the growth budget before it is joined.
This module only normalizes; bpe.formats.hf.normalizers holds the other normalizers.
"""
import base64
import binascii
import struct
import sys
from array import array

import regex

from ... import budgets
from .parts import Memo, Normalizer

GRAPHEME = regex.compile(r"\X")


class Precompiled(Normalizer):
    def __init__(self, blob, what="the Precompiled normalizer's charsmap"):
        if len(blob) < 4:
            raise ValueError(f"{what} is shorter than its header; "
                             "re-export the tokenizer.json from its SentencePiece model")
        (size,) = struct.unpack_from("<I", blob)
        if size % 4 or 4 + size > len(blob):
            raise ValueError(f"{what} has a trie size that does not fit the blob; "
                             "re-export the tokenizer.json")
        self.strings = bytes(blob[4 + size:])
        # before anything runs: the longest replacement bounds what one byte can become
        longest = max(map(len, self.strings.split(b"\0")))
        if longest > budgets.MAX_REPLACEMENT_BYTES:
            raise ValueError(f"{what} replaces a character with {longest:,} bytes; this lab "
                             f"allows at most {budgets.MAX_REPLACEMENT_BYTES} (NFKC's longest "
                             "is 33), so a text cannot grow without bound")
        try:
            self.strings.decode("utf-8")
        except UnicodeDecodeError:
            raise ValueError(f"{what}: its replacement strings are not UTF-8; "
                             "re-export the tokenizer.json") from None
        # an array, not a tuple: no int object per unit (issue 32: T5's charsmap is 44k
        # units above 256, 1.6 MB as ints; 0.2 MB packed)
        self.units = array("I", bytes(blob[4:4 + size]))
        if sys.byteorder == "big":
            self.units.byteswap()
        self._memo = {}
        self._graphemes = Memo(self._grapheme)

    @classmethod
    def from_json(cls, spec):
        charsmap = spec.get("precompiled_charsmap")
        if charsmap is None or charsmap == "":
            return cls(struct.pack("<I", 0))  # an empty map: tokenizers leaves text alone
        if not isinstance(charsmap, str):
            raise ValueError("the Precompiled normalizer needs 'precompiled_charsmap' as a "
                             "base64 string")
        try:
            blob = base64.b64decode(charsmap, validate=True)
        except (binascii.Error, ValueError):
            raise ValueError("the Precompiled normalizer's 'precompiled_charsmap' is not "
                             "base64; re-export the tokenizer.json") from None
        return cls(blob)

    def first_value(self, key):
        """The value of the shortest trie key that prefixes key (bytes), or None
        (darts-clone's common prefix search, first result)."""
        units = self.units
        if not units:
            return None

        def offset(unit):
            return (unit >> 10) << ((unit & (1 << 9)) >> 6)
        pos = offset(units[0])
        for c in key:
            if c == 0:
                return None
            pos ^= c
            if pos >= len(units):
                return None
            unit = units[pos]
            if unit & ((1 << 31) | 0xFF) != c:
                return None
            pos ^= offset(unit)
            if (unit >> 8) & 1:
                if pos >= len(units):
                    return None
                return units[pos] & ((1 << 31) - 1)
        return None

    def transform(self, chunk):
        """The replacement for chunk (str), or None to keep it."""
        memo = self._memo
        if chunk in memo:
            return memo[chunk]
        value = self.first_value(chunk.encode("utf-8"))
        out = None
        if value is not None and value <= len(self.strings):
            end = self.strings.find(b"\0", value)
            raw = self.strings[value:end if end >= 0 else len(self.strings)]
            try:
                out = raw.decode("utf-8")
            except UnicodeDecodeError:
                out = None  # tokenizers would fail on a cut inside a character
        if len(memo) < 100_000:
            memo[chunk] = out
        return out

    def apply(self, text):
        memo = self._graphemes
        if len(memo) > 200_000:
            memo.clear()
        parts = list(map(memo.__getitem__, GRAPHEME.findall(text)))  # shared strings
        budgets.check_growth(len(text), sum(map(len, parts)), "the normalizer Precompiled")
        return "".join(parts)

    def _grapheme(self, grapheme):
        """One grapheme cluster's replacement (the rule in the module's docstring)."""
        if len(grapheme.encode("utf-8")) < 6:
            norm = self.transform(grapheme)
            if norm is not None:
                return norm
        return "".join(ch if norm is None else norm
                       for ch, norm in zip(grapheme, map(self.transform, grapheme)))

    def chunks(self, text):
        out = []
        transform = self.transform
        grow = budgets.Growth(len(text), "the normalizer Precompiled").add
        for m in GRAPHEME.finditer(text):
            grapheme, start = m.group(), m.start()
            if len(grapheme.encode("utf-8")) < 6:
                norm = transform(grapheme)
                if norm is not None:
                    grow(len(norm))
                    out.append((start, m.end(), norm))
                    continue
            for i, ch in enumerate(grapheme, start):
                norm = transform(ch)
                norm = ch if norm is None else norm
                grow(len(norm))
                out.append((i, i + 1, norm))
        return out
