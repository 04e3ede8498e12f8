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
