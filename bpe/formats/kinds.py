"""What kind of tokenizer file some bytes are, known by their content, not their name
(`detect`, `kind_of`), and the bounded reads every opening shares (`read_file`, `bounded`,
`gunzip`, `as_text`).

The kinds (KINDS):
- minbpe `.model`: text whose first line is "minbpe v1" (bpe.formats.model);
- tiktoken ranks: "base64 rank" lines, plain or gzip, under any name, Llama 3's and 4's
  `tokenizer.model` included (bpe.formats.ranks);
- SentencePiece `.model` (protobuf: Llama 2, Mistral, Gemma, T5; bpe.formats.sentencepiece);
- Hugging Face tokenizer.json (bpe.formats.hf.tokenizer_json);
- GPT-2's pair, `encoder.json` + `vocab.bpe` or `vocab.json` + `merges.txt`
  (bpe.formats.gpt2), each half a kind of its own;
- GGUF, llama.cpp's model file (magic "GGUF"; bpe.formats.gguf);
- the lab's method file (bpe.formats.method_file).
Anything else is a ValueError saying what it looked like and what is accepted; a binary
file is named by what its first bytes say it is (gzip, zip, protobuf, safetensors...). When the
content fits no kind, the name's ending (.model, .tiktoken, .json) picks the parser whose
message names the bad line. Sizes are bounded before parsing (MAX_FILE_BYTES, gzip too).
This file returns kinds and bytes, never a tokenizer: bpe.loading builds one from a file.

>>> kind_of(b"minbpe v1\\n\\n0\\n", "mine.model"), extension_kind("x.tiktoken.gz")
('minbpe', 'ranks')
"""
import os
import re
import zlib

from .. import budgets
from . import gguf, gpt2, reading
from .method_file import looks_like_method_file
from .model import MODEL_VERSION
from .sentencepiece import looks_like_sentencepiece, model_info

# what opens, by kind (detect's answers), as the messages name them
KINDS = {
    "minbpe": "minbpe .model (text starting 'minbpe v1')",
    "ranks": "tiktoken ranks ('<base64 token> <rank>' lines, plain or gzip, e.g. .tiktoken "
             "or Llama 3's tokenizer.model)",
    "sentencepiece": "SentencePiece .model (protobuf: Llama 2, Mistral, Gemma, T5)",
    "tokenizer.json": "Hugging Face tokenizer.json",
    "gpt2-vocab": "GPT-2's encoder.json / vocab.json (with its vocab.bpe / merges.txt)",
    "gpt2-merges": "GPT-2's vocab.bpe / merges.txt (with its encoder.json / vocab.json)",
    "gguf": "GGUF (llama.cpp's model file: its tokenizer's gpt2, llama, bert, gemma4 and t5 "
            "families)",
    "method": "the lab's method file (SuperBPE, BoundlessBPE or Picky BPE, written by "
              "python -m bpe train --method)",
}
ACCEPTED = "; ".join(KINDS.values())
EXTENSION_KINDS = {".model": "minbpe", ".tiktoken": "ranks", ".json": "tokenizer.json"}
MAX_FILE_BYTES = 2 * budgets.MAX_VOCAB_BYTES  # 128 MB; the largest tokenizer.json are ~35 MB,
# and a visitor's bomb may cost twice this while it is unpacked (issue 24: <= 512 MB)
_RANKS_LINE = re.compile(rb"[A-Za-z0-9+/]*={0,2} [0-9]+\r?")
_HF_MODEL = re.compile(rb'"model"\s*:\s*\{')  # a vocab.json maps "model" to an int, never {


def detect(data, source="file", fallback=None):
    """The kind of a file's bytes: a key of KINDS, or "gzip" (look inside after
    gunzipping). fallback: the kind the file's name suggests, used (so its parser can
    name the bad line) when the content fits none; without one, a ValueError saying what
    it looked like and what is accepted."""
    head = data[:4096]
    if head[:2] == b"\x1f\x8b":
        return "gzip"
    if gguf.is_gguf(head):
        return "gguf"
    broken = None  # why a file that starts as a SentencePiece model is not one
    if head[:1] == b"\x0a" and looks_like_sentencepiece(data):
        try:
            model_info(data)
            return "sentencepiece"
        except ValueError as e:
            broken = e  # or text that starts with blank lines: read on
    text = head.removeprefix(b"\xef\xbb\xbf")
    stripped = text.lstrip()
    if stripped.startswith(MODEL_VERSION.encode()):
        return "minbpe"
    if looks_like_method_file(stripped):
        return "method"
    if stripped.startswith(b"{"):
        if _HF_MODEL.search(data):
            return "tokenizer.json"
        if gpt2.is_vocab_file(data, source):
            return "gpt2-vocab"
        return fallback or _unknown(source, "a JSON file, but neither a tokenizer.json (no "
                                    "\"model\" object) nor GPT-2's encoder.json (token -> id)")
    lines = text.split(b"\n")
    if len(data) > len(head) and len(lines) > 1:
        lines.pop()  # cut short by the 4 KB head (a head with no newline is all there is)
    lines = [line for line in lines if line.strip()][:20]
    if lines and all(_RANKS_LINE.fullmatch(line) for line in lines):
        return "ranks"
    try:
        decoded = b"\n".join(lines).decode("utf-8")
    except UnicodeDecodeError:
        if broken is not None:
            raise ValueError(f"{source} starts as a SentencePiece model but is not a readable "
                             f"one ({broken}); is the file complete?") from None
        return fallback or _unknown(source, binary_kind(head))
    if lines and gpt2.looks_like_merges(decoded):
        # without GPT-2's "#version" line, two words a line is a weak sign: a name's
        # ending (.tiktoken, .model) says more, and its parser names the bad line
        return fallback if fallback and not lines[0].startswith(b"#version") else "gpt2-merges"
    first = lines[0][:40].decode("utf-8", "replace") if lines else ""
    return fallback or _unknown(source, f"text starting {first!r}" if lines else "empty")


# what a binary file is, by its first bytes (for the message refusing it)
_MAGICS = [(b"PK\x03\x04", "a zip archive (a PyTorch checkpoint is one too)"),
           (b"\x93NUMPY", "a NumPy array"), (b"BZh", "bzip2-compressed data"),
           (b"\xfd7zXZ\x00", "xz-compressed data"), (b"\x28\xb5\x2f\xfd", "zstd-compressed data"),
           (b"\x89HDF", "an HDF5 file"), (b"\x7fELF", "an executable (ELF)"),
           (b"%PDF", "a PDF document"), (b"\x89PNG", "a PNG image"), (b"\xff\xd8\xff", "a JPEG image")]


def binary_kind(head):
    """What binary data is, by its first bytes: 'a zip archive...', 'protobuf data...', or
    'binary data' when they name nothing known.

    >>> binary_kind(b"PK\x03\x04rest"), binary_kind(bytes(8))
    ('a zip archive (a PyTorch checkpoint is one too)', 'binary data (zero bytes)')
    """
    for magic, kind in _MAGICS:
        if head.startswith(magic):
            return kind
    if head[:1] == b"\x80" and head[1:2] in (b"\x02", b"\x03", b"\x04", b"\x05"):
        return "a Python pickle (a PyTorch or scikit-learn file?)"
    if len(head) > 9 and head[8:10] == b'{"':
        return "a safetensors file (model weights, no tokenizer)"
    if head[:1] == b"\x0a":
        return ("protobuf data, but not a SentencePiece model (its pieces do not read as "
                "one)")
    if head and not head.strip(b"\x00"):
        return "binary data (zero bytes)"
    return "binary data, not text nor a SentencePiece model"


def kind_of(data, filename):
    """detect(data), the file's name's ending deciding only when the content fits no kind."""
    return detect(data, filename, fallback=extension_kind(filename))


def _unknown(source, looked_like):
    raise ValueError(f"{source} is not a tokenizer file this lab can open: it looks like "
                     f"{looked_like}. Accepted: {ACCEPTED}")


# ------------------------------------------------------------------ bytes
def read_file(path):
    """The file's bytes: a regular file of at most MAX_FILE_BYTES (a FIFO, a device or a
    socket is refused at once, never read)."""
    size = os.path.getsize(path)  # a stat: never blocks, even on a FIFO
    if size > MAX_FILE_BYTES:
        raise ValueError(f"{path} is {size_text(size)}; tokenizer files this lab opens are at "
                         f"most {size_text(MAX_FILE_BYTES)}")
    return reading.read_regular(path, MAX_FILE_BYTES, "the tokenizer file")


def bounded(data, source):
    if not isinstance(data, (bytes, bytearray, memoryview)):
        raise TypeError(f"data must be the file's bytes, not {type(data).__name__}")
    if len(data) > MAX_FILE_BYTES:
        raise ValueError(f"{source} is {size_text(len(data))}; tokenizer files this lab opens "
                         f"are at most {size_text(MAX_FILE_BYTES)}")
    return bytes(data)


def gunzip(data, source):
    """The gzip's content, refused once it passes MAX_FILE_BYTES (a small bomb stays small)."""
    unzip = zlib.decompressobj(wbits=16 + zlib.MAX_WBITS)
    try:
        out = unzip.decompress(data, MAX_FILE_BYTES + 1)
    except zlib.error as e:
        raise ValueError(f"{source} is not a valid gzip file ({e})") from None
    if len(out) > MAX_FILE_BYTES or unzip.unconsumed_tail:
        raise ValueError(f"{source} unpacks to more than {size_text(MAX_FILE_BYTES)}; tokenizer "
                         "files this lab opens are smaller")
    if not unzip.eof:
        raise ValueError(f"{source} is not a valid gzip file (it ends early)")
    return out


def size_text(n):
    """'256 MB', '1,000 bytes'."""
    return f"{n >> 20:,} MB" if n >= 1 << 20 else f"{n:,} bytes"


def as_text(data, source, kind):
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise ValueError(f"{source} is not UTF-8 text, so not a {kind} file (nor a "
                         "SentencePiece model, which starts otherwise)") from None


def extension_kind(filename):
    """The kind a file's name suggests ('x.tiktoken.gz' -> ranks), or None."""
    name = filename.lower().removesuffix(".gz")
    return EXTENSION_KINDS.get(os.path.splitext(name)[1])
