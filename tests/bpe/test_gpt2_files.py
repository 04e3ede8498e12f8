"""GPT-2's release pair (encoder.json + vocab.bpe, vocab.json + merges.txt): bpe.load opens
either file or their folder, and the ids are tiktoken's r50k_base and `tokenizers`'."""
import json

import pytest
import tiktoken
import tokenizers
from hypothesis import given, settings
from hypothesis import strategies as st

import bpe
from bpe import reference
from bpe.formats import gpt2
from bpe.formats.kinds import detect
from bpe.loading import load_files
from bpe.formats.ranks_merges import recover_merges


@pytest.fixture(scope="module")
def r50k():
    """tiktoken's r50k_base over the hash-checked ranks whisper ships."""
    tok = reference.load_reference("r50k_base")
    ref = reference.REFERENCES["r50k_base"]
    return tiktoken.Encoding("r50k", pat_str=ref.pattern, mergeable_ranks=tok.ranks,
                             special_tokens={"<|endoftext|>": 50256})


@pytest.fixture(scope="module")
def pair(r50k, tmp_path_factory):
    """GPT-2's pair written from r50k's ranks: each token's merge in rank order (the writer
    is ours, the layout GPT-2's: encoder.json ids, vocab.bpe merges under '#version')."""
    ranks = r50k._mergeable_ranks
    vocab = {rank: token for token, rank in ranks.items()} | {50256: b"<|endoftext|>"}
    merges = [(vocab[a], vocab[b]) for (a, b), _ in
              sorted(recover_merges(ranks).items(), key=lambda item: item[1])]
    encoder, bpe_text = gpt2.gpt2_pair_text(vocab, merges)
    folder = tmp_path_factory.mktemp("gpt2")
    (folder / "encoder.json").write_text(encoder, encoding="utf-8")
    (folder / "vocab.bpe").write_text(bpe_text, encoding="utf-8")
    hf_folder = tmp_path_factory.mktemp("gpt2hf")
    (hf_folder / "vocab.json").write_text(encoder, encoding="utf-8")
    (hf_folder / "merges.txt").write_text(bpe_text, encoding="utf-8")
    return folder, hf_folder


@pytest.fixture(scope="module")
def loaded(pair):
    return bpe.load(pair[0])


def test_the_written_pair_is_gpt2s_layout(pair):
    folder, _ = pair
    encoder = json.loads((folder / "encoder.json").read_text(encoding="utf-8"))
    assert encoder["!"] == 0 and encoder["Ġthe"] == 262 and encoder["<|endoftext|>"] == 50256
    lines = (folder / "vocab.bpe").read_text(encoding="utf-8").split("\n")
    assert lines[:3] == ["#version: 0.2", "Ġ t", "Ġ a"]


def test_folder_either_file_and_both_bytes_give_one_tokenizer(pair, loaded, r50k):
    folder, hf_folder = pair
    text = "Hello world!  It's 2026 <|endoftext|> über 🫠\n\n"
    expected = r50k.encode(text, allowed_special="all")
    for tok in [loaded, bpe.load(folder / "encoder.json"), bpe.load(folder / "vocab.bpe"),
                bpe.load(hf_folder), bpe.load(hf_folder / "merges.txt"),
                load_files({"vocab.json": (hf_folder / "vocab.json").read_bytes(),
                            "merges.txt": (hf_folder / "merges.txt").read_bytes()})]:
        assert tok.encode(text, allowed_special="all") == expected
        assert tok.special_tokens == {"<|endoftext|>": 50256}
        assert tok.decode(expected) == text
        assert tok.name in ("encoder.json", "vocab.json")


def test_ids_equal_tiktoken_r50k_and_tokenizers(pair, loaded, r50k, taylorswift, shakespeare):
    hf = tokenizers.Tokenizer(tokenizers.models.BPE.from_file(
        str(pair[1] / "vocab.json"), str(pair[1] / "merges.txt")))
    hf.pre_tokenizer = tokenizers.pre_tokenizers.ByteLevel(add_prefix_space=False)
    for text in [taylorswift[:100_000], shakespeare[:50_000]]:
        ids = loaded.encode_ordinary(text)
        assert ids == r50k.encode_ordinary(text)
        assert ids == hf.encode(text).ids


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=60))
def test_fuzz_equals_tiktoken_r50k(loaded, r50k, text):
    assert loaded.encode_ordinary(text) == r50k.encode_ordinary(text)


def test_contents_are_detected_not_names(pair):
    folder, _ = pair
    assert detect((folder / "encoder.json").read_bytes()) == "gpt2-vocab"
    assert detect((folder / "vocab.bpe").read_bytes()) == "gpt2-merges"


def test_one_half_alone_says_what_to_add(pair, tmp_path):
    folder, _ = pair
    data = (folder / "encoder.json").read_bytes()
    with pytest.raises(ValueError, match=r"one half of a pair; open both together \(add "
                                         r"vocab.bpe"):
        bpe.load_bytes(data, "encoder.json")
    (tmp_path / "encoder.json").write_bytes(data)
    with pytest.raises(ValueError, match=r"neither vocab.bpe nor merges.txt is beside it"):
        bpe.load(tmp_path / "encoder.json")
    with pytest.raises(ValueError, match=r"only when they are GPT-2's pair"):
        load_files({"a.json": data, "b.json": data})


@pytest.mark.parametrize("merges, message", [
    ("#version: 0.2\na b c\n", r"vocab.bpe line 2: expected a merge 'left right'"),
    ("#version: 0.2\nĠ \u4e00\n", r"not one of GPT-2's 256 byte characters"),
])
def test_malformed_merges_name_the_line(merges, message):
    vocab = json.dumps({gpt2.token_text(bytes([b])): b for b in range(256)}).encode()
    with pytest.raises(ValueError, match=message):
        load_files({"encoder.json": vocab, "vocab.bpe": merges.encode()})


def test_vocab_not_byte_level_is_refused():
    with pytest.raises(ValueError, match="not one of GPT-2's 256 byte characters"):
        gpt2.parse_vocab(json.dumps({"a": 0, "\u4e00": 1}).encode())


def test_writer_round_trips_a_trained_tokenizer(taylorswift):
    ours = bpe.RegexTokenizer("gpt2").train(taylorswift[:30_000], 256 + 100)
    merges = [(ours.vocab[p0], ours.vocab[p1]) for (p0, p1) in ours.merges]
    encoder, merges_text = gpt2.gpt2_pair_text(ours.vocab, merges)
    back = load_files({"vocab.json": encoder.encode(), "merges.txt": merges_text.encode()})
    text = taylorswift[30_000:40_000]
    assert back.encode_ordinary(text) == ours.encode_ordinary(text)
    assert back.name == "vocab.json"
