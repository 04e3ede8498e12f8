"""The command line never loses a file and reads only regular files (issue 32).

Every command that writes refuses, with one `bpe: error:` line and before any work, an
output that is one of the files it reads (an input, its --model, a model's sidecar), also
through a symlink or a hard link; the file it would have overwritten is left as it was.
Inputs, models and counts files that are no regular file (a FIFO nobody writes to, a
device, a socket) are refused at once; a counts file whose header line never ends is
refused after a bounded read. Each run is a subprocess with a timeout that is only a
guard against a hang: the assertions are on the message and the files.
"""
import os
import socket
import subprocess
import sys

import pytest

from bpe import RegexTokenizer
from bpe.counting.counts_file import MAGIC
from bpe.formats import reading
from bpe.formats.hf.tokenizer_json import save_hf
from helpers.app import ROOT
from helpers.hostile_tools import capped

TEXT = "hello world, the lab's own little corpus. " * 200
GUARD_S = 120  # a safety net against a hang, never the judgement


def run(*args, cwd, cap=None):
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-m", "bpe", *args], cwd=cwd, env=env,
                          capture_output=True, timeout=GUARD_S, stdin=subprocess.DEVNULL,
                          preexec_fn=capped(cap) if cap else None)


def one_error_line(result):
    assert result.returncode == 1, result.stderr
    lines = result.stderr.decode().splitlines()
    assert len(lines) == 1 and lines[0].startswith("bpe: error: "), lines
    return lines[0]


@pytest.fixture
def folder(tmp_path):
    """c.txt (a corpus), m.model + m.vocab (a trained tokenizer), t.json (its export)."""
    (tmp_path / "c.txt").write_text(TEXT, encoding="utf-8")
    tok = RegexTokenizer().train(TEXT, 270)
    tok.save(str(tmp_path / "m"))
    save_hf(tok, str(tmp_path / "t.json"))
    return tmp_path


def _link(folder, kind, name, target):
    (os.symlink if kind == "symlink" else os.link)(folder / target, folder / name)


# (argv, setup or None, the file that must survive, words the message holds)
LOSSES = {
    "train onto its input as the .vocab sidecar": (
        ("train", "m.vocab", "--vocab-size", "260", "-o", "m"), None, "m.vocab", "m.vocab"),
    "train with PREFIX.model a symlink to the corpus": (
        ("train", "c.txt", "--vocab-size", "260", "-o", "out"),
        ("symlink", "out.model", "c.txt"), "c.txt", "through a link"),
    "train --from-counts onto its counts file by a hard link": (
        ("train", "--from-counts", "a.counts", "--vocab-size", "260", "-o", "out"),
        ("hardlink", "out.vocab", "a.counts"), "a.counts", "through a link"),
    "count onto its input": (("count", "c.txt", "-o", "c.txt"), None, "c.txt", "c.txt"),
    "count onto a hard link of its input": (
        ("count", "c.txt", "-o", "h.counts"), ("hardlink", "h.counts", "c.txt"), "c.txt",
        "through a link"),
    "encode -o onto its --model": (
        ("encode", "c.txt", "--model", "m.model", "-o", "m.model"), None, "m.model", "m.model"),
    "encode -o whose .json sidecar is the --model": (
        ("encode", "c.txt", "--model", "t.json", "-o", "t"), None, "t.json", "t.json"),
    "encode -o onto its input": (
        ("encode", "c.txt", "--model", "m.model", "-o", "c.txt"), None, "c.txt", "c.txt"),
    "export onto its model": (
        ("export", "m.model", "--format", "hf", "-o", "m.model"), None, "m.model", "m.model"),
    "export onto its model's .vocab sidecar": (
        ("export", "m.model", "--format", "tiktoken", "-o", "m.vocab"), None, "m.vocab",
        "m.vocab"),
    "export onto its model through a symlink": (
        ("export", "m.model", "--format", "hf", "-o", "out.json"),
        ("symlink", "out.json", "m.model"), "m.model", "through a link"),
}


@pytest.mark.parametrize("name", LOSSES)
def test_a_writer_never_overwrites_what_it_reads(folder, name):
    argv, setup, kept, words = LOSSES[name]
    if "a.counts" in argv or (setup and "a.counts" in setup):
        assert run("count", "c.txt", "-o", "a.counts", cwd=folder).returncode == 0
    if setup:
        _link(folder, *setup)
    before = (folder / kept).read_bytes()
    line = one_error_line(run(*argv, cwd=folder))
    assert words in line and "reads" in line and "give -o another name" in line, line
    assert (folder / kept).read_bytes() == before, f"{kept} was overwritten"


def _fifo(folder):
    os.mkfifo(folder / "pipe")  # nobody ever writes to it: a blocking open never returns
    return "pipe"


def _socket(folder):
    s = socket.socket(socket.AF_UNIX)
    s.bind(str(folder / "sock"))  # the socket file stays after the socket is closed
    s.close()
    return "sock"


SPECIAL = {"fifo": (_fifo, "named pipe (FIFO)"), "device": (lambda _: "/dev/zero", "device"),
           "socket": (_socket, "socket")}
USES = {  # how each command is given the special file
    "encode --model": lambda f: ("encode", "--model", f, "c.txt"),
    "encode input": lambda f: ("encode", "--model", "m.model", f),
    "encode -o input": lambda f: ("encode", f, "--model", "m.model", "-o", "ids.bin"),
    "train input": lambda f: ("train", f, "--vocab-size", "260", "-o", "out"),
    "train --from-counts": lambda f: ("train", "--from-counts", f, "--vocab-size", "260",
                                      "-o", "out"),
    "count input": lambda f: ("count", f, "-o", "out.counts"),
    "export model": lambda f: ("export", f, "--format", "hf", "-o", "out.json"),
    "eval --model": lambda f: ("eval", "--model", f, "c.txt"),
    "eval input": lambda f: ("eval", "--model", "m.model", f),
}


@pytest.mark.parametrize("special", SPECIAL)
@pytest.mark.parametrize("use", USES)
def test_only_regular_files_are_read(folder, special, use):
    make, words = SPECIAL[special]
    path = make(folder)
    # a 1 GB address-space cap: reading /dev/zero until it fails ends here as well
    line = one_error_line(run(*USES[use](path), cwd=folder, cap=1 << 30))
    assert f"{path} is a" in line and words in line and "not a regular file" in line, line
    assert not any(folder.glob("out*")) and not (folder / "ids.bin").exists()


def test_a_counts_header_that_never_ends_is_refused_by_a_bounded_read(folder):
    with open(folder / "huge.counts", "wb") as f:
        f.write(MAGIC + b'{"pattern": "')
        f.truncate(2 << 30)  # 2 GB of NULs and no newline, sparse: no disk is used
    line = one_error_line(run("train", "--from-counts", "huge.counts", "--vocab-size", "260",
                              "-o", "out", cwd=folder, cap=1 << 30))
    assert "header line is longer than 16 MB" in line, line


def test_read_regular_bounds_the_read(tmp_path):
    path = tmp_path / "f"
    path.write_bytes(b"x" * 100)
    assert reading.read_regular(path, 100, "the file") == b"x" * 100
    with pytest.raises(ValueError, match=r"the file .*f holds more than 99 bytes"):
        reading.read_regular(path, 99, "the file")
    with pytest.raises(ValueError, match="is a character device"):
        reading.read_regular("/dev/zero", 1 << 20, "the model")
    os.mkfifo(tmp_path / "p")
    with pytest.raises(ValueError, match=r"is a named pipe \(FIFO\)"):
        reading.open_regular(tmp_path / "p")
    with pytest.raises(FileNotFoundError):
        reading.read_regular(tmp_path / "nope", 10)


def test_same_file_as_sees_through_links(tmp_path):
    (tmp_path / "a").write_text("a")
    os.symlink(tmp_path / "a", tmp_path / "s")
    os.link(tmp_path / "a", tmp_path / "h")
    (tmp_path / "b").write_text("a")  # same content, another file
    assert reading.same_file_as(tmp_path / "s", [tmp_path / "b", tmp_path / "a"]) == tmp_path / "a"
    assert reading.same_file_as(tmp_path / "h", [tmp_path / "a"]) == tmp_path / "a"
    assert reading.same_file_as(tmp_path / "b", [tmp_path / "a"]) is None
    assert reading.same_file_as(tmp_path / "new", [tmp_path / "a"]) is None
