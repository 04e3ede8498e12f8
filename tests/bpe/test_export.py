"""Export to tiktoken ranks and Hugging Face tokenizer.json, and import back: identical ids."""
import json

import pytest
import tiktoken
from tiktoken.load import load_tiktoken_bpe
from tokenizers import Tokenizer as HFTokenizer

from bpe import BasicTokenizer, RanksTokenizer, RegexTokenizer, load, load_bytes
from bpe.formats import ranks
from bpe.formats.hf import tokenizer_json as hf
from viz.samples import SAMPLES

TEXTS = [
    *SAMPLES.values(),
    "Hello, world! It's 2026; we'll see... don't you think?",
    "def f(x):\n\treturn {'a': [1, 2, 3]}  # comment\n\n\nclass A:\n    pass\n",
    "Ünïcödé: naïve café, Straße, 東京タワー, Привет мир, مرحبا, नमस्ते",
    "emoji 🫠👩🏽‍💻🇩🇪 and ZWJ 👨‍👩‍👧‍👦!!",
    "spaces      runs\t\t\ttabs\n\n\n\nnewlines   \n  \n",
    "trailing whitespace at the very end   \n\n  ",
    "1234567890 12 345 6789 3.14159",
    "  leading spaces and a lone\rcarriage return\r\n",
    "a", " ", "\n", "",
]
SPECIALS_TEXT = "<|endoftext|>Hi there<|fim|>x<|endoftext|>\n  <|endoftext|>"


@pytest.fixture(scope="module")
def trained(taylorswift):
    """kind -> a tokenizer trained on Taylor Swift's article (700 merges)."""
    toks = {"gpt4": RegexTokenizer("gpt4"), "gpt2": RegexTokenizer("gpt2"),
            "gpt4o": RegexTokenizer("gpt4o"), "basic": BasicTokenizer()}
    for tok in toks.values():
        tok.train(taylorswift, 256 + 700)
    return toks


def with_specials(tok):
    """A copy of tok (through the .model text) with two special tokens."""
    copy = load(text=tok.model_text())
    copy.register_special_tokens({"<|endoftext|>": copy.n_vocab, "<|fim|>": copy.n_vocab + 1})
    return copy


@pytest.fixture(scope="module", params=["gpt4", "gpt2", "gpt4o", "basic", "gpt4+specials",
                                        "basic+specials"])
def tok(request, trained):
    kind, _, specials = request.param.partition("+")
    return with_specials(trained[kind]) if specials else trained[kind]


def our_ids(tok, text):
    return tok.encode(text, allowed_special="all")


def test_tiktoken_ranks_file_gives_identical_ids(tok, tmp_path, taylorswift):
    path = tmp_path / "mine.tiktoken"
    ranks.save_tiktoken(tok, path)
    table = load_tiktoken_bpe(str(path))
    enc = tiktoken.Encoding("mine", pat_str=ranks.tiktoken_pattern(tok), mergeable_ranks=table,
                            special_tokens=tok.special_tokens)
    for text in TEXTS + [SPECIALS_TEXT, taylorswift[:30_000]]:
        if text is SPECIALS_TEXT and not tok.special_tokens:
            continue
        assert enc.encode(text, allowed_special="all") == our_ids(tok, text), text[:40]


def test_hf_tokenizer_json_gives_identical_ids(tok, tmp_path, taylorswift):
    path = tmp_path / "tokenizer.json"
    hf.save_hf(tok, path)
    theirs = HFTokenizer.from_file(str(path))
    for text in TEXTS + [SPECIALS_TEXT, taylorswift[:30_000]]:
        if text is SPECIALS_TEXT and not tok.special_tokens:
            continue
        ids = theirs.encode(text, add_special_tokens=False).ids
        assert ids == our_ids(tok, text), text[:40]
        assert theirs.decode(ids, skip_special_tokens=False) == text


@pytest.mark.parametrize("fmt", ["tiktoken", "hf"])
def test_import_round_trip(tok, tmp_path, fmt):
    if fmt == "tiktoken":
        path = tmp_path / "mine.tiktoken"
        ranks.save_tiktoken(tok, path)
        back = load(path, pattern=tok.pattern, special_tokens=tok.special_tokens)
    else:
        path = tmp_path / "tokenizer.json"
        hf.save_hf(tok, path)
        back = load(path)
    assert type(back) is type(tok)
    assert back.merges == tok.merges
    assert back.pattern == tok.pattern
    assert back.special_tokens == tok.special_tokens
    for text in TEXTS:
        assert back.encode(text) == tok.encode(text)


def test_hf_pattern_keeps_digit_groups_and_end_anchor():
    assert hf.hf_pattern(r"\p{N}{1,3}+") == r"(?>\p{N}{1,3})"
    assert hf.hf_pattern(r"[{]{2}+|a{2,}|\s++$|^x") == r"(?>[{]{2})|a{2,}|\s++\Z|\Ax"
    assert hf.hf_pattern(r"'(?i:[sdmt]|ll)") == r"'(?i:[sdmt]|ll)"


def test_basic_pattern_makes_one_chunk():
    tok = BasicTokenizer()
    assert ranks.tiktoken_pattern(tok) == ranks.WHOLE_TEXT_PATTERN
    import regex
    text = "a b\n\nc\r\n  "
    assert regex.findall(ranks.WHOLE_TEXT_PATTERN, text) == [text]


def test_token_that_does_not_encode_to_itself_is_refused():
    # 258 = a + (b c), but on its own "abc" becomes (a b) c: tiktoken would say [258]
    tok = RegexTokenizer.from_merges({(97, 98): 256, (98, 99): 257, (97, 257): 258})
    with pytest.raises(ValueError, match=r"token 258 \(b'abc'\) encodes to \[256, 99\]"):
        ranks.tiktoken_text(tok)
    with pytest.raises(ValueError, match="not to itself"):
        hf.hf_json(tok)


def test_shuffled_ranks_import_as_ranks_tokenizer():
    table = {bytes([b]): 255 - b for b in range(256)}
    table[b"ab"] = 256
    tok = load_bytes(ranks.ranks_text(table).encode(),
        "shuffled.tiktoken", pattern="gpt2")
    assert isinstance(tok, RanksTokenizer)
    assert tok.encode("xab") == [255 - ord("x"), 256]
    enc = tiktoken.Encoding("s", **{k: v for k, v in ranks.tiktoken_kwargs(tok).items()
                                    if k != "name"})
    assert enc.encode("xab abba") == tok.encode("xab abba")
    with pytest.raises(ValueError, match="byte ids are not 0-255"):
        hf.hf_json(tok)


# ----------------------------------------------------------------- malformed input
def ranks_lines(extra=""):
    import base64
    return "".join(f"{base64.b64encode(bytes([b])).decode()} {b}\n" for b in range(256)) + extra


@pytest.mark.parametrize("data, message", [
    (b"not base64!! 0\n", r"line 1: expected '<base64 token> <rank>'"),
    (b"YQ== zero\n", r"line 1: the rank 'zero' is not a non-negative integer"),
    (b"YQ== -1\n", r"line 1: the rank '-1' is not a non-negative integer"),
    (b"YQ== +1\n", r"line 1: the rank '\+1' is not"),
    (b"YQ== 1_0\n", r"line 1: the rank '1_0' is not"),
    ("YQ== \u0661\n".encode(), r"line 1: the rank '\u0661' is not .* ASCII digits"),
    (b"YQ 0\n", r"line 1: 'YQ' is not valid base64"),
    (b"YQ==\n", r"line 1: expected '<base64 token> <rank>'"),
    (b"YQ== 0 extra\n", r"line 1: expected"),
    (b"YQ== 0\nYQ== 1\n", r"line 2: token b'a' appears twice"),
    (b"YQ== 0\nYg== 0\n", r"line 2: rank 0 is given to b'a' and b'b'"),
    (b"YQ== 0\n", r"lacks 255 of the 256 single-byte tokens"),
    (b"\n\n", r"has no '<base64 token> <rank>' lines"),
    (ranks_lines("YWJj 256\n").encode(), r"cannot be built by merging two tokens"),
])
def test_malformed_tiktoken_file(data, message):
    with pytest.raises(ValueError, match=message):
        load_bytes(data, "bad.tiktoken", pattern="gpt4")


def hf_doc(tok=None):
    tok = tok or RegexTokenizer().train("aaabdaaabac hello hello", 256 + 5)
    return hf.hf_json(tok)


@pytest.mark.parametrize("mutate, message", [
    (lambda d: d.pop("model"), r"expected a tokenizer.json with a BPE model"),
    (lambda d: d["model"].update(type="WordPiece"), r"with a BPE model"),
    (lambda d: d["model"].update(merges="a b"), r"needs a 'vocab' object .* and a 'merges' list"),
    (lambda d: d["model"].update(byte_fallback=True), r"byte_fallback=True is not byte-level"),
    (lambda d: d["model"]["vocab"].update({"Ġ": 5}), r"id 5 is given to both .* and 'Ġ'"),
    (lambda d: d["model"].update(dropout=0.1), r"dropout=0.1 is not byte-level BPE"),
    (lambda d: d.update(normalizer={"type": "ByteLevel"}),
     r"the normalizer 'ByteLevel' is not implemented"),
    (lambda d: d["pre_tokenizer"]["pretokenizers"].append({"type": "Metaspace"}),
     r"the pre-tokenizer 'Metaspace' comes after ByteLevel"),
    (lambda d: d.update(pre_tokenizer={"type": "Nope"}),
     r"the pre-tokenizer 'Nope' is not"),
    (lambda d: d.update(decoder={"type": "Nope"}), r"the decoder 'Nope' is not"),
    (lambda d: d.update(post_processor={"type": "Nope"}),
     r"the post-processor 'Nope' is not"),
    (lambda d: d["added_tokens"].append({"content": "<x>", "id": 999, "lstrip": "yes"}),
     r"added token '<x>' has lstrip=yes; expected true or false"),
    (lambda d: d["added_tokens"].append({"content": "<x>", "id": 999}),
     r"added token '<x>' has id 999, but tokenizers reads it as id \d+"),
    (lambda d: d["model"]["merges"].append("zz q"), r"merge 5 \['zz', 'q'\] uses or makes a token"),
    (lambda d: d["model"]["merges"].append(7), r"merge 5 is 7; expected 'left right'"),
    (lambda d: d["pre_tokenizer"]["pretokenizers"][0].update(pattern={"Regex": "(a"}),
     r"the Split regex '\(a' cannot be read"),
    (lambda d: d["added_tokens"].append({"content": "<x>"}), r"added token .* needs 'content' and 'id'"),
    (lambda d: d["added_tokens"].append({"content": "<x>", "id": 97}),
     r"id 97 for special token '<x>' is already an ordinary token"),
])
def test_malformed_hf_file(mutate, message):
    doc = hf_doc()
    mutate(doc)
    with pytest.raises(ValueError, match=message) as e:
        load_bytes(json.dumps(doc).encode(), "tokenizer.json")
    assert str(e.value).startswith("tokenizer.json")


@pytest.mark.parametrize("data, name, message", [
    (b"{not json", "tokenizer.json", r"tokenizer.json is not valid JSON"),
    (b"\xff\xfe", "x.model", r"x.model is not UTF-8 text"),
    (b"\xff\xfe", "x.bin", r"x.bin is not a tokenizer file .* looks like binary data"),
    (b"hello\n", "x.model", r"x.model line 1: expected 'minbpe v1'"),
    (b"minbpe v1\n\n0\n1 x\n", "x.model", r"x.model line 4: expected a merge"),
    (b"abc", "x.txt", (r"x.txt is not a tokenizer file this lab can open: it looks like text "
                       r"starting 'abc'. Accepted: minbpe .model .*; tiktoken ranks .*; "
                       r"SentencePiece .*; Hugging Face tokenizer.json; GPT-2's")),
    (b'{"a": [1]}', "x.json", r"x.json: expected a tokenizer.json"),
    (b'{"a": [1]}', "x", r"x is not a tokenizer file .* a JSON file, but neither"),
])
def test_malformed_other_files(data, name, message):
    with pytest.raises(ValueError, match=message):
        load_bytes(data, name)


def test_model_file_loads_through_load_bytes(trained):
    tok = trained["gpt4"]
    back = load_bytes(tok.model_text().encode(), "mine.model")
    assert back.merges == tok.merges and back.pattern == tok.pattern
