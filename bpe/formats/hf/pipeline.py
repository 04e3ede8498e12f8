"""Hugging Face tokenizers' pipeline before the model, run in Python exactly as
`tokenizers` runs it: text -> normalized text -> pieces (Pipeline; the components are
bpe.formats.hf.normalizers and bpe.formats.hf.pre_tokenizers), and the regex flavour of its
engine, Oniguruma (hf_pattern out, pattern_from_hf in). bpe.formats.hf.tokenizer_json reads and writes the
files; the models that turn pieces into ids are bpe.formats.hf.models / bytelevel.
Each call (normalize, pre-tokenize) is one action of bpe.patterns.safety: all the regex
matches of all its steps share one CPU-time budget for the text (steps_seconds), so a
Sequence of slow Splits over many pieces costs that once, not once per piece and step.
"""
from ...patterns import PATTERNS, compile_pattern, safety
from .parts import flatten, hf_pattern, undo_hf_pattern
from .normalizers import (LOWER_NEWER, NEWER_THAN_HF,  # noqa: F401
                          normalize, normalize_aligned, normalizers_from_json,
                          unicode_9_normalize)
from .pre_tokenizers import (BYTE_LEVEL_PATTERN, SPLIT_BEHAVIORS,  # noqa: F401
                             pre_tokenizers_from_json)


class Pipeline:
    """A tokenizer.json's normalizer and pre-tokenizer, run as `tokenizers` runs them:
    text -> normalized text -> pieces (each then encoded by the model). Components are
    listed in bpe.formats.hf.normalizers and pre_tokenizers; any other is refused by
    name. byte_level: the pre-tokenizer or the decoder is ByteLevel (GPT-2's kind)."""

    def __init__(self, normalizers, steps, byte_level=False):
        self.normalizers = normalizers  # list of normalizers.Normalizer
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
        with safety.action(safety.steps_seconds(len(text))):
            return normalize(self.normalizers, text)

    def normalize_aligned(self, text, spans):
        with safety.action(safety.steps_seconds(len(text))):
            return normalize_aligned(self.normalizers, text, spans)

    def pieces(self, text):
        return self.pre_tokenize(self.normalize(text))

    def pre_tokenize(self, normalized, at_start=True):
        """Normalized text -> the pieces the model encodes (an added token's leftovers come
        here already normalized: bpe.formats.hf.added_tokens). at_start: normalized starts the
        original text (Metaspace's prepend_scheme "first" reads it)."""
        return [text for text, _, _ in self.pre_tokenize_pieces(normalized, at_start)]

    def pre_tokenize_pieces(self, normalized, at_start=True):
        """As pre_tokenize, each piece as (text, start, shift): see bpe.formats.hf.pre_tokenizers."""
        pieces = [(normalized, 0, 0)] if normalized else []
        with safety.action(safety.steps_seconds(len(normalized))):
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
    pattern = undo_hf_pattern(hf_regex)
    for preset in PATTERNS.values():
        if hf_regex == hf_pattern(preset):
            return preset  # a preset again, so it splits fast and on all cores
    try:
        compile_pattern(pattern)
    except ValueError:
        return None
    return pattern if hf_pattern(pattern) == hf_regex else None
