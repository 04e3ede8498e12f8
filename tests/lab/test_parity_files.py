"""lab.parity: the owner's encoder reuses our cached tokenizer (nothing read or hashed again),
and uploaded files are checked by their owner's library (tiktoken, sentencepiece, tokenizers)."""
import hashlib
import json

import pytest

from bpe import RegexTokenizer, reference
from bpe.formats import gpt2
from bpe.formats.hf.tokenizer_json import hf_json
from bpe.loading import load_bytes, load_files
from bpe.formats.ranks import tiktoken_text
from bpe.sentencepiece_bpe import SentencePieceBPE
from lab import parity
from lab.state import FileSource

TEXT = "Hello there, it's 2026!  Tokens\n\nand <|endoftext|> text 🫠"
CORPUS = "the year 2026 had 365 days, and the days had 24 hours. Tokens! " * 40


@pytest.fixture
def no_file_reads(monkeypatch):
    """Fail any attempt to find or hash a reference's file again."""
    def refuse(*args, **kwargs):
        raise AssertionError("the reference's file was read again")
    monkeypatch.setattr(reference, "read_checked", refuse)
    monkeypatch.setattr(reference, "read_ranks_file", refuse)


@pytest.fixture(scope="module")
def refs():
    """Our references, loaded (and their files read and hashed) once, before the check."""
    return {n: reference.load_reference(n) for n in ["cl100k_base", "o200k_base", "mistral_v1"]}


@pytest.mark.parametrize("name", ["cl100k_base", "o200k_base", "mistral_v1"])
def test_owner_encoder_reuses_the_cached_tokenizer(refs, name, no_file_reads):
    tok = refs[name]
    library, encode = parity.owner_encoder(name, tok)
    assert library in ("tiktoken", "sentencepiece")
    assert encode(TEXT) == tok.encode_ordinary(TEXT)


def source(kind, *files):
    data = b"".join(d for _, d in files)
    return FileSource(kind, tuple(files), hashlib.sha256(data).hexdigest())


def test_each_uploaded_kind_has_its_owners_library(taylorswift):
    tok = RegexTokenizer("gpt2").train(CORPUS, 256 + 40)
    tok.register_special_tokens({"<|endoftext|>": 296})
    sp = SentencePieceBPE().train(taylorswift[:30_000], 400)
    merges = [(tok.vocab[a], tok.vocab[b]) for a, b in tok.merges]
    encoder, merges_text = gpt2.gpt2_pair_text(tok.vocab, merges)
    pair = (("vocab.json", encoder.encode()), ("merges.txt", merges_text.encode()))
    ranks = ("r.tiktoken", tiktoken_text(tok).encode())
    hf = ("tokenizer.json", json.dumps(hf_json(tok)).encode())
    cases = [
        (source("ranks", ranks), load_bytes(ranks[1], ranks[0], pattern="gpt2",
                                            special_tokens={"<|endoftext|>": 296}), "tiktoken"),
        (source("sentencepiece", ("s.model", sp.model_proto)),
         load_bytes(sp.model_proto, "s.model"), "sentencepiece"),
        (source("tokenizer.json", hf), load_bytes(hf[1], hf[0]), "tokenizers"),
        (source("gpt2-pair", *pair), load_files(dict(pair)), "tokenizers"),
    ]
    for src, loaded, owner in cases:
        library, encode, matches_specials = parity.file_encoder(src, loaded)
        assert library == owner
        ours = (loaded.encode(TEXT, allowed_special="all") if matches_specials
                else loaded.encode_ordinary(TEXT))
        assert encode(TEXT) == ours, src.kind
        assert parity.compare(ours, encode(TEXT)) == ""
    with pytest.raises(ValueError, match="no owner's library checks a minbpe file"):
        parity.file_encoder(source("minbpe", ("m.model", b"")), tok)


def test_a_wrong_tokenizer_is_caught():
    """The check can fail: ids of the ranks read with GPT-4's pattern, against tiktoken's
    over the file read with GPT-2's."""
    tok = RegexTokenizer("gpt2").train(CORPUS, 256 + 40)
    src = source("ranks", ("r.tiktoken", tiktoken_text(tok).encode()))
    right = load_bytes(src.data(), "r.tiktoken", pattern="gpt2")
    wrong = load_bytes(src.data(), "r.tiktoken", pattern="gpt4")
    _, encode, _ = parity.file_encoder(src, right)
    text = CORPUS[:300]
    assert parity.compare(wrong.encode_ordinary(text), encode(text)).startswith(
        "first difference at token")


def test_a_files_encoder_is_kept_by_its_session_and_bounded(monkeypatch):
    """The owner's encoder (a worker process) for an uploaded file lives in the session that
    uploaded it (it leaves with the session), is started once per file, and at most
    FILE_ENCODERS_KEPT stay: an older one's worker is closed."""
    import streamlit as st
    loads, closed = [], []

    class Worker:
        def __init__(self, spec):
            self.digest = next(src.digest for src in files if src.files == spec["files"]) \
                if spec["files"] else None
            loads.append(self.digest)

        def close(self):
            closed.append(self.digest)

    monkeypatch.setattr(parity.owner_check, "OwnerWorker", Worker)
    tok = RegexTokenizer("gpt2")
    st.session_state.pop(parity.FILE_ENCODERS, None)
    files = [source("tokenizer.json", (f"t{i}.json", f"{i}".encode())) for i in range(6)]
    for src in files + files[-1:]:
        parity._session_file_encoder(src, tok)
    assert loads == [src.digest for src in files]  # the repeat was not loaded again
    kept = st.session_state[parity.FILE_ENCODERS]
    assert [key[1] for key in kept] == [src.digest for src in files[-parity.FILE_ENCODERS_KEPT:]]
    assert closed == [src.digest for src in files[:-parity.FILE_ENCODERS_KEPT]]
    st.session_state.pop(parity.FILE_ENCODERS, None)


def test_a_gguf_file_is_checked_by_tokenizers_on_its_tokenizer_json_form():
    """A GGUF has no Python owner: parity's spec for it is `tokenizers` over the
    tokenizer.json the loader builds it from (llama.cpp's test files get llama.cpp's ids
    instead: tests/lab/test_gguf_uploads.py)."""
    from tests.lab.test_gguf_uploads import trained_gguf
    data = trained_gguf("gpt2")
    loaded = load_bytes(data, "small.gguf")
    spec = parity.owner_spec(source("gguf", ("small.gguf", data)), loaded)
    assert spec["kind"] == "tokenizer.json"
    assert spec["files"][0][0] == "small.gguf.tokenizer.json"
    library, encode, matches_specials = parity.file_encoder(source("gguf", ("small.gguf", data)),
                                                            loaded)
    assert (library, matches_specials) == ("tokenizers", True)
    assert encode(TEXT) == loaded.encode(TEXT, allowed_special="all")
