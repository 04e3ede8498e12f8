"""minbpe's test list, plus save/load, errors and the decode family."""
import json

import pytest
from hypothesis import given, settings, strategies as st

import bpe
from bpe import BasicTokenizer, GPT4Tokenizer, RegexTokenizer, encode

TEST_STRINGS = ["", "?", "hello world!!!? (안녕하세요!) lol123 😉", "FILE:taylorswift.txt"]
SPECIAL_TOKENS = {
    "<|endoftext|>": 100257, "<|fim_prefix|>": 100258, "<|fim_middle|>": 100259,
    "<|fim_suffix|>": 100260, "<|endofprompt|>": 100276,
}
LLAMA_TEXT = """<|endoftext|>The llama (/ˈlɑːmə/; Spanish pronunciation: [ˈʎama] or [ˈʝama]) (Lama glama) is a domesticated South American camelid, widely used as a meat and pack animal by Andean cultures since the pre-Columbian era.
Llamas are social animals and live with others as a herd. Their wool is soft and contains only a small amount of lanolin.[2] Llamas can learn simple tasks after a few repetitions. When using a pack, they can carry about 25 to 30% of their body weight for 8 to 13 km (5–8 miles).[3]
<|fim_prefix|>In Aymara mythology, llamas are important beings.<|fim_suffix|> where they come from at the end of time.[6]<|fim_middle|> llamas will return to the water springs and ponds<|endofprompt|>"""


def unpack(text, taylorswift):
    return taylorswift if text.startswith("FILE:") else text


@pytest.fixture(params=["basic", "regex", "gpt4"])
def any_tokenizer(request, gpt4, taylorswift):
    if request.param == "gpt4":
        return gpt4
    cls = BasicTokenizer if request.param == "basic" else RegexTokenizer
    return cls().train(taylorswift[:20000], 256 + 64)


@pytest.mark.parametrize("text", TEST_STRINGS)
def test_encode_decode_identity(any_tokenizer, text, taylorswift):
    text = unpack(text, taylorswift)
    ids = any_tokenizer.encode(text)
    assert any_tokenizer.decode(ids) == text
    assert any_tokenizer.decode_bytes(ids) == text.encode("utf-8")


def test_untrained_tokenizers_are_bytes():
    for cls in (BasicTokenizer, RegexTokenizer):
        assert cls().encode("hi ✓") == list("hi ✓".encode("utf-8"))


@pytest.mark.parametrize("cls", [BasicTokenizer, RegexTokenizer])
def test_wikipedia_example(cls):
    tok = cls()
    tok.train("aaabdaaabac", 256 + 3)
    assert tok.encode("aaabdaaabac") == [258, 100, 258, 97, 99]
    assert tok.decode(tok.encode("aaabdaaabac")) == "aaabdaaabac"


@pytest.mark.parametrize("special_tokens", [{}, SPECIAL_TOKENS])
@pytest.mark.parametrize("cls", [BasicTokenizer, RegexTokenizer])
def test_save_load(special_tokens, cls, tmp_path):
    tok = cls()
    tok.train(LLAMA_TEXT, 256 + 64)
    tok.register_special_tokens(special_tokens)
    assert tok.decode(tok.encode(LLAMA_TEXT, allowed_special="all")) == LLAMA_TEXT
    ids = tok.encode(LLAMA_TEXT, allowed_special="all")
    tok.save(tmp_path / "sub" / "tok")
    loaded = cls()
    loaded.load(tmp_path / "sub" / "tok.model")
    assert loaded.decode(ids) == LLAMA_TEXT
    assert loaded.encode(LLAMA_TEXT, allowed_special="all") == ids
    assert loaded.merges == tok.merges and loaded.pattern == tok.pattern
    assert loaded.special_tokens == tok.special_tokens
    assert type(bpe.load(tmp_path / "sub" / "tok.model")) is cls
    vocab_lines = (tmp_path / "sub" / "tok.vocab").read_text(encoding="utf-8").splitlines()
    assert len(vocab_lines) == len(tok.vocab)
    assert all("\n" not in line and "\r" not in line for line in vocab_lines)


def test_model_file_is_minbpes_format(tmp_path):
    tok = RegexTokenizer().train("aaabdaaabac", 259)
    tok.register_special_tokens({"<|endoftext|>": 300})
    tok.save(tmp_path / "m")
    lines = (tmp_path / "m.model").read_text().splitlines()
    assert lines == ["minbpe v1", tok.pattern, "1", "<|endoftext|> 300",
                     "97 97", "256 97", "257 98"]  # textbook tie rule


@pytest.mark.parametrize("content, line", [
    ("", 1),
    ("not a model\n", 1),
    ("minbpe v1\n\nx\n", 3),
    ("minbpe v1\n\n2\n<|a|> 300\n", 5),
    ("minbpe v1\n\n0\n97 97\n97 x\n", 5),
    ("minbpe v1\n\n0\n97 97\n256 999\n", 5),
    ("minbpe v1\n(unclosed\n0\n", 2),
])
def test_load_malformed_names_the_line(tmp_path, content, line):
    path = tmp_path / "bad.model"
    path.write_text(content)
    with pytest.raises(ValueError, match=f"line {line}"):
        bpe.load(path)


def test_load_binary_file(tmp_path):
    path = tmp_path / "bin.model"
    path.write_bytes(b"\xff\xfe\x00garbage")
    with pytest.raises(ValueError, match="not UTF-8"):
        bpe.load(path)


def test_basic_refuses_a_regex_model(tmp_path):
    RegexTokenizer().train("hello hello", 258).save(tmp_path / "r")
    with pytest.raises(ValueError, match="RegexTokenizer"):
        BasicTokenizer().load(tmp_path / "r.model")


# ---------------------------------------------------------------- errors
def test_vocab_size_below_256():
    with pytest.raises(ValueError, match="at least 256"):
        RegexTokenizer().train("hello", 100)


@pytest.mark.parametrize("bad", [b"bytes", None, 42])
def test_text_must_be_str(bad):
    with pytest.raises(TypeError, match="must be a str"):
        RegexTokenizer().train(bad, 300)
    with pytest.raises(TypeError, match="must be a str"):
        BasicTokenizer().encode(bad)


def test_unknown_id_in_decode(gpt4):
    with pytest.raises(KeyError, match="unknown token id 999"):
        RegexTokenizer().decode([104, 999])
    with pytest.raises(KeyError, match="unknown token id"):
        gpt4.decode([100256])  # a gap in cl100k between ordinary and special ids


@pytest.mark.parametrize("pattern", ["(unclosed", "[z-a]", "*"])
def test_invalid_pattern(pattern):
    with pytest.raises(ValueError, match="invalid split pattern"):
        RegexTokenizer(pattern)


def test_pattern_that_skips_text_is_refused():
    tok = RegexTokenizer(r"\p{L}+")
    with pytest.raises(ValueError, match="skips ' ' at character 5"):
        tok.encode("hello world")


def test_presets():
    for name in ("gpt2", "gpt4", "gpt4o"):
        assert RegexTokenizer(name).pattern == bpe.PATTERNS[name]
    assert RegexTokenizer().pattern == bpe.PATTERNS["gpt4"]


def test_special_token_policies():
    tok = RegexTokenizer().train("hello world " * 10, 270)
    tok.register_special_tokens({"<|a|>": 1000, "<|b|>": 1001})
    text = "x<|a|>y<|b|>"
    with pytest.raises(ValueError, match="allowed_special"):
        tok.encode(text)
    assert tok.encode(text, allowed_special="all") == [120, 1000, 121, 1001]
    assert tok.encode(text, allowed_special="none") == tok.encode_ordinary(text)
    # tiktoken's meaning: a set lets its tokens through and still refuses the others
    with pytest.raises(ValueError, match="disallowed special token '<\\|a\\|>'"):
        tok.encode(text, allowed_special={"<|b|>"})
    assert tok.encode(text, allowed_special={"<|b|>"}, disallowed_special=()) == \
        tok.encode_ordinary("x<|a|>y") + [1001]
    with pytest.raises(ValueError, match="'<\\|b\\|>'"):  # as tiktoken: disallowed wins
        tok.encode(text, allowed_special={"<|b|>"}, disallowed_special={"<|b|>"})
    assert tok.encode("x", allowed_special={"<|zzz|>"}) == [120]  # unknown names: ignored
    with pytest.raises(TypeError, match="not understood"):
        tok.encode(text, allowed_special="some")
    # minbpe's positional policy keeps minbpe's meaning: a set names the special tokens,
    # and the others are ordinary text (minbpe never raises for them)
    assert tok.encode(text, "all") == tok.encode(text, allowed_special="all")
    assert tok.encode(text, "none") == tok.encode_ordinary(text)
    assert tok.encode(text, {"<|b|>"}) == tok.encode(text, allowed_special={"<|b|>"},
                                                     disallowed_special=())
    with pytest.raises(ValueError, match="disallowed special token"):
        tok.encode(text, "none_raise")
    with pytest.raises(ValueError, match="not understood"):
        tok.encode(text, "some")
    with pytest.raises(TypeError, match="one policy"):
        tok.encode(text, "all", allowed_special="all")
    assert tok.decode([1000, 104]) == "<|a|>h"


def test_special_token_id_clash():
    tok = RegexTokenizer().train("hello world " * 10, 270)
    with pytest.raises(ValueError, match="already an ordinary token"):
        tok.register_special_tokens({"<|x|>": 260})
    tok.register_special_tokens({"<|x|>": 300})
    with pytest.raises(ValueError, match="inside the range"):
        tok.train("hello", 400)


def test_gpt4_cannot_train_or_save(gpt4, tmp_path):
    with pytest.raises(ValueError, match="RegexTokenizer"):
        gpt4.train("hello", 300)
    with pytest.raises(ValueError, match="cannot be saved"):
        gpt4.save(tmp_path / "g")


def test_decode_family(gpt4):
    ids = gpt4.encode("héllo 👋")
    parts = gpt4.decode_tokens_bytes(ids)
    assert b"".join(parts) == "héllo 👋".encode("utf-8")
    assert gpt4.token_byte_offsets(ids) == [sum(map(len, parts[:i])) for i in range(len(parts))]
    assert gpt4.decode_single_token_bytes(ids[0]) == parts[0]
    assert gpt4.decode([100257]) == "<|endoftext|>"  # minbpe raises KeyError here


def test_invalid_utf8_is_replaced_or_exact():
    tok = BasicTokenizer()
    assert tok.decode([0xE2, 0x82]) == "\ufffd"
    assert tok.decode_bytes([0xE2, 0x82]) == b"\xe2\x82"


def test_lone_surrogates_are_encoded_as_replacement(gpt4, cl100k):
    text = "a\ud800b\udfff"
    assert gpt4.encode(text) == cl100k.encode(text)
    assert RegexTokenizer().decode(RegexTokenizer().encode(text)) == "a\ufffdb\ufffd"


@pytest.mark.parametrize("text", ["ab" * 40, "a" * 101, "aaa bbb " * 12 + "abab", "abba" * 30])
def test_heap_path_equals_scan_path(text, gpt4, monkeypatch):
    # chunks of 64+ bytes take the heap; it must agree with the simple scan exactly,
    # for both rules (merges by pair, and GPT-4's ranks by bytes). The scan is the path
    # of every chunk shorter than encode.LONG_CHUNK, raised here past these texts
    tok = BasicTokenizer().train("ab" * 50 + "aaa bbb " * 20 + "abba" * 5, 300)
    ids = list(text.encode())
    by_pair = lambda a, b: tok.merges.get((a, b))  # noqa: E731
    gids = [gpt4.ranks[bytes([b])] for b in text.encode()]
    by_bytes = lambda a, b: gpt4.ranks.get(gpt4.vocab[a] + gpt4.vocab[b])  # noqa: E731
    assert len(ids) >= encode.LONG_CHUNK
    by_heap = [encode.apply_merges(ids, by_pair), encode.apply_merges(gids, by_bytes)]
    monkeypatch.setattr(encode, "LONG_CHUNK", 10**9)
    assert by_heap == [encode.apply_merges(ids, by_pair), encode.apply_merges(gids, by_bytes)]
    assert len(by_heap[0]) < len(ids)


@pytest.mark.parametrize("special", [" <|pad|>", "<|a b|>", "<|x|>\n", "<|\t|>", "<|\u3000|>"])
def test_model_refuses_special_tokens_it_cannot_hold(special, tmp_path):
    tok = BasicTokenizer().with_special_tokens({special: 300})
    with pytest.raises(ValueError, match="whitespace"):
        tok.save(tmp_path / "t")
    assert not (tmp_path / "t.model").exists()
    # other formats hold it exactly
    from bpe.formats import ranks  # noqa: F401
    from bpe.formats.hf import tokenizer_json as hf  # noqa: F401
    assert bpe.load_bytes(json.dumps(hf.hf_json(tok)).encode(), "t.json").special_tokens == \
        {special: 300}


def test_model_round_trips_special_tokens_exactly(tmp_path):
    specials = {"<|endoftext|>": 300, "ünïcödé": 301, "<s>": 305, "[PAD]": 1000}
    tok = RegexTokenizer().train(LLAMA_TEXT, 280).with_special_tokens(specials)
    tok.save(tmp_path / "t")
    back = bpe.load(tmp_path / "t.model")
    assert back.special_tokens == specials and back.merges == tok.merges


def test_from_merges_checks_its_input():
    tok = RegexTokenizer.from_merges({(97, 98): 256, (256, 99): 257}, pattern="gpt2",
                                     special_tokens={"<|e|>": 400})
    assert tok.encode("abc <|e|>", allowed_special="all") == [257, 32, 400]
    with pytest.raises(ValueError, match="ids 256, 257"):
        BasicTokenizer.from_merges({(97, 98): 300})
    with pytest.raises(ValueError, match="below its own"):
        BasicTokenizer.from_merges({(97, 300): 256})


LONG_HARD = ["x" * 3000, "👍" * 500, "^" * 999, " " * 777, "0" * 500, "ab" * 300 + "ba" * 200,
             "aaaa bbbb " * 30]


def by_levels(data, ranks):
    """apply_ranks by its one-rank-at-a-time sweep alone: no joinable table (so no cuts into
    pieces) and the str.replace path for long chunks of few bytes turned off (REPLACE_CHUNK
    raised past any text here), as the sweep is what a chunk gets when those decline."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(encode, "REPLACE_CHUNK", 10**9)
        return encode.apply_ranks(data, ranks)


@pytest.mark.parametrize("text", LONG_HARD)
def test_long_chunk_paths_agree_with_tiktoken(text, gpt4, cl100k):
    data = text.encode()
    expected = cl100k._encode_single_piece(data)  # tiktoken's merge loop on one piece
    assert by_levels(data, gpt4.ranks) == expected


@settings(max_examples=60, deadline=None)
@given(st.lists(st.sampled_from(["a", "b", "ab", "x", " ", "👍", "é", "0"]), min_size=64,
                max_size=300).map("".join))
def test_long_chunk_levels_fuzz(gpt4, cl100k, text):
    data = text.encode()
    assert by_levels(data, gpt4.ranks) == cl100k._encode_single_piece(data)


def test_long_chunk_pauses_when_a_merge_makes_a_lower_rank():
    # "ab" (rank 257) merges first, then "c"+"ab" has rank 256, lower than its own:
    # a plain sweep by rank would be wrong; apply_ranks pauses the sweep
    tiktoken = pytest.importorskip("tiktoken")
    from bpe.ranks_tokenizer import RanksTokenizer
    table = {bytes([b]): b for b in range(256)} | {b"cab": 256, b"ab": 257}
    tok = RanksTokenizer(table, "gpt2")
    assert by_levels(b"cab" * 40, table) == [256] * 40
    enc = tiktoken.Encoding("t", pat_str=tok.pattern, mergeable_ranks=table, special_tokens={})
    assert tok.encode_ordinary("cab" * 40) == enc.encode_ordinary("cab" * 40) == [256] * 40


@settings(max_examples=60, deadline=None)
@given(st.lists(st.sampled_from(["a", "b", "Q", "x", "👍", "é", "^", "zz", "\u0301"]),
                min_size=30, max_size=400).map("".join))
def test_long_chunks_cut_where_nothing_joins(gpt4, cl100k, text):
    # letters (or symbols) only, so the chunk stays whole and takes the cut-into-pieces path
    data = text.encode()
    assert gpt4.encode_chunk(data) == cl100k._encode_single_piece(data)
    assert gpt4.encode_ordinary(text) == cl100k.encode_ordinary(text)
