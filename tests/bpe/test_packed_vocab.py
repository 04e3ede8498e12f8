"""bpe.formats.hf.packed_vocab: a PackedVocab reads exactly as the dict {id: bytes} it
replaces (every lookup, the iteration order, reversed items, ==, pickle), on hypothesis
fuzz of dense, sparse and out-of-order ids; and an HF tokenizer's vocab of each model kind
equals the dict built here from its file's pieces."""
import json
import pickle

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bpe.formats.hf import packed_vocab
from bpe.formats.hf.packed_vocab import PackedPieces, PackedVocab
from bpe.hf_tokenizer import tokenizer_from_hf
from bpe.loading import load_hf_bytes
from helpers.hostile_parts import html_vocab

tokens = st.binary(max_size=6)
dense = st.lists(tokens, max_size=40).map(lambda ts: list(enumerate(ts)))
spread = st.dictionaries(st.integers(0, 10_000_000), tokens, max_size=30).map(
    lambda d: list(d.items()))  # sparse ids, in no particular order
shuffled = st.lists(tokens, max_size=30).flatmap(
    lambda ts: st.permutations(list(enumerate(ts))))


def _with_specials(pairs, data):
    """pairs plus special tokens at ids no piece has (holes and beyond)."""
    taken = {idx for idx, _ in pairs}
    top = max(taken, default=0)
    free = [idx for idx in [*range(50), top + 1, top + 7] if idx not in taken]
    chosen = data.draw(st.lists(st.sampled_from(free), unique=True, max_size=4)) if free else []
    return {idx: f"<s{idx}>".encode() for idx in chosen}


@settings(max_examples=150, deadline=None)
@given(pairs=st.one_of(dense, spread, shuffled), data=st.data())
def test_a_packed_vocab_reads_as_its_dict(pairs, data):
    specials = _with_specials(pairs, data)
    vocab = PackedVocab(PackedPieces(iter(pairs)), specials)
    want = {**dict(pairs), **specials}
    assert len(vocab) == len(want) and list(vocab) == list(want)
    assert list(vocab.items()) == list(want.items())
    assert list(reversed(vocab.items())) == list(reversed(want.items()))
    assert vocab == want and want == vocab and dict(vocab) == want
    probes = list(want) + [-1, 0, 1, 2, 7, 10_000_001, max(want, default=0) + 1, 1.5, "1", None]
    for idx in probes:
        assert (idx in vocab) == (idx in want), idx
        assert vocab.get(idx) == want.get(idx), idx
    for idx in want:
        assert vocab[np.int64(idx)] == want[idx]  # a pandas index's ids, as a dict takes them
    with pytest.raises(KeyError):
        vocab[-1]
    assert vocab.keys() - set(specials) == set(dict(pairs))
    ids = data.draw(st.lists(st.sampled_from(probes[:len(want)] + [-1, 10_000_001]), max_size=20)) \
        if want else [3]
    assert vocab.missing(ids) == {idx for idx in ids if idx not in want}
    found = vocab.tokens_bytes(ids)
    if found is not None:
        assert found == [want[idx] for idx in ids]
    else:
        assert any(idx not in dict(pairs) for idx in ids)
    back = pickle.loads(pickle.dumps(vocab))
    assert back == want and list(back) == list(want) and back.missing(ids) == vocab.missing(ids)


def _doc(model, **parts):
    return {"version": "1.0", "added_tokens": parts.pop("added", []), "normalizer": None,
            "pre_tokenizer": parts.pop("pre", None), "post_processor": None,
            "decoder": parts.pop("decoder", None), "model": model}


ADDED = [{"id": 2, "content": "<mask>", "special": True, "single_word": False,
          "lstrip": False, "rstrip": False, "normalized": False}]


@pytest.mark.parametrize("document, want", [
    # Unigram, a duplicate piece (the later id wins, so id 1 is no token), an added token
    (_doc({"type": "Unigram", "unk_id": 0, "vocab": [["<unk>", 0.0], ["\u2581a", -1.0],
          ["<mask>", -2.0], ["b", -3.0], ["\u2581a", -4.0]]}, added=ADDED,
          pre={"type": "Metaspace", "replacement": "\u2581", "prepend_scheme": "always",
               "split": True}),
     {0: b"<unk>", 4: b" a", 3: b"b", 2: b"<mask>"}),  # "▁a" keeps its first place
    # WordPiece with ids out of order and a gap: the dict's order is the file's
    (_doc({"type": "WordPiece", "unk_token": "[UNK]", "vocab": {"[UNK]": 5, "##b": 1, "a": 9}},
          pre={"type": "Whitespace"}),
     {5: b"[UNK]", 1: b"b", 9: b"a"}),
    # byte-level BPE, an added token among its ids
    (_doc({"type": "BPE", "vocab": {"a": 0, "b": 1, "<mask>": 2, "\u0120": 3, "ab": 4},
           "merges": ["a b"]}, added=ADDED,
          pre={"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True,
               "use_regex": True},
          decoder={"type": "ByteLevel", "add_prefix_space": True, "trim_offsets": True,
                   "use_regex": True}),
     {0: b"a", 1: b"b", 3: b" ", 4: b"ab", 2: b"<mask>"}),
])
def test_each_model_kinds_vocab_is_its_pieces_bytes(document, want):
    tok = tokenizer_from_hf(json.loads(json.dumps(document)))
    assert isinstance(tok.vocab, PackedVocab)
    assert list(tok.vocab.items()) == list(want.items())  # computed here, order and all
    ids = list(want)
    assert tok.decode_tokens_bytes(ids) == [want[idx] for idx in ids]
    assert tok.decode_bytes(ids) == b"".join(want[idx] for idx in ids) or tok.decoder


def test_special_token_changes_share_the_packed_pieces():
    tok = load_hf_bytes(html_vocab(50), "h.json")
    pieces = tok.vocab.pieces
    tok.register_special_tokens({"<x>": 60})
    twin = tok.with_special_tokens({"<y>": 61})
    assert tok.vocab.pieces is pieces and twin.vocab.pieces is pieces
    assert 61 in twin.vocab and 61 not in tok.vocab and tok.vocab[60] == b"<x>"
    tok.unregister_special_tokens({"<x>"})
    assert 60 not in tok.vocab and tok.vocab.pieces is pieces


@pytest.mark.parametrize("holes", [(), (0, 7, 8, 49)])
def test_pieces_packed_in_several_batches_read_as_their_dict(monkeypatch, holes):
    monkeypatch.setattr(packed_vocab, "BATCH", 3)
    pairs = [(idx, bytes([65 + idx % 26]) * (idx % 5)) for idx in range(50) if idx not in holes]
    vocab = PackedVocab(PackedPieces(iter(pairs)))
    assert vocab == dict(pairs) and list(vocab) == [idx for idx, _ in pairs]
    assert vocab.tokens_bytes([idx for idx, _ in pairs]) == [token for _, token in pairs]
