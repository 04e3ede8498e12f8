"""BPE-dropout, LiteToken residue and blame over real tokenizers."""
from pathlib import Path

import pytest
from hypothesis import given, settings, strategies as st

from bpe import GPT4Tokenizer, RegexTokenizer, methods
from bpe.methods.blame import blame
from bpe.methods.residue import leftover_share
from bpe.reference import load_reference
from tests.helpers.app import read_corpus

ARENA = [p.read_text(encoding="utf-8") for p in sorted(
    (Path(__file__).resolve().parents[2] / "samples" / "arena").glob("*.txt"))]


@pytest.fixture(scope="module")
def trained():
    docs = read_corpus("taylorswift.txt")[:20_000].split("\n\n")
    return {m: methods.train(m, docs, 400) for m in ("bpe", "superbpe", "boundless")}


@pytest.fixture(scope="module")
def gpt4():
    return GPT4Tokenizer()


@pytest.mark.parametrize("name", ["bpe", "superbpe", "boundless"])
def test_dropout_zero_is_encode_and_varies(trained, name):
    tok = trained[name]
    text = read_corpus("taylorswift.txt")[30_000:32_000]
    assert methods.dropout_encode(tok, text, 0) == tok.encode_ordinary(text)
    one, two = (methods.dropout_encode(tok, text, 0.2, seed=s) for s in (1, 2))
    assert one != two
    assert tok.decode(one) == tok.decode(two) == text
    assert len(one) > len(tok.encode_ordinary(text))


def test_dropout_on_ranks(gpt4):
    for text in ARENA:
        assert methods.dropout_encode(gpt4, text, 0.0) == gpt4.encode_ordinary(text)
        assert gpt4.decode(methods.dropout_encode(gpt4, text, 0.5, seed=3)) == text


@pytest.mark.parametrize("p", [1, -0.1, 1.5, "0.1", True])
def test_dropout_p_checked(gpt4, p):
    with pytest.raises(ValueError, match=r"\[0, 1\)"):
        methods.dropout_encode(gpt4, "hi", p)


def test_residue_counts_add_up(trained):
    tok = trained["bpe"]
    text = read_corpus("taylorswift.txt")[:20_000]
    data = methods.residue(tok, [text])
    ids = tok.encode_ordinary(text)
    for idx, (final, intermediate, r) in data.items():
        assert final == ids.count(idx)
        assert intermediate >= 0 and r == final / (final + intermediate)
    # every merge applied once per node: bytes merged away = tokens made
    assert sum(f + i for f, i, _ in data.values()) == len(text.encode("utf-8")) - len(ids)
    assert 0 < leftover_share(data) < 1


def test_residue_of_references_is_fast_and_whole():
    for name in ("o200k_base", "llama3"):
        tok = load_reference(name)
        data = methods.residue(tok, ARENA)
        n_bytes = sum(len(t.encode("utf-8")) for t in ARENA)
        n_ids = sum(len(tok.encode_ordinary(t)) for t in ARENA)
        assert sum(f + i for f, i, _ in data.values()) == n_bytes - n_ids
        assert sum(f for f, _, _ in data.values()) == sum(
            1 for t in ARENA for idx in tok.encode_ordinary(t) if len(tok.vocab[idx]) > 1)


def test_blame_on_arena(trained, gpt4):
    for text in ARENA:
        result = blame(trained["bpe"], gpt4, text)
        assert result.difference == (len(trained["bpe"].encode_ordinary(text))
                                     - len(gpt4.encode_ordinary(text)))
        assert sum(result.charges.values()) == result.difference


@settings(max_examples=60, deadline=None)
@given(st.text(max_size=80))
def test_blame_adds_up_fuzz(text):
    a = RegexTokenizer().train("hello world hello there", 270)
    b = _GPT4[0]
    result = blame(a, b, text)
    assert sum(result.charges.values()) == result.difference == (
        len(a.encode_ordinary(text)) - len(b.encode_ordinary(text)))
    for span in result.spans:
        assert b"".join(span.a_tokens) == b"".join(span.b_tokens)


_GPT4 = [GPT4Tokenizer()]
