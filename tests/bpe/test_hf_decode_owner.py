"""decode is the owner's decode: for any ids (not only encode's), every tokenizer.json
family of tests/helpers/hf_families.py and byte-level files decode as `tokenizers`'
decode(ids, skip_special_tokens=False) does: a byte-level file with "decoder": null joins
the token strings with spaces ('a Ġb'), and an added token that is one byte-level character
decodes as that byte ('é' alone is byte 0xE9, so '�'). Merges that remake a token (Llama 3's
shape) give tokenizers' ids."""
import functools
import json

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

pytest.importorskip("sentencepiece")
tokenizers = pytest.importorskip("tokenizers")
from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers  # noqa: E402

from bpe import load_bytes  # noqa: E402
from bpe.formats.hf.bytelevel import bytes_to_unicode  # noqa: E402
from tests.helpers.hf_families import FAMILIES, corpus  # noqa: E402

BYTE = bytes_to_unicode()


def byte_level(decoder=True):
    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    if decoder:
        tok.decoder = decoders.ByteLevel()
    tok.train_from_iterator(corpus(), trainers.BpeTrainer(
        vocab_size=400, initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        special_tokens=["<|endoftext|>"], show_progress=False))
    doc = json.loads(tok.to_str())
    vocab = doc["model"]["vocab"]
    # added tokens that are single byte-level characters, as some converted files carry
    for content in ("é", "Ā", "Ġ"):
        doc["added_tokens"].append({"id": vocab[content], "content": content,
                                    "single_word": False, "lstrip": False, "rstrip": False,
                                    "normalized": False, "special": True})
    return Tokenizer.from_str(json.dumps(doc))


BUILDERS = dict(FAMILIES, byte_level=byte_level,
                byte_level_no_decoder=functools.partial(byte_level, decoder=False))


@functools.lru_cache(maxsize=None)
def pair(name):
    hf = BUILDERS[name]()
    return hf, load_bytes(hf.to_str().encode(), f"{name}.json")


def test_no_decoder_joins_token_strings():
    hf, ours = pair("byte_level_no_decoder")
    ids = [hf.token_to_id("a"), hf.token_to_id("Ġb") or hf.token_to_id("Ġ")]
    assert ours.decode(ids) == hf.decode(ids, skip_special_tokens=False)
    assert " " in ours.decode(ids) and "Ġ" in ours.decode(ids)


def test_single_byte_character_added_token():
    hf, ours = pair("byte_level")
    ids = [hf.token_to_id("é")]
    assert hf.decode(ids, skip_special_tokens=False) == "\ufffd" == ours.decode(ids)


@pytest.mark.parametrize("name", list(BUILDERS))
@settings(max_examples=100, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_decode_any_ids(name, data):
    hf, ours = pair(name)
    ids = data.draw(st.lists(st.integers(0, hf.get_vocab_size() - 1), max_size=12))
    assert ours.decode(ids) == hf.decode(ids, skip_special_tokens=False)
    assert ours.decode(ids, skip_special_tokens=True) == hf.decode(ids)


# ------------------------------------------------------------------ merges that remake a token
def remade_merges_file():
    """A byte-level tokenizer.json whose merges make "ĠĠĠĠ" twice, as Llama 3's do, with
    ignore_merges and Llama 3's split."""
    vocab = {BYTE[b]: b for b in range(256)}
    merges = [["Ġ", "Ġ"], ["ĠĠ", "Ġ"], ["Ġ", "ĠĠĠ"], ["ĠĠ", "ĠĠ"], ["h", "e"], ["l", "l"],
              ["he", "ll"], ["hell", "o"], ["w", "o"], ["r", "l"], ["wo", "rl"], ["worl", "d"],
              ["Ġ", "world"], ["ĠĠ", "ĠĠĠĠ"], ["ĠĠĠĠ", "ĠĠ"], ["Ġ", "h"]]
    for left, right in merges:
        vocab.setdefault(left + right, len(vocab))
    split = (r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?"
             r"[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+")
    return {"version": "1.0", "added_tokens": [], "normalizer": None, "post_processor": None,
            "pre_tokenizer": {"type": "Sequence", "pretokenizers": [
                {"type": "Split", "pattern": {"Regex": split}, "behavior": "Isolated",
                 "invert": False},
                {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True,
                 "use_regex": False}]},
            "decoder": {"type": "ByteLevel", "add_prefix_space": True, "trim_offsets": True,
                        "use_regex": True},
            "model": {"type": "BPE", "dropout": None, "unk_token": None,
                      "continuing_subword_prefix": None, "end_of_word_suffix": None,
                      "fuse_unk": False, "byte_fallback": False, "ignore_merges": True,
                      "vocab": vocab, "merges": merges}}


@functools.lru_cache(maxsize=None)
def remade(ignore_merges):
    doc = remade_merges_file()
    doc["model"]["ignore_merges"] = ignore_merges
    return Tokenizer.from_str(json.dumps(doc)), load_bytes(json.dumps(doc).encode(), "l3.json")


@pytest.mark.parametrize("ignore_merges", [True, False])
def test_remade_tokens_load_with_tokenizers_ids(ignore_merges):
    hf, ours = remade(ignore_merges)
    for text in ["hello    world", "      x", "hello world", " " * 11, "\n\n   \t  hello"]:
        assert ours.encode(text, allowed_special="all") == hf.encode(text).ids, text


@pytest.mark.parametrize("ignore_merges", [True, False])
@settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck))
@given(text=st.lists(st.sampled_from([" ", "  ", "\n", "\t", "hello", "world", "he", "l",
                                      "o", "wor", "x", "é"]), max_size=16).map("".join))
def test_remade_tokens_fuzz(ignore_merges, text):
    hf, ours = remade(ignore_merges)
    assert ours.encode(text, allowed_special="all") == hf.encode(text).ids
    assert ours.decode(hf.encode(text).ids) == hf.decode(hf.encode(text).ids)
