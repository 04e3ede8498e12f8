"""Hugging Face pre-tokenizers, run as `tokenizers` runs them, on pieces that remember
where they sit in the normalized text (for token_spans).

A piece is (text, start, shift): text is what the model sees; its character j >= shift
is normalized character start + j - shift, and the first `shift` characters were added by
a pre-tokenizer (ByteLevel's prefix space, Metaspace's "▁") and stand for no text.
A step maps a list of pieces to a list of pieces; empty pieces are dropped, as tokenizers
drops them. Implemented: ByteLevel, Split, Digits, Metaspace, Whitespace,
WhitespaceSplit, BertPreTokenizer, Punctuation, CharDelimiterSplit, FixedLength,
UnicodeScripts (bpe.formats.hf.scripts), Sequence; any other is refused by name.
The normalizers are bpe.formats.hf.normalizers'; the models bpe.formats.hf.models'.
"""
import regex

from ...patterns import safety
from .parts import WHITE_SPACE, flatten, pattern_of
from .scripts import ANY, script_class
from .unicode import NUMERIC_ADD, PUNCT_ADD, PUNCT_DROP, char_class

# ByteLevel's own split (use_regex=true), as tokenizers writes it
BYTE_LEVEL_PATTERN = r"'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+"
SPLIT_BEHAVIORS = ("Removed", "Isolated", "MergedWithPrevious", "MergedWithNext", "Contiguous")
_WORD = r"\p{Alphabetic}\p{M}\p{Nd}\p{Pc}\p{Join_Control}"  # the Rust regex crate's \w
_SPACE = regex.escape(WHITE_SPACE)                          # its \s: White_Space
WHITESPACE = regex.compile(f"[{_WORD}]+|[^{_WORD}{_SPACE}]+")
SPACES = regex.compile(f"[{_SPACE}]")
# Rust's is_ascii_punctuation, or the crate unicode_categories' P* (older tables: unicode)
PUNCTUATION = regex.compile(f"[{char_class(PUNCT_ADD)}]|(?![{char_class(PUNCT_DROP)}])"
                            + r"[\p{P}!-/:-@\[-`{-~]")
NUMERIC = r"[\p{N}" + char_class(NUMERIC_ADD) + "]"  # Rust's is_numeric: its tables


def sub(piece, a, b):
    """piece's characters a..b as a piece."""
    text, start, shift = piece
    return text[a:b], start + max(0, a - shift), min(b - a, max(0, shift - a))


def pre_tokenizers_from_json(component):
    """A tokenizer.json "pre_tokenizer" -> [step], a step being (pieces, at_start) ->
    pieces (at_start: the text given starts the original text, for Metaspace "first")."""
    steps, seen_byte_level = [], False
    for spec in flatten(component, "pretokenizers"):
        kind = spec.get("type") if isinstance(spec, dict) else None
        if seen_byte_level and kind != "ByteLevel":
            raise ValueError(f"the pre-tokenizer {kind!r} comes after ByteLevel (so it would "
                             "see byte-level characters); not supported")
        seen_byte_level |= kind == "ByteLevel"
        steps.append(_pre_tokenizer(spec))
    return steps


def _pre_tokenizer(spec):
    kind = spec.get("type") if isinstance(spec, dict) else None
    if kind == "ByteLevel":
        prefix, use_regex = spec.get("add_prefix_space", True), spec.get("use_regex", True)
        split = splitter(regex.compile(BYTE_LEVEL_PATTERN), "Isolated", False)

        def byte_level(pieces, at_start):
            if prefix:
                pieces = [p if p[0].startswith(" ") else (" " + p[0], p[1], p[2] + 1)
                          for p in pieces]
            return split(pieces, at_start) if use_regex else pieces
        return byte_level
    if kind == "Split":
        behavior = spec.get("behavior")
        if behavior not in SPLIT_BEHAVIORS:
            raise ValueError(f"the Split behavior {behavior!r} is unknown; expected one of "
                             f"{', '.join(SPLIT_BEHAVIORS)}")
        return splitter(pattern_of(spec, "Split"), behavior, bool(spec.get("invert")))
    if kind == "Digits":
        return splitter(regex.compile(NUMERIC if spec.get("individual_digits") else NUMERIC + "+"),
                        "Isolated", False)
    if kind == "Metaspace":
        return metaspace(spec)
    if kind == "Whitespace":
        return splitter(WHITESPACE, "Removed", True)
    if kind == "WhitespaceSplit":
        return splitter(SPACES, "Removed", False)
    if kind == "BertPreTokenizer":
        spaces, punct = splitter(SPACES, "Removed", False), splitter(PUNCTUATION, "Isolated", False)
        return lambda pieces, at_start: punct(spaces(pieces, at_start), at_start)
    if kind == "Punctuation":
        behavior = spec.get("behavior", "Isolated")
        if behavior not in SPLIT_BEHAVIORS:
            raise ValueError(f"the Punctuation behavior {behavior!r} is unknown; expected one "
                             f"of {', '.join(SPLIT_BEHAVIORS)}")
        return splitter(PUNCTUATION, behavior, False)
    if kind == "CharDelimiterSplit":
        delimiter = spec.get("delimiter")
        if not isinstance(delimiter, str) or len(delimiter) != 1:
            raise ValueError("CharDelimiterSplit's delimiter must be one character")
        return splitter(regex.compile(regex.escape(delimiter)), "Removed", False)
    if kind == "FixedLength":
        length = spec.get("length", 5)
        if not isinstance(length, int) or isinstance(length, bool) or length < 1:
            raise ValueError("FixedLength's length must be a positive int")
        return lambda pieces, at_start: [sub(piece, a, a + length) for piece in pieces
                                         for a in range(0, len(piece[0]), length)]
    if kind == "UnicodeScripts":
        return unicode_scripts
    raise ValueError(f"the pre-tokenizer {kind!r} is not implemented here (only ByteLevel, "
                     "Split, Digits, Metaspace, Whitespace, WhitespaceSplit, BertPreTokenizer, "
                     "Punctuation, CharDelimiterSplit, FixedLength, UnicodeScripts and Sequence are)")


def unicode_scripts(pieces, at_start):
    """UnicodeScripts: a cut before each character whose script class differs from the
    last one seen ("any" characters, like the space, never cut and are never seen).
    As tokenizers does, a piece starts at its first character that is not "any", so the
    "any" characters before it are dropped (all of a piece that has nothing else)."""
    out, memo = [], {}
    for piece in pieces:
        cuts, last = [], None
        for i, ch in enumerate(piece[0]):
            cls = memo.get(ch)
            if cls is None:
                cls = memo[ch] = script_class(ch)
            if cls != ANY:
                if cls != last:
                    cuts.append(i)
                last = cls
        cuts.append(len(piece[0]))
        out += [sub(piece, a, b) for a, b in zip(cuts, cuts[1:])]
    return out


def metaspace(spec):
    """Metaspace: spaces -> the replacement, the replacement prepended (prepend_scheme
    always; first: only to the piece that starts the text; never), then split before
    each replacement (split=true)."""
    rep = spec.get("replacement", "\u2581")
    if not isinstance(rep, str) or len(rep) != 1:
        raise ValueError(f"Metaspace's replacement must be one character, not {rep!r:.20}")
    scheme = spec.get("prepend_scheme")
    if scheme is None:  # older files: add_prefix_space
        scheme = "always" if spec.get("add_prefix_space", True) else "never"
    if scheme not in ("always", "first", "never"):
        raise ValueError(f"Metaspace's prepend_scheme {scheme!r} is unknown; expected always, "
                         "first or never")
    split = splitter(regex.compile(regex.escape(rep)), "MergedWithNext", False) \
        if spec.get("split", True) else None

    def step(pieces, at_start):
        out = []
        for text, start, shift in pieces:
            text = text.replace(" ", rep)
            if not text.startswith(rep) and (scheme == "always" or (
                    scheme == "first" and at_start and start == 0 and shift == 0)):
                text, shift = rep + text, shift + 1
            out.append((text, start, shift))
        return split(out, at_start) if split else out
    return step


def splitter(compiled, behavior, invert):
    """pieces -> pieces, cut where compiled matches, as tokenizers' split() with behavior."""
    def split(pieces, at_start):
        out = []
        for piece in pieces:
            text = piece[0]
            spans, prev = [], 0  # (start, end, is_match), covering the piece
            # a file's regex may backtrack catastrophically: bpe.patterns.safety's time limit
            for m in safety.finditer_within(compiled, text, what="Split regex"):
                if m.start() != prev:
                    spans.append([prev, m.start(), invert])
                spans.append([m.start(), m.end(), not invert])
                prev = m.end()
            if prev != len(text):
                spans.append([prev, len(text), invert])
            out += [sub(piece, a, b) for a, b in apply_behavior(spans, behavior) if b > a]
        return out
    return split


def apply_behavior(spans, behavior):
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
