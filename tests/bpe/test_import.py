"""The core stays free of the UI stack."""
import subprocess
import sys

from helpers.app import ROOT


def test_import_bpe_loads_no_ui_modules():
    code = ("import sys, bpe; bpe.GPT4Tokenizer; "
            "print(sorted(m for m in ('streamlit', 'pandas', 'altair', 'tiktoken') "
            "if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                         text=True, check=True).stdout.strip()
    assert out == "[]"


def test_import_bpe_leaves_the_dask_only_modules_out():
    # asyncio (with ssl and socket) is ~40 ms of a fresh process's import that only the
    # Dask engine's scheduler probe needs; every CLI call and worker paid it (issue 30).
    code = ("import sys, bpe; bpe.GPT4Tokenizer; "
            "print(sorted(m for m in ('asyncio', 'ssl', 'dask', 'distributed') "
            "if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                         text=True, check=True).stdout.strip()
    assert out == "[]"
