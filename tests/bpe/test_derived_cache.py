"""bpe.derived_cache: the tables it reads back are the ones it derived (so no id can change),
a damaged entry is rebuilt, and the key exactness checks pass with a cold and a warm cache.
Every test points BPE_DERIVED_CACHE at its own temp folder."""
import hashlib
import marshal
from pathlib import Path

import pytest
import test_fuzz  # the short GPT-4 fuzz run, repeated here with a cold and a warm cache

from bpe import GPT4Tokenizer, derived_cache
from bpe.encode import joinable_table
from bpe.formats.ranks import ranks_text, read_ranks_file
from bpe.ranks_tokenizer import CL100K_SHA256
from bpe.reference import REFERENCES, load_reference, locate


@pytest.fixture
def cache(tmp_path, monkeypatch):
    folder = tmp_path / "derived"
    monkeypatch.setenv(derived_cache.ENV, str(folder))
    return folder


@pytest.fixture
def small_file(tmp_path):
    ranks = {bytes([b]): b for b in range(256)} | {b"ab": 256, b"abc": 257, b" x": 258}
    path = tmp_path / "small.tiktoken"
    path.write_text(ranks_text(ranks))
    return path, ranks


def path_entry(folder, path):
    return Path(derived_cache.entry_path("ranks", hashlib.sha256(path.read_bytes()).hexdigest()))


def entries(folder):
    return sorted(folder.glob("*.marshal")) if folder.exists() else []


def test_a_hit_reads_back_what_a_miss_derived(cache, small_file, monkeypatch):
    path, ranks = small_file
    assert derived_cache.ranks_tables(path) == (ranks, joinable_table(ranks))
    assert len(entries(cache)) == 1
    # a hit neither parses nor derives: both are made to fail, and the tables still come
    monkeypatch.setattr(derived_cache, "parse_ranks", lambda *a, **k: pytest.fail("parsed"))
    monkeypatch.setattr(derived_cache, "joinable_table", lambda *a: pytest.fail("derived"))
    assert derived_cache.ranks_tables(path) == (ranks, joinable_table(ranks))


@pytest.mark.parametrize("damage", ["truncated", "empty", "flipped byte", "bad magic",
                                    "valid digest, wrong shape"])
def test_a_damaged_entry_is_rebuilt(cache, small_file, damage):
    path, ranks = small_file
    derived_cache.ranks_tables(path)
    [entry] = entries(cache)
    blob = entry.read_bytes()
    if damage == "truncated":
        blob = blob[:len(blob) // 2]
    elif damage == "empty":
        blob = b""
    elif damage == "flipped byte":
        blob = blob[:-5] + bytes([blob[-5] ^ 1]) + blob[-4:]
    elif damage == "bad magic":
        blob = b"x" + blob[1:]
    else:
        payload = marshal.dumps({"sha256": "0" * 64, "ranks": [1, 2]})
        blob = derived_cache.MAGIC + hashlib.sha256(payload).digest() + payload
    entry.write_bytes(blob)
    assert derived_cache.read_entry(str(entry)) is None or damage.startswith("valid")
    assert derived_cache.ranks_tables(path) == (ranks, joinable_table(ranks))
    assert derived_cache.read_entry(str(entry))["ranks"] == ranks  # rewritten whole


def test_a_hit_still_checks_the_expected_sha256(cache, small_file):
    path, _ = small_file
    derived_cache.ranks_tables(path)
    with pytest.raises(ValueError, match="sha256"):
        derived_cache.ranks_tables(path, CL100K_SHA256)


def test_off_writes_nothing_and_an_unwritable_folder_only_costs_time(tmp_path, small_file,
                                                                   monkeypatch):
    path, ranks = small_file
    monkeypatch.setenv(derived_cache.ENV, "off")
    assert derived_cache.ranks_tables(path)[0] == ranks
    blocker = tmp_path / "a file, not a folder"
    blocker.write_text("")
    monkeypatch.setenv(derived_cache.ENV, str(blocker / "derived"))
    assert derived_cache.ranks_tables(path)[0] == ranks
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a file, not a folder", "small.tiktoken"]


def test_the_folder_is_bounded(cache, tmp_path, monkeypatch):
    monkeypatch.setattr(derived_cache, "MAX_ENTRIES", 2)
    for n in range(4):
        ranks = {bytes([b]): b for b in range(256)} | {b"a" * (n + 2): 256}
        path = tmp_path / f"r{n}.tiktoken"
        path.write_text(ranks_text(ranks))
        derived_cache.ranks_tables(path)
    assert len(entries(cache)) == 2
    assert derived_cache.read_entry(str(path_entry(cache, path)))  # the newest is kept


def test_the_default_folder_is_the_users_cache(monkeypatch, tmp_path):
    monkeypatch.delenv(derived_cache.ENV, raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert derived_cache.cache_dir() == str(tmp_path / "bpe-lab" / "derived")


@pytest.mark.parametrize("name", ["cl100k_base", "o200k_base"])
def test_real_ranks_from_the_cache_are_the_files(cache, name):
    ref = REFERENCES[name]
    path = locate(ref)
    want = read_ranks_file(path, ref.sha256)
    for _ in ("cold", "warm"):
        ranks, joinable = derived_cache.ranks_tables(path, ref.sha256)
        assert ranks == want and joinable == joinable_table(want)
        assert list(ranks.items()) == list(want.items())  # the same order too
    tok = load_reference(name)
    assert tok.ranks == want


def test_exact_with_a_cold_and_a_warm_cache(cache, cl100k, gpt4, taylorswift, monkeypatch):
    """GPT-4 built on an empty cache (its tables derived, then written) and built again
    (its tables read back) holds the same tables (values, types and order), and a
    RanksTokenizer is a function of its tables: the same ranks as the session's GPT-4,
    which test_gpt4 puts through every code point (short chunks: the joinable table is
    not read there), so that pass proves both, where it ran again here before (30 s). The
    corpus goes through each, and the short fuzz run (whose own GPT4Tokenizer reads the
    warm cache) once."""
    cold = GPT4Tokenizer()
    [entry] = entries(cache)
    # a hit neither parses nor derives: the warm tables can only be the entry's
    monkeypatch.setattr(derived_cache, "parse_ranks", lambda *a, **k: pytest.fail("parsed"))
    monkeypatch.setattr(derived_cache, "joinable_table", lambda *a: pytest.fail("derived"))
    warm = GPT4Tokenizer()
    assert entries(cache) == [entry]
    stored = derived_cache.read_entry(str(entry))
    for ranks in (warm.ranks, stored["ranks"]):
        assert list(ranks.items()) == list(cold.ranks.items()) == list(gpt4.ranks.items())
        assert {(type(token), type(idx)) for token, idx in ranks.items()} == {(bytes, int)}
    joinable = stored["joinable"]
    assert type(joinable) is bytes and joinable == joinable_table(cold.ranks)
    for tok in (cold, warm):
        assert tok.encode(taylorswift, allowed_special="all") == \
            cl100k.encode(taylorswift, allowed_special="all")
    test_fuzz.test_short_fuzz_run_finds_no_difference()
