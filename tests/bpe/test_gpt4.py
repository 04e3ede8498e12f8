"""GPT4Tokenizer gives tiktoken's cl100k_base ids, with and without special tokens."""
from concurrent.futures import ThreadPoolExecutor

import pytest
from hypothesis import given, settings, strategies as st

from bpe import BasicTokenizer, RegexTokenizer
from bpe.ranks_tokenizer import CL100K_SHA256, load_ranks

SPECIALS_STRING = """<|endoftext|>Hello world this is one document
<|endoftext|>And this is another document
<|endoftext|><|fim_prefix|>And this one has<|fim_suffix|> tokens.<|fim_middle|> FIM
<|endoftext|>Last document!!! 👋<|endofprompt|>"""
TRICKY = [
    "", "?", "hello world!!!? (안녕하세요!) lol123 😉",
    "   leading and trailing   \n\n\n", "tabs\t\tand\r\nwindows\r\n", "I'M HE'S they'LL",
    "12345678901234567890 3.14159 1,000,000", "x" * 5000, " " * 3000 + "a", "\n" * 500,
    "👩🏽‍💻👨‍👩‍👧🇺🇳🏳️‍🌈", "e\u0301 a\u0308 ﷽", "\u200b\u200d\u2060", "<script>alert(1)</script>",
    "def f(x):\n    return x ** 2  # comment\n", "עברית العربية", "\x00\x01\x7f",
]


def test_done_when_example(gpt4):
    assert gpt4.encode("hello world!!!? (안녕하세요!) lol123 😉") == [
        15339, 1917, 12340, 30, 320, 31495, 230, 75265, 243, 92245, 16715, 28509, 4513, 57037]


@pytest.mark.parametrize("text", TRICKY)
def test_tiktoken_equality(gpt4, cl100k, text):
    assert gpt4.encode(text) == cl100k.encode(text)


def test_tiktoken_equality_corpora(gpt4, cl100k, taylorswift, shakespeare):
    assert gpt4.encode(taylorswift) == cl100k.encode(taylorswift)
    assert gpt4.encode_ordinary(shakespeare) == cl100k.encode_ordinary(shakespeare)


def test_tiktoken_equality_special_tokens(gpt4, cl100k):
    assert gpt4.encode(SPECIALS_STRING, allowed_special="all") == \
        cl100k.encode(SPECIALS_STRING, allowed_special="all")
    assert gpt4.encode(SPECIALS_STRING, allowed_special="none") == \
        cl100k.encode(SPECIALS_STRING, disallowed_special=())
    some = {"<|endoftext|>"}
    assert gpt4.encode(SPECIALS_STRING, allowed_special=some, disallowed_special=()) == \
        cl100k.encode(SPECIALS_STRING, allowed_special=some, disallowed_special=())
    with pytest.raises(ValueError, match="allowed_special"):
        gpt4.encode(SPECIALS_STRING)


def test_recovered_merges_rebuild_the_vocab(gpt4):
    merges = gpt4.merges
    assert len(merges) == len(gpt4.ranks) - 256
    for (p0, p1), idx in list(merges.items())[::97]:
        assert gpt4.vocab[p0] + gpt4.vocab[p1] == gpt4.vocab[idx]
    shuffle = gpt4.byte_shuffle
    assert sorted(shuffle.values()) == list(range(256)) and shuffle[ord("!")] == 0


def test_ranks_file_hash_is_checked(tmp_path):
    path = tmp_path / "fake.tiktoken"
    path.write_bytes(b"YQ== 0\n")
    with pytest.raises(ValueError, match="sha256"):
        load_ranks(path, CL100K_SHA256)


mixed_text = st.text(
    alphabet=st.characters(blacklist_categories=("Cs",)), max_size=200) | st.text(
    alphabet=st.sampled_from(list(" \t\n\r'sSdtl0123aZé한😉🏽\u200d<|>endoftx")), max_size=200)


@settings(max_examples=400, deadline=None)
@given(mixed_text)
def test_property_tiktoken_equality(gpt4, cl100k, text):
    assert gpt4.encode_ordinary(text) == cl100k.encode_ordinary(text)


@pytest.fixture(scope="module")
def trained(taylorswift):
    return [BasicTokenizer().train(taylorswift[:10000], 320),
            RegexTokenizer().train(taylorswift[:10000], 320)]


@settings(max_examples=200, deadline=None)
@given(mixed_text)
def test_property_round_trip(gpt4, trained, text):
    for tok in trained + [gpt4]:
        assert tok.decode(tok.encode_ordinary(text)) == text


@pytest.mark.slow  # every code point through ours and tiktoken: ~15-35 s
def test_every_code_point_falls_in_tiktokens_character_class(gpt4, cl100k):
    # Each code point c is followed by "'LLe": whether c joins the apostrophe or stands
    # alone shows whether the split pattern took c for a letter, number, space or other.
    # The regex module's Unicode tables must be the version tiktoken's are (16.0).
    # tiktoken encodes in a thread meanwhile (its Rust lets go of the GIL): ours is the
    # long half.
    code_points = [chr(cp) for cp in range(0x110000) if not 0xD800 <= cp <= 0xDFFF]
    blocks = [code_points[start:start + 0x10000] for start in range(0, len(code_points),
                                                                      0x10000)]
    texts = ["".join(c + "'LLe\n" for c in block) for block in blocks]
    with ThreadPoolExecutor(1) as pool:
        theirs = pool.map(cl100k.encode_ordinary, texts)
        for block, text, want in zip(blocks, texts, theirs):
            if gpt4.encode_ordinary(text) != want:
                bad = [c for c in block
                       if gpt4.encode_ordinary(c + "'LLe") != cl100k.encode_ordinary(c + "'LLe")]
                raise AssertionError(f"{len(bad)} code points split unlike tiktoken, first "
                                     f"U+{ord(bad[0]):04X}; is regex newer than Unicode 16?")
