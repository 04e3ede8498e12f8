"""The GGUF reader on files forged here with struct (no sdist needed): damaged, cut short,
forged counts and lengths, an unknown value type, version 1, big-endian and weights-only
files each end in one ValueError sentence with bounded memory, and tiny valid gpt2-,
llama- and bert-family files load, encode as their family does, add their BOS/EOS as
llama.cpp does when asked for special tokens, and survive pickle with their family."""
import io
import pickle
import struct
import tracemalloc

import pytest

import bpe
from bpe.formats import gguf

U32, U64, STR, ARR, BOOL, I32, F32 = 4, 10, 8, 9, 7, 5, 6


def string(text):
    raw = text.encode("utf-8")
    return struct.pack("<Q", len(raw)) + raw


def value(kind, item):
    if kind == STR:
        return string(item)
    if kind == ARR:
        inner, items = item
        body = b"".join(value(inner, x) for x in items)
        return struct.pack("<IQ", inner, len(items)) + body
    return struct.pack(gguf.TYPES[kind][1], item)


def forge(metadata, version=3, n_tensors=0, tail=b""):
    """A GGUF file: header, then metadata [(key, type, value)], then tail (tensor bytes)."""
    out = [b"GGUF", struct.pack("<IQQ", version, n_tensors, len(metadata))]
    for key, kind, item in metadata:
        out += [string(key), struct.pack("<I", kind), value(kind, item)]
    return b"".join(out) + tail


def keys(**kv):
    """tokenizer.ggml.<name> keys from python values (str, bool, int, float or lists)."""
    out = []
    for name, item in kv.items():
        key = "tokenizer.ggml." + name
        if isinstance(item, str):
            out.append((key, STR, item))
        elif isinstance(item, bool):
            out.append((key, BOOL, item))
        elif isinstance(item, int):
            out.append((key, U32, item))
        elif item and isinstance(item[0], str):
            out.append((key, ARR, (STR, item)))
        elif item and isinstance(item[0], float):
            out.append((key, ARR, (F32, item)))
        else:
            out.append((key, ARR, (I32, item)))
    return out


BYTES = [chr(c) for c in range(33, 127)] + ["Ġ"]  # enough byte-level characters for the texts


def gpt2_file(**extra):
    tokens = ["<|endoftext|>"] + BYTES + ["he", "ll", "hell", "hello", "Ġw", "Ġwo", "Ġwor"]
    merges = ["h e", "l l", "he ll", "hell o", "Ġ w", "Ġw o", "Ġwo r"]
    kinds = [3] + [1] * (len(tokens) - 1)
    return forge([("general.architecture", STR, "gpt2")] + keys(
        model="gpt2", pre="gpt-2", tokens=tokens, token_type=kinds, merges=merges,
        bos_token_id=0, eos_token_id=0, **extra))


def llama_file(**extra):
    pieces = ["<unk>", "<s>", "</s>"] + [f"<0x{b:02X}>" for b in range(256)] + \
        ["▁", "h", "e", "l", "o", "w", "r", "d", "▁h", "ll", "▁he", "▁hell", "▁hello"]
    scores = [0.0] * 259 + [-float(i) for i in range(len(pieces) - 259)]
    kinds = [2, 3, 3] + [6] * 256 + [1] * (len(pieces) - 259)
    return forge(keys(model="llama", tokens=pieces, scores=scores, token_type=kinds,
                      bos_token_id=1, eos_token_id=2, unknown_token_id=0, **extra))


def bert_file():
    tokens = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "▁hello", "▁hel", "lo", "▁world", "s",
              "▁!", "▁a", "a"]
    kinds = [3, 2, 3, 3] + [1] * (len(tokens) - 4)
    return forge(keys(model="bert", pre="bert-bge", tokens=tokens, token_type=kinds,
                      unknown_token_id=1, cls_token_id=2, seperator_token_id=3,
                      bos_token_id=2))


def load(data, name="forged.gguf"):
    return bpe.load_bytes(data, name)


# ------------------------------------------------------------------ refused, with a sentence
def test_damaged_and_cut_short():
    good = gpt2_file()
    with pytest.raises(ValueError, match="cut short or damaged"):
        load(good[:len(good) // 2])
    with pytest.raises(ValueError, match="cut short or damaged"):
        load(good[:10])  # inside the header
    with pytest.raises(ValueError, match="GGUF"):
        load(b"GGUF" + b"\xff" * 60)  # a version no reader knows


def test_forged_count_and_length_cost_no_memory():
    """A count of 2^60 strings and a string longer than the file are refused before
    anything is allocated: tracemalloc counts the peak."""
    huge_count = b"GGUF" + struct.pack("<IQQ", 3, 0, 1) + string("tokenizer.ggml.tokens") + \
        struct.pack("<IIQ", ARR, STR, 1 << 60)
    past_end = b"GGUF" + struct.pack("<IQQ", 3, 0, 1) + string("tokenizer.ggml.model") + \
        struct.pack("<IQ", STR, 1 << 20) + b"gpt2"
    many_keys = b"GGUF" + struct.pack("<IQQ", 3, 0, 1 << 60)
    for data, words in ((huge_count, "1,152,921,504,606,846,976 items"),
                        (past_end, "cut short or damaged: .* needs 1,048,576 bytes"),
                        (many_keys, "metadata keys")):
        tracemalloc.start()
        try:
            with pytest.raises(ValueError, match=words):
                load(data)
            _, peak = tracemalloc.get_traced_memory()
        finally:
            tracemalloc.stop()
        assert peak < 1 << 20, (words, peak)


def test_unknown_value_type():
    data = b"GGUF" + struct.pack("<IQQ", 3, 0, 1) + string("general.x") + \
        struct.pack("<I", 13) + b"\0" * 8
    with pytest.raises(ValueError, match="value type 13, which GGUF does not define"):
        load(data)


def test_version_1_and_big_endian():
    with pytest.raises(ValueError, match="GGUF version 1; versions 2 and 3 are opened"):
        load(gpt2_file().replace(struct.pack("<I", 3), struct.pack("<I", 1), 1))
    big = b"GGUF" + struct.pack(">IQQ", 3, 0, 0)
    with pytest.raises(ValueError, match="big-endian GGUF"):
        load(big)


def test_weights_only():
    data = forge([("general.architecture", STR, "llama")], n_tensors=1, tail=b"\0" * 64)
    with pytest.raises(ValueError, match="without a tokenizer .* weights only"):
        load(data)


def test_wrong_key_types_and_refused_families():
    with pytest.raises(ValueError, match="tokenizer.ggml.tokens is not an array of strings"):
        load(forge(keys(model="gpt2", tokens=[1, 2])))
    t5 = {"model": "t5", "tokens": ["<unk>", "a", "<0x61>"], "scores": [0.0, -1.0, -2.0],
          "unknown_token_id": 0}
    with pytest.raises(ValueError, match=r"'t5'\) tokenizer with byte pieces: .* not supported"):
        load(forge(keys(**t5, token_type=[2, 1, 6])))
    with pytest.raises(ValueError, match=r"removes extra spaces without a space prefix: .* "
                                         "could not be proven"):
        load(forge(keys(**t5, token_type=[2, 1, 1], remove_extra_whitespaces=True)))
    with pytest.raises(ValueError, match=r"adds a space prefix but keeps extra spaces: .* "
                                         "could not be proven"):
        load(forge(keys(**t5, token_type=[2, 1, 1], add_space_prefix=True)))
    ok = load(forge(keys(**t5, token_type=[2, 1, 1])))  # neither: sentencepiece's meaning
    assert ok.encode_ordinary("a b?") == [1, 0]  # "▁b?": no piece, one unknown (fused)
    with pytest.raises(ValueError, match=r"'t5'\) tokenizer without a score for each token"):
        load(forge(keys(model="t5", tokens=["<unk>", "a"], scores=[0.0])))
    with pytest.raises(ValueError, match="'rwkv' family: its tokenizer is not implemented"):
        load(forge(keys(model="rwkv", tokens=["a"])))
    with pytest.raises(ValueError, match="adds its BOS token .* bos_token_id 99 is not a token"):
        load(forge(keys(model="llama", tokens=["<unk>", "a"], scores=[0.0, 0.0],
                        bos_token_id=99)))


def test_the_metadata_is_read_from_a_stream_without_the_tensors():
    data = gpt2_file() + b"\0" * (1 << 20)  # a tensor blob the reader never touches
    stream = io.BytesIO(data)
    info = gguf.read_tokenizer(stream, "m.gguf")
    assert info.model == "gpt2" and stream.tell() < len(data) - (1 << 20) + 1


# ------------------------------------------------------------------ tiny valid files
def test_gpt2_family_loads_and_encodes():
    tok = load(gpt2_file())
    assert (tok.gguf_family, tok.gguf_pre) == ("gpt2", "gpt-2")
    ids = tok.encode("hello world", add_special_tokens=False)
    vocab = {token: idx for idx, token in enumerate(gguf.read_tokenizer_bytes(gpt2_file()).tokens)}
    assert ids == [vocab["hello"], vocab["Ġwor"], vocab["l"], vocab["d"]]
    assert tok.decode(ids) == "hello world"
    # gpt-2's split adds no BOS unless the file says so; then llama.cpp's bos_token_id
    assert tok.encode("hello") == tok.encode("hello", add_special_tokens=False)
    with_bos = load(gpt2_file(add_bos_token=True))
    assert with_bos.encode("hello", allowed_special="all") == [0, vocab["hello"]]


def test_llama_family_loads_encodes_and_adds_bos():
    tok = load(llama_file())
    assert tok.gguf_family == "llama"
    info = gguf.read_tokenizer_bytes(llama_file())
    vocab = {token: idx for idx, token in enumerate(info.tokens)}
    bare = tok.encode("hello world", add_special_tokens=False)
    assert bare[0] == vocab["▁hello"] and tok.decode(bare) == "hello world"
    assert tok.encode("hello world") == [1] + bare  # llama.cpp's SPM default: add BOS
    eos = load(llama_file(add_bos_token=False, add_eos_token=True))
    assert eos.encode("hello world") == bare + [2]
    # a byte no piece holds falls back to its <0xXX> piece
    assert tok.encode("€", add_special_tokens=False) == \
        [vocab["▁"]] + [vocab[f"<0x{b:02X}>"] for b in "€".encode()]


def test_bert_family_is_llama_cpps_wordpiece():
    tok = load(bert_file())
    assert tok.gguf_family == "bert"
    # "▁" word starts, continuations without it, punctuation its own word, lowercased;
    # a word nothing covers is one [UNK]; [CLS] ... [SEP] when asked for special tokens
    assert tok.encode("Hello worlds! hellos xyz", add_special_tokens=False) == \
        [4, 7, 8, 9, 4, 8, 1]
    assert tok.encode("hello") == [2, 4, 3]
    assert tok.encode("hellolo", add_special_tokens=False) == [4, 6]


@pytest.mark.parametrize("make", [gpt2_file, llama_file, bert_file])
def test_pickle_keeps_family_pre_and_ids(make):
    tok = load(make(), "m.gguf")
    again = pickle.loads(pickle.dumps(tok))
    assert (again.gguf_family, again.gguf_pre, again.name, again.made_from) == \
        (tok.gguf_family, tok.gguf_pre, tok.name, tok.made_from)
    for text in ("hello world", "Hello worlds! hello", "hellohello  wor"):
        assert again.encode(text, allowed_special="all") == tok.encode(text, allowed_special="all")
    assert pickle.loads(pickle.dumps(again)).gguf_family == tok.gguf_family
