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
be exported and tests can make real files); bpe.formats.kinds knows a file is one;
bpe.loading builds its tokenizer.

>>> BYTE_TO_CHAR[ord(" ")], BYTE_TO_CHAR[ord("\\n")], BYTE_TO_CHAR[ord("a")]
('Ġ', 'Ċ', 'a')
"""
import json
import re
from array import array
from itertools import accumulate, islice

from .. import budgets
from .hf import document_parse
from .hf.bytelevel import bytes_to_unicode
from .hf.piece_ids import PieceIds

MERGES_HEADER = "#version: 0.2"  # the first line of GPT-2's vocab.bpe
VOCAB_NAMES = ("encoder.json", "vocab.json")
MERGES_NAMES = ("vocab.bpe", "merges.txt")


BYTE_TO_CHAR = bytes_to_unicode()
CHAR_TO_BYTE = {ch: b for b, ch in BYTE_TO_CHAR.items()}
_ALPHABET = frozenset(CHAR_TO_BYTE)
_OBJECT_START = re.compile(rb'[ \t\r\n]*\{')
_SPACE_TO_END = re.compile(rb'[ \t\r\n]*')
BLOCK_BYTES = 1 << 16  # bytes of vocab.bpe decoded and split at a time


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
    """encoder.json / vocab.json bytes -> a PieceIds of GPT-2's token strings -> ids, in the
    file's order (what json.loads' dict says; every string in GPT-2's byte alphabet, every id
    in range and given once). Read a slice of entries at a time when the file has the usual
    shape (issue 32: json's whole dict and a bytes object per token cost ~14 times the file
    at the load's peak); anything else, a damaged file included, is read whole by json, so
    the refusals and their messages are json's and this module's, the same either way."""
    vocab = _streamed_vocab(data, source)
    return vocab if vocab is not None else _whole_vocab(data, source)


def _whole_vocab(data, source):
    """parse_vocab by json.loads of the whole file: every file that _streamed_vocab passes on."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise ValueError(f"{source} is not UTF-8 text, so not GPT-2's encoder.json") from None
    # before json builds a dict: entries are separated by commas, so there are at most
    # this many (a comma inside a token only makes the count larger)
    budgets.check_entries(text.count(",") + 1, source, what="vocab entries")
    parsed = budgets.parse_json(text, source)
    del text
    if not is_vocab_json(parsed):
        raise ValueError(f"{source}: expected a JSON object of token -> id, as GPT-2's "
                         "encoder.json (or vocab.json) holds")
    seen = set()
    for text_token, idx in parsed.items():
        budgets.check_id(idx, f"{source} {text_token[:40]!r}")
        if idx in seen:
            raise ValueError(f"{source}: id {idx} is given twice; each token its own id")
        seen.add(idx)
        token_bytes(text_token, source)
    return PieceIds(list(parsed), parsed.values())


def _streamed_vocab(data, source):
    """parse_vocab a slice at a time (bpe.formats.hf.document_parse's reader of a {piece: id}
    object), or None when the file is not one plain object of distinct GPT-2 strings with
    distinct ids in range: then _whole_vocab reads it and says what is wrong."""
    reader = _entry_slices(data, source)
    if reader is None:
        return None
    texts, ends, ids = [], array("I", [0]), array("i")
    try:
        for entries in reader.slices():
            keys = [key for key, _ in entries]
            values = [idx for _, idx in entries]
            if not all(type(idx) is int and 0 <= idx <= budgets.MAX_ID for idx in values):
                return None
            ids.extend(values)
            ends.extend(accumulate(map(len, keys), initial=ends[-1]))
            ends.pop(len(ends) - len(keys) - 1)  # accumulate repeats its initial value
            texts.append("".join(keys))
    except ValueError:  # not UTF-8, or a slice json refuses: _whole_vocab's message
        return None
    text = "".join(texts)
    del texts
    if not _ALPHABET.issuperset(text):
        return None
    vocab = PieceIds.from_packed(text, ends, ids)
    by_id = vocab.by_id  # id -> its slot, the last one given (a dict when ids are sparse)
    distinct = len(by_id) if isinstance(by_id, dict) else len(by_id) - by_id.count(-1)
    # a string given twice (json keeps its last id), or an id given twice: whole
    return vocab if vocab.order is None and distinct == len(ids) else None


def is_vocab_file(data, source="vocab.json"):
    """is_vocab_json of the file's bytes parsed as JSON (False when they are not UTF-8 JSON),
    read a slice at a time when the file has the usual shape (issue 32: json's whole dict of
    100,000 entries is ~6.5 times the pair's two files), else parsed whole."""
    reader = _entry_slices(data, source)
    if reader is not None:
        try:
            if all(type(idx) is int for entries in reader.slices() for _, idx in entries):
                return True
        except ValueError:
            pass  # json refuses a slice: the whole parse says so too
    try:
        return is_vocab_json(budgets.parse_json(data.decode("utf-8"), source))
    except (UnicodeDecodeError, ValueError):
        return False


def _entry_slices(data, source):
    """A document_parse.VocabText over the entries of data when it is one non-empty JSON
    object of "string": number entries and nothing else (iterating its slices yields (str,
    number) lists, a repeated string as often as written), else None."""
    if data.count(b",") + 1 > budgets.MAX_ENTRIES:
        return None
    opened = _OBJECT_START.match(data)
    found = opened and document_parse.entry_spans(data, opened.end(), "ids")
    if not found or not found[0] or not _SPACE_TO_END.fullmatch(data, found[1]):
        return None
    return document_parse.VocabText(data, found[0], source, "strict", is_list=False)


def looks_like_merges(text):
    """True if text starts as a merges file: "#version" first, or two fields a line."""
    lines = [line for line in text.split("\n", 20)[:20] if line.strip()]
    if not lines:
        return False
    if lines[0].startswith("#version"):
        return True
    return all(len(line.rstrip("\r").split(" ")) == 2 for line in lines[:-1] or lines)


def parse_merges(data, source="merges.txt"):
    """vocab.bpe / merges.txt bytes -> MergesFile, once the file is UTF-8 and within
    budgets.MAX_ENTRIES lines (checked before a line is split)."""
    # subtle: the whole file decoded once and dropped, so a file that is not UTF-8 says so
    # before any line's error, as when it was parsed whole (a transient str, 1-2 B a byte)
    _decoded(data, source)
    # before the lines are split: one merge a line at most
    budgets.check_entries(data.count(b"\n") + 1, source, what="lines of merges")
    return MergesFile(data, source)


class MergesFile:
    """A merges file's lines, read a block at a time whenever they are asked for (issue 32:
    no str or tuple per merge kept). Lines starting with "#version" and empty lines are
    skipped (as `tokenizers` and GPT-2's encoder.py do); anything but two space-separated
    tokens of GPT-2's byte alphabet is a ValueError naming the line."""

    __slots__ = ("data", "source")

    def __init__(self, data, source):
        self.data, self.source = data, source

    def slots(self, vocab):
        """(left, right, made): each merge's parts' and result's slots in vocab (a PieceIds
        from parse_vocab), -1 where a string is not in it, as three array("i") in file
        order."""
        slot_of = vocab.finder()
        left, right, made = array("i"), array("i"), array("i")
        for lineno, parts in self._lines():
            s0, s1 = slot_of(parts[0]), slot_of(parts[1])
            if s0 < 0 or s1 < 0:  # not in the vocab: maybe not even GPT-2's alphabet
                where = f"{self.source} line {lineno}"
                token_bytes(parts[0], where)
                token_bytes(parts[1], where)
            left.append(s0)
            right.append(s1)
            made.append(slot_of(parts[0] + parts[1]))
        return left, right, made

    def __iter__(self):
        """(bytes, bytes) of each merge in order, one at a time."""
        for lineno, parts in self._lines():
            where = f"{self.source} line {lineno}"
            yield token_bytes(parts[0], where), token_bytes(parts[1], where)

    def merge_at(self, k):
        """Merge k's (bytes, bytes), read again (for a message that names a merge)."""
        return next(islice(self, k, None))

    def _lines(self):
        """(line number, [left, right]) of each merge line, a block of lines at a time."""
        lineno = 0
        for block in _blocks(self.data):
            for line in _decoded(block, self.source).split("\n"):
                lineno += 1
                line = line.rstrip("\r")
                if not line or line.startswith("#version"):
                    continue
                parts = line.split(" ")
                if len(parts) != 2 or not all(parts):
                    raise ValueError(f"{self.source} line {lineno}: expected a merge 'left "
                                     f"right', found {line[:40]!r}")
                yield lineno, parts


def _blocks(data):
    """data cut into blocks of about BLOCK_BYTES, each ending just before a newline (the
    last at the end), so each block is whole lines and decodes as UTF-8 when data does."""
    start = 0
    while True:
        cut = data.find(b"\n", start + BLOCK_BYTES)
        if cut < 0:
            yield data[start:]
            return
        yield data[start:cut]
        start = cut + 1


def _decoded(data, source):
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise ValueError(f"{source} is not UTF-8 text, so not GPT-2's vocab.bpe") from None


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
