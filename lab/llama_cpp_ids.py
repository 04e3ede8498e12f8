"""llama.cpp's own test vocabularies, as a parity check for GGUF files: sha256 -> its test ids.

llama.cpp ships `ggml-vocab-*.gguf` vocabulary files with test inputs and the ids its
tokenizer gives them (`.inp`: texts separated by "\\n__ggml_vocab_test__\\n"; `.out`: one
line of space-separated ids per text, no BOS), in vendor/llama.cpp/models/ of the
llama-cpp-python sdist. When that sdist is here (pinned by sha256; never built nor
installed, only read), an uploaded GGUF whose sha256 is one of those files is checked
against llama.cpp's ids for its texts: the owner's answers, not another library's.

The sdist is optional: without it (or if its sha256 is not the pinned one) `table()` is
None and `absent()` says why, in a sentence for the page. Its members are hashed once per
process (streamed: the 74 MB of vocabularies are never held), and only the small
.inp/.out pairs are kept. Pure functions and data; no Streamlit here.
"""
import hashlib
import os
import sys
import tarfile
import threading
from dataclasses import dataclass
from pathlib import Path

SDIST = "llama_cpp_python-0.3.36.tar.gz"
SDIST_SHA256 = "832db0699007f1be95a7e41ef12e88926b02ba836461e36a36372db2760c1a2e"
MODELS = "llama_cpp_python-0.3.36/vendor/llama.cpp/models/"
SEPARATOR = "\n__ggml_vocab_test__\n"
GET_IT = ("pip download --no-deps --no-binary :all: llama-cpp-python==0.3.36 "
          "-d .venv/sdists")
ROOT = Path(__file__).resolve().parents[1]


@dataclass(frozen=True)
class VocabTests:
    """One of llama.cpp's test vocabularies: its file's name and its (text, ids) pairs
    (empty for a vocabulary shipped without tests)."""
    name: str        # e.g. "ggml-vocab-gpt-2.gguf"
    cases: tuple = ()  # ((text, (id, ...)), ...)


def sdist_path():
    """Where the pinned sdist is (env BPE_SDISTS, the checkout's .venv/sdists, or the
    running Python's prefix/sdists, as the Makefile puts it), or None."""
    places = [os.environ.get("BPE_SDISTS"), ROOT / ".venv" / "sdists",
              Path(sys.prefix) / "sdists"]
    for place in places:
        if place and (Path(place) / SDIST).is_file():
            return Path(place) / SDIST
    return None


def member(name):
    """The bytes of one file of llama.cpp's models folder in the pinned sdist (e.g.
    "ggml-vocab-llama-spm.gguf"), or None when the sdist is not downloaded or lacks it (for
    tests and benchmarks: the app reads the sdist through table())."""
    path = sdist_path()
    if path is None:
        return None
    with tarfile.open(path, "r|gz") as tar:  # one streamed pass
        for entry in tar:
            if entry.name == MODELS + name and entry.isfile():
                return tar.extractfile(entry).read()
    return None


def cases(data_inp, data_out):
    """((text, ids), ...) from a .inp/.out pair, as llama.cpp's test-tokenizer-0 reads it.

    >>> cases(b"Hello\\n__ggml_vocab_test__\\n world\\n__ggml_vocab_test__\\n", b"1 2\\n3\\n")
    (('Hello', (1, 2)), (' world', (3,)))
    """
    texts = data_inp.decode("utf-8").split(SEPARATOR)
    if texts and texts[-1] == "":
        texts.pop()
    lines = data_out.decode("utf-8").split("\n")
    if len(lines) < len(texts):
        raise ValueError(f"{len(texts)} test texts but {len(lines)} lines of ids")
    return tuple((text, tuple(int(x) for x in line.split())) for text, line in zip(texts, lines))


_lock = threading.Lock()
_table = {}  # sdist path -> (sha256 -> VocabTests, or the sentence why there is none)


def _read(path):
    """sha256 -> VocabTests of every ggml-vocab-*.gguf in the sdist at path, or the
    sentence saying why not (not the pinned file, or not a readable tar.gz)."""
    with open(path, "rb") as f:
        digest = hashlib.file_digest(f, "sha256").hexdigest()
    if digest != SDIST_SHA256:
        return (f"{path} is not the pinned {SDIST} (its sha256 is {digest[:12]}…), so "
                "llama.cpp's test ids are not used")
    hashes, texts = {}, {}
    try:
        with tarfile.open(path, "r|gz") as tar:  # one streamed pass
            for member in tar:
                name = member.name.removeprefix(MODELS)
                if not (member.name.startswith(MODELS + "ggml-vocab-") and member.isfile()):
                    continue
                data = tar.extractfile(member)
                if name.endswith(".gguf"):
                    hashes[name] = hashlib.file_digest(data, "sha256").hexdigest()
                elif name.endswith((".gguf.inp", ".gguf.out")):
                    texts[name] = data.read()
    except (OSError, tarfile.TarError, EOFError) as e:
        return f"{path} could not be read ({e}), so llama.cpp's test ids are not used"
    table = {}
    for name, sha in hashes.items():
        pair = texts.get(name + ".inp"), texts.get(name + ".out")
        table[sha] = VocabTests(name, cases(*pair) if None not in pair else ())
    return table


def table():
    """sha256 -> VocabTests for llama.cpp's test vocabularies, read once per process;
    None when the sdist is not here or not the pinned one (absent() says why)."""
    path = sdist_path()
    if path is None:
        return None
    with _lock:  # two sessions asking at once read the 76 MB once
        if path not in _table:
            _table[path] = _read(path)
    found = _table[path]
    return found if isinstance(found, dict) else None


def absent():
    """None when llama.cpp's test vocabularies can be used here, else the sentence why not."""
    path = sdist_path()
    if path is None:
        return (f"llama.cpp's test vocabularies ({SDIST}) are not on this server: "
                f"`{GET_IT}` brings them")
    table()
    found = _table[path]
    return None if isinstance(found, dict) else found


def find(digest):
    """The VocabTests whose file has this sha256, or None (not one, or no sdist)."""
    known = table()
    return known.get(digest) if known else None


def check(tok, gguf_info, vocab):
    """Our ids against llama.cpp's on each of vocab's texts, as its test-tokenizer-0
    encodes them: no BOS, control-token text as text, user-defined tokens always cut out
    (gguf_info: the file's bpe.formats.gguf.GGUFTokenizer, for its token types).
    -> (number of texts, None) if every text's ids are llama.cpp's, else (number, where
    the first differs: (index, text, ours, theirs))."""
    types = gguf_info.token_type or []
    user_defined = {gguf_info.tokens[i] for i, kind in enumerate(types) if kind == 4}
    # subtle: a file that adds a BOS (Llama 2's, Llama 3's) adds it in its post-processor;
    # llama.cpp's test ids have none, so the post-processor is left out here
    post = {"add_special_tokens": False} if hasattr(tok, "post") else {}
    for n, (text, want) in enumerate(vocab.cases):
        got = tok.encode(text, allowed_special=user_defined, disallowed_special=(), **post)
        if tuple(got) != want:
            return len(vocab.cases), (n, text, list(got), list(want))
    return len(vocab.cases), None
