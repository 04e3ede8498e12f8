"""Cuts inside and around enormous chunks: byte ranges counted by workers, and files counted
into separate counts files joined with --from-counts, give exactly what the whole text gives
(its chunk Counter in first-occurrence order, and tok.train's merges and merge_counts).

The hard case is a run that a preset splits in a phase set by where the run starts: GPT-4's
and GPT-4o's \\p{N}{1,3} cut a run of digits in threes, so a stretch starting inside the
run splits it one or two characters off the truth, all the way to the run's end; GPT-4o's
optional "'s" after a letter does the same to "a's's's...". A run that is one chunk (spaces,
"=", letters) is the other kind: nothing inside it is a boundary.
"""
from collections import Counter

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from bpe import RegexTokenizer
from bpe import corpus
from bpe.counting import parts as counting_parts, stream
from bpe.counting.parts import Part, PartCounter, finish, join, join_all, sure_pairs
from bpe.counting.counts_file import read_counts, write_counts

PRESETS = ["gpt2", "gpt4", "gpt4o"]
FIXTURES = [HealthCheck.function_scoped_fixture]  # a constant patch
PRE = "Hello world, it's fine.\n" * 3
POST = " after the run, 123 words.\n" * 3
# (what the run repeats, what comes right before it)
RUNS = {"spaces": (" ", ""), "newlines": ("\n", ""), "crlf": ("\r\n", ""), "equals": ("=", ""),
        "dashes": ("-", " "), "digits": ("7", ""), "digit pairs": ("12", "x"),
        "letters": ("x", ""), "apostrophe s": ("'s", "a"), "dot space": (". ", ""),
        "tabs": ("\t", ""), "emoji": ("😉", "")}


def run_text(unit, before, n):
    return PRE + before + unit * (n // len(unit)) + POST


def ordered(counter):
    return list(counter.items())


def cut_points(text, n):
    """Character offsets in and around the run: its first characters, every phase of a
    3-digit group, the middle, its last characters and just past it."""
    start = len(PRE)
    end = len(text) - len(POST)
    inside = [start + k for k in (0, 1, 2, 3, 4, 5, n // 3, n // 3 + 1, n // 2, n // 2 + 1)]
    around = [end - 2, end - 1, end, end + 1, start - 1]
    return sorted({c for c in inside + around if 0 < c < len(text)})


def parts_of(tok, pieces, piece_chars=None):
    parts = []
    for piece in pieces:
        counter = PartCounter(tok.split, piece_chars)
        counter.feed(piece)
        parts.append(counter.part())
    return parts


@pytest.mark.parametrize("pattern", PRESETS)
@pytest.mark.parametrize("kind", list(RUNS))
@pytest.mark.parametrize("n", [20_000, 100_000])
def test_a_cut_in_and_around_a_long_run(pattern, kind, n):
    tok = RegexTokenizer(pattern)
    text = run_text(*RUNS[kind], n)
    want = ordered(Counter(tok.split(text)))
    for cut in cut_points(text, n):
        parts = parts_of(tok, [text[:cut], text[cut:]], piece_chars=4096)
        assert ordered(finish(join_all(parts, tok.split), tok.split)) == want, cut


@pytest.mark.parametrize("pattern", PRESETS)
def test_many_cuts_inside_one_run(pattern):
    """Stretches that lie wholly inside the run, as 64 MB ranges do inside a huge one."""
    tok = RegexTokenizer(pattern)
    for unit, before in [("7", ""), ("'s", "a"), (" ", ""), ("=", "")]:
        text = run_text(unit, before, 50_000)
        cuts = list(range(1, len(text), 7_001))
        pieces = [text[a:b] for a, b in zip([0] + cuts, cuts + [len(text)])]
        assert ordered(finish(join_all(parts_of(tok, pieces, 1000), tok.split),
                              tok.split)) == ordered(Counter(tok.split(text))), unit


@pytest.mark.parametrize("pattern", PRESETS)
def test_worker_byte_ranges_inside_a_million_character_run(pattern, tmp_path):
    tok = RegexTokenizer(pattern)
    for unit, before in [("7", ""), ("'s", "a"), (" ", "")]:
        text = run_text(unit, before, 1_000_000)
        path = tmp_path / "a.txt"
        path.write_bytes(text.encode("utf-8"))
        want = ordered(Counter(tok.split(text)))
        for range_bytes in (300_001, 600_000):  # cuts at every phase of the digit groups
            ranges = corpus.file_ranges([path], range_bytes)
            parts = [stream.count_range(*r, tok.split) for r in ranges]
            got = finish(join_all(parts, tok.split), tok.split)
            assert ordered(got) == want, (unit, range_bytes)


def test_worker_processes_give_the_merges_of_train(tmp_path):
    text = run_text("7", "", 200_000) + run_text("'s", "a", 100_000)
    path = tmp_path / "a.txt"
    path.write_bytes(text.encode("utf-8"))
    for pattern in ("gpt4", "gpt4o"):
        want = RegexTokenizer(pattern).train(text, 300)
        tok = stream.train_from_files(RegexTokenizer(pattern), [path], 300, workers=2)
        part = stream.count_files(RegexTokenizer(pattern), [path], workers=2,
                                  range_bytes=70_001)
        got = stream.train_from_part(RegexTokenizer(pattern), part, 300)
        for one in (tok, got):
            assert one.merges == want.merges and one.merge_counts == want.merge_counts


@pytest.mark.parametrize("pattern", PRESETS)
@pytest.mark.parametrize("n", [20_000, 1_000_000])
def test_counts_files_cut_inside_a_long_run(pattern, n, tmp_path):
    tok = RegexTokenizer(pattern)
    text = run_text("7", "", n) + run_text("'s", "a", n // 10) + run_text(" ", "", n // 10)
    want = RegexTokenizer(pattern).train(text, 290)
    first = len(PRE) + 4
    second = text.index("'s") + n // 40 + 1
    third = text.rindex("  ") - n // 20
    files = []
    for i, (a, b) in enumerate(zip([0, first, second, third], [first, second, third, len(text)])):
        files.append(tmp_path / f"{i}.counts")
        write_counts(files[-1], tok.pattern, parts_of(tok, [text[a:b]])[0])
    got = stream.train_from_counts(RegexTokenizer(pattern), files, 290)
    assert got.merges == want.merges and got.merge_counts == want.merge_counts


def test_a_counts_file_without_what_the_join_needs_is_refused_clearly(tmp_path):
    """A file from before this change keeps 16 K characters of head, which inside a long
    run of digits holds no boundary the join can prove: refused, naming the file."""
    tok = RegexTokenizer("gpt4")
    digits = "7" * 40_000
    head = [digits[i:i + 3] for i in range(0, 16_500, 3)]  # the old, shorter head
    rest = Counter(tok.split(digits[16_500:] + " end of it all, the end."))
    old = Part(head, rest, "")
    write_counts(tmp_path / "a.counts", tok.pattern, Part([], Counter({"x": 1}), "x7"))
    write_counts(tmp_path / "b.counts", tok.pattern, old)
    with pytest.raises(ValueError, match=r"b\.counts.*count it again"):
        stream.train_from_counts(tok, [tmp_path / "a.counts", tmp_path / "b.counts"], 300)
    # the same old file joins fine where the phase happens to agree
    write_counts(tmp_path / "a.counts", tok.pattern, Part([], Counter({"x": 1}), "x"))
    stream.train_from_counts(tok, [tmp_path / "a.counts", tmp_path / "b.counts"], 300)


# ---------------------------------------------------------------- sure boundaries
# join rests on sure_pairs: two characters that no chunk of the preset can hold side by
# side, so whatever came before, every split has a chunk boundary between them.
ALPHABET = list("aZsé東'=-/.7½ \t\n\r\u00a0") + ["\u0301", "😉", "ʰ"]


@pytest.mark.parametrize("pattern", PRESETS)
def test_sure_pairs_are_boundaries_in_every_short_text(pattern):
    """Every text of up to 4 characters over an alphabet with one character of each
    class the presets tell apart: where a sure pair stands, the split has a boundary."""
    import itertools
    tok = RegexTokenizer(pattern)
    sure = sure_pairs(tok.split)
    checked = 0
    for size in (2, 3, 4):
        for chars in itertools.product(ALPHABET, repeat=size):
            text = "".join(chars)
            bounds = set()
            pos = 0
            for chunk in tok.split(text):
                pos += len(chunk)
                bounds.add(pos)
            for p in range(1, size):
                if sure.fullmatch(text[p - 1:p + 1]):
                    checked += 1
                    assert p in bounds, (text, p)
    assert checked > 10_000


def sure_in(tok, text):
    sure = sure_pairs(tok.split)
    return [p for p in range(1, len(text)) if sure.fullmatch(text[p - 1:p + 1])]


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from(ALPHABET + ["'s", "'ll", "12", "  "]), max_size=60).map("".join),
       st.sampled_from(PRESETS))
def test_sure_pairs_are_boundaries_in_random_text(text, pattern):
    tok = RegexTokenizer(pattern)
    bounds, pos = set(), 0
    for chunk in tok.split(text):
        pos += len(chunk)
        bounds.add(pos)
    assert set(sure_in(tok, text)) <= bounds


def test_every_preset_finds_sure_pairs_in_prose_and_code(taylorswift):
    for pattern in PRESETS:
        tok = RegexTokenizer(pattern)
        for text in (taylorswift[:2000], "a=b;c=d;if(x){y=1}else{z=22};" * 20):
            assert len(sure_in(tok, text)) > len(text) // 10


# ------------------------------------------------------------------ random cuts
@pytest.fixture
def short_heads(monkeypatch):
    """Heads of 40 characters, so runs of a few hundred are long ones (the check needs it:
    with 16 K characters of head, before sure pairs, these runs joined fine)."""
    monkeypatch.setattr(counting_parts, "HEAD_CHARS", 40)


def runs_text():
    piece = st.one_of(
        st.text(alphabet=st.sampled_from(list("ab Z9's.!\n\r\t  é😉한")), max_size=30),
        st.tuples(st.sampled_from(["7", " ", "\n", "=", "-", "x", "'s", "12", ". ", "\r\n"]),
                  st.integers(min_value=50, max_value=3000)).map(lambda t: t[0] * t[1]))
    return st.lists(piece, min_size=1, max_size=8).map("".join)


@settings(max_examples=60, deadline=None, suppress_health_check=FIXTURES)
@given(runs_text(), st.lists(st.floats(min_value=0, max_value=1), max_size=6),
       st.sampled_from(PRESETS), st.sampled_from([5, 64, 1000]))
def test_random_text_with_long_runs_cut_at_random_places(short_heads, text, where, pattern,
                                                         piece_chars):
    tok = RegexTokenizer(pattern)
    cuts = sorted({int(w * len(text)) for w in where} - {0, len(text)})
    pieces = [text[a:b] for a, b in zip([0] + cuts, cuts + [len(text)])]
    got = finish(join_all(parts_of(tok, pieces, piece_chars), tok.split), tok.split)
    assert ordered(got) == ordered(Counter(tok.split(text)))


@settings(max_examples=15, deadline=None, suppress_health_check=FIXTURES)
@given(runs_text(), st.lists(st.floats(min_value=0, max_value=1), max_size=4),
       st.sampled_from(PRESETS))
def test_random_text_with_long_runs_through_counts_files(short_heads, tmp_path_factory, text,
                                                         where, pattern):
    folder = tmp_path_factory.mktemp("c")
    tok = RegexTokenizer(pattern)
    cuts = sorted({int(w * len(text)) for w in where} - {0, len(text)})
    files = []
    for i, (a, b) in enumerate(zip([0] + cuts, cuts + [len(text)])):
        files.append(folder / f"{i}.counts")
        write_counts(files[-1], tok.pattern, parts_of(tok, [text[a:b]], 64)[0])
    parts = [read_counts(f)[1] for f in files]
    got = finish(join_all(parts, tok.split), tok.split)
    assert ordered(got) == ordered(Counter(tok.split(text)))


def test_join_is_exact_when_the_cut_itself_is_a_sure_boundary():
    tok = RegexTokenizer("gpt4")
    left, right = parts_of(tok, ["x" * 30 + "7" * 5, " " + "7" * 20_000 + " y"])
    got = finish(join(left, right, tok.split), tok.split)
    assert ordered(got) == ordered(Counter(tok.split("x" * 30 + "7" * 5 + " " + "7" * 20_000
                                                      + " y")))


def test_the_counts_file_layout_is_still_version_1(tmp_path):
    """The head is written as one block now; the bytes are the same as version 1's, built
    here by hand from docs/SCALE.md, so files from before and after read alike."""
    import hashlib
    import json
    import struct
    head, counts, tail = ["77", "7", "é "], Counter({"ab": 3, " 東": 1 << 40}), "x\r"
    chunks = [c.encode() for c in head + list(counts)]
    body = (struct.pack("<2q", 3, 1 << 40) + struct.pack(f"<{len(chunks)}q", *map(len, chunks))
            + b"".join(chunks) + tail.encode())
    header = {"pattern": "P", "head": 3, "chunks": 2, "tail_bytes": 2,
              "body_bytes": len(body), "sha256": hashlib.sha256(body).hexdigest(),
              "sources": []}
    by_hand = b"bpe-counts 1\n" + json.dumps(header).encode() + b"\n" + body
    write_counts(tmp_path / "a.counts", "P", Part(head, counts, tail))
    assert (tmp_path / "a.counts").read_bytes() == by_hand
    pattern, back = read_counts(tmp_path / "a.counts")
    assert (pattern, back.head, list(back.counts.items()), back.tail) == \
        ("P", head, list(counts.items()), tail)


def test_the_command_line_counts_and_joins_files_cut_inside_a_run(tmp_path):
    """python -m bpe count on two files that cut a run of digits off its phase, then
    train --from-counts: the merges of training on the whole text; and an old file that
    cannot be joined is one error line naming it."""
    import os
    import subprocess
    import sys
    from helpers.app import ROOT

    def bpe(*args):
        return subprocess.run([sys.executable, "-m", "bpe", *args], cwd=tmp_path,
                              env={**os.environ, "PYTHONPATH": str(ROOT)},
                              capture_output=True, text=True, timeout=120)
    text = PRE + "7" * 40_000 + POST
    cut = len(PRE) + 1
    (tmp_path / "a.txt").write_text(text[:cut], encoding="utf-8")
    (tmp_path / "b.txt").write_text(text[cut:], encoding="utf-8")
    for name in "ab":
        assert bpe("count", f"{name}.txt", "-o", f"{name}.counts").returncode == 0
    done = bpe("train", "--from-counts", "a.counts", "b.counts", "--vocab-size", "280",
               "-o", "tok")
    assert done.returncode == 0, done.stderr
    want = RegexTokenizer().train(text, 280)
    got = RegexTokenizer()
    got.load(str(tmp_path / "tok.model"))
    assert got.merges == want.merges
    tok = RegexTokenizer()
    head = [text[i:i + 3] for i in range(cut, cut + 16_500, 3)]  # an old, short head
    write_counts(tmp_path / "old.counts", tok.pattern,
                 Part(head, Counter(tok.split(text[cut + 16_500:])), ""))
    failed = bpe("train", "--from-counts", "a.counts", "old.counts", "--vocab-size", "280",
                 "-o", "tok2")
    lines = failed.stderr.splitlines()
    assert failed.returncode == 1 and len(lines) == 1, failed.stderr
    assert lines[0].startswith("bpe: error: old.counts: cannot join") and \
        lines[0].endswith("count it again with this version")
    assert not (tmp_path / "tok2.model").exists()


def test_dask_ranges_cut_inside_a_run_of_digits(tmp_path):
    pytest.importorskip("distributed", reason="Dask is optional: pip install -r "
                                              "requirements-scale.txt")
    from bpe.counting.dask_engine import count_files_dask
    text = run_text("7", "", 120_000) + run_text("'s", "a", 60_000)
    path = tmp_path / "a.txt"
    path.write_bytes(text.encode("utf-8"))
    for pattern in ("gpt4", "gpt4o"):
        part = count_files_dask(RegexTokenizer(pattern), [path], workers=2, range_bytes=40_001)
        got = stream.train_from_part(RegexTokenizer(pattern), part, 290)
        want = RegexTokenizer(pattern).train(text, 290)
        assert got.merges == want.merges and got.merge_counts == want.merge_counts
