"""Every tokenizer.json family `tokenizers` builds (BPE with and without byte-level options,
WordPiece, Unigram, WordLevel; SentencePiece models converted with their Precompiled charsmap), read
by bpe.formats.hf.tokenizer_json and compared with `tokenizers` itself: ids (encode(text).ids, templates
included), decode (with and without special tokens) and token_spans against its offsets,
on real text and tricky strings. Fuzz: tests/bpe/test_hf_fuzz.py."""
import json

import pytest

pytest.importorskip("tokenizers")
pytest.importorskip("sentencepiece")
from tokenizers import Tokenizer  # noqa: E402

from bpe import load_bytes  # noqa: E402
from bpe.hf_tokenizer import HFTokenizer  # noqa: E402
from tests.helpers.hf_families import FAMILIES, corpus  # noqa: E402

TRICKY = [
    "", " ", "  ", "a", "Hello world", " leading", "trailing ", "  two  spaces  ", "\t\ttab\n",
    "Straße café naïve résumé", "ÉCOLE Ärger", "東京 北京abc", "Привет ΣΟΦΟΣ σοφός", "👍👍 🇩🇪",
    "ﬁ ﬀ ① ㎏ Ａ", "e\u0301 é", "\u3000x\u2003y\x85", "\x00\x01\x7f\ufffd", "don't WE'LL 'S",
    "12345678 1,000 3.14159", "[UNK] [CLS] <unk> <s> </s> ##ing ▁the", "<0x41><0xC3>",
    "a" * 120, "supercalifragilisticexpialidocious", "ǅ ß ẞ İstanbul", "مرحبا नमस्ते",
    "\u200d\u200c", "x\u0301\u0302\u0303", "...!!!??", "$100 #tag @you", "word.\nNext",
]


def pairs_of(names=None):
    out = {}
    for name, build in FAMILIES.items():
        hf = build()
        ours = load_bytes(hf.to_str().encode(), f"{name}.json")
        out[name] = (hf, ours)
    return out


@pytest.fixture(scope="module")
def pairs():
    return pairs_of()


def texts():
    lines = corpus()
    return TRICKY + lines[::97] + ["\n".join(lines[200:260])]


def test_every_family_opens_as_an_hf_tokenizer(pairs):
    assert set(pairs) == set(FAMILIES) and len(pairs) >= 14
    for hf, ours in pairs.values():
        assert isinstance(ours, HFTokenizer)


@pytest.mark.parametrize("name", list(FAMILIES))
def test_ids_and_decode_equal_tokenizers(pairs, name):
    hf, ours = pairs[name]
    for text in texts():
        enc = hf.encode(text)
        assert ours.encode(text, allowed_special="all") == enc.ids, text
        assert ours.decode(enc.ids) == hf.decode(enc.ids, skip_special_tokens=False), text
        assert ours.decode(enc.ids, skip_special_tokens=True) == hf.decode(enc.ids), text


@pytest.mark.parametrize("name", list(FAMILIES))
def test_token_spans_are_tokenizers_offsets(pairs, name):
    """Our spans equal tokenizers' offsets, except where token_spans' rule says otherwise:
    a token made only of a character a pre-tokenizer added covers nothing here, and where
    normalization merged characters ("e" + U+0301 -> "é", two spaces -> one) our span
    covers all of them while tokenizers' covers one: ours then contains theirs."""
    hf, ours = pairs[name]
    exact = total = 0
    for text in texts():
        enc = hf.encode(text)
        spans = ours.token_spans(text)
        assert [idx for idx, _, _ in ours.encode_with_spans(text)] == enc.ids
        assert len(spans) == len(enc.ids)
        for token, span, offsets in zip(enc.tokens, spans, enc.offsets):
            assert 0 <= span[0] <= span[1] <= len(text)
            if span[0] == span[1] and token in ("▁", "Ġ"):
                continue
            total += 1
            exact += span == tuple(offsets)
            assert span[0] <= offsets[0] <= offsets[1] <= span[1], (text, token, span, offsets)
    assert exact >= 0.99 * total, (exact, total)


def test_views_get_honest_bytes(pairs):
    """decode_tokens_bytes: "##ing" -> b"ing", "▁the" -> b" the", "<0xC3>" -> b"\\xc3",
    "the</w>" -> b"the", an unknown token its own text."""
    _, bert = pairs["wordpiece_bert"]
    ids = bert.encode("hello worlds", allowed_special="all")
    shown = bert.decode_tokens_bytes(ids)
    assert shown[0] == b"[CLS]" and shown[-1] == b"[SEP]"
    assert b"".join(shown[1:-1]).replace(b" ", b"") == b"helloworlds"
    assert any(not token.startswith(b"#") for token in shown[2:-1])
    _, spm = pairs["sentencepiece_bpe"]
    ids = spm.encode("the cat ö", allowed_special="all")
    assert b"".join(spm.decode_tokens_bytes(ids)) == " the cat ö".encode()
    _, suffix = pairs["bpe_suffix"]
    assert b"</w>" not in b"".join(suffix.decode_tokens_bytes(suffix.encode("the end")))
    _, unk = pairs["bpe_whitespace"]
    ids = unk.encode("ö", allowed_special="all")
    assert unk.decode_tokens_bytes(ids) == [b"[UNK]"] and unk.token_spans("ö") == [(0, 1)]
    for name, (hf, ours) in pairs.items():  # every family says which ids are unknown text
        unk_token = {"<unk>", "[UNK]"} & set(hf.get_vocab())
        assert {hf.id_to_token(i) for i in ours.unk_ids} == unk_token, name


def test_the_encode_call_matched_is_tokenizers_default(pairs):
    hf, ours = pairs["wordpiece_bert"]
    cls, sep = hf.token_to_id("[CLS]"), hf.token_to_id("[SEP]")
    assert ours.encode("hi", allowed_special="all")[::len(ours.encode("hi")) - 1] == [cls, sep]
    assert ours.encode_ordinary("hi") == hf.encode("hi", add_special_tokens=False).ids
    assert ours.encode("") == hf.encode("").ids == [cls, sep]


def test_refused_by_name():
    """What is not reproduced exactly is refused, naming the component and what to do."""
    base = json.loads(FAMILIES["bpe_whitespace"]().to_str())
    cases = [
        (lambda d: d["model"].update(dropout=0.1), "dropout=0.1 makes encoding random"),
        (lambda d: d.update(pre_tokenizer={"type": "Nope"}), "pre-tokenizer 'Nope' is not"),
        (lambda d: d.update(model={"type": "WordLevel2", "vocab": {}}),
         "the model 'WordLevel2' is not implemented"),
        (lambda d: d.update(normalizer={"type": "ByteLevel"}),
         "the normalizer 'ByteLevel' is not implemented"),
        (lambda d: d.update(decoder={"type": "Nope"}), "the decoder 'Nope' is not implemented"),
        (lambda d: d["model"].update(unk_token="<missing>"), "unk_token '<missing>' is not in"),
        (lambda d: d.update(pre_tokenizer={"type": "ByteLevel"}, model={
            "type": "WordPiece", "vocab": {"[UNK]": 0}}), "ByteLevel pre-tokenizer needs"),
    ]
    for change, message in cases:
        doc = json.loads(json.dumps(base))
        change(doc)
        with pytest.raises(ValueError, match=message):
            load_bytes(json.dumps(doc).encode(), "x.json")


def test_normalizer_output_is_bounded():
    doc = json.loads(FAMILIES["bpe_whitespace"]().to_str())
    doc["normalizer"] = {"type": "Replace", "pattern": {"String": "a"}, "content": "x" * 50}
    ours = load_bytes(json.dumps(doc).encode(), "x.json")
    assert ours.encode("a b") is not None
    with pytest.raises(ValueError, match="4x"):
        ours.encode("a" * 10_000)


def test_pickles_and_exports_again(pairs):
    import pickle

    from bpe.formats.hf.tokenizer_json import hf_json
    for name, (hf, ours) in pairs.items():
        text = "Hello wörld, 東京 ﬁ"
        again = load_bytes(json.dumps(hf_json(ours)).encode(), "again.json")
        assert again.encode(text, allowed_special="all") == hf.encode(text).ids, name
        assert pickle.loads(pickle.dumps(ours)).encode(text) == ours.encode(text), name


def test_new_special_tokens_export_in_every_family(pairs):
    from bpe.formats.hf.tokenizer_json import hf_json
    for name, (hf, ours) in pairs.items():
        twin = ours.with_special_tokens({"<|new|>": ours.n_vocab})
        again = Tokenizer.from_str(json.dumps(hf_json(twin)))
        text = "a <|new|> b"
        assert again.encode(text).ids == twin.encode(text, allowed_special="all"), name
    _, unigram = pairs["unigram_metaspace"]
    with pytest.raises(ValueError, match="can only give a new token the next id"):
        hf_json(unigram.with_special_tokens({"<|far|>": unigram.n_vocab + 5}))


def test_runaway_regexes_in_a_file_are_stopped():
    """Replace (normalizer and decoder) and Split regexes run under bpe.patterns.safety's
    time limit: a catastrophic one is stopped with a ValueError, not left to hang."""
    base = json.loads(FAMILIES["bpe_whitespace"]().to_str())
    evil = {"Regex": "(a|a)+$"}
    for key, component in [
            ("normalizer", {"type": "Replace", "pattern": evil, "content": "x"}),
            ("pre_tokenizer", {"type": "Split", "pattern": evil, "behavior": "Isolated"}),
            ("decoder", {"type": "Replace", "pattern": evil, "content": "x"})]:
        doc = json.loads(json.dumps(base))
        doc[key] = component
        doc["model"]["vocab"]["a" * 40 + "b"] = len(doc["model"]["vocab"])
        tok = load_bytes(json.dumps(doc).encode(), "x.json")
        with pytest.raises(ValueError, match="took more than"):
            if key == "decoder":
                tok.decode([tok.encode_single_token(("a" * 40 + "b").encode())])
            else:
                tok.encode("a" * 40 + "b")


def test_a_real_sentencepiece_model_equals_sentencepiece(pairs):
    """Mistral 7B's SentencePiece BPE (mistral-common's data file), converted as
    transformers converts it: ids equal sentencepiece's own on real text."""
    pytest.importorskip("mistral_common")
    import sentencepiece as spm
    from importlib.resources import files
    sp = spm.SentencePieceProcessor(model_proto=(
        files("mistral_common") / "data" / "tokenizer.model.v1").read_bytes())
    _, ours = pairs["mistral_v1"]
    lines = corpus()[::7] + [t for t in TRICKY if "<" not in t and "\x00" not in t]
    for line in lines:
        assert ours.encode(line, allowed_special="all") == sp.encode(line), line
