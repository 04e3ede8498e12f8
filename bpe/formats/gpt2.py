"""GPT-2's release pair: the one home of that format.

OpenAI released GPT-2's tokenizer as two files, `encoder.json` (token -> id) and
`vocab.bpe` (the merges, one "left right" pair per line under a "#version" line); Hugging
Face names the same two `vocab.json` and `merges.txt`. Tokens are written in GPT-2's
byte-to-character table (`bytes_to_unicode`): each byte a printable character, so a space
is "Ġ" and a newline "Ċ". The merges are applied by their order in the file, which is
bpe.vocab_merges' rule; the ids are encoder.json's. A vocab entry no merge can make (like
"<|endoftext|>") is a special token.

Parsing is bounded by what it builds: the entries of either file are counted (bytes counted
by C, before a single token is made) against bpe.budgets.MAX_ENTRIES.

This module parses and writes the pair (`gpt2_pair_text` is the writer, so a tokenizer can
be exported and tests can make real files); bpe.formats.kinds knows a file is one; bpe.loading builds its tokenizer.

>>> BYTE_TO_CHAR[ord(" ")], BYTE_TO_CHAR[ord("\\n")], BYTE_TO_CHAR[ord("a")]
('Ġ', 'Ċ', 'a')
"""
import json

from .. import budgets
from .hf.bytelevel import bytes_to_unicode

MERGES_HEADER = "#version: 0.2"  # the first line of GPT-2's vocab.bpe
VOCAB_NAMES = ("encoder.json", "vocab.json")
MERGES_NAMES = ("vocab.bpe", "merges.txt")


BYTE_TO_CHAR = bytes_to_unicode()
CHAR_TO_BYTE = {ch: b for b, ch in BYTE_TO_CHAR.items()}


def token_bytes(text, where):
    """A token as GPT-2's files write it -> its bytes; ValueError if a character is not in
    GPT-2's table (then the file is not a byte-level pair)."""
    try:
        return bytes(CHAR_TO_BYTE[ch] for ch in text)
    except KeyError as e:
        raise ValueError(f"{where}: {text[:40]!r} holds {e.args[0]!r}, which is not one of "
                         "GPT-2's 256 byte characters; this is not a byte-level BPE "
                         "vocab.json/encoder.json") from None


def token_text(token):
    """A token's bytes as GPT-2's files write it."""
    return "".join(BYTE_TO_CHAR[b] for b in token)


def is_vocab_json(parsed):
    """True for a parsed JSON object that maps token strings to int ids (a tokenizer.json
    maps "model" to an object, so it never is one)."""
    return (isinstance(parsed, dict) and bool(parsed)
            and all(isinstance(v, int) and not isinstance(v, bool) for v in parsed.values()))


def parse_vocab(data, source="vocab.json"):
    """encoder.json / vocab.json bytes -> vocab id -> bytes."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise ValueError(f"{source} is not UTF-8 text, so not GPT-2's encoder.json") from None
    # before json builds a dict: entries are separated by commas, so there are at most
    # this many (a comma inside a token only makes the count larger)
    budgets.check_entries(text.count(",") + 1, source, what="vocab entries")
    parsed = budgets.parse_json(text, source)
    if not is_vocab_json(parsed):
        raise ValueError(f"{source}: expected a JSON object of token -> id, as GPT-2's "
                         "encoder.json (or vocab.json) holds")
    vocab = {}
    for text_token, idx in parsed.items():
        budgets.check_id(idx, f"{source} {text_token[:40]!r}")
        if idx in vocab:
            raise ValueError(f"{source}: id {idx} is given twice; each token its own id")
        vocab[idx] = token_bytes(text_token, source)
    return vocab


def looks_like_merges(text):
    """True if text starts as a merges file: "#version" first, or two fields a line."""
    lines = [line for line in text.split("\n", 20)[:20] if line.strip()]
    if not lines:
        return False
    if lines[0].startswith("#version"):
        return True
    return all(len(line.rstrip("\r").split(" ")) == 2 for line in lines[:-1] or lines)


def parse_merges(data, source="merges.txt"):
    """vocab.bpe / merges.txt bytes -> [(bytes, bytes)] in file order. Lines starting with
    "#version" and empty lines are skipped (as `tokenizers` and GPT-2's encoder.py do);
    anything but two space-separated tokens is a ValueError naming the line."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise ValueError(f"{source} is not UTF-8 text, so not GPT-2's vocab.bpe") from None
    # before the lines are split: one merge a line at most
    budgets.check_entries(text.count("\n") + 1, source, what="lines of merges")
    merges = []
    for lineno, line in enumerate(text.split("\n"), 1):
        line = line.rstrip("\r")
        if not line or line.startswith("#version"):
            continue
        parts = line.split(" ")
        if len(parts) != 2 or not all(parts):
            raise ValueError(f"{source} line {lineno}: expected a merge 'left right', found "
                             f"{line[:40]!r}")
        where = f"{source} line {lineno}"
        merges.append((token_bytes(parts[0], where), token_bytes(parts[1], where)))
    return merges


def gpt2_pair_text(vocab, merges):
    """(encoder.json text, vocab.bpe text) for vocab (id -> bytes) and merges ([(bytes,
    bytes)] in order): GPT-2's layout, which load_gpt2_pair and `tokenizers` read.

    >>> vocab = {i: bytes([i]) for i in range(256)} | {256: b" t"}
    >>> gpt2_pair_text(vocab, [(b" ", b"t")])[1]
    '#version: 0.2\\nĠ t\\n'
    """
    encoder = {token_text(token): idx for idx, token in sorted(vocab.items())}
    lines = [MERGES_HEADER] + [f"{token_text(a)} {token_text(b)}" for a, b in merges]
    return json.dumps(encoder, ensure_ascii=False), "\n".join(lines) + "\n"
