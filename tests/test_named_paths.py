"""Every path of this repository that a doc, a docstring or a comment names exists.

A path is a run like `bpe/formats/ranks.py` or `tests/bpe/` that starts at one of the
repository's top folders. Paths in another project's tree (minbpe's tests/test_tokenizer.py,
tiktoken's tests/test_encoding.py) are told apart by the line naming that project;
bench/results/*.md are dated records of a run and keep the paths of their day."""
import re

import pytest
from helpers.app import ROOT

TOP = ("bpe", "lab", "viz", "pages", "tests", "bench", "docs", "samples")
PATH = re.compile(r"(?<![\w./-])((?:%s)/(?:\w[\w./-]*)?[\w/])(?![\w*{<])" % "|".join(TOP))
FOREIGN = re.compile(r"minbpe|tiktoken|CS336|cs336|rustbpe|llama\.cpp|huggingface|openai/|karpathy/")
SUFFIXES = {".py", ".md", ".js", ".css", ".ini", ".txt", ".toml", ".cfg"}
SELF = ROOT / "tests" / "test_named_paths.py"  # its own example names a gone file
SKIPPED = {".git", ".venv", "node_modules", "__pycache__", "results", "vocab"}


def named_paths():
    for file in sorted(ROOT.rglob("*")):
        parts = set(file.relative_to(ROOT).parts)
        if file.suffix not in SUFFIXES or parts & SKIPPED or not file.is_file() \
                or file == SELF:
            continue
        for n, line in enumerate(file.read_text(encoding="utf-8", errors="replace").splitlines(), 1):
            if FOREIGN.search(line):
                continue
            for match in PATH.finditer(line):
                yield file.relative_to(ROOT), n, match.group(1).rstrip(".")


def exists(path):
    target = ROOT / path
    # `lab/training.start` names a function: its module is the file
    module = re.sub(r"\.[A-Za-z_]\w*$", "", path)
    return target.exists() or (ROOT / (path + ".py")).exists() or (ROOT / (module + ".py")).exists()


def test_the_checker_finds_a_path_that_is_gone(tmp_path):
    line = "see bpe/formats/no_such_file.py and bpe/formats/ranks.py"
    found = [m.group(1) for m in PATH.finditer(line)]
    assert found == ["bpe/formats/no_such_file.py", "bpe/formats/ranks.py"]
    assert not exists(found[0]) and exists(found[1])


def test_every_named_path_exists():
    missing = [f"{file}:{n}: {path}" for file, n, path in named_paths() if not exists(path)]
    assert not missing, "paths named but not in the repository:\n" + "\n".join(missing)
