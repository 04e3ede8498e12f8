"""`python -m bpe train --method NAME`: every method trains from the command line and
writes the one file that holds it, which bpe.load opens back with identical ids; bad
options get one `bpe: error:` line and write nothing."""
import subprocess
import sys

import pytest
from helpers.app import ROOT, read_corpus

import bpe

SAMPLE = "Hello, world! 2026 — the cat and the hat. 안녕 [UNK]"


def run(*args, cwd):
    return subprocess.run([sys.executable, "-m", "bpe", *args], cwd=cwd, capture_output=True,
                          text=True, env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"})


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    folder = tmp_path_factory.mktemp("methods")
    (folder / "a.txt").write_text(read_corpus("taylorswift.txt")[:30_000], encoding="utf-8")
    return folder


@pytest.mark.parametrize("method, options, written", [
    ("bpe", [], ["out.model", "out.vocab"]),
    ("hf-bpe", [], ["out.json"]),
    ("wordpiece", ["--special-token", "[UNK]"], ["out.json"]),
    ("unigram", [], ["out.json"]),
    ("superbpe", ["--transition", "400"], ["out.json"]),
    ("boundless", [], ["out.json"]),
    ("picky", ["--tau", "0.9"], ["out.json"]),
])
def test_each_method_writes_a_file_load_opens_with_the_same_ids(corpus, method, options, written):
    folder = corpus / method
    folder.mkdir()
    done = run("train", "--method", method, "../a.txt", "--vocab-size", "480", "-o", "out",
               *options, cwd=folder)
    assert done.returncode == 0, done.stderr
    assert sorted(p.name for p in folder.iterdir()) == written
    text = (corpus / "a.txt").read_text(encoding="utf-8")
    trained = bpe.methods.train(method, [text], 480, **_options(options))
    loaded = bpe.load(str(folder / written[0]))
    for sample in (SAMPLE, text[:3000]):
        assert loaded.encode(sample, disallowed_special=()) == \
            trained.encode(sample, disallowed_special=())


def _options(options):
    pairs = dict(zip(options[::2], options[1::2]))
    out = {}
    if "--tau" in pairs:
        out["tau"] = float(pairs["--tau"])
    if "--transition" in pairs:
        out["transition"] = int(pairs["--transition"])
    if "--special-token" in pairs:
        out["special_tokens"] = [pairs["--special-token"]]
    return out


def test_parity_takes_one_file_per_language(corpus):
    arena = ROOT / "samples" / "arena"
    done = run("train", "--method", "parity", str(arena / "english.txt"),
               str(arena / "hindi.txt"), "--vocab-size", "400", "-o", "par", cwd=corpus)
    assert done.returncode == 0, done.stderr
    texts = {p.stem: p.read_text(encoding="utf-8") for p in (arena / "english.txt",
                                                             arena / "hindi.txt")}
    trained = bpe.methods.train("parity", texts, 400)
    assert bpe.load(str(corpus / "par.model")).merges == trained.merges


@pytest.mark.parametrize("options, says", [
    (["--method", "picky", "--tau", "2"], "tau must be a number in (0, 1]"),
    (["--method", "unigram", "--tau", "0.5"], "unigram takes no option tau"),
    (["--method", "hf-bpe", "--tie-break", "smallest_ids"], "keeps its owner's tie rule"),
    (["--method", "bpe", "--kind", "basic"], "leave out --kind and --pattern"),
    (["--tau", "0.5"], "--tau, --transition and --special-token go with --method"),
    (["--method", "superbpe", "--transition", "9999"], "transition must be an int from 256"),
])
def test_bad_options_get_one_line_and_write_nothing(corpus, options, says):
    folder = corpus / ("bad" + str(abs(hash(tuple(options)))))
    folder.mkdir()
    done = run("train", "../a.txt", "--vocab-size", "480", "-o", "out", *options, cwd=folder)
    assert done.returncode != 0
    assert done.stderr.startswith("bpe: error:") and says in done.stderr
    assert done.stderr.count("\n") == 1 and list(folder.iterdir()) == []


def test_an_output_that_is_the_input_is_refused(corpus):
    done = run("train", "--method", "superbpe", "a.json", "--vocab-size", "480", "-o", "a",
               cwd=corpus) if (corpus / "a.json").write_text("x") else None
    assert done.returncode == 1 and "reads" in done.stderr
    assert (corpus / "a.json").read_text() == "x"


def test_a_damaged_method_file_gets_a_sentence(tmp_path):
    path = tmp_path / "m.json"
    path.write_text('{"bpe_lab_method": 1, "method": "superbpe", "pattern": "gpt4", '
                    '"merges": [[97, 98, "x"]]}')
    with pytest.raises(ValueError, match=r"each merge must be \[a, b, idx\] of ids"):
        bpe.load(str(path))
    path.write_text('{"bpe_lab_method": 1, "method": "magic", "pattern": "gpt4", "merges": []}')
    with pytest.raises(ValueError, match="method 'magic' is not one this file holds"):
        bpe.load(str(path))
