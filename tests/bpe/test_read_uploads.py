"""bpe.loading.read_uploads: an upload is read once (bounded, sniffed, gunzipped, hashed one
time each), and what it builds is what bpe.load_files builds from the same bytes."""
import gzip
import hashlib

import pytest

from bpe import RegexTokenizer, loading
from bpe.formats import gpt2, kinds, ranks

TEXT = "Hello world, it's 2024! Ünïcödé\n\n  spaces"


@pytest.fixture(scope="module")
def trained(taylorswift):
    return RegexTokenizer("gpt2").train(taylorswift[:30_000], 256 + 120)


@pytest.fixture(scope="module")
def uploads(trained):
    """(name, bytes) as the app hands them: a gzipped ranks file, GPT-2's two halves with a
    minbpe .model between them, and a file that is no tokenizer."""
    vocab, merges = gpt2.gpt2_pair_text({idx: token for idx, token in trained.vocab.items()},
                                        [(trained.vocab[a], trained.vocab[b])
                                         for (a, b), _ in sorted(trained.merges.items(),
                                                                 key=lambda item: item[1])])
    return [("mine.tiktoken.gz", gzip.compress(ranks.tiktoken_text(trained).encode())),
            ("encoder.json", vocab.encode()),
            ("mine.model", trained.model_text().encode()),
            ("vocab.bpe", merges.encode()),
            ("notes.txt", b"\x00\x01 not a tokenizer")]


def test_each_file_is_unzipped_and_hashed_once(uploads, trained, monkeypatch):
    calls = {"gunzip": 0, "sha256": 0}
    real_gunzip, real_sha256 = loading.gunzip, hashlib.sha256

    def gunzip(*args):
        calls["gunzip"] += 1
        return real_gunzip(*args)

    def sha256(*args):
        calls["sha256"] += 1
        return real_sha256(*args)
    monkeypatch.setattr(loading, "gunzip", gunzip)
    monkeypatch.setattr(loading.hashlib, "sha256", sha256)
    made = loading.read_uploads(uploads[:1], unknown_pattern="gpt2")
    # once unzipped; hashed once unzipped (whose ranks?) and once as given (the digest)
    assert calls == {"gunzip": 1, "sha256": 2}
    upload, = made
    assert upload.kind == "ranks" and upload.known == ""
    assert upload.digest == real_sha256(uploads[0][1]).hexdigest()
    assert upload.files == (uploads[0],)
    assert upload.tokenizer.encode_ordinary(TEXT) == trained.encode_ordinary(TEXT)


def test_groups_and_errors_in_upload_order(uploads, trained):
    seen = []
    made = loading.read_uploads(uploads, unknown_pattern="gpt2",
                                before_build=lambda kind, files: seen.append(kind))
    assert [m.kind if isinstance(m, loading.Upload) else "error" for m in made] == \
        ["ranks", "gpt2-pair", "minbpe", "error"]
    assert seen == ["ranks", "gpt2-vocab", "minbpe"]  # never for a file that is no tokenizer
    assert "notes.txt is not a tokenizer file" in str(made[3])
    pair = made[1]
    assert [name for name, _ in pair.files] == ["encoder.json", "vocab.bpe"]
    assert pair.digest == hashlib.sha256(uploads[1][1] + uploads[3][1]).hexdigest()
    for upload in made[:3]:
        same = loading.load_files(dict(upload.files), pattern="gpt2")
        assert upload.tokenizer.encode_ordinary(TEXT) == same.encode_ordinary(TEXT) == \
            trained.encode_ordinary(TEXT)


def test_before_build_refuses_with_its_sentence(uploads):
    def refuse(kind, files):
        raise ValueError(f"{files[0][0]}: refused")
    made = loading.read_uploads(uploads[2:3], before_build=refuse)
    assert [str(m) for m in made] == ["mine.model: refused"]


def test_a_known_ranks_file_keeps_its_owners_pattern(monkeypatch, trained, uploads):
    data = ranks.tiktoken_text(trained).encode()
    info = {"name": "mine", "pattern": "gpt2", "special_tokens": {}}
    monkeypatch.setattr(loading.reference, "known_ranks",
                        lambda sha: info if sha == hashlib.sha256(data).hexdigest() else None)
    upload, = loading.read_uploads([("x.tiktoken", data)], unknown_pattern="gpt4")
    assert upload.known == "mine"
    assert upload.tokenizer.encode_ordinary(TEXT) == trained.encode_ordinary(TEXT)
    assert kinds.kind_of(data, "x.tiktoken") == "ranks"
