"""Saves through bpe.formats.atomic (issue 24): a symlink is followed, not replaced; a
device, FIFO or folder is refused, not replaced; a new file gets 0666 & ~umask."""
import os
import stat
import subprocess
import sys

import pytest

from bpe import RegexTokenizer
from bpe.formats.atomic import SaveError, write_files


def test_a_save_onto_a_symlink_replaces_its_target_and_keeps_the_link(tmp_path):
    real = tmp_path / "real.tiktoken"
    real.write_text("old")
    link = tmp_path / "link.tiktoken"
    link.symlink_to(real)
    write_files({link: "new"})
    assert link.is_symlink()
    assert real.read_text() == "new"


@pytest.mark.parametrize("make", [os.mkfifo, os.mkdir], ids=["fifo", "folder"])
def test_a_save_onto_a_special_file_is_refused_and_leaves_it(tmp_path, make):
    node = tmp_path / "null"
    make(node)
    before = os.stat(node).st_mode
    with pytest.raises(SaveError, match="not a file"):
        write_files({node: "x"})
    assert os.stat(node).st_mode == before
    assert sorted(os.listdir(tmp_path)) == ["null"]  # no temporary file left behind


def test_the_cli_refuses_to_export_onto_a_device(tmp_path):
    model = tmp_path / "m"
    RegexTokenizer().train("hello world " * 50, 260).save(str(model))
    out = tmp_path / "null"
    os.mkfifo(out)
    run = subprocess.run([sys.executable, "-m", "bpe", "export", f"{model}.model", "--format",
                          "tiktoken", "-o", str(out)], capture_output=True, text=True, timeout=60)
    assert run.returncode == 1
    assert run.stderr.startswith("bpe: error: cannot write") and "not a file" in run.stderr
    assert stat.S_ISFIFO(os.stat(out).st_mode)


def test_a_new_file_gets_the_umask_mode_and_a_replaced_file_keeps_its_own(tmp_path):
    code = ("import os, sys; os.umask(0o022); from bpe.formats.atomic import write_files; "
            "write_files({sys.argv[1]: 'a'}); os.umask(0o077); write_files({sys.argv[2]: 'b'})")
    fresh, kept = tmp_path / "fresh.model", tmp_path / "kept.model"
    kept.write_text("old")
    os.chmod(kept, 0o640)
    subprocess.run([sys.executable, "-c", code, str(fresh), str(kept)], check=True, timeout=60)
    assert stat.S_IMODE(os.stat(fresh).st_mode) == 0o644
    assert stat.S_IMODE(os.stat(kept).st_mode) == 0o640
    assert kept.read_text() == "b"


def test_blocks_are_written_whole(tmp_path):
    path = tmp_path / "blocks.bin"
    write_files({path: [b"ab", b"", b"cd"]})
    assert path.read_bytes() == b"abcd"
