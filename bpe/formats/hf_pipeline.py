"""Hugging Face tokenizers' pipeline, run in Python exactly as `tokenizers` runs it: the
normalizers and pre-tokenizers that byte-level BPE files use (Pipeline), and the regex
flavour of its engine, Oniguruma (hf_pattern out, pattern_from_hf in). bpe.formats.hf reads and
writes the files; this module only turns text into the pieces BPE then merges. Any other
component is refused with a ValueError naming it.
"""
import unicodedata

import regex

from .. import budgets
from ..patterns import PATTERNS, safety
from ..regex import compile_pattern


def hf_pattern(pattern):
    """Our regex (Python's `regex` module) rewritten so Oniguruma, HF's engine, splits alike:
    `$` -> `\\Z` and `^` -> `\\A` (Oniguruma's `$`/`^` are line anchors), and possessive
    intervals `X{m,n}+` -> `(?>X{m,n})` (Oniguruma reads the `+` as a repeat of the interval).

    >>> hf_pattern(r"\\p{N}{1,3}+|\\s++$")
    '(?>\\\\p{N}{1,3})|\\\\s++\\\\Z'
    """
    return _rewrite(pattern, escape=lambda piece: piece, anchor={"$": "\\Z", "^": "\\A"},
                    wrap=lambda interval, after: ("(?>", 1) if after == "+" else None)


def _rewrite(pattern, escape, anchor, wrap):
    """The walk both flavour rewrites share: pattern with each escape replaced by
    escape(piece), each `$`/`^` by anchor[c], and each interval `X{m,n}` followed by the
    character `after` turned into head + X{m,n} + ")" when wrap(interval, after) gives
    (head, skip) (skip: how many characters of after that eats; None keeps it as it is)."""
    out = []        # pieces of the rewritten pattern
    atom = None     # index in out where the last complete atom starts
    groups = []     # indexes in out where open groups start
    i, n = 0, len(pattern)
    while i < n:
        c = pattern[i]
        if c == "\\":
            j = i + 2
            if pattern[i + 1:i + 2] in ("p", "P", "x", "N") and pattern[j:j + 1] == "{":
                j = pattern.index("}", j) + 1
            atom = len(out)
            out.append(escape(pattern[i:j]))
            i = j
        elif c == "[":
            j = _class_end(pattern, i)
            atom = len(out)
            out.append(pattern[i:j])
            i = j
        elif c == "(":
            groups.append(len(out))
            out.append(c)
            i += 1
        elif c == ")":
            atom = groups.pop() if groups else len(out)
            out.append(c)
            i += 1
        elif c == "{" and atom is not None and _interval_end(pattern, i):
            j = _interval_end(pattern, i)
            how = wrap(pattern[i:j], pattern[j:j + 1])
            if how:
                head, skip = how
                out[atom:] = [head + "".join(out[atom:]) + pattern[i:j] + ")"]
                # what wrap left of after (a `+` or `?`) applies to the wrapped group
                atom = None if skip else len(out) - 1
                j += skip
            else:
                out.append(pattern[i:j])
                atom = None
            i = j
        elif c in "$^":
            out.append(anchor[c])
            atom = None
            i += 1
        else:
            atom = None if c in "|*+?" else len(out)
            out.append(c)
            i += 1
    return "".join(out)


def _class_end(pattern, i):
    """The index just past the character class that starts at pattern[i] == '['."""
    j = i + 1
    if pattern[j:j + 1] == "^":
        j += 1
    if pattern[j:j + 1] == "]":
        j += 1
    depth = 1
    while j < len(pattern):
        if pattern[j] == "\\":
            j += 2
            continue
        if pattern[j] == "[":
            depth += 1
        elif pattern[j] == "]":
            depth -= 1
            if depth == 0:
                return j + 1
        j += 1
    raise ValueError(f"unterminated character class at {i} in {pattern[:60]!r}")


def _interval_end(pattern, i):
    """If pattern[i:] starts with a {m}, {m,} or {m,n} quantifier, the index past it."""
    j = pattern.find("}", i)
    body = pattern[i + 1:j] if j > 0 else ""
    if body and all(part.isdigit() or part == "" for part in body.split(",")) \
            and body.count(",") <= 1 and body[0].isdigit():
        return j + 1
    return 0


def _pattern_from_hf(hf):
    """Undo hf_pattern: Oniguruma's \\Z, \\A back to our $ and ^ (atomic groups stay)."""
    return hf.replace("\\Z", "$").replace("\\A", "^")


# ByteLevel's own split (use_regex=true), as tokenizers writes it
BYTE_LEVEL_PATTERN = r"'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+"
# Rust's char::is_whitespace: the Unicode White_Space property, which Strip trims
WHITE_SPACE = "\t\n\x0b\x0c\r \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006" \
              "\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000"
# The characters Unicode assigned after 9.0 that normalization changes or combines (their
# canonical parts included). tokenizers normalizes with Unicode 9.0's tables (its crate
# unicode-normalization-alignments), where they are unassigned: it leaves them as they
# are, and nothing combines across them. Python's unicodedata (14.0 in 3.11) would not.
# Listed with Perl's \p{In=9.0} (Unicode 14); tests/test_hf.py checks every code point.
NEWER_THAN_HF = regex.compile(
    "([\u07FD\u0898-\u089F\u08CA-\u08D3\u09FE\u0C3C\u0D3B-\u0D3C\u0EBA\u1715"
    "\u1ABF-\u1ACE\u1DF6-\u1DFA\u32FF\uA7F2-\uA7F4\uA82C\uAB66-\uAB67\uAB69"
    "\U00010781-\U00010785\U00010787-\U000107B0\U000107B2-\U000107BA"
    "\U00010D24-\U00010D27\U00010EAB-\U00010EAC\U00010F46-\U00010F50"
    "\U00010F82-\U00010F85\U00011070\U0001133B\U0001145E\U00011839-\U0001183A"
    "\U00011930\U00011935\U00011938\U0001193D-\U0001193E\U00011943\U000119E0"
    "\U00011A34\U00011A47\U00011A99\U00011D42\U00011D44-\U00011D45\U00011D97"
    "\U00016FF0-\U00016FF1\U0001DF04-\U0001DF06\U0001DF08\U0001DF0A\U0001DF1E"
    "\U0001E130-\U0001E136\U0001E2AE\U0001E2EC-\U0001E2EF\U0001F16C"
    "\U0001FBF0-\U0001FBF9])")


# Capital letters of Unicode 15 and 16 that Rust's to_lowercase (so tokenizers' Lowercase)
# knows and Python 3.11's str.lower (Unicode 14) does not: (first, last, offset to small)
NEWER_CAPITALS = ((0x1C89, 0x1C89, 1), (0xA7CB, 0xA7CB, -42343), (0xA7CC, 0xA7CC, 1),
                  (0xA7CE, 0xA7CE, 1), (0xA7D2, 0xA7D2, 1), (0xA7D4, 0xA7D4, 1),
                  (0xA7DA, 0xA7DA, 1), (0xA7DC, 0xA7DC, -42561), (0x10D50, 0x10D65, 32),
                  (0x16EA0, 0x16EB8, 27))
LOWER_NEWER = {c: c + offset for first, last, offset in NEWER_CAPITALS
               for c in range(first, last + 1)}  # str.translate's table


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


# they only add ids around a sequence (and mend offsets), which encode leaves out
POST_PROCESSORS = ("ByteLevel", "TemplateProcessing", "RobertaProcessing")
SPLIT_BEHAVIORS = ("Removed", "Isolated", "MergedWithPrevious", "MergedWithNext", "Contiguous")


class Pipeline:
    """A tokenizer.json's normalizer and pre-tokenizer, run as `tokenizers` runs them:
    text -> normalized text -> pieces (each then byte-level encoded and merged). Only the
    components below are implemented; any other is refused by name:
    normalizers NFC, NFD, NFKC, NFKD, Lowercase, Strip, Replace, Prepend, Sequence;
    pre-tokenizers ByteLevel (add_prefix_space, use_regex), Split (String or Regex
    pattern, every behavior, invert), Digits, Sequence; decoders ByteLevel (or none);
    post-processors ByteLevel, TemplateProcessing, RobertaProcessing (the ids they add are
    not part of encode, which is HF's add_special_tokens=False)."""

    def __init__(self, normalizers, steps):
        self.normalizers = normalizers  # list of str -> str
        self.steps = steps              # list of (list of str) -> list of str
        self.pattern = None             # set by from_json when the file is one of ours

    @classmethod
    def from_json(cls, data):
        normalizers = [_normalizer(n) for n in _flatten(data.get("normalizer"), "normalizers")]
        pre = _flatten(data.get("pre_tokenizer"), "pretokenizers")
        steps, seen_byte_level = [], False
        for step in pre:
            kind = step.get("type") if isinstance(step, dict) else None
            if seen_byte_level and kind != "ByteLevel":
                raise ValueError(f"the pre-tokenizer {kind!r} comes after ByteLevel (so it "
                                 "would see byte-level characters); not supported")
            if kind == "ByteLevel":
                seen_byte_level = True
            steps.append(_pre_tokenizer(step))
        if not seen_byte_level and not _byte_level_decoder(data):
            raise ValueError("neither the pre-tokenizer nor the decoder is ByteLevel, so this "
                             "is not a byte-level BPE")
        _check_decoder(data.get("decoder"))
        _check_post_processor(data.get("post_processor"))
        pipeline = cls(normalizers, steps)
        pipeline.pattern = _our_pattern(normalizers, pre)
        return pipeline

    def is_ours(self):
        """The shape our export writes: no normalizer, [Split(Isolated)], ByteLevel plain."""
        return self.pattern is not None

    def normalize(self, text):
        for normalize in self.normalizers:
            text = normalize(text)
        return text

    def pieces(self, text):
        return self.pre_tokenize(self.normalize(text))

    def pre_tokenize(self, normalized):
        """Normalized text -> the pieces BPE merges (an added token's leftovers come here
        already normalized: bpe.formats.hf_added)."""
        pieces = [normalized] if normalized else []
        for step in self.steps:
            pieces = [piece for piece in step(pieces) if piece]
        return pieces


def _flatten(component, key):
    """A component, or a Sequence of them (nested), as a flat list; [] for None."""
    if component is None:
        return []
    if not isinstance(component, dict):
        raise ValueError(f"expected a component object, found {str(component)[:40]!r}")
    if component.get("type") == "Sequence":
        out = []
        for part in budgets.expect(component.get(key) or [], list, f'"{key}"'):
            out += _flatten(part, key)
        return out
    return [component]


def _normalizer(spec):
    kind = spec.get("type")
    if kind in ("NFC", "NFD", "NFKC", "NFKD"):
        return lambda text: unicode_9_normalize(kind, text)
    if kind == "Lowercase":
        # Rust lowercases char by char (no final-sigma rule, unlike str.lower()), and knows
        # capitals newer than Python's Unicode
        return lambda text: text.lower() if text.isascii() else "".join(
            map(str.lower, text)).translate(LOWER_NEWER)
    if kind == "Strip":
        left, right = spec.get("strip_left", True), spec.get("strip_right", True)

        def strip(text):
            if left:
                text = text.lstrip(WHITE_SPACE)
            if right:
                text = text.rstrip(WHITE_SPACE)
            return text
        return strip
    if kind == "Replace":
        find = _pattern_of(spec, "Replace")
        content = budgets.expect(spec.get("content", ""), str, 'the Replace normalizer\'s "content"')
        return lambda text: find.sub(lambda m: content, text)
    if kind == "Prepend":
        prefix = budgets.expect(spec.get("prepend", ""), str, 'the Prepend normalizer\'s "prepend"')
        return lambda text: prefix + text if text else text
    raise ValueError(f"the normalizer {kind!r} is not implemented here (only NFC, NFD, NFKC, "
                     "NFKD, Lowercase, Strip, Replace, Prepend and Sequence are)")


def _pattern_of(spec, kind):
    """A Split/Replace 'pattern' ({'String': s} or {'Regex': r}) compiled for `regex`,
    through bpe.budgets (a file's regex is bounded before it compiles)."""
    pattern = spec.get("pattern")
    if isinstance(pattern, dict) and isinstance(pattern.get("String"), str):
        return safety.compile_checked(regex.escape(pattern["String"]), what=f"{kind} string")
    if isinstance(pattern, dict) and isinstance(pattern.get("Regex"), str):
        ours = None
        try:
            ours = pattern_from_hf(pattern["Regex"])
            return safety.compile_checked(ours, what="regex")
        except (ValueError, IndexError) as e:
            # limits names the rewritten regex; name the file's instead
            reason = str(e)
            if ours is not None:
                for head in ("invalid regex ", "regex "):
                    reason = reason.removeprefix(f"{head}{safety.short(ours)}: ")
            raise ValueError(f"the {kind} regex {pattern['Regex'][:60]!r} cannot be read: "
                             f"{reason}") from None
    raise ValueError(f"the {kind} needs a pattern {{'String': ...}} or {{'Regex': ...}}, "
                     f"found {str(pattern)[:40]!r}")


def _pre_tokenizer(spec):
    kind = spec.get("type") if isinstance(spec, dict) else None
    if kind == "ByteLevel":
        prefix, use_regex = spec.get("add_prefix_space", True), spec.get("use_regex", True)
        split = _splitter(regex.compile(BYTE_LEVEL_PATTERN), "Isolated", False)

        def byte_level(pieces):
            if prefix:
                pieces = [p if p.startswith(" ") else " " + p for p in pieces]
            return split(pieces) if use_regex else pieces
        return byte_level
    if kind == "Split":
        behavior = spec.get("behavior")
        if behavior not in SPLIT_BEHAVIORS:
            raise ValueError(f"the Split behavior {behavior!r} is unknown; expected one of "
                             f"{', '.join(SPLIT_BEHAVIORS)}")
        return _splitter(_pattern_of(spec, "Split"), behavior, bool(spec.get("invert")))
    if kind == "Digits":
        digits = regex.compile(r"\p{N}" if spec.get("individual_digits") else r"\p{N}+")
        return _splitter(digits, "Isolated", False)
    raise ValueError(f"the pre-tokenizer {kind!r} is not implemented here (only ByteLevel, "
                     "Split, Digits and Sequence are)")


def _splitter(compiled, behavior, invert):
    """pieces -> pieces, cut where compiled matches, as tokenizers' split() with behavior."""
    def split(pieces):
        out = []
        for piece in pieces:
            spans, prev = [], 0  # (start, end, is_match), covering the piece
            # a file's regex may backtrack catastrophically: bpe.patterns.safety' time limit
            for m in safety.finditer_within(compiled, piece, what="Split regex"):
                if m.start() != prev:
                    spans.append([prev, m.start(), invert])
                spans.append([m.start(), m.end(), not invert])
                prev = m.end()
            if prev != len(piece):
                spans.append([prev, len(piece), invert])
            out += [piece[a:b] for a, b in _apply_behavior(spans, behavior)]
        return out
    return split


def _apply_behavior(spans, behavior):
    """tokenizers' SplitDelimiterBehavior on (start, end, is_match) spans -> kept spans."""
    if behavior == "Isolated":
        return [(a, b) for a, b, _ in spans]
    if behavior == "Removed":
        return [(a, b) for a, b, is_match in spans if not is_match]
    merged, previous = [], False
    if behavior == "MergedWithNext":
        for a, b, is_match in reversed(spans):
            if is_match and not previous and merged:
                merged[-1][0] = a
            else:
                merged.append([a, b])
            previous = is_match
        return merged[::-1]
    for a, b, is_match in spans:
        join = (is_match and not previous) if behavior == "MergedWithPrevious" \
            else is_match == previous  # Contiguous
        if join and merged:
            merged[-1][1] = b
        else:
            merged.append([a, b])
        previous = is_match
    return merged


def _byte_level_decoder(data):
    return any(d.get("type") == "ByteLevel" for d in _flatten(data.get("decoder"), "decoders"))


def _check_decoder(decoder):
    for step in _flatten(decoder, "decoders"):
        if step.get("type") != "ByteLevel":
            raise ValueError(f"the decoder {step.get('type')!r} is not implemented here (only "
                             "ByteLevel is)")


def _check_post_processor(post):
    for step in _flatten(post, "processors"):
        if step.get("type") not in POST_PROCESSORS:
            raise ValueError(f"the post-processor {step.get('type')!r} is not implemented "
                             "here (only ByteLevel, TemplateProcessing and RobertaProcessing "
                             "are)")


def _our_pattern(normalizers, pre):
    """Our split pattern if the pipeline is exactly the shape save_hf writes ("" for
    ByteLevel alone), else None."""
    if normalizers or not pre:
        return None
    *splits, last = pre
    if last.get("type") != "ByteLevel" or last.get("add_prefix_space", True) \
            or last.get("use_regex", True) or len(splits) > 1:
        return None
    if not splits:
        return ""
    split = splits[0]
    hf_regex = split.get("pattern")
    hf_regex = hf_regex.get("Regex") if isinstance(hf_regex, dict) else None
    if split.get("type") != "Split" or split.get("behavior") != "Isolated" \
            or split.get("invert") or not isinstance(hf_regex, str):
        return None
    pattern = _pattern_from_hf(hf_regex)
    for preset in PATTERNS.values():
        if hf_regex == hf_pattern(preset):
            return preset  # a preset again, so it splits fast and on all cores
    try:
        compile_pattern(pattern)
    except ValueError:
        return None
    return pattern if hf_pattern(pattern) == hf_regex else None


def pattern_from_hf(onig):
    """An Oniguruma regex (as in tokenizer.json) rewritten for Python's `regex` module, so
    both match alike: `$`/`^` are line anchors there ((?m:$), (?m:^) here), `\\z` is `\\Z`
    here, and `X{m,n}+` is a repeat of the interval there (`(?:X{m,n})+` here).

    >>> pattern_from_hf(r"\\p{N}{1,3}+|\\s+$|\\z")
    '(?:\\\\p{N}{1,3})+|\\\\s+(?m:$)|\\\\Z'
    """
    # Oniguruma (Ruby syntax): {m,n}+ repeats the interval (not possessive), and {n}?
    # makes it optional (not lazy)
    return _rewrite(onig, escape=lambda piece: "\\Z" if piece == "\\z" else piece,
                    anchor={"$": "(?m:$)", "^": "(?m:^)"},
                    wrap=lambda interval, after: ("(?:", 0) if after == "+" or (
                        after == "?" and "," not in interval) else None)
