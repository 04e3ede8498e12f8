"""The command line, run as a user would: `python -m bpe ...` in a subprocess."""
import json
import os
import pty
import subprocess
import sys

import pytest
import tiktoken
from tiktoken.load import load_tiktoken_bpe
from tokenizers import Tokenizer as HFTokenizer

import bpe
import bpe.counting.parts
import bpe.tie_break
from bpe.counting.counts_file import write_counts
from helpers.app import ROOT

SAMPLE = "Hello world! It's 2026.\n  def f(x):\n\treturn x ** 2   \n\n🫠 café 東京\n"


def run(*args, cwd, stdin=None):
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-m", "bpe", *args], cwd=cwd, env=env,
                          input=stdin, capture_output=True, timeout=120)


@pytest.fixture
def corpus(tmp_path, taylorswift):
    (tmp_path / "a.txt").write_text(taylorswift[:40_000], encoding="utf-8")
    (tmp_path / "b.txt").write_text(taylorswift[40_000:80_000], encoding="utf-8")
    return tmp_path


def one_error_line(result):
    """The single stderr line of a failed run (no traceback)."""
    assert result.returncode != 0
    lines = result.stderr.decode().splitlines()
    assert len(lines) == 1, lines
    assert lines[0].startswith("bpe: error: ")
    return lines[0]


@pytest.mark.parametrize("kind, pattern", [("regex", "gpt4"), ("regex", "gpt2"),
                                           ("basic", None)])
def test_train_then_encode(corpus, taylorswift, kind, pattern):
    args = ["train", "a.txt", "b.txt", "--vocab-size", "500", "--kind", kind, "-o", "out/m"]
    result = run(*args, *(["--pattern", pattern] if pattern else []), cwd=corpus)
    assert result.returncode == 0, result.stderr
    assert "wrote out/m.model and out/m.vocab: 244 merges" in result.stderr.decode()
    assert "\r" not in result.stderr.decode()  # not a terminal: no progress bar
    tok = bpe.load(corpus / "out" / "m.model")
    assert type(tok).__name__ == ("BasicTokenizer" if kind == "basic" else "RegexTokenizer")
    expected = bpe.RegexTokenizer(pattern) if pattern else bpe.BasicTokenizer()
    expected.train(taylorswift[:80_000], 500)
    assert tok.merges == expected.merges

    from_stdin = run("encode", "--model", "out/m.model", cwd=corpus, stdin=SAMPLE.encode())
    assert from_stdin.returncode == 0, from_stdin.stderr
    assert json.loads(from_stdin.stdout) == tok.encode(SAMPLE)
    (corpus / "s.txt").write_text(SAMPLE, encoding="utf-8")
    from_file = run("encode", "--model", "out/m.model", "s.txt", cwd=corpus)
    assert json.loads(from_file.stdout) == tok.encode(SAMPLE)


def test_export_both_formats(corpus):
    assert run("train", "a.txt", "--vocab-size", "400", "-o", "m", cwd=corpus).returncode == 0
    tok = bpe.load(corpus / "m.model")
    hf = run("export", "m.model", "--format", "hf", "-o", "tokenizer.json", cwd=corpus)
    assert hf.returncode == 0, hf.stderr
    assert HFTokenizer.from_file(str(corpus / "tokenizer.json")).encode(SAMPLE).ids == \
        tok.encode(SAMPLE)
    tt = run("export", "m.model", "--format", "tiktoken", "-o", "m.tiktoken", cwd=corpus)
    assert tt.returncode == 0, tt.stderr
    assert "pat_str=" in tt.stderr.decode()
    enc = tiktoken.Encoding("m", pat_str=tok.pattern, special_tokens={},
                            mergeable_ranks=load_tiktoken_bpe(str(corpus / "m.tiktoken")))
    assert enc.encode(SAMPLE) == tok.encode(SAMPLE)
    # encode reads the exported files too
    ids = run("encode", "--model", "tokenizer.json", cwd=corpus, stdin=SAMPLE.encode())
    assert json.loads(ids.stdout) == tok.encode(SAMPLE)
    ids = run("encode", "--model", "m.tiktoken", "--pattern", "gpt4", cwd=corpus,
              stdin=SAMPLE.encode())
    assert json.loads(ids.stdout) == tok.encode(SAMPLE)


def test_progress_bar_on_a_terminal(corpus):
    main, secondary = pty.openpty()
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen([sys.executable, "-m", "bpe", "train", "a.txt", "--vocab-size",
                             "400", "-o", "m"], cwd=corpus, env=env, stderr=secondary,
                            stdout=subprocess.DEVNULL)
    os.close(secondary)
    out = b""
    while True:
        try:
            chunk = os.read(main, 4096)
        except OSError:  # the terminal closed: the process is done
            break
        if not chunk:
            break
        out += chunk
    os.close(main)
    assert proc.wait(timeout=60) == 0
    text = out.decode()
    assert "\r[" + "#" * 30 + "] 144/144 merges" in text
    assert "] 40.0 kB/40.0 kB  " in text and "/s  ETA 0:00" in text  # the counting bar


def test_missing_file(corpus):
    line = one_error_line(run("train", "nope.txt", "--vocab-size", "300", "-o", "m", cwd=corpus))
    assert line == "bpe: error: nope.txt: no such file"


def test_not_utf8(corpus):
    (corpus / "latin1.txt").write_bytes("café".encode("latin-1"))
    line = one_error_line(run("train", "latin1.txt", "--vocab-size", "300", "-o", "m",
                              cwd=corpus))
    assert "latin1.txt is not UTF-8 text (byte 0xe9 at offset 3)" in line
    line = one_error_line(run("encode", "--model", "x.model", cwd=corpus, stdin=b"\xff"))
    assert "x.model: no such file" in line


def test_vocab_size_below_256(corpus):
    line = one_error_line(run("train", "a.txt", "--vocab-size", "255", "-o", "m", cwd=corpus))
    assert "--vocab-size must be at least 256" in line


@pytest.mark.parametrize("content, message", [
    (b"not a model\n", "bad.model line 1: expected 'minbpe v1'"),
    (b"minbpe v1\n\n0\n1 2 3\n", "bad.model line 4: expected a merge"),
    (b"\xff\xfe", "bad.model is not UTF-8 text"),
])
def test_malformed_model(corpus, content, message):
    (corpus / "bad.model").write_bytes(content)
    line = one_error_line(run("encode", "--model", "bad.model", cwd=corpus, stdin=b"hi"))
    assert message in line
    line = one_error_line(run("export", "bad.model", "--format", "hf", "-o", "x.json",
                              cwd=corpus))
    assert message in line


def test_bad_pattern_and_bad_arguments(corpus):
    line = one_error_line(run("train", "a.txt", "--vocab-size", "300", "--pattern", "(a",
                              "-o", "m", cwd=corpus))
    assert "invalid split pattern '(a'" in line
    line = one_error_line(run("train", "a.txt", "--vocab-size", "many", "-o", "m", cwd=corpus))
    assert "invalid int value: 'many'" in line and "python -m bpe train --help" in line
    one_error_line(run(cwd=corpus))


def test_special_token_text_refused_unless_allowed(corpus):
    tok = bpe.RegexTokenizer().train("hello hello", 260)
    tok.register_special_tokens({"<|endoftext|>": 300})
    tok.save(corpus / "s")
    text = b"hi<|endoftext|>"
    assert "allowed_special" in one_error_line(
        run("encode", "--model", "s.model", cwd=corpus, stdin=text))
    ok = run("encode", "--model", "s.model", "--allowed-special", "all", cwd=corpus, stdin=text)
    assert json.loads(ok.stdout) == tok.encode(text.decode(), allowed_special="all")


def test_export_refuses_what_tiktoken_would_encode_differently(corpus):
    tok = bpe.RegexTokenizer()
    tok.merges = {(97, 98): 256, (98, 99): 257, (97, 257): 258}
    tok._reset()
    tok.save(corpus / "odd")
    line = one_error_line(run("export", "odd.model", "--format", "tiktoken", "-o", "o.tiktoken",
                              cwd=corpus))
    assert "token 258" in line and "not to itself" in line
    assert not (corpus / "o.tiktoken").exists()


# ------------------------------------------------------------ counts, engines, bad input
def no_outputs(folder, before):
    """Nothing new in folder (no partial output, no temp file) since before."""
    assert sorted(os.listdir(folder)) == before


def test_count_then_train_from_counts(corpus, taylorswift):
    for name in ("a", "b"):
        result = run("count", f"{name}.txt", "-o", f"{name}.counts", cwd=corpus)
        assert result.returncode == 0, result.stderr
        assert f"wrote {name}.counts" in result.stderr.decode()
    result = run("train", "--from-counts", "a.counts", "b.counts", "--vocab-size", "500",
                 "-o", "m", cwd=corpus)
    assert result.returncode == 0, result.stderr
    expected = bpe.RegexTokenizer().train(taylorswift[:80_000], 500)
    assert bpe.load(corpus / "m.model").merges == expected.merges
    # a counts file made with another pattern is refused, and leaves nothing behind
    assert run("count", "b.txt", "--pattern", "gpt2", "-o", "c.counts",
               cwd=corpus).returncode == 0
    before = sorted(os.listdir(corpus))
    line = one_error_line(run("train", "--from-counts", "a.counts", "c.counts",
                              "--vocab-size", "300", "-o", "x", cwd=corpus))
    assert "c.counts was counted with the split pattern" in line
    no_outputs(corpus, before)


def test_train_with_dask_and_with_local_workers(corpus, taylorswift):
    pytest.importorskip("distributed", reason="Dask is optional: pip install -r "
                                              "requirements-scale.txt")
    expected = bpe.RegexTokenizer().train(taylorswift[:80_000], 400)
    for engine in (["--engine", "dask", "--workers", "2"], ["--workers", "2"]):
        result = run("train", "a.txt", "b.txt", "--vocab-size", "400", *engine, "-o", "d",
                     cwd=corpus)
        assert result.returncode == 0, result.stderr
        assert bpe.load(corpus / "d.model").merges == expected.merges


@pytest.mark.parametrize("args, message", [
    (["train", "a.txt", "nope.txt"], "bpe: error: nope.txt: no such file"),
    (["count", "a.txt", "nope.txt"], "bpe: error: nope.txt: no such file"),
    (["train", "a.txt", "bad.txt"], "bad.txt is not UTF-8 text (byte 0xff at offset 70000)"),
    (["count", "a.txt", "bad.txt"], "bad.txt is not UTF-8 text (byte 0xff at offset 70000)"),
    (["train", "--from-counts", "damaged.counts"], "damaged.counts is damaged"),
    (["train", "a.txt", "--scheduler", "tcp://127.0.0.1:9"],
     "cannot reach the Dask scheduler at tcp://127.0.0.1:9"),
    (["train", "a.txt", "--from-counts", "a.txt"], "not both or neither"),
])
def test_bad_input_one_line_and_no_output(corpus, args, message):
    (corpus / "bad.txt").write_bytes(b"x" * 70_000 + b"\xff" + b"y" * 10)
    part = bpe.counting.parts.Part(["a"], bpe.counting.parts.Counter({"b": 1}), "")
    write_counts(corpus / "damaged.counts", bpe.RegexTokenizer().pattern, part)
    (corpus / "damaged.counts").write_bytes((corpus / "damaged.counts").read_bytes()[:-1])
    before = sorted(os.listdir(corpus))
    out = ["-o", "out.counts"] if args[0] == "count" else ["--vocab-size", "300", "-o", "m"]
    result = run(*args, *out, cwd=corpus)
    assert result.returncode == 1
    assert message in one_error_line(result)
    no_outputs(corpus, before)


@pytest.mark.parametrize("rule", bpe.tie_break.TIE_BREAKS)
def test_tie_break_from_text_and_from_counts(corpus, taylorswift, rule):
    """--tie-break gives tok.train's merges for that rule, from text files and from counts
    files alike (they keep the chunks' first-occurrence order, which "first" needs)."""
    expected = bpe.RegexTokenizer().train(taylorswift[:80_000], 400, tie_break=rule)
    other = bpe.RegexTokenizer().train(taylorswift[:80_000], 400,
                                       tie_break="greatest_bytes" if rule == "first" else "first")
    assert other.merges != expected.merges  # so passing no rule, or another, would fail
    for name in ("a", "b"):
        assert run("count", f"{name}.txt", "-o", f"{name}.counts", cwd=corpus).returncode == 0
    for source in (["a.txt", "b.txt"], ["--from-counts", "a.counts", "b.counts"]):
        result = run("train", *source, "--vocab-size", "400", "--tie-break", rule, "-o", "t",
                     cwd=corpus)
        assert result.returncode == 0, result.stderr
        assert f"tie rule {rule}" in result.stderr.decode()
        assert bpe.load(corpus / "t.model").merges == expected.merges


def test_a_bad_tie_break_is_one_line(corpus):
    before = sorted(os.listdir(corpus))
    result = run("train", "a.txt", "--vocab-size", "300", "--tie-break", "random", "-o", "m",
                 cwd=corpus)
    assert result.returncode == 2
    line = one_error_line(result)
    assert "argument --tie-break: invalid choice: 'random'" in line
    assert "'first', 'smallest_ids', 'greatest_bytes'" in line
    no_outputs(corpus, before)
