"""tiktoken's own test cases (tests/test_encoding.py, test_offsets.py in openai/tiktoken)
that apply to us, rewritten here: each runs on tiktoken's cl100k_base ("theirs") and on our
GPT4Tokenizer ("ours"), so a case that tiktoken itself fails would show up as wrong
expectations, not as our bug. The gpt2, r50k, p50k and o200k cases run on bpe's registry
(bpe.get_encoding, bpe/registry.py) with their expected ids written here; the rest run
on cl100k or on a small trained tokenizer with its tiktoken twin.
"""
import hypothesis
import pytest
from hypothesis import strategies as st

from bpe import RegexTokenizer
from bpe.formats import ranks

MAX_EXAMPLES = 40


@pytest.fixture(scope="module")
def trained_pair():
    tiktoken = pytest.importorskip("tiktoken")
    tok = RegexTokenizer("gpt2").train(
        "hello world goodbye world 00000000 ^^^^ 'sss'ss \n\n  " * 40, 320)
    tok = tok.with_special_tokens({"<|endoftext|>": 320, "<|fim_prefix|>": 321})
    return tok, tiktoken.Encoding(**ranks.tiktoken_kwargs(tok, name="trained"))


@pytest.fixture(params=["ours", "theirs"])
def enc(request, gpt4, cl100k):
    return gpt4 if request.param == "ours" else cl100k


@pytest.fixture(params=["cl100k-ours", "cl100k-theirs", "trained-ours", "trained-theirs"])
def any_enc(request, gpt4, cl100k, trained_pair):
    return {"cl100k-ours": gpt4, "cl100k-theirs": cl100k, "trained-ours": trained_pair[0],
            "trained-theirs": trained_pair[1]}[request.param]


def test_simple(enc):
    assert enc.encode("hello world") == [15339, 1917]
    assert enc.decode([15339, 1917]) == "hello world"
    assert enc.encode("hello <|endoftext|>", allowed_special="all") == [15339, 220, 100257]
    for token in range(10_000):
        assert enc.encode_single_token(enc.decode_single_token_bytes(token)) == token


def test_simple_regex(enc):
    assert enc.encode("rer") == [38149]
    assert enc.encode("'rer") == [2351, 81]
    assert enc.encode("today\n ") == [31213, 198, 220]
    assert enc.encode("today\n \n") == [31213, 27907]
    assert enc.encode("today\n  \n") == [31213, 14211]
    assert enc.encode(" \x850") == [220, 126, 227, 15]
    assert enc.encode("") == []


def test_encode_surrogate_pairs(enc):
    assert enc.encode("👍") == [9468, 239, 235]
    assert enc.encode("\ud83d\udc4d".encode("utf-16", "surrogatepass").decode("utf-16")) == \
        [9468, 239, 235]
    assert enc.encode("\ud83d") == enc.encode("�")  # a lone surrogate is replaced


@pytest.mark.parametrize("c", ["^", "0", "a", "'s", " ", "\n"])
def test_catastrophically_repetitive(any_enc, c):
    for big_value in (c * 10_000, " " + c * 10_000, " " + c * 10_000 + "\n"):
        assert any_enc.decode(any_enc.encode(big_value)) == big_value


def test_basic_roundtrip(any_enc):
    for value in ("hello", "hello ", "hello  ", " hello", " hello ", " hello  ",
                  "hello world", "请考试我的软件！12345"):
        assert any_enc.decode(any_enc.encode(value)) == value
        assert any_enc.decode(any_enc.encode_ordinary(value)) == value


@hypothesis.given(text=st.text())
@hypothesis.settings(deadline=None, max_examples=MAX_EXAMPLES)
def test_hyp_roundtrip_and_special_ordinary(gpt4, cl100k, trained_pair, text):
    for enc in (gpt4, cl100k, *trained_pair):
        assert enc.decode(enc.encode(text, disallowed_special=())) == text
        assert enc.encode_ordinary(text) == enc.encode(text, disallowed_special=())
    assert gpt4.encode(text, disallowed_special=()) == cl100k.encode(text, disallowed_special=())
    ours, theirs = trained_pair
    assert ours.encode_ordinary(text) == theirs.encode_ordinary(text)


def test_single_token_roundtrip(trained_pair):
    for enc in trained_pair:
        for token in range(enc.n_vocab):
            try:
                token_bytes = enc.decode_single_token_bytes(token)
            except KeyError:
                continue
            assert enc.encode_single_token(token_bytes) == token


def test_special_token(enc):
    eot = enc.encode_single_token("<|endoftext|>")
    assert eot == 100257
    fip = enc.encode_single_token("<|fim_prefix|>")
    fim = enc.encode_single_token("<|fim_middle|>")

    text = "<|endoftext|> hello <|fim_prefix|>"
    assert eot not in enc.encode(text, disallowed_special=())
    for disallowed in ("all", {"<|endoftext|>"}, {"<|fim_prefix|>"}):
        with pytest.raises(ValueError, match="disallowed special token"):
            enc.encode(text, disallowed_special=disallowed)
    with pytest.raises(ValueError, match="disallowed special token '<\\|endoftext\\|>'"):
        enc.encode(text)

    text = "<|endoftext|> hello <|fim_prefix|> there <|fim_middle|>"
    cases = [
        ({}, set()), ({"allowed_special": "all"}, {eot, fip, fim}),
        ({"allowed_special": {"<|fim_prefix|>"}}, {fip}),
        ({"allowed_special": {"<|endoftext|>"}}, {eot}),
        ({"allowed_special": {"<|fim_middle|>"}}, {fim}),
    ]
    for kwargs, present in cases:
        tokens = enc.encode(text, disallowed_special=(), **kwargs)
        assert {eot, fip, fim} & set(tokens) == present
    tokens = enc.encode(text, allowed_special="all", disallowed_special="all")
    assert {eot, fip, fim} <= set(tokens)


def test_batch_encode(any_enc):
    text1, text2 = "hello world", "goodbye world"
    assert any_enc.encode_batch([text1]) == [any_enc.encode(text1)]
    assert any_enc.encode_batch([text1, text2]) == [any_enc.encode(text1), any_enc.encode(text2)]
    assert any_enc.encode_ordinary_batch([text1, text2]) == [
        any_enc.encode_ordinary(text1), any_enc.encode_ordinary(text2)]


@hypothesis.given(batch=st.lists(st.text(), max_size=4))
@hypothesis.settings(deadline=None, max_examples=MAX_EXAMPLES)
def test_hyp_batch_roundtrip(gpt4, cl100k, batch):
    for enc in (gpt4, cl100k):
        encoded = enc.encode_batch(batch, allowed_special="all")
        assert encoded == [enc.encode(t, allowed_special="all") for t in batch]
        assert enc.decode_batch(encoded) == batch
    assert gpt4.encode_batch(batch, allowed_special="all") == \
        cl100k.encode_batch(batch, allowed_special="all")


# ------------------------------------------------------------------ offsets (test_offsets.py)
def _common_prefix_len(a, b):
    i = 0
    while i < len(a) and i < len(b) and a[i] == b[i]:
        i += 1
    return i


def _offsets_by_prefixes(enc, tokens):
    """The definition the offsets follow: how far each token's prefix decodes."""
    text = enc.decode(tokens, errors="strict")
    return [_common_prefix_len(text, enc.decode(tokens[:i], errors="ignore"))
            for i in range(len(tokens))]


@hypothesis.given(data=st.data())
@hypothesis.settings(deadline=None, max_examples=MAX_EXAMPLES)
def test_hyp_offsets(gpt4, cl100k, data):
    tokens = data.draw(st.lists(st.integers(0, 100255) | st.sampled_from([100257, 100276]),
                                min_size=1, max_size=20))
    tokens = cl100k.encode(cl100k.decode(tokens, errors="ignore"), allowed_special="all")
    ours = gpt4.decode_with_offsets(tokens)
    assert ours == cl100k.decode_with_offsets(tokens)
    assert ours[1] == _offsets_by_prefixes(gpt4, tokens)


@pytest.mark.parametrize("prompt, offsets", [
    ("hello world", [0, 5]),
    ("hello world<|endoftext|> green cow", [0, 5, 11, 24, 30]),
    ("我非常渴望与人工智能一起工作", [0, 1, 2, 3, 3, 4, 4, 5, 6, 7, 8, 8, 9, 10, 11, 12, 13]),
    # tokens b'\xe0\xae\xbf\xe0\xae' and b'\xe0\xaf\x8d\xe0\xae' end inside a character
    ("நடிகர் சூர்யா", [0, 0, 1, 1, 2, 3, 4, 4, 5, 6, 7, 8, 8, 9, 9, 10, 11, 12, 12]),
    # token b'\xa0\xe9\x99\xa4' starts with a continuation byte
    (" Ġ除", [0, 1]),
])
def test_basic_offsets(enc, prompt, offsets):
    assert enc.decode_with_offsets(enc.encode(prompt, allowed_special="all")) == (prompt, offsets)


# ------------------------------------------------------------------ error types
@pytest.mark.parametrize("ids, error", [
    ([1.0], TypeError), (["1"], TypeError), ([None], TypeError),
    ([-1], OverflowError), ([2 ** 32], OverflowError), ([2 ** 64], OverflowError),
    ([10 ** 6], KeyError), ([100261], KeyError),
])
def test_decode_error_types(enc, ids, error):
    with pytest.raises(error):
        enc.decode(ids)
    with pytest.raises(error):
        enc.decode_tokens_bytes(ids)


def test_single_token_errors(enc):
    with pytest.raises(KeyError):
        enc.encode_single_token("hello world")
    with pytest.raises(TypeError):
        enc.encode_single_token(100)
    with pytest.raises(KeyError):
        enc.decode_single_token_bytes(10 ** 6)
    with pytest.raises(OverflowError):
        enc.decode_single_token_bytes(-1)
    with pytest.raises(TypeError):
        enc.decode_single_token_bytes(1.0)
    with pytest.raises(UnicodeDecodeError):
        enc.decode_with_offsets(enc.encode("👍")[:1])


def test_attributes(enc):
    assert enc.n_vocab == 100277 and enc.max_token_value == 100276
    assert enc.special_tokens_set == {"<|endoftext|>", "<|fim_prefix|>", "<|fim_middle|>",
                                      "<|fim_suffix|>", "<|endofprompt|>"}


# ------------------------------------------------------- the other encodings, by name
def test_gpt2_simple_and_repeated_zeros():
    import bpe
    enc = bpe.get_encoding("gpt2")
    assert enc.encode("hello world") == [31373, 995]
    assert enc.decode([31373, 995]) == "hello world"
    assert enc.encode("hello <|endoftext|>", allowed_special="all") == [31373, 220, 50256]
    zeros = {1: [15], 2: [405], 3: [830], 4: [2388], 5: [20483], 6: [10535], 7: [24598],
             8: [8269], 9: [10535, 830], 10: [8269, 405], 16: [25645],
             17: [8269, 10535, 830]}
    for n, ids in zeros.items():
        assert enc.encode("0" * n) == ids


def test_basic_encode_on_every_gpt3_encoding():
    import bpe
    for name in ["r50k_base", "p50k_base", "p50k_edit"]:
        assert bpe.get_encoding(name).encode("hello world") == [31373, 995]
    assert bpe.get_encoding("r50k_base").encode("") == []


def test_single_token_roundtrip_on_every_encoding():
    import bpe
    for name in bpe.list_encoding_names():
        enc = bpe.get_encoding(name)
        for token in range(0, min(10_000, enc.max_token_value - 1), 7):
            assert enc.encode_single_token(enc.decode_single_token_bytes(token)) == token


def test_encoding_for_model_names():
    import bpe
    for model, name in [("gpt2", "gpt2"), ("text-davinci-003", "p50k_base"),
                        ("text-davinci-edit-001", "p50k_edit"),
                        ("gpt-3.5-turbo-0301", "cl100k_base"), ("gpt-4", "cl100k_base"),
                        ("gpt-4o", "o200k_base"), ("gpt-oss-120b", "o200k_harmony")]:
        assert bpe.encoding_for_model(model).name == name


def test_large_repeated_on_o200k():
    import bpe
    assert bpe.get_encoding("o200k_base").encode("x" * 1_000_000)
