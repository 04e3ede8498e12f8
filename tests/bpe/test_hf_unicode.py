"""Every code point through the character classes of tokenizers' normalizers and
pre-tokenizers, ours against tokenizers' (its crates' Unicode tables are not Python's:
bpe.formats.hf.unicode holds the differences). A new tokenizers with other tables fails
here, naming the first code point that differs."""
import unicodedata

import pytest

pytest.importorskip("tokenizers")
from tokenizers import normalizers, pre_tokenizers  # noqa: E402

from bpe.formats.hf.normalizers import normalizers_from_json  # noqa: E402
from bpe.formats.hf.pipeline import Pipeline  # noqa: E402

pytestmark = pytest.mark.slow  # about 20 s in all: every code point, nine times

CHARS = [chr(c) for c in range(0x110000) if not 0xD800 <= c < 0xE000]


def first_difference(ours, theirs, chars, shape):
    for ch in chars:
        one = shape.format(ch)
        if ours(one) != theirs(one):
            return hex(ord(ch)), ours(one), theirs(one)
    return None


@pytest.mark.parametrize("spec, theirs", [
    ({"type": "BertNormalizer", "clean_text": True, "handle_chinese_chars": True,
      "strip_accents": False, "lowercase": False},
     normalizers.BertNormalizer(clean_text=True, strip_accents=False, lowercase=False)),
    ({"type": "BertNormalizer", "clean_text": False, "handle_chinese_chars": False,
      "strip_accents": True, "lowercase": False},
     normalizers.BertNormalizer(clean_text=False, handle_chinese_chars=False,
                                strip_accents=True, lowercase=False)),
    ({"type": "StripAccents"}, normalizers.StripAccents()),
])
def test_normalizers_on_every_code_point(spec, theirs):
    steps = normalizers_from_json(spec)

    def ours(text):
        for step in steps:
            text = step.apply(text)
        return text
    text = "\n".join(CHARS)
    if ours(text) != theirs.normalize_str(text):
        # fails even when no code point differs alone (then the joined text is the case)
        raise AssertionError(f"the normalized texts differ; first code point alone: "
                             f"{first_difference(ours, theirs.normalize_str, CHARS, 'a{}b')}")


@pytest.mark.parametrize("kind", ["Punctuation", "BertPreTokenizer", "Whitespace",
                                  "WhitespaceSplit", "Digits", "UnicodeScripts"])
def test_pre_tokenizers_on_every_code_point(kind):
    pipeline = Pipeline.from_json({"pre_tokenizer": {"type": kind}})
    theirs = getattr(pre_tokenizers, kind)()
    chars = [ch for ch in CHARS if unicodedata.category(ch) != "Cn" or kind != "Whitespace"]

    def ours_of(text):
        return pipeline.pre_tokenize(text)

    def theirs_of(text):
        return [piece for piece, _ in theirs.pre_tokenize_str(text)]
    # in blocks, so one pre_tokenize call covers many code points; each code point between
    # two letters ("...baXba..."), with no space between them: a space made a piece per code
    # point, and ours splits each piece in Python (4/5 of the time), while the letters
    # around each code point still show whether it splits, joins or stands alone
    for start in range(0, len(chars), 4096):
        block = chars[start:start + 4096]
        text = "".join(f"a{ch}b" for ch in block)
        if ours_of(text) != theirs_of(text):
            raise AssertionError(f"a block from U+{ord(block[0]):04X} splits unlike "
                                 f"tokenizers; first code point alone: "
                                 f"{first_difference(ours_of, theirs_of, block, 'a{}b ')}")
