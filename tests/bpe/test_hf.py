"""tokenizer.json files made by Hugging Face `tokenizers` itself, trained here on small text,
read by bpe.formats.hf.tokenizer_json and compared id for id with `tokenizers` on tricky and hypothesis strings."""
import json
import random

import pytest
from hypothesis import given, settings, strategies as st

tk = pytest.importorskip("tokenizers")
from tokenizers import Regex, Tokenizer, decoders, models, normalizers, pre_tokenizers  # noqa: E402
from tokenizers import trainers  # noqa: E402

from bpe import load_bytes  # noqa: E402
from bpe.hf_tokenizer import HFTokenizer  # noqa: E402
from bpe.formats.hf.tokenizer_json import hf_json, hf_pattern, pattern_from_hf  # noqa: E402
from bpe.patterns import GPT4_SPLIT_PATTERN  # noqa: E402

CORPUS = ("Hello world! It's 2026; we'll see... DON'T you think? Straße café naïve 東京 Привет "
          "ΣΟΦΟΣ σοφός  spaces   and\ttabs\nnew lines\r\n 12345 3.14 <b>tags</b> 👍👍 "
          "the quick brown fox jumps over the lazy dog. ") * 30
TRICKY = [
    "", " ", "  ", "\n", "a", "Hello world", " leading", "trailing ", "ΣΑΣ σας Σ", "İstanbul",
    "ﬁ ﬀ ① ㎏ Ａ", "e\u0301 é", "\u3000x\u2003y\x85", "\x1c\x1d\x1e\x1f", "don't WE'LL 'S",
    "12345678 1,000 3.14159", "👩🏽‍💻🇩🇪", "<|endoftext|>hi<pad>", "a<pad>b", "\r\n\r\n  \t",
    "ß ẞ ǅ", "tabs\tand  multiple   spaces", "\x00\x01\x7f", "ℌ𝔢𝔩𝔩𝔬", "مرحبا नमस्ते",
]
SPECIALS = ["<|endoftext|>", "<pad>"]
GPT4_HF = hf_pattern(GPT4_SPLIT_PATTERN)


def train(pre, normalizer=None, alphabet=True, vocab_size=400, ignore_merges=False):
    tok = Tokenizer(models.BPE(ignore_merges=ignore_merges))
    if normalizer is not None:
        tok.normalizer = normalizer
    tok.pre_tokenizer = pre
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size, special_tokens=SPECIALS, show_progress=False,
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet() if alphabet else [])
    tok.train_from_iterator([CORPUS], trainer)
    return tok


def byte_level_bpe(add_prefix_space):
    tok = tk.ByteLevelBPETokenizer(add_prefix_space=add_prefix_space)
    tok.train_from_iterator([CORPUS], vocab_size=400, special_tokens=SPECIALS,
                            show_progress=False)
    return Tokenizer.from_str(tok._tokenizer.to_str())


def permuted(hf, seed=0):
    """The same tokenizer with every id moved (GPT-2 style: bytes are not 0-255)."""
    doc = json.loads(hf.to_str())
    ids = sorted(doc["model"]["vocab"].values())
    new = ids[:]
    random.Random(seed).shuffle(new)
    remap = dict(zip(ids, new))
    doc["model"]["vocab"] = {t: remap[i] for t, i in doc["model"]["vocab"].items()}
    for added in doc["added_tokens"]:
        added["id"] = remap[added["id"]]
    return Tokenizer.from_str(json.dumps(doc))


CASES = {
    "ByteLevelBPETokenizer": lambda: byte_level_bpe(False),
    "ByteLevelBPETokenizer prefix space": lambda: byte_level_bpe(True),
    "BPE + ByteLevel(use_regex)": lambda: train(pre_tokenizers.ByteLevel(add_prefix_space=False)),
    "BPE + ByteLevel, no full alphabet": lambda: train(
        pre_tokenizers.ByteLevel(add_prefix_space=False), alphabet=False),
    "Split(gpt4 regex) + ByteLevel": lambda: train(pre_tokenizers.Sequence([
        pre_tokenizers.Split(Regex(GPT4_HF), "isolated"),
        pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False)])),
    "Split merged_with_next + Digits": lambda: train(pre_tokenizers.Sequence([
        pre_tokenizers.Split(" ", "merged_with_next"), pre_tokenizers.Digits(True),
        pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False)])),
    "Split contiguous/removed/invert": lambda: train(pre_tokenizers.Sequence([
        pre_tokenizers.Split(Regex(r"\p{P}"), "contiguous"),
        pre_tokenizers.Split(Regex(r"\s+"), "removed"),
        pre_tokenizers.Split(Regex(r"o"), "merged_with_previous", invert=True),
        pre_tokenizers.ByteLevel(add_prefix_space=True, use_regex=False)])),
    "Lowercase + ByteLevel": lambda: train(pre_tokenizers.ByteLevel(), normalizers.Lowercase()),
    "NFKC Strip Lowercase + ByteLevel": lambda: train(
        pre_tokenizers.ByteLevel(add_prefix_space=False),
        normalizers.Sequence([normalizers.NFKC(), normalizers.Strip(), normalizers.Lowercase()])),
    "NFC + ignore_merges": lambda: train(pre_tokenizers.ByteLevel(add_prefix_space=False),
                                         normalizers.NFC(), ignore_merges=True),
    "GPT-2 style ids": lambda: permuted(byte_level_bpe(False)),
    "GPT-2 style ids, Split": lambda: permuted(train(pre_tokenizers.Sequence([
        pre_tokenizers.Split(Regex(GPT4_HF), "isolated"),
        pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False)])), seed=1),
}


def load_pairs(cases):
    """case -> (tokenizers' Tokenizer, ours read from its tokenizer.json)."""
    out = {}
    for name, make in cases.items():
        hf = make()
        out[name] = hf, load_bytes(hf.to_str().encode(), "tokenizer.json")
    return out


@pytest.fixture(scope="module")
def pairs():
    return load_pairs(CASES)


def same(hf, ours, text):
    expected = hf.encode(text).ids
    assert ours.encode(text, allowed_special="all") == expected, (text, expected)
    return expected


@pytest.mark.parametrize("name", CASES)
def test_tricky_strings_and_corpus(pairs, name):
    hf, ours = pairs[name]
    for text in TRICKY + [CORPUS[:3000]]:
        ids = same(hf, ours, text)
        assert ours.decode(ids) == hf.decode(ids, skip_special_tokens=False)


@settings(max_examples=150, deadline=None)
@given(st.text(alphabet=st.characters(blacklist_categories=["Cs"]), max_size=60)
       | st.text(alphabet="aA ΣσßİfiＡ1２!'\n\t\u3000\u0301é👍<|>endoftxpad", max_size=60))
def test_fuzz_every_case(pairs, text):
    same_in_all(pairs, text)


def same_in_all(pairs, text):
    for hf, ours in pairs.values():
        same(hf, ours, text)


def test_any_id_layout_is_an_hf_tokenizer(pairs):
    hf, ours = pairs["GPT-2 style ids"]
    assert isinstance(ours, HFTokenizer)
    assert ours.special_tokens == {t: hf.token_to_id(t) for t in SPECIALS}
    assert sorted(ours.vocab) == sorted(hf.get_vocab().values())


def test_our_export_is_read_back_as_ours(pairs):
    from bpe import RegexTokenizer
    tok = RegexTokenizer().train(CORPUS, 300).with_special_tokens({"<|endoftext|>": 100257})
    back = load_bytes(json.dumps(hf_json(tok)).encode(), "tokenizer.json")
    assert type(back) is RegexTokenizer and back.merges == tok.merges
    assert back.special_tokens == {"<|endoftext|>": 100257}
    hf = Tokenizer.from_str(json.dumps(hf_json(tok)))
    assert hf.encode("<|endoftext|>").ids == [100257]  # the repro


def test_export_keeps_special_ids_after_a_short_vocab():
    from bpe import BasicTokenizer
    tok = BasicTokenizer().train("hello world " * 50, 300).with_special_tokens(
        {"<|a|>": 5000, "<|b|>": 301})
    hf = Tokenizer.from_str(json.dumps(hf_json(tok)))
    text = "x<|a|>hello<|b|>"
    assert hf.encode(text).ids == tok.encode(text, allowed_special="all")


@pytest.mark.parametrize("onig, ours", [
    (r"\p{N}{1,3}+", r"(?:\p{N}{1,3})+"),
    (r"a{2}?b", r"(?:a{2})?b"),
    (r"a{2,3}?", r"a{2,3}?"),
    (r"\s+$|^x|\z", r"\s+(?m:$)|(?m:^)x|\Z"),
])
def test_oniguruma_flavor(onig, ours):
    assert pattern_from_hf(onig) == ours


def test_hf_tokenizer_exports_its_own_file_again(pairs):
    from bpe.formats import ranks
    hf, ours = pairs["GPT-2 style ids"]
    twin = ours.with_special_tokens({"<|new|>": 10_000})
    again = Tokenizer.from_str(json.dumps(hf_json(twin)))
    text = "Hello<|new|> world<pad>"
    assert again.encode(text).ids == twin.encode(
        text, allowed_special="all")
    with pytest.raises(ValueError, match="tiktoken ranks cannot express"):
        ranks.tiktoken_text(ours)


def test_runaway_split_regex_in_a_file_is_stopped():
    hf = train(pre_tokenizers.ByteLevel(add_prefix_space=False))
    doc = json.loads(hf.to_str())
    doc["pre_tokenizer"] = {"type": "Sequence", "pretokenizers": [
        {"type": "Split", "pattern": {"Regex": "(a|a)+$"}, "behavior": "Isolated",
         "invert": False}, {"type": "ByteLevel", "add_prefix_space": False,
                            "trim_offsets": False, "use_regex": False}]}
    ours = load_bytes(json.dumps(doc).encode(), "tokenizer.json")
    with pytest.raises(ValueError, match="took more than"):
        ours.encode_ordinary("a" * 40 + "!" + "a" * 40)


def test_hf_tokenizer_pickles(pairs):
    import pickle
    _, ours = pairs["NFKC Strip Lowercase + ByteLevel"]
    twin = ours.with_special_tokens({"<|new|>": 9000})
    back = pickle.loads(pickle.dumps(twin))
    text = " Hello <|new|> ＷＯＲＬＤ "
    assert back.encode(text, allowed_special="all") == twin.encode(text, allowed_special="all")


def test_replay_refuses_a_shuffled_layout(pairs):
    from bpe.replay import token_counts_by_merge
    _, ours = pairs["GPT-2 style ids"]
    with pytest.raises(ValueError, match="laid out otherwise"):
        token_counts_by_merge(ours, "hello world")


@pytest.mark.parametrize("form", ["NFC", "NFD", "NFKC", "NFKD", "Lowercase"])
def test_unicode_normalizers_on_every_code_point(form):
    """tokenizers normalizes with Unicode 9.0's tables and lowercases with Rust's (16.0),
    Python with its own (14.0): every code point alone, and (for the normal forms) between
    "e" and two combining marks to compose and reorder with, normalizes alike."""
    import unicodedata
    from bpe.formats.hf.normalizers import normalizers_from_json
    (step,), theirs = normalizers_from_json({"type": form}), getattr(normalizers, form)()
    ours = step.apply
    chars = [ch for ch in map(chr, range(0x110000)) if not 0xD800 <= ord(ch) < 0xE000]
    shapes = ["\n{}"]
    if form != "Lowercase":  # Unicode 9.0 has no more
        chars = [ch for ch in chars if unicodedata.category(ch) not in ("Cn", "Co")]
        shapes.append("\ne{}\u0323\u0301")
    for shape in shapes:
        text = "".join(shape.format(ch) for ch in chars)
        if ours(text) != theirs.normalize_str(text):  # find the first code point that differs
            for ch in chars:
                one = shape.format(ch)
                assert ours(one) == theirs.normalize_str(one), hex(ord(ch))
