"""Hugging Face normalizers, run as `tokenizers` runs them, each able to say which
characters of its input every output character came from (for token_spans).

A normalizer here has `apply(text) -> str` (the fast path encode takes) and
`chunks(text) -> [(start, end, replacement)]` covering text in order, whose
replacements joined are apply(text): each output character is then known to come from
text[start:end] (tokenizers' own alignments are the same or finer). Implemented:
NFC, NFD, NFKC, NFKD, Lowercase, Strip, StripAccents, Replace, Prepend, BertNormalizer,
Nmt, Precompiled (bpe.formats.hf.precompiled) and Sequence; any other is refused by name.
Unicode tables: tokenizers normalizes with Unicode 9.0's and classifies with its crates'
own; Python's are 14.0, so characters assigned since may differ (the known ones are
handled below). It knows nothing of pre-tokenizers or models (bpe.formats.hf.pipeline).
"""
import unicodedata

import regex

from ... import budgets
from ...patterns import safety
from .parts import WHITE_SPACE, Memo, Normalizer, flatten, pattern_of
from .precompiled import Precompiled
from .unicode import (CF_KEPT, LOWER_NEWER, MARK_FLIP, MN_FLIP,  # noqa: F401
                      NEWER_THAN_HF, char_class)

def unicode_9_normalize(form, text):
    """unicodedata.normalize(form, text) as tokenizers does it, with Unicode 9.0's tables:
    the characters of NEWER_THAN_HF stay as they are, and each stretch between them is
    normalized on its own.

    >>> unicode_9_normalize("NFKC", "\U0001FBF0 ①")  # SEGMENTED DIGIT ZERO is from 13.0
    '\U0001fbf0 1'
    """
    if text.isascii():
        return text
    parts = NEWER_THAN_HF.split(text)
    if len(parts) == 1:
        return unicodedata.normalize(form, text)
    return "".join(part if i % 2 else unicodedata.normalize(form, part)
                   for i, part in enumerate(parts))



def check_growth(original, text, what):
    """text, if it is within the growth budget (bpe.budgets) of original."""
    budgets.check_growth(len(original), len(text), f"the normalizer {what}")
    return text


class CharMap(Normalizer):
    """Each character replaced on its own by fn(ch) (a str, maybe empty), remembered per
    distinct character so a long text costs one C-level pass."""

    def __init__(self, fn, fast=None):
        self.fn, self.fast = fn, fast
        self.memo = Memo(fn)

    def apply(self, text):
        if self.fast is not None:
            return self.fast(text)
        return "".join(map(self.memo.__getitem__, text))

    def chunks(self, text):
        get = self.memo.__getitem__
        return [(i, i + 1, get(ch)) for i, ch in enumerate(text)]


class UnicodeForm(Normalizer):
    """NFC/NFD/NFKC/NFKD with Unicode 9.0's tables. Chunks: single characters, else runs
    that start at a character of canonical combining class 0, whichever normalized apart
    gives the same text (else the whole text is one chunk: honest, if coarse)."""

    def __init__(self, form):
        self.form = form

    def apply(self, text):
        return unicode_9_normalize(self.form, text)

    def chunks(self, text):
        whole = self.apply(text)
        form = self.form
        # finest first: each character on its own (NFD, NFKD and most text), then runs
        # from each character of combining class 0, then the whole text
        out = [(i, i + 1, unicode_9_normalize(form, ch)) for i, ch in enumerate(text)]
        if "".join(repl for _, _, repl in out) == whole:
            return out
        starts = [i for i, ch in enumerate(text) if i == 0 or (
            unicodedata.combining(ch) == 0 and not 0x1160 <= ord(ch) <= 0x11FF)]
        bounds = starts + [len(text)]
        out = [(a, b, unicode_9_normalize(form, text[a:b])) for a, b in zip(bounds, bounds[1:])]
        if "".join(repl for _, _, repl in out) == whole:
            return out
        return [(0, len(text), whole)] if text else []


class Strip(Normalizer):
    def __init__(self, left, right):
        self.left, self.right = left, right

    def bounds(self, text):
        a, b = 0, len(text)
        if self.left:
            a = b - len(text.lstrip(WHITE_SPACE))
        if self.right:
            b = max(a, len(text.rstrip(WHITE_SPACE)))
        return a, b

    def apply(self, text):
        a, b = self.bounds(text)
        return text[a:b]

    def chunks(self, text):
        a, b = self.bounds(text)
        return [(i, i + 1, "") for i in range(a)] + ([(a, b, text[a:b])] if b > a else []) \
            + [(i, i + 1, "") for i in range(b, len(text))]


class Replace(Normalizer):
    """Every match of a pattern replaced by content (tokenizers' NormalizedString.replace),
    the output checked against the budget as it grows, the regex under its time limit."""

    def __init__(self, compiled, content):
        self.compiled, self.content = compiled, content

    def chunks(self, text):
        out, prev = [], 0
        growth = budgets.Growth(len(text), "the normalizer Replace")
        growth.add(len(text))
        for m in safety.finditer_within(self.compiled, text, what="Replace regex"):
            a, b = m.span()
            if a > prev:
                out.append((prev, a, text[prev:a]))
            out.append((a, b, self.content))
            growth.add(len(self.content) - (b - a))  # before the output is built
            prev = b
        if prev < len(text):
            out.append((prev, len(text), text[prev:]))
        return out


class Prepend(Normalizer):
    """The prefix before a non-empty text, within the growth budget before it is built."""

    def __init__(self, prefix):
        self.prefix = prefix

    def apply(self, text):
        if not text:
            return text
        budgets.check_growth(len(text), len(self.prefix) + len(text), "the normalizer Prepend")
        return self.prefix + text

    def chunks(self, text):
        if not text:
            return []
        budgets.check_growth(len(text), len(self.prefix) + len(text), "the normalizer Prepend")
        rest = [(1, len(text), text[1:])] if len(text) > 1 else []
        return [(0, 1, self.prefix + text[0])] + rest


def lowercase(text):
    """Rust's to_lowercase char by char (no final-sigma rule, unlike str.lower()), with
    the capitals newer than Python's Unicode."""
    return text.lower() if text.isascii() else "".join(map(str.lower, text)).translate(LOWER_NEWER)


def _lower_char(ch):
    return ch.lower().translate(LOWER_NEWER)


def is_mark(ch):
    """StripAccents' is_combining_mark: category M* by Unicode 9.0's tables."""
    return (unicodedata.category(ch)[0] == "M") != bool(_MARK_FLIP.match(ch))


def _bert_clean(ch):
    # removed: NUL, U+FFFD and "other" characters but \t \n \r (the crate's other: Cc,
    # Cf, Co, Cs, not unassigned ones, and by its older tables: CF_KEPT); then whitespace
    # (Rust's, plus \t \n \r) becomes a space
    if ch in "\t\n\r":
        return " "
    if ch == "\x00" or ch == "\ufffd" or (
            unicodedata.category(ch) in ("Cc", "Cf", "Co", "Cs") and not _CF_KEPT.match(ch)):
        return ""
    return " " if ch in WHITE_SPACE else ch


_MN_FLIP = regex.compile(f"[{char_class(MN_FLIP)}]")
_CF_KEPT = regex.compile(f"[{char_class(CF_KEPT)}]")
_MARK_FLIP = regex.compile(f"[{char_class(MARK_FLIP)}]")


def _is_nonspacing(ch):
    """The crate's is_mark_nonspacing: category Mn by its older tables."""
    return (unicodedata.category(ch) == "Mn") != bool(_MN_FLIP.match(ch))


_NMT_DROPPED = {*range(0x01, 0x09), 0x0B, *range(0x0E, 0x20), 0x7F, 0x8F, 0x9F}
_NMT_SPACES = {0x09, 0x0A, 0x0C, 0x0D, 0x1680, *range(0x200B, 0x2010), 0x2028, 0x2029,
               0x2581, 0xFEFF, 0xFFFD}


def _nmt(ch):
    """Nmt: some ASCII controls removed, some spaces and formats made a space."""
    c = ord(ch)
    return "" if c in _NMT_DROPPED else " " if c in _NMT_SPACES else ch


def _is_chinese(ch):
    c = ord(ch)
    return (0x4E00 <= c <= 0x9FFF or 0x3400 <= c <= 0x4DBF or 0x20000 <= c <= 0x2A6DF
            or 0x2A700 <= c <= 0x2B73F or 0x2B740 <= c <= 0x2B81F or 0x2B920 <= c <= 0x2CEAF
            or 0xF900 <= c <= 0xFAFF or 0x2F800 <= c <= 0x2FA1F)


def bert_normalizer(spec):
    """BertNormalizer as the Sequence it runs: clean_text, handle_chinese_chars,
    strip_accents (NFD, then no nonspacing marks; unset: follows lowercase), lowercase."""
    steps = []
    if spec.get("clean_text", True):
        steps.append(CharMap(_bert_clean))
    if spec.get("handle_chinese_chars", True):
        steps.append(CharMap(lambda ch: f" {ch} " if _is_chinese(ch) else ch))
    strip_accents = spec.get("strip_accents")
    lower = spec.get("lowercase", True)
    if strip_accents if strip_accents is not None else lower:
        steps += [UnicodeForm("NFD"),
                  CharMap(lambda ch: "" if _is_nonspacing(ch) else ch)]
    if lower:
        steps.append(CharMap(_lower_char, lowercase))
    return steps


def normalizers_from_json(component):
    """A tokenizer.json "normalizer" (None, one, or a nested Sequence) -> [Normalizer]."""
    out = []
    for spec in flatten(component, "normalizers"):
        out += _normalizer(spec)
    return out


def _normalizer(spec):
    kind = spec.get("type")
    if kind in ("NFC", "NFD", "NFKC", "NFKD"):
        return [UnicodeForm(kind)]
    if kind == "Lowercase":
        return [CharMap(_lower_char, lowercase)]
    if kind == "Strip":
        return [Strip(spec.get("strip_left", True), spec.get("strip_right", True))]
    if kind == "StripAccents":
        return [CharMap(lambda ch: "" if is_mark(ch) else ch)]
    if kind == "Replace":
        content = budgets.expect(spec.get("content", ""), str,
                                 'the Replace normalizer\'s "content"')
        return [Replace(pattern_of(spec, "Replace"), content)]
    if kind == "Prepend":
        return [Prepend(budgets.expect(spec.get("prepend", ""), str,
                                       'the Prepend normalizer\'s "prepend"'))]
    if kind == "BertNormalizer":
        return bert_normalizer(spec)
    if kind == "Nmt":
        return [CharMap(_nmt)]
    if kind == "Precompiled":
        return [Precompiled.from_json(spec)]
    raise ValueError(f"the normalizer {kind!r} is not implemented here (only NFC, NFD, NFKC, "
                     "NFKD, Lowercase, Strip, StripAccents, Replace, Prepend, BertNormalizer, "
                     "Precompiled, Nmt and Sequence are); ByteLevel as a normalizer is refused "
                     "(use the ByteLevel pre-tokenizer, as GPT-2's files do)")


def normalize(normalizers, text):
    """text through each normalizer (fast path), within the growth budget."""
    original = text
    for step in normalizers:
        text = step.apply(text)
        check_growth(original, text, type(step).__name__)
    return text


def normalize_aligned(normalizers, text, spans):
    """(normalized text, spans): spans[i] is the (start, end) of the original text that
    normalized character i came from; given spans for text's own characters."""
    original = text
    for step in normalizers:
        new_text, new_spans = [], []
        for a, b, repl in step.chunks(text):
            if not repl:
                continue
            if b - a == len(repl) and text[a:b] == repl:  # unchanged: each keeps its own
                new_text.append(repl)
                new_spans += spans[a:b]
                continue
            if b > a:
                span = (spans[a][0], spans[b - 1][1])
            else:  # inserted text: it stands for nothing, at its place
                at = spans[a][0] if a < len(spans) else (spans[-1][1] if spans else 0)
                span = (at, at)
            new_text.append(repl)
            new_spans += [span] * len(repl)
        text, spans = "".join(new_text), new_spans
        check_growth(original, text, type(step).__name__)
    return text, spans
