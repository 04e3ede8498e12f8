"""Memory of loading a GGUF file's tokenizer (issue 32: memory per visitor file within a few
times the file's size): a counted bound (tracemalloc bytes, never time) on the load's peak
per byte of a Llama-3-like GGUF, forged here at a realistic size (a byte-level BPE of
100,000 merges, the tokens and merges llama.cpp's converter writes) and, when the
llama-cpp-python sdist is downloaded, llama.cpp's own Llama 3 vocabulary.

Measured as the app loads a file (bpe.load_bytes, after a small file's load so imports and
compiled regexes are not counted), the file's bytes already alive:
- forged, 100,000 merges (4.4 MB): peak 4.07 x the file after (the strings packed as read,
  the tokenizer.json's vocab and merges made a slice at a time); 13.52 x before (4e6ce6d^:
  lists of strs, then the whole tokenizer.json as a dict and lists beside the model);
- ggml-vocab-llama-bpe.gguf (7.8 MB): 3.86 x after, 15.37 x before.
The bound, 5 x, refuses the old code by 2.7 and 3.1 times.
"""
import json
import struct
import tracemalloc

import pytest

import bpe
from helpers.hostile_parts import bpe_merges
from lab.llama_cpp_ids import sdist_path

PEAK_PER_FILE_BYTE = 5.0
MERGES = 100_000
LLAMA3 = "llama_cpp_python-0.3.36/vendor/llama.cpp/models/ggml-vocab-llama-bpe.gguf"
STRING, ARRAY, UINT32, INT32 = 8, 9, 4, 5


def _gguf(tokens, merges, token_type, pre="llama-bpe"):
    """A GGUF file (version 3, no tensors) holding a gpt2-family tokenizer."""
    def string(text):
        raw = text.encode("utf-8")
        return struct.pack("<Q", len(raw)) + raw

    def strings(items):
        return struct.pack("<IQ", STRING, len(items)) + b"".join(map(string, items))
    keys = [("tokenizer.ggml.model", STRING, string("gpt2")),
            ("tokenizer.ggml.pre", STRING, string(pre)),
            ("tokenizer.ggml.tokens", ARRAY, strings(tokens)),
            ("tokenizer.ggml.token_type", ARRAY, struct.pack("<IQ", INT32, len(token_type))
             + struct.pack(f"<{len(token_type)}i", *token_type)),
            ("tokenizer.ggml.merges", ARRAY, strings(merges)),
            ("tokenizer.ggml.bos_token_id", UINT32, struct.pack("<I", len(tokens) - 1))]
    return b"".join([b"GGUF", struct.pack("<IQQ", 3, 0, len(keys))]
                    + [string(key) + struct.pack("<I", kind) + body
                       for key, kind, body in keys])


def llama3_like(n_merges):
    """A gpt2-family GGUF of n_merges merges (bpe_merges' byte-level vocab: 256 bytes and a
    token per merge), with a control BOS token last, as Llama 3's <|begin_of_text|>."""
    model = json.loads(bpe_merges(n_merges, byte_level=True))["model"]
    tokens = list(model["vocab"]) + ["<|begin_of_text|>"]
    return _gguf(tokens, model["merges"], [1] * (len(tokens) - 1) + [3])


def peak_per_byte(data, name):
    """The peak of live Python objects over bpe.load_bytes(data), per byte of data."""
    bpe.load_bytes(llama3_like(300), "warm.gguf")
    tracemalloc.start()
    try:
        start = tracemalloc.get_traced_memory()[0]
        tok = bpe.load_bytes(data, name)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert tok.gguf_family == "gpt2"
    return (peak - start) / len(data), tok


def test_a_forged_llama3_like_gguf_loads_within_a_few_times_its_size():
    data = llama3_like(MERGES)
    peak, tok = peak_per_byte(data, "llama3-like.gguf")
    assert peak <= PEAK_PER_FILE_BYTE, f"peak {peak:.2f} x the file"
    # the same tokenizer: every merge's token is its id, the BOS added when asked
    assert len(tok.vocab) == MERGES + 256 + 1
    assert tok.encode("hello", allowed_special="all")[0] == MERGES + 256


def test_llama_cpps_llama3_vocabulary_loads_within_a_few_times_its_size():
    path = sdist_path()
    if path is None:
        pytest.skip("the llama-cpp-python sdist (llama.cpp's test vocabularies) is not "
                    "downloaded: run `make test`")
    import tarfile
    with tarfile.open(path, "r|gz") as tar:
        data = next(tar.extractfile(member).read() for member in tar if member.name == LLAMA3)
    peak, tok = peak_per_byte(data, "ggml-vocab-llama-bpe.gguf")
    assert peak <= PEAK_PER_FILE_BYTE, f"peak {peak:.2f} x the file"
    assert tok.gguf_pre == "llama-bpe"
