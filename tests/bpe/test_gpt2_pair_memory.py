"""Memory of loading GPT-2's encoder.json + vocab.bpe pair (issue 32: 100,000 byte-level
merges, a 3.6 MB pair, kept 13.2 times the files alive and peaked at 25.7 times): counted
bounds by tracemalloc per byte of the two files, never time; and that the packed tokenizer
still says what the files say (its merges, vocab and ids, against `tokenizers`)."""
import json
import re

import pytest
import tokenizers
from hypothesis import given, settings
from hypothesis import strategies as st

from bpe.formats import gpt2
from bpe.loading import load_gpt2_pair
from helpers.hostile_parts import bpe_merges
from helpers.memory import traced

MERGES = 30_000
# Measured with load_gpt2_pair on the pair of 30,000 merges (0.94 MB): 1.39 x the files
# alive after the load (the vocab's packed bytes and offsets, the MergeTable, the code -> id
# and canon arrays) and 2.80 x at the peak (PackedPieces packing the vocab beside the read
# strings). Before (1d8fc10^: json's whole dict, a dict id -> bytes, a list of byte pairs,
# dicts of every merge kept): 13.92 x live and 26.77 x at the peak, which both bounds refuse.
LIVE_PER_BYTE = 2.0
PEAK_PER_BYTE = 4.0


def pair_files(n):
    """{name: bytes} of GPT-2's pair for a byte-level BPE of n merges (as bench/family_memory
    builds it): its vocab as encoder.json, its merges under "#version" as vocab.bpe."""
    model = json.loads(bpe_merges(n, byte_level=True))["model"]
    return {"encoder.json": json.dumps(model["vocab"], ensure_ascii=False).encode(),
            "vocab.bpe": ("#version: 0.2\n" + "\n".join(model["merges"]) + "\n").encode()}


@pytest.fixture(scope="module")
def files():
    return pair_files(MERGES)


def _load(files):
    return load_gpt2_pair(files["encoder.json"], files["vocab.bpe"])


def test_the_pair_costs_a_bounded_number_of_bytes_per_file_byte(files):
    _load(pair_files(50))  # what a first load imports or compiles is not counted
    size = sum(map(len, files.values()))
    tok, live, peak = traced(_load, files)
    assert len(tok.vocab) == MERGES + 256
    live, peak = live / size, peak / size
    assert live <= LIVE_PER_BYTE, f"{live:.2f} x the files alive after the load"
    assert peak <= PEAK_PER_BYTE, f"{peak:.2f} x the files at the load's peak"


@pytest.fixture(scope="module")
def loaded(files):
    return _load(files)


@pytest.fixture(scope="module")
def hf(files, tmp_path_factory):
    """`tokenizers`' BPE over the same two files."""
    folder = tmp_path_factory.mktemp("pair")
    (folder / "vocab.json").write_bytes(files["encoder.json"])
    (folder / "merges.txt").write_bytes(files["vocab.bpe"])
    model = tokenizers.models.BPE.from_file(str(folder / "vocab.json"),
                                            str(folder / "merges.txt"))
    hf = tokenizers.Tokenizer(model)
    hf.pre_tokenizer = tokenizers.pre_tokenizers.ByteLevel(add_prefix_space=False)
    return hf


def test_the_packed_tables_say_what_the_files_say(files, loaded):
    """vocab, merges and merge_columns as the files' dict and list give them."""
    encoder = json.loads(files["encoder.json"])
    vocab = {idx: gpt2.token_bytes(token, "t") for token, idx in encoder.items()}
    assert dict(loaded.vocab.items()) == vocab and list(loaded.vocab) == list(vocab)
    id_of = {token: idx for idx, token in vocab.items()}
    lines = files["vocab.bpe"].decode().split("\n")[1:-1]
    pairs = [[gpt2.token_bytes(part, "t") for part in line.split(" ")] for line in lines]
    expected = {(id_of[a], id_of[b]): id_of[a + b] for a, b in pairs}
    assert loaded.merges == expected and list(loaded.merges) == list(expected)
    made, lefts, rights = loaded.merge_columns()
    assert list(zip(zip(lefts, rights), made)) == list(expected.items())
    assert loaded.encode_single_token(vocab[MERGES + 255]) == MERGES + 255


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet=st.characters(max_codepoint=0x24F), max_size=80))
def test_fuzz_ids_equal_tokenizers(loaded, hf, text):
    """The hostile pair's merges make odd multi-byte tokens: random Latin text meets them."""
    ids = loaded.encode_ordinary(text)
    assert ids == hf.encode(text).ids
    assert loaded.decode(ids) == text


VOCAB_TEXTS = [
    '{"a": 0, "b": 1, "a": 2}',  # a string given twice: json keeps its last id
    '{"a": 0, "b": 0}', '{"a": 0, "b": 1.0}', '{"a": 0, "b": true}', '{"a": -1}',
    '{"a": 10000001}', '{"\\u0100a": 3, "b": 4}', '{"a": 0, "\\x": 1}', '{}', '[]',
    '\ufeff{"a": 0}', '{"a": 0} x', '{"a": 0,}', '{"\u4e00": 0}', '{"a": 0, "b": 1}',
    '{"a": "x", "a": 1}', '{"a": 1, "a": "x"}', '{"model": {"vocab": {}}}',
]


@pytest.mark.parametrize("text", VOCAB_TEXTS)
def test_a_vocab_read_in_slices_is_the_whole_parse(text):
    """parse_vocab's slices give what json.loads of the whole file gives (the old way,
    _whole_vocab): the same strings and ids, or the same refusal."""
    data = text.encode("utf-8")
    try:
        expected = dict(gpt2._whole_vocab(data, "v.json").items())
    except ValueError as e:
        with pytest.raises(ValueError, match=re.escape(str(e))):
            gpt2.parse_vocab(data, "v.json")
        return
    assert dict(gpt2.parse_vocab(data, "v.json").items()) == expected


@pytest.mark.parametrize("merges, message", [
    ("#version: 0.2\nb c\nx y\n", r"merge 1 \(b'x', b'y'\) uses or makes b'xy', which"),
    ("#version: 0.2\nb c\nb c\n", r"merge 1 \(b'b', b'c'\) is listed twice \(first as merge 0\)"),
    ("#version: 0.2\nb c\n<|x|> a\n", r"uses or makes b'<\|x\|>'"),
    ("#version: 0.2\nb c\nbc\n", r"vocab.bpe line 3: expected a merge 'left right'"),
])
def test_a_damaged_pair_says_which_merge(merges, message):
    """The messages name the merge, its bytes read again from the file."""
    vocab = {gpt2.token_text(bytes([b])): b for b in range(256)}
    vocab |= {"bc": 300, "<|x|>": 301}
    with pytest.raises(ValueError, match=message):
        load_gpt2_pair(json.dumps(vocab).encode(), merges.encode())


@pytest.mark.parametrize("text", VOCAB_TEXTS)
def test_is_vocab_file_is_is_vocab_json_of_the_parse(text):
    data = text.encode("utf-8")
    try:  # what bpe.formats.kinds asks: UTF-8 (a BOM is not JSON), then JSON
        expected = gpt2.is_vocab_json(json.loads(data.decode("utf-8")))
    except ValueError:
        expected = False
    assert gpt2.is_vocab_file(data) == expected


def test_is_vocab_file_reads_a_slice_at_a_time():
    """Telling the 100,000-merge pair's encoder.json (2.3 MB) apart builds no dict of its
    entries: a slice's objects at a time, ~1.6 MB, where json.loads of it all (what
    bpe.formats.kinds' detect does) peaks at ~15 MB."""
    data = pair_files(100_000)["encoder.json"]
    gpt2.is_vocab_file(b'{"a": 0}')
    whole, _, whole_peak = traced(lambda: gpt2.is_vocab_json(json.loads(data.decode())))
    sliced, _, peak = traced(gpt2.is_vocab_file, data)
    assert whole and sliced
    assert peak <= whole_peak / 4, f"{peak / len(data):.2f} x the file at the peak"
