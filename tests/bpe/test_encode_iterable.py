"""encode_iterable: exactly encode("".join(pieces)), however the text is cut, in memory
bounded by the longest chunk rather than the text (bpe/encode_stream.py)."""
import tracemalloc

import pytest
from hypothesis import given, settings, strategies as st

from bpe import RegexTokenizer, encode_stream
from bpe.registry import get_encoding

SPECIALS = {"<|e|>": 400, "<|e|><|x|>": 401, "<x>": 402}


@pytest.fixture(scope="module")
def trained(taylorswift):
    toks = {}
    for pattern in ["gpt2", "gpt4", "gpt4o"]:
        tok = RegexTokenizer(pattern).train(taylorswift[:30_000], 400)
        toks[pattern] = tok.with_special_tokens(SPECIALS)
    return toks


def cut(text, cuts):
    cuts = sorted(c for c in set(cuts) if c < len(text))
    return [text[a:b] for a, b in zip([0] + cuts, cuts + [len(text)])]


@pytest.fixture
def small_base(monkeypatch):
    monkeypatch.setattr(encode_stream, "BASE_CHARS", 7)  # split at almost every piece


@settings(max_examples=150, deadline=None)
@given(text=st.text(alphabet=st.sampled_from(list("ab Z9'.!\n\r\t  é😉<|ex>")), max_size=300),
       cuts=st.lists(st.integers(0, 300), max_size=12),
       pattern=st.sampled_from(["gpt2", "gpt4", "gpt4o"]),
       policy=st.sampled_from([("all", "all"), ({"<x>"}, ()), ((), ())]))
def test_fuzz_equals_encode_of_the_joined_text(trained, text, cuts, pattern, policy):
    tok = trained[pattern]
    allowed, disallowed = policy
    want = tok.encode(text, allowed_special=allowed, disallowed_special=disallowed)
    saved, encode_stream.BASE_CHARS = encode_stream.BASE_CHARS, 5  # split at most pieces
    try:
        got = list(tok.encode_iterable(cut(text, cuts), allowed_special=allowed,
                                       disallowed_special=disallowed))
    finally:
        encode_stream.BASE_CHARS = saved
    assert got == want


def test_lines_of_a_real_text_on_a_real_encoding(shakespeare, small_base):
    enc = get_encoding("cl100k_base")
    text = shakespeare[:50_000] + "<|endoftext|>" + "   \n\n  12345678 " * 30
    lines = text.splitlines(keepends=True)
    assert list(enc.encode_iterable(lines, allowed_special="all")) == \
        enc.encode(text, allowed_special="all")


def test_a_special_token_cut_between_pieces(trained, small_base):
    tok = trained["gpt4"]
    pieces = ["ab<", "|e", "|><|x", "|>cd<|e|", ">"]
    assert list(tok.encode_iterable(pieces, allowed_special="all")) == \
        tok.encode("".join(pieces), allowed_special="all")
    assert 401 in tok.encode("".join(pieces), allowed_special="all")


def test_disallowed_special_raises_when_reached(trained):
    tok = trained["gpt4"]
    ids = tok.encode_iterable(["hello ", "<|e|>", " world"])
    with pytest.raises(ValueError, match="disallowed special token"):
        list(ids)


def test_wrong_input_types(trained):
    tok = trained["gpt4"]
    with pytest.raises(TypeError, match="iterable of str"):
        list(tok.encode_iterable("a text"))
    with pytest.raises(TypeError, match="str pieces"):
        list(tok.encode_iterable([b"bytes"]))


def test_a_custom_pattern_is_held_whole_and_still_exact():
    tok = RegexTokenizer(r"\w+|\s+|[^\w\s]+").train("hello world, hello there " * 5, 270)
    pieces = ["hel", "lo wo", "rld, ", "hello"] * 3
    assert list(tok.encode_iterable(pieces)) == tok.encode("".join(pieces))


def peak_bytes(fn):
    tracemalloc.start()
    try:
        fn()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_memory_is_bounded_by_the_longest_chunk_not_the_text(trained):
    tok = trained["gpt2"]
    line = "the quick brown fox jumps over the lazy dog 1234 <|e|>\n"
    tok.encode(line * 3, allowed_special="all")  # fill the chunk cache first

    def consume(n_lines):
        def run():
            for _ in tok.encode_iterable((line for _ in range(n_lines)), allowed_special="all"):
                pass
        return run
    small, big = peak_bytes(consume(2_000)), peak_bytes(consume(40_000))
    # 20x the text (2.2 MB of it at the end) and the peak barely moves: held text is one
    # split's worth (BASE_CHARS), not the input; encode() on it would hold every id
    assert big < small + 200_000
    assert big < 2_000_000
    assert peak_bytes(lambda: tok.encode(line * 40_000, allowed_special="all")) > 5 * big
