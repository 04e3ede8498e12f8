"""The core stays free of the UI stack, and of what only a rare path needs."""
import subprocess
import sys

import pytest

from helpers.app import ROOT


def loaded_after_import(names):
    """Which of names a fresh `import bpe; bpe.GPT4Tokenizer` has in sys.modules."""
    code = (f"import sys, bpe; bpe.GPT4Tokenizer; "
            f"print(sorted(m for m in {tuple(names)!r} if m in sys.modules))")
    return subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                          text=True, check=True).stdout.strip()


@pytest.mark.parametrize("names", [
    ("streamlit", "pandas", "altair", "tiktoken"),
    # asyncio (with ssl and socket) is ~40 ms of a fresh process's import that only the
    # Dask engine's scheduler probe needs; every CLI call and worker paid it (issue 30)
    ("asyncio", "ssl", "dask", "distributed"),
], ids=["ui", "dask-only"])
def test_import_bpe_leaves_out(names):
    assert loaded_after_import(names) == "[]"
