"""The tasks of encoding a corpus (bpe.encoding.corpus): how files are cut into
byte ranges that encode apart, and the ids of one range, here or in a worker.

A range's text is cut only at a boundary every split of every text has, so the ranges'
ids add up to the whole file's:
- preset patterns (gpt2, gpt4, gpt4o: tok.is_preset): at "sure boundaries", between two
  characters no chunk can hold side by side (bpe.counting.parts.sure_pairs, the rule the
  counting joins use). A range runs from the first sure boundary after its start to the
  first one after its end, so neighbours meet exactly; inside a range the text is split a
  piece at a time, each piece up to its last sure boundary.
- Llama 3 and 4 (bpe.reference.LlamaTokenizer): their owner encodes 400,000-character
  slices apart, so ranges begin at slice starts, found by counting characters.
- anything else (Basic, a custom pattern, SentencePiece): a file is one task, read whole.
Splitting a text that stops right at a sure boundary could still cut its last chunk
differently (GPT-2's `\\s++$`), so the character after the boundary is split with it and
its chunk dropped. This file neither splits nor merges (the tokenizer does).
"""
import array
import os
from itertools import pairwise

from ..corpus import NotUTF8Error, char_start, file_ranges, read_pieces
from ..counting.parts import sure_pairs

ENCODE_RANGE_BYTES = 8 << 20   # bytes of a file one task encodes: its ids are held at once
PIECE_BYTES = 1 << 20          # bytes read and split at a time inside a task
SEEK_BYTES = 1 << 12           # bytes read at a time looking for a range's first boundary
TAIL_CHARS = 1 << 12           # a piece's last sure boundary is looked for in this tail first
LLAMA_SLICE_CHARS = 400_000    # bpe.reference.LLAMA_SLICE_CHARS (not imported: no circle)
_CONTINUATION = bytes(range(0x80, 0xC0))
_NOT_CONTINUATION = bytes(range(0x80)) + bytes(range(0xC0, 0x100))
_tok = None  # the tokenizer, in a worker process (set once by init_worker)


def mode_of(tok):
    """How files are cut: 'slices' (Llama), 'sure' (a preset pattern) or 'whole'."""
    if type(tok).__name__ == "LlamaTokenizer":
        return "slices"
    return "sure" if getattr(tok, "is_preset", False) and sure_pairs(tok.split) else "whole"


def plan(tok, paths, range_bytes=None):
    """The tasks [(path, lo, hi)] that tile the files, in order, for tok's mode."""
    range_bytes = range_bytes or ENCODE_RANGE_BYTES
    mode = mode_of(tok)
    if mode == "sure":
        return file_ranges(paths, range_bytes)
    if mode == "whole":
        return file_ranges(paths, 1 << 62)
    ranges = []
    for path in paths:
        starts = _slice_starts(path)
        size = os.path.getsize(path)
        cuts = [starts[0]]
        for start in starts[1:]:
            if start - cuts[-1] >= range_bytes:
                cuts.append(start)
        cuts.append(size)
        ranges += [(path, lo, hi) for lo, hi in pairwise(cuts)] or [(path, 0, 0)]
    return ranges


def _slice_starts(path, slice_chars=LLAMA_SLICE_CHARS):
    """Byte offsets where path's LLAMA_SLICE_CHARS-character slices begin (0 first)."""
    starts, chars, pos = [0], 0, 0
    with open(path, "rb") as f:
        while True:
            block = f.read(PIECE_BYTES)
            if not block:
                return starts
            n = len(block.translate(None, _CONTINUATION))  # characters begun in block
            while chars + n > len(starts) * slice_chars:
                # the byte that begins the want-th character of this block (from 0):
                # the least i with want + 1 characters begun in block[:i + 1]
                want = len(starts) * slice_chars - chars
                lo, hi = want, len(block) - 1
                while lo < hi:
                    mid = (lo + hi) // 2
                    begun = mid + 1 - len(block[:mid + 1].translate(None, _NOT_CONTINUATION))
                    lo, hi = (mid + 1, hi) if begun < want + 1 else (lo, mid)
                i = lo
                starts.append(pos + i)
            chars += n
            pos += len(block)


# ------------------------------------------------------------------ one task
def iter_ids(tok, path, lo, hi):
    """Yield lists of ids of the task (path, lo, hi) in order, a piece at a time."""
    mode = mode_of(tok)
    if mode == "whole":
        text = "".join(text for _, text in read_pieces(path))
        yield tok.encode_ordinary(text)
        return
    if mode == "slices":
        held = ""
        for _, text in read_pieces(path, lo, hi, PIECE_BYTES):
            held += text
            while len(held) >= LLAMA_SLICE_CHARS:
                yield tok.encode_ordinary(held[:LLAMA_SLICE_CHARS])
                held = held[LLAMA_SLICE_CHARS:]
        if held:
            yield tok.encode_ordinary(held)
        return
    yield from _sure_ids(tok, path, lo, hi, sure_pairs(tok.split))


def _sure_ids(tok, path, lo, hi, sure):
    size = os.path.getsize(path)
    start = 0 if lo <= 0 else boundary_after(path, lo, sure)
    end = size if hi >= size else boundary_after(path, hi, sure)
    if start >= end:
        return
    held, searched = "", 0  # held[:searched] holds no sure pair (a long run of digits)
    for _, text in read_pieces(path, start, end, PIECE_BYTES):
        text = held + text
        m = sure.search(text, max(len(text) - TAIL_CHARS, searched)) or \
            sure.search(text, searched)
        if m is None:
            held, searched = text, max(len(text) - 1, 0)  # read on, searching only what is new
            continue
        last = m  # the last sure boundary of the text: where it is cut
        for last in sure.finditer(text, m.start()):
            pass
        cut = last.start() + 1
        yield _encode_to(tok, text[:cut], text[cut])
        held, searched = text[cut:], 0
    if held:
        yield _encode_to(tok, held, _char_at(path, end) if end < size else "")


def _encode_to(tok, text, after):
    """The ids of text, which ends at a sure boundary before after (one character, or ""
    at the end of the file): split with after, whose chunk is dropped."""
    chunks = tok.split(text + after)
    if after:
        if chunks[-1] != after:
            raise AssertionError("bpe.encoding.corpus: cut at a position that is no "
                                 "chunk boundary")
        chunks.pop()
    return tok.encode_chunks(chunks)


def boundary_after(path, pos, sure):
    """The byte offset of the first sure boundary after the character at pos (both
    characters of the pair at or after it), or the file's size if there is none."""
    size = os.path.getsize(path)
    with open(path, "rb") as f:
        start = char_start(f, pos, size)
    text = ""
    for _, piece in read_pieces(path, start, None, SEEK_BYTES):
        searched = max(len(text) - 1, 0)  # a pair may straddle the two pieces
        text += piece
        m = sure.search(text, searched)
        if m is not None:
            return start + len(text[:m.start() + 1].encode("utf-8"))
    return size


def _char_at(path, pos):
    """The character that begins at byte pos."""
    with open(path, "rb") as f:
        f.seek(pos)
        data = f.read(4)
    for n in (1, 2, 3, 4):
        try:
            return data[:n].decode("utf-8")
        except UnicodeDecodeError:
            continue
    raise NotUTF8Error(path, pos, data[0])


def encode_task(tok, path, lo, hi, typecode="I"):
    """The ids of one task as an array: what a worker process or machine returns."""
    ids = array.array(typecode)
    for chunk_ids in iter_ids(tok if tok is not None else _tok, path, lo, hi):
        ids.extend(chunk_ids)
    return ids


def init_worker(tok):
    global _tok
    _tok = tok


def worker_task(task):
    return encode_task(None, *task)


def encode_texts(texts):
    """In a worker: tok.encode_ordinary on each text."""
    return [_tok.encode_ordinary(text) for text in texts]
