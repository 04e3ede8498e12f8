"""Hugging Face tokenizers' pipeline before the model, run in Python exactly as
`tokenizers` runs it: text -> normalized text -> pieces (Pipeline; the components are
bpe.formats.hf_normalizers and bpe.formats.hf_pre_tokenizers), and the regex flavour of its
engine, Oniguruma (hf_pattern out, pattern_from_hf in). bpe.formats.hf reads and writes the
files; the models that turn pieces into ids are bpe.formats.hf_models / hf_bytelevel.
"""
from ..patterns import PATTERNS
from ..regex import compile_pattern
from .hf_normalizers import (LOWER_NEWER, NEWER_THAN_HF, WHITE_SPACE, flatten,  # noqa: F401
                             normalize, normalize_aligned, normalizers_from_json,
                             unicode_9_normalize)
from .hf_pre_tokenizers import (BYTE_LEVEL_PATTERN, SPLIT_BEHAVIORS,  # noqa: F401
                                pre_tokenizers_from_json)


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



class Pipeline:
    """A tokenizer.json's normalizer and pre-tokenizer, run as `tokenizers` runs them:
    text -> normalized text -> pieces (each then encoded by the model). Components are
    listed in bpe.formats.hf_normalizers and hf_pre_tokenizers; any other is refused by
    name. byte_level: the pre-tokenizer or the decoder is ByteLevel (GPT-2's kind)."""

    def __init__(self, normalizers, steps, byte_level=False):
        self.normalizers = normalizers  # list of hf_normalizers.Normalizer
        self.steps = steps              # list of (pieces, at_start) -> pieces
        self.byte_level = byte_level
        self.pattern = None             # set by from_json when the file is one of ours

    @classmethod
    def from_json(cls, data):
        normalizers = normalizers_from_json(data.get("normalizer"))
        pre = flatten(data.get("pre_tokenizer"), "pretokenizers")
        steps = pre_tokenizers_from_json(data.get("pre_tokenizer"))
        byte_level = any(step.get("type") == "ByteLevel" for step in pre) or any(
            step.get("type") == "ByteLevel" for step in flatten(data.get("decoder"), "decoders"))
        pipeline = cls(normalizers, steps, byte_level)
        pipeline.pattern = _our_pattern(normalizers, pre)
        return pipeline

    def is_ours(self):
        """The shape our export writes: no normalizer, [Split(Isolated)], ByteLevel plain."""
        return self.pattern is not None

    def normalize(self, text):
        return normalize(self.normalizers, text)

    def normalize_aligned(self, text, spans):
        return normalize_aligned(self.normalizers, text, spans)

    def pieces(self, text):
        return self.pre_tokenize(self.normalize(text))

    def pre_tokenize(self, normalized, at_start=True):
        """Normalized text -> the pieces the model encodes (an added token's leftovers come
        here already normalized: bpe.formats.hf_added). at_start: normalized starts the
        original text (Metaspace's prepend_scheme "first" reads it)."""
        return [text for text, _, _ in self.pre_tokenize_pieces(normalized, at_start)]

    def pre_tokenize_pieces(self, normalized, at_start=True):
        """As pre_tokenize, each piece as (text, start, shift): see hf_pre_tokenizers."""
        pieces = [(normalized, 0, 0)] if normalized else []
        for step in self.steps:
            pieces = [piece for piece in step(pieces, at_start) if piece[0]]
        return pieces


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
