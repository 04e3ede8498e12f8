"""Encoding a corpus (bpe/encoding/corpus.py, tasks.py): the array equals each
file's tok.encode_ordinary, in order, however the files are cut, by any number of workers
and on Dask; the sidecar describes it; bad input gets one line and leaves no file."""
import array
import json
import multiprocessing
import os
import subprocess
import sys

import pytest
from conftest import ROOT
from hypothesis import given, settings
from hypothesis import strategies as st

from bpe import RegexTokenizer, reference
from bpe.encoding import corpus as encode_corpus
from bpe.encoding import tasks as encode_tasks
from bpe.encoding.corpus import encode_file, encode_ordinary_batch, read_sidecar

AWKWARD = ("Hello wor\r\nld!  It's 2026…\r\n\r\n   café 東京 🫠🫠 naïve\t\tx  \n \u00a0 "
           "don't 12345678 ---\r\r\n")
PRESETS = ["gpt2", "gpt4", "gpt4o"]


def expected(tok, texts, eot=None):
    ids = []
    for i, text in enumerate(texts):
        if i and eot is not None:
            ids.append(eot)
        ids += tok.encode_ordinary(text)
    return ids


def write(tmp_path, texts):
    paths = []
    for i, text in enumerate(texts):
        paths.append(tmp_path / f"{i}.txt")
        paths[-1].write_bytes(text.encode("utf-8"))
    return paths


@pytest.fixture
def tiny_pieces(monkeypatch):
    """Reads of 13 bytes and pieces of 97: every cut lands inside chunks and characters."""
    monkeypatch.setattr(encode_tasks, "PIECE_BYTES", 97)
    monkeypatch.setattr(encode_tasks, "SEEK_BYTES", 5)
    monkeypatch.setattr(encode_tasks, "TAIL_CHARS", 11)


@pytest.mark.parametrize("pattern", PRESETS)
def test_ranges_cut_anywhere_give_the_whole_texts_ids(pattern, tmp_path, tiny_pieces):
    tok = RegexTokenizer(pattern).train(AWKWARD * 5, 300)
    texts = [AWKWARD * 30, "", "x", "1234567", AWKWARD[5:] * 7 + "\r", "9" * 1000 + " 9" * 9]
    paths = write(tmp_path, texts)
    want = expected(tok, texts)
    data = (AWKWARD * 30).encode()
    for range_bytes in (1, 2, 3, 5, 64, 301):
        ranges = encode_tasks.plan(tok, paths, range_bytes)
        assert len(ranges) > len(paths) or range_bytes == 301
        assert list(encode_file(tok, paths, range_bytes=range_bytes)) == want, range_bytes
    # the cuts fell inside characters and between \r and \n
    assert any(data[i] & 0xC0 == 0x80 for i in range(0, len(data), 5))
    assert any(data[i - 1:i + 1] == b"\r\n" for i in range(0, len(data), 3))


@pytest.mark.parametrize("name", ["cl100k_base", "o200k_base", "r50k_base"])
def test_every_worker_count_gives_the_same_array(name, tmp_path, taylorswift):
    tok = reference.load_reference(name)
    texts = [taylorswift, AWKWARD * 200, taylorswift[:5000]]
    paths = write(tmp_path, texts)
    want = expected(tok, texts)
    for workers in (1, 2, 3):
        got = encode_file(tok, paths, workers=workers, range_bytes=20_011)
        assert got.typecode == ("H" if name == "r50k_base" else "I")
        assert list(got) == want, workers


@pytest.mark.parametrize("name", ["llama3", "llama4"])
def test_llama_ranges_begin_at_the_owners_slices(name, tmp_path, monkeypatch):
    monkeypatch.setattr(reference, "LLAMA_SLICE_CHARS", 1000)
    monkeypatch.setattr(encode_tasks, "LLAMA_SLICE_CHARS", 1000)
    # the small slices reach the workers only if they are forked from this process (a
    # spawned one imports the modules afresh); with other threads running (pytest-xdist's)
    # encode_file would spawn
    monkeypatch.setattr(encode_corpus, "_context", lambda: multiprocessing.get_context("fork"))
    tok = reference.load_reference(name)
    texts = ["東京🫠" * 700 + AWKWARD * 40, "x" * 3000]
    paths = write(tmp_path, texts)
    starts = encode_tasks._slice_starts(paths[0], 1000)
    assert starts == [len(texts[0][:k].encode()) for k in range(0, len(texts[0]), 1000)]
    want = expected(tok, texts)
    for workers, range_bytes in ((1, 1), (1, None), (2, 2500)):
        assert list(encode_file(tok, paths, workers=workers, range_bytes=range_bytes)) == want


def test_llama_slice_size_is_the_owners():
    assert encode_tasks.LLAMA_SLICE_CHARS == reference.LLAMA_SLICE_CHARS


def test_other_tokenizers_encode_each_file_whole(tmp_path):
    tok = RegexTokenizer(r"\w+|\W").train(AWKWARD * 3, 280)
    texts = [AWKWARD * 9, AWKWARD]
    paths = write(tmp_path, texts)
    assert encode_tasks.mode_of(tok) == "whole"
    assert encode_tasks.plan(tok, paths, 10) == [(p, 0, p.stat().st_size) for p in paths]
    assert list(encode_file(tok, paths, workers=2, range_bytes=10)) == expected(tok, texts)


@settings(max_examples=40, deadline=None)
@given(text=st.lists(st.sampled_from(list("ab1 \r\n\t'é東🫠.-/\u0301") + ["'s", "  ", "\r\n"]),
                     max_size=150).map("".join),
       range_bytes=st.integers(1, 40), pattern=st.sampled_from(PRESETS))
def test_random_text_cut_at_random_places(text, range_bytes, pattern, tmp_path_factory):
    tok = RegexTokenizer(pattern)
    path = tmp_path_factory.mktemp("r") / "t.txt"
    path.write_bytes(text.encode("utf-8"))
    assert list(encode_file(tok, [path], range_bytes=range_bytes)) == tok.encode_ordinary(text)


def test_sidecar_round_trips_with_eot(tmp_path, taylorswift, gpt4):
    texts = [taylorswift[:20_000], "", AWKWARD]
    paths = write(tmp_path, texts)
    out = tmp_path / "ids.bin"
    meta = encode_file(gpt4, paths, out, eot=True, workers=2, range_bytes=4099,
                       model_sha256="abc")
    assert meta == read_sidecar(out)
    ids = array.array("I", out.read_bytes())
    assert list(ids) == expected(gpt4, texts, eot=100257)
    assert meta["count"] == len(ids) and meta["dtype"] == "uint32" and meta["eot"] == 100257
    for f, text in zip(meta["files"], texts):
        assert list(ids[f["start"]:f["start"] + f["tokens"]]) == gpt4.encode_ordinary(text)
    assert meta["tokenizer_sha256"] == "abc"
    assert sorted(os.listdir(tmp_path)) == sorted([p.name for p in paths] +
                                                  ["ids.bin", "ids.bin.json"])


def test_dtype_is_chosen_and_checked(gpt4):
    assert encode_corpus.choose_dtype(gpt4) == "uint32"
    assert encode_corpus.choose_dtype(RegexTokenizer()) == "uint16"
    with pytest.raises(ValueError, match="do not fit in uint16"):
        encode_corpus.choose_dtype(gpt4, "uint16")


def test_a_tokenizer_without_end_of_text_refuses_eot(tmp_path):
    with pytest.raises(ValueError, match="no end-of-text special token"):
        encode_file(RegexTokenizer(), write(tmp_path, ["a", "b"]), eot=True)


def test_batch_in_processes_equals_one_by_one(gpt4, taylorswift, monkeypatch):
    texts = [taylorswift[i:i + 7000] for i in range(0, 70_000, 7000)] + ["", AWKWARD]
    monkeypatch.setattr(encode_corpus, "BATCH_PARALLEL_MIN", 1000)
    want = [gpt4.encode_ordinary(t) for t in texts]
    assert encode_ordinary_batch(gpt4, texts, num_threads=2) == want
    assert encode_ordinary_batch(gpt4, texts, num_threads=1) == want


# ------------------------------------------------------------------ command line
def run(*args, cwd):
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-m", "bpe", "encode", *args], cwd=cwd, env=env, check=False,
                          capture_output=True, timeout=120)


def test_cli_writes_what_numpy_reads(tmp_path, taylorswift):
    np = pytest.importorskip("numpy")
    paths = write(tmp_path, [taylorswift[:30_000], AWKWARD])
    result = run(*[p.name for p in paths], "--model", "r50k_base", "-o", "ids.bin",
                 "--workers", "2", "--eot", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    meta = json.loads((tmp_path / "ids.bin.json").read_text())
    tok = reference.load_reference("r50k_base")
    assert meta["tokenizer_sha256"] == reference.REFERENCES["r50k_base"].sha256
    ids = np.fromfile(tmp_path / "ids.bin", dtype=meta["dtype"])
    assert ids.tolist() == expected(tok, [taylorswift[:30_000], AWKWARD], eot=50256)


@pytest.mark.parametrize("setup, args, message", [
    (None, ["nope.txt"], "nope.txt: no such file"),
    (b"ok caf\xe9", ["bad.txt"], "bad.txt is not UTF-8 text (byte 0xe9 at offset 6)"),
    (b"ok", ["bad.txt", "--dtype", "uint16"], "do not fit in uint16"),
    (b"ok", ["bad.txt", "--scheduler", "tcp://127.0.0.1:9"], "cannot reach the Dask scheduler"),
])
def test_cli_bad_input_gets_one_line_and_no_file(tmp_path, setup, args, message):
    if setup is not None:
        (tmp_path / "bad.txt").write_bytes(setup)
    before = sorted(os.listdir(tmp_path))
    result = run(*args, "--model", "cl100k_base", "-o", "ids.bin", cwd=tmp_path)
    lines = result.stderr.decode().splitlines()
    assert result.returncode == 1 and len(lines) == 1, lines
    assert lines[0].startswith("bpe: error: ") and message in lines[0]
    assert sorted(os.listdir(tmp_path)) == before


def test_cli_json_form_still_works(tmp_path, gpt4):
    (tmp_path / "s.txt").write_text(AWKWARD, encoding="utf-8")
    result = run("--model", "cl100k_base", "s.txt", cwd=tmp_path)
    assert json.loads(result.stdout) == gpt4.encode(AWKWARD)


# ------------------------------------------------------------------ Dask
def test_dask_local_cluster_gives_the_same_array(tmp_path, taylorswift, gpt4):
    pytest.importorskip("distributed", reason="Dask is optional: pip install -r "
                                              "requirements-scale.txt")
    texts = [taylorswift[:60_000], AWKWARD * 50]
    paths = write(tmp_path, texts)
    got = encode_file(gpt4, paths, engine="dask", workers=2, range_bytes=15_013)
    assert list(got) == expected(gpt4, texts)


def test_spawned_workers_get_the_tokenizer_by_pickle(tmp_path, monkeypatch, taylorswift):
    import multiprocessing
    monkeypatch.setattr(encode_corpus, "_context", lambda: multiprocessing.get_context("spawn"))
    tok = reference.load_reference("o200k_base")
    paths = write(tmp_path, [taylorswift[:20_000]])
    assert list(encode_file(tok, paths, workers=2, range_bytes=5000)) == \
        tok.encode_ordinary(taylorswift[:20_000])
