"""Sample corpora to train on, read from this machine; nothing is downloaded.

A small public-domain Shakespeare slice shipped in samples/, Python's own standard
library, and the shared corpora folder beside the checkout when it is there. Texts are
read once per server (`st.cache_resource`) and shared: a str cannot be mutated.
"""
import os
import sysconfig
from pathlib import Path

import streamlit as st

SHIPPED_SHAKESPEARE = Path(__file__).resolve().parents[2] / "samples" / "shakespeare_100k.txt"
CORPUS_LIMIT = 2_000_000  # characters read from the standard library sample


def shared_corpora_dir():
    """The folder of shared corpora beside the checkout ($BPE_CORPORA overrides), or None."""
    path = Path(os.environ.get("BPE_CORPORA",
                               Path(__file__).resolve().parents[3] / "shared" / "corpora"))
    return path if path.is_dir() else None


def python_stdlib_text(limit=CORPUS_LIMIT):
    """Source code of Python's standard library on this machine, up to limit characters,
    in a fixed order so the same machine always gives the same corpus."""
    root = Path(sysconfig.get_paths()["stdlib"])
    parts, size = [], 0
    for path in sorted(root.glob("*.py")):
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            continue
        parts.append(text)
        size += len(text)
        if size >= limit:
            break
    return "".join(parts)[:limit]


def sample_corpora():
    """name -> a function returning the corpus text; only corpora present here."""
    corpora = {
        "Shakespeare (100 KB, shipped)": lambda: SHIPPED_SHAKESPEARE.read_text(encoding="utf-8"),
        "Python standard library (code, 2 MB)": python_stdlib_text,
    }
    folder = shared_corpora_dir()
    if folder:
        for path in sorted(folder.glob("*.txt")):
            size_kb = path.stat().st_size // 1024
            corpora[f"{path.name} ({size_kb:,} KB)"] = \
                lambda path=path: path.read_text(encoding="utf-8")
    return corpora


@st.cache_resource(max_entries=4, show_spinner="Reading the corpus…")
def load_sample(name):
    """A sample corpus (a key of sample_corpora()) and its size in UTF-8 bytes."""
    text = sample_corpora()[name]()
    return text, len(text.encode("utf-8"))


def shakespeare():
    """The shipped Shakespeare slice (100 KB), e.g. for Compare's quick pair."""
    return load_sample(next(name for name in sample_corpora()
                            if name.startswith("Shakespeare")))[0]
