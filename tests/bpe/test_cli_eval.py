"""`python -m bpe eval` (bpe/cli/eval.py): the table, --json's figures against tiktoken's
ids, and one-line errors (status 1 for bad input, 2 for a command line argparse refuses)."""
import json
import subprocess
import sys

import pytest

from pathlib import Path

from bpe import BasicTokenizer, cli, evaluate
from bpe.reference import load_reference
from viz.arena import ARENA_DIR

ROOT = Path(__file__).resolve().parents[2]


def run_eval(*argv):
    """The command line's main on `eval ARGV`; returns its exit status."""
    return cli.main(["eval", *argv])


def test_json_rows_equal_tiktoken_counts(capsys):
    import tiktoken
    files = [str(ARENA_DIR / "english.txt"), str(ARENA_DIR / "korean.txt")]
    assert run_eval("--model", "cl100k_base", "--against", "r50k_base", "--json", *files) == 0
    rows = json.loads(capsys.readouterr().out)
    assert [(r["tokenizer"], r["file"]) for r in rows] == [
        ("cl100k_base", files[0]), ("cl100k_base", files[1]), ("cl100k_base", "total"),
        ("r50k_base", files[0]), ("r50k_base", files[1]), ("r50k_base", "total")]
    assert all(list(r) == list(evaluate.JSON_KEYS) for r in rows)
    for row in rows:
        tok = load_reference(row["tokenizer"])
        enc = tiktoken.Encoding("check", pat_str=tok.pattern, mergeable_ranks=tok.ranks,
                                special_tokens=tok.special_tokens)
        paths = files if row["file"] == "total" else [row["file"]]
        texts = [open(p, encoding="utf-8").read() for p in paths]
        ids = [i for t in texts for i in enc.encode(t, disallowed_special=())]
        n_bytes = sum(len(t.encode()) for t in texts)
        assert (row["bytes"], row["tokens"]) == (n_bytes, len(ids))
        assert row["bytes_per_token"] == n_bytes / len(ids)
        words = sum(len(t.split()) if "korean" not in p else
                    sum(1 for ch in t if "\uac00" <= ch <= "\ud7a3")  # one word a syllable
                    + sum(1 for piece in t.split() for run in
                          __import__("re").split("[\uac00-\ud7a3]+", piece) if run)
                    for t, p in zip(texts, paths))
        assert row["words"] == words
        assert row["tokens_per_word"] == len(ids) / words
        assert row["unique_tokens"] == len(set(ids))
        assert 0 <= row["words_split"] <= 1


def test_table_has_a_column_per_reference(capsys):
    path = str(ARENA_DIR / "japanese.txt")
    assert run_eval("--model", "r50k_base", "--against", "cl100k_base,o200k_base", path) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("| tokenizer | file | bytes | tokens | bytes/token | vs cl100k_base "
                             "| vs o200k_base |")
    assert len(out) == 2 + 3 * 2


def test_a_model_file(tmp_path, capsys):
    tok = BasicTokenizer().train("aaabdaaabac", 256 + 3)
    tok.save(str(tmp_path / "m"))
    text = tmp_path / "t.txt"
    text.write_text("aaabdaaabac")
    assert run_eval("--model", str(tmp_path / "m.model"), "--json", str(text)) == 0
    rows = json.loads(capsys.readouterr().out)
    assert rows[0]["tokens"] == 5 and rows[0]["bytes"] == 11


@pytest.mark.parametrize("argv, message", [
    (["--model", "no_such_name", "x.txt"], "no reference tokenizer is called that"),
    (["--model", "r50k_base", "missing.txt"], "missing.txt: no such file"),
    (["--model", "r50k_base", str(ROOT / "samples")], "is a folder"),
])
def test_errors_are_one_line_and_status_1(argv, message, capsys):
    assert run_eval(*argv) == 1
    err = capsys.readouterr().err
    assert err.startswith("bpe: error: ") and message in err and err.count("\n") == 1


def test_not_utf8_and_missing_files_argument(tmp_path):
    bad = tmp_path / "latin1.txt"
    bad.write_bytes(b"caf\xe9")
    for argv, status in ((["--model", "r50k_base", str(bad)], 1), (["--model", "r50k_base"], 2)):
        done = subprocess.run([sys.executable, "-m", "bpe", "eval", *argv], cwd=ROOT,
                              capture_output=True, text=True, timeout=120)
        assert done.returncode == status and done.stdout == ""
        assert done.stderr.startswith("bpe: error: ") and done.stderr.count("\n") == 1
        assert "Traceback" not in done.stderr
