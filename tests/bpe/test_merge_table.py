"""bpe.formats.hf.merge_table packs a BPE model's merges (issue 32: a dict with a tuple key per
merge made a visitor's BPE tokenizer.json cost ten times its size): it must mean what the
dict it replaced meant (a pair written twice keeps its later merge and its first place), on
fuzz, and the models built on it must encode as `tokenizers` does."""
import json
import pickle
import random
from array import array

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tokenizers import Tokenizer

from bpe.formats.hf.merge_table import MergeTable
from bpe.loading import load_hf_bytes
from helpers.hostile_parts import bpe_merges


def _dict_of(pairs):
    """What the models kept before: a dict assigned in merge order, pair -> merge number."""
    out = {}
    for k, pair in enumerate(pairs):
        if pair[0] >= 0:
            out[pair] = k
    return out


pair_lists = st.lists(st.tuples(st.integers(-1, 12), st.integers(0, 12)), max_size=60)


@settings(max_examples=300, deadline=None)
@given(pair_lists)
def test_the_table_means_what_a_dict_assigned_in_merge_order_means(pairs):
    table = MergeTable(array("i", [a for a, _ in pairs]), array("i", [b for _, b in pairs]))
    want = _dict_of(pairs)
    assert len(table) == len(want)
    assert list(table.pairs()) == list(want.items())  # first place, last merge
    plain, find = table.finder(), table.finder(offset=256, missing=None)
    for a in range(-1, 14):
        for b in range(14):
            k = want.get((a, b))
            assert plain(a, b) == (-1 if k is None else k)
            assert find(a, b) == (None if k is None else 256 + k)


def test_a_pickled_table_is_equal_and_finds_the_same():
    data = bpe_merges(2_000)
    model = load_hf_bytes(data, "m.json").model
    table = model.merges
    again = pickle.loads(pickle.dumps(table))
    assert again == table and again.left is not table.left
    assert list(again.pairs()) == list(table.pairs())
    assert MergeTable(array("i", [1]), array("i", [2])) != table


@pytest.mark.parametrize("byte_level", [False, True])
def test_real_shaped_merges_spread_over_the_table(byte_level):
    """The mix spreads a file's ids: a merge is found in about one read (linear probing at
    half full averages 1.5 on random keys; consecutive ids must not cluster worse)."""
    table = load_hf_bytes(bpe_merges(20_000, byte_level=byte_level), "m.json").model.merges
    assert len(table) == 20_000
    assert table.probes() < 1.6


def _text(rng, alphabet, n):
    words = ["".join(rng.choice(alphabet) for _ in range(rng.randint(1, 14)))
             for _ in range(n)]
    return " ".join(words)


@pytest.mark.parametrize("kind", ["sentencepiece", "byte-level", "byte-level-lists"])
def test_packed_merges_encode_as_tokenizers_does(kind):
    data = bpe_merges(5_000, byte_level=kind != "sentencepiece", as_lists=kind.endswith("lists"))
    ours = load_hf_bytes(data, "m.json")
    theirs = Tokenizer.from_str(data.decode("utf-8"))
    rng = random.Random(kind)
    # the alphabet's letters (long merges), then others: bytes, fallbacks, unknowns
    alphabet = "abcdefghijklmnopqrstuvwxyz" * 4 + "\u2581 é€😀\n"
    for _ in range(40):
        text = _text(rng, alphabet, rng.randint(1, 30))
        assert ours.encode(text) == theirs.encode(text, add_special_tokens=False).ids, text
    long = _text(rng, "abcdefghijklmnopqrstuvwxyz", 400)  # a long piece with no split
    assert ours.encode(long) == theirs.encode(long, add_special_tokens=False).ids


@pytest.mark.parametrize("kind", ["sentencepiece", "byte-level"])
def test_merge_columns_are_the_files_merges_in_its_ids(kind):
    """HFTokenizer.merge_columns (what the Vocabulary page reads) and merges, against the
    file itself: each merge line's made, left and right tokens through its vocab."""
    data = bpe_merges(3_000, byte_level=kind == "byte-level")
    model = json.loads(data)["model"]
    vocab = model["vocab"]
    want = [(vocab[a + b], vocab[a], vocab[b]) for a, b in (m.split(" ") for m in model["merges"])]
    tok = load_hf_bytes(data, "m.json")
    made, lefts, rights = tok.merge_columns()
    assert list(zip(made, lefts, rights)) == want
    assert tok.merges == {(a, b): m for m, a, b in want}
