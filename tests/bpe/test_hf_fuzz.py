"""Hypothesis fuzz: every tokenizer.json family of tests/helpers/hf_families.py gives
tokenizers' ids and decode on generated text, and token_spans that contain tokenizers'
offsets. Each test runs well under 20 s (examples are short; the families build once)."""
import functools
import os

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

pytest.importorskip("tokenizers")
pytest.importorskip("sentencepiece")
from bpe import load_bytes  # noqa: E402
from tests.helpers.hf_families import FAMILIES  # noqa: E402

# what the families treat specially, mixed with any character (Unicode 9.0 and before:
# tokenizers' crates classify with their own, older tables; see bpe.formats.hf.normalizers)
PIECES = [" ", "  ", "\t", "\n", "\r\n", "\u3000", "\u00a0", "e", "E", "the", "The", " the",
          "ing", "##", "▁", "Ġ", "'s", "n't", ".", ",", "!", "?", "$", "1", "12", "٣", "é",
          "e\u0301", "ß", "İ", "Σ", "ς", "東", "京", "あ", "ア", "ー", "한", "ﬁ", "①", "Ａ",
          "👍", "🏽", "\u200d", "\ufe0f", "\x00", "\x7f", "\x85", "\ufffd", "[UNK]", "<unk>",
          "<s>", "</s>", "[CLS]", "<0x41>", "</w>"]
OLD_UNICODE = st.characters(max_codepoint=0x2FFFF, blacklist_categories=("Cs", "Co", "Cn"))
EXAMPLES = int(os.environ.get("HF_FUZZ_EXAMPLES", 150))  # 1,500 passed when written
TEXT = st.lists(st.one_of(st.sampled_from(PIECES), st.text(OLD_UNICODE, max_size=3)),
                max_size=12).map("".join)


@functools.lru_cache(maxsize=None)
def pair(name):
    hf = FAMILIES[name]()
    return hf, load_bytes(hf.to_str().encode(), f"{name}.json")


@pytest.mark.parametrize("name", list(FAMILIES))
@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck))
@given(text=TEXT)
def test_fuzz_family(name, text):
    hf, ours = pair(name)
    enc = hf.encode(text)
    assert ours.encode(text, allowed_special="all") == enc.ids
    assert ours.decode(enc.ids) == hf.decode(enc.ids, skip_special_tokens=False)
    assert ours.decode(enc.ids, skip_special_tokens=True) == hf.decode(enc.ids)
    with_spans = ours.encode_with_spans(text)
    assert [idx for idx, _, _ in with_spans] == enc.ids  # the aligned path agrees
    spans = [(a, b) for _, a, b in with_spans]
    body = spans[len(ours.post.before):len(spans) - len(ours.post.after)]
    assert all(0 <= a <= b <= len(text) for a, b in spans)
    assert all(x[0] <= y[0] for x, y in zip(body, body[1:])), body  # in text order
    # where the normalizer deletes a character (a control), tokenizers' offsets after it
    # shift by one (its alignment quirk); elsewhere ours contain theirs
    if any(ours.pipeline.normalize(ch) == "" for ch in text):
        return
    for token, span, offsets in zip(enc.tokens, spans, enc.offsets):
        if span[0] == span[1] and token in ("▁", "Ġ"):
            continue
        assert span[0] <= offsets[0] <= offsets[1] <= span[1], (token, span, offsets)


LONG_TEXT = st.lists(st.one_of(st.sampled_from(PIECES), st.text(OLD_UNICODE, max_size=3)),
                     min_size=80, max_size=200).map("".join)


@pytest.mark.parametrize("name", [n for n in FAMILIES if n.startswith(("bpe_", "mistral"))])
@settings(max_examples=max(10, EXAMPLES // 5), deadline=None,
          suppress_health_check=list(HealthCheck))
@given(text=LONG_TEXT)
def test_fuzz_long_pieces(name, text):
    """Pieces longer than hf_models.LONG_PIECE (a text with no pre-tokenizer) are cut where
    no merge can cross; the ids stay tokenizers'."""
    hf, ours = pair(name)
    assert ours.encode(text, allowed_special="all") == hf.encode(text).ids
