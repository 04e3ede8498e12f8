"""The eight reference tokenizers: ours against each owner's library, on real text, tricky
strings and fuzz; their files hash-checked; a missing package named with its pip line."""
import dataclasses
import functools
import importlib
import re
import shutil
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bpe import GPT4Tokenizer, reference
from bpe.reference import REFERENCES
from helpers.app import ROOT
from lab import parity
from test_gpt4 import TRICKY

NAMES = list(REFERENCES)
FUZZ = st.text(st.characters(codec="utf-8"), max_size=60) | st.text(
    st.sampled_from(" \n\t\r\u00a0\u3000aZ09'sdlt.,!?-_/é😉한中ا\u0301"), max_size=60)


owner_encoder = functools.lru_cache(maxsize=None)(parity.owner_encoder)  # built once per run
load = functools.lru_cache(maxsize=None)(reference.load_reference)


@pytest.fixture(scope="module", params=NAMES)
def pair(request):
    """(name, ours, their encode, their library) for each reference."""
    name = request.param
    library, encode = owner_encoder(name)
    return name, load(name), encode, library


def test_every_reference_is_available_here():
    assert reference.available_references() == {name: None for name in NAMES}


def test_owner_libraries_are_the_owners():
    """The check runs the owner's own tokenizer wherever it is importable in the test venv."""
    libraries = {name: owner_encoder(name)[0] for name in NAMES}
    assert libraries == {"cl100k_base": "tiktoken", "o200k_base": "tiktoken",
                         "r50k_base": "tiktoken", "llama3": "llama_models",
                         "llama4": "llama_models", "mistral_v1": "sentencepiece",
                         "mistral_v3": "sentencepiece", "tekken": "mistral_common"}


def test_ids_equal_the_owners_on_the_corpora(pair, taylorswift, shakespeare):
    name, tok, encode, _ = pair
    for text in (taylorswift, shakespeare[:400_000]):  # a third of Shakespeare keeps it quick
        assert parity.compare(tok.encode_ordinary(text), encode(text)) == ""


def test_ids_equal_the_owners_on_tricky_strings(pair):
    name, tok, encode, library = pair
    surrogate = [] if library == "sentencepiece" else ["a\ud800b"]  # sentencepiece refuses it
    for text in TRICKY + ["<|endoftext|> [INST] <s> </s> <|eot_id|>", *surrogate]:
        assert tok.encode(text, allowed_special="none") == encode(text), text


@pytest.mark.parametrize("name", NAMES)
def test_fuzz_ids_and_round_trip(name):
    tok = load(name)
    encode = owner_encoder(name)[1]

    @settings(max_examples=80, deadline=None, suppress_health_check=list(HealthCheck))
    @given(FUZZ)
    def check(text):
        ids = tok.encode_ordinary(text)
        assert ids == encode(text)
        assert tok.decode(ids) == text
        assert b"".join(tok.decode_tokens_bytes(ids)) == text.encode()  # what views draw
    check()


@pytest.mark.parametrize("name, text, ids", [
    ("r50k_base", "hello world", [31373, 995]),      # GPT-2's published ids
    ("cl100k_base", "hello world", [15339, 1917]),
    ("o200k_base", "hello world", [24912, 2375]),
    ("llama3", "hello world", [15339, 1917]),
])
def test_published_ids(name, text, ids):
    assert reference.load_reference(name).encode_ordinary(text) == ids


def test_cl100k_is_gpt4():
    assert isinstance(reference.load_reference("cl100k_base"), GPT4Tokenizer)


@pytest.mark.parametrize("name", ["llama3", "llama4"])
def test_llama_specials_and_cut_are_the_owners(name):
    module = importlib.import_module(f"llama_models.{name}.tokenizer")
    path = Path(reference.locate(REFERENCES[name]))
    theirs = module.Tokenizer(path)
    ours = load(name)
    assert ours.special_tokens == theirs.special_tokens
    assert len(ours.special_tokens) == (256 if name == "llama3" else 2048)
    chat = "<|begin_of_text|>hi<|eot_id|><|header_start|>user<|header_end|>"
    assert ours.encode(chat, allowed_special="all") == theirs.encode(
        chat, bos=False, eos=False, allowed_special="all")
    # llama_models cuts runs of 25,000+ (non-)whitespace and 400,000-character slices
    long = ["ab " * 134_000] if name == "llama3" else []  # past the 400,000-character slice
    for text in ["a" * 60_000 + " b", " " * 30_000 + "x", *long]:
        assert ours.encode_ordinary(text) == theirs.encode(text, bos=False, eos=False)


def test_llama_cut_is_llamas_own():
    from llama_models.llama3.tokenizer import Tokenizer
    for text in ["", "a b", "x" * 25_001, "\u2028" * 50_001 + "y" * 7, "\x1c" * 26_000 + " "]:
        cut = list(Tokenizer._split_whitespaces_or_nonwhitespaces(text, 25_000))
        assert reference._cut_long_runs(text) == cut


def test_tekken_specials_and_offset_are_mistrals():
    from mistral_common.tokens.tokenizers.tekken import Tekkenizer
    theirs = Tekkenizer.from_file(reference.locate(REFERENCES["tekken"]))
    ours = reference.load_reference("tekken")
    assert ours.n_vocab == theirs.n_words == 131072
    assert {str(t["token_str"].value if hasattr(t["token_str"], "value") else t["token_str"]):
            t["rank"] for t in theirs._all_special_tokens} == ours.special_tokens
    assert ours.decode_single_token_bytes(1000 + 65) == b"A"  # byte 65 is id 1065


@pytest.mark.parametrize("name", ["mistral_v1", "mistral_v3"])
def test_sentencepiece_decode_is_sentencepieces(name):
    import sentencepiece as spm
    sp = spm.SentencePieceProcessor(model_file=reference.locate(REFERENCES[name]))
    tok = reference.load_reference(name)
    for text in ["hello world", " lead", "\nx", "  two  spaces", "한국어 😉"]:
        ids = tok.encode_ordinary(text)
        for some in (ids, ids[1:], [1, *ids]):  # the dummy space goes with the first piece
            assert tok.decode([i for i in some if i not in tok.inverse_special_tokens]) == \
                sp.decode(some)
    assert tok.decode_single_token_bytes(1) == b"<s>"  # control pieces are special tokens
    with pytest.raises(ValueError, match="pretrained"):
        tok.train("text", 300)


@pytest.mark.parametrize("name", ["r50k_base", "llama3", "mistral_v1", "tekken"])
def test_a_tampered_copy_is_refused(name, tmp_path, monkeypatch):
    ref = REFERENCES[name]
    copy = tmp_path / Path(ref.file).name
    shutil.copy(reference.locate(ref), copy)
    data = bytearray(copy.read_bytes())
    data[len(data) // 2] ^= 1
    copy.write_bytes(bytes(data))
    monkeypatch.setattr(reference, "locate", lambda ref: str(copy))
    with pytest.raises(ValueError, match=f"expected {ref.sha256}.*reinstall {ref.package}"):
        reference.load_reference(name)


def test_a_missing_package_is_named_with_its_pip_line(monkeypatch):
    gone = dataclasses.replace(REFERENCES["llama3"], module="no_such_package_here")
    monkeypatch.setitem(REFERENCES, "llama3", gone)
    reason = reference.available_references()["llama3"]
    assert "'llama-models'" in reason and "pip install --no-deps -r requirements-vocab.txt" in reason
    with pytest.raises(FileNotFoundError, match="llama-models"):
        reference.load_reference("llama3")


def test_requirements_vocab_pins_every_vocabulary_package():
    pins = dict(re.findall(r"^([\w-]+)==(\S+)", (ROOT / "requirements-vocab.txt").read_text(),
                           re.M))
    assert set(pins) == {ref.package for ref in REFERENCES.values()
                         if ref.install.endswith("requirements-vocab.txt")}
    from importlib.metadata import version
    assert all(version(package) == pin for package, pin in pins.items())


def test_reference_check_badges():
    tok = reference.load_reference("llama3")
    check = parity.reference_check("llama3", "hello world", tok)
    assert check.ok and check.badge == "ids == llama_models"
    wrong = parity.reference_check("llama3", "hello world", tok, [1, 2])
    assert not wrong.ok and "first difference at token 0" in wrong.detail
    assert parity.reference_check("my tokenizer", "x", tok) is None
    long = "word " * 50_000
    assert parity.reference_check("llama3", long, tok).detail == "first 200,000 characters"


def test_unknown_reference():
    with pytest.raises(ValueError, match="unknown reference 'p50k'"):
        reference.load_reference("p50k")


@pytest.mark.parametrize("name, library", [
    ("tekken", "tiktoken (mistral_common not importable)"),
    ("llama3", "tiktoken + Llama's cut")])
def test_fallback_references_when_the_owner_library_is_not_importable(name, library,
                                                                      monkeypatch, taylorswift):
    monkeypatch.setattr(parity, "_importable", lambda module: False)
    their_library, encode = parity.owner_encoder(name)
    assert their_library == library
    text = taylorswift[:50_000] + " " * 30_000 + "x"
    assert load(name).encode_ordinary(text) == encode(text)
