"""Counts files: the ordered chunk counts of a text, so counting and merging can run on
different machines at different times.

Format, version 1 (little-endian; all counts are signed 64-bit):

    bpe-counts 1\\n                           the magic line and the version
    {"pattern": ..., "head": H, "chunks": N,  one line of JSON: the split pattern, how
     "tail_bytes": T, "body_bytes": B,        many head chunks and counted chunks, the
     "sha256": "...", "sources": [...]}\\n     tail's size, the body's size and sha256
    body: N int64 counts, H + N int64 byte lengths, then the chunks' UTF-8 bytes
          (the H head chunks, the N counted chunks in order of first occurrence), then
          the tail's T bytes.

It stores a count.py Part: the head chunks and the tail are kept apart because the
text in front of this one may split them differently; that is what lets
`train --from-counts A.counts B.counts` give the merges of training on A's files then
B's. The checksum covers the body, so a damaged or cut file is refused, not trained on.
This file does not count (stream.py) or train.
"""
import hashlib
import json
import os
import sys
from array import array
from collections import Counter
from itertools import accumulate

from .parts import Part

MAGIC = b"bpe-counts 1\n"
HEADER_KEYS = {"pattern": str, "head": int, "chunks": int, "tail_bytes": int,
               "body_bytes": int, "sha256": str}


def write_counts(path, pattern, part, sources=()):
    """Write part (counted with pattern) to path, via a temp file beside it, so a
    failure leaves no partial file. Returns the number of bytes written."""
    head, counts, tail = part
    freqs = array("q", counts.values())
    # the head is encoded as one block: it is short, or a long run's many small chunks
    # (a million digits in threes), where a bytes object per chunk would cost 40 bytes each
    lengths = array("q", (len(c) if c.isascii() else len(c.encode("utf-8")) for c in head))
    encoded = [chunk.encode("utf-8") for chunk in counts]
    lengths.extend(map(len, encoded))
    tail_bytes = tail.encode("utf-8")
    if sys.byteorder != "little":
        freqs.byteswap()
        lengths.byteswap()
    body = [freqs.tobytes(), lengths.tobytes(), "".join(head).encode("utf-8"), *encoded,
            tail_bytes]
    digest = hashlib.sha256()
    for block in body:
        digest.update(block)
    header = {"pattern": pattern, "head": len(head), "chunks": len(counts),
              "tail_bytes": len(tail_bytes), "body_bytes": sum(map(len, body)),
              "sha256": digest.hexdigest(), "sources": [os.fspath(s) for s in sources]}
    return atomic_write(path, [MAGIC, json.dumps(header).encode() + b"\n", *body])


def atomic_write(path, blocks):
    """Write blocks of bytes to path through a temp file in the same folder, renamed
    into place only when complete."""
    path = os.fspath(path)
    tmp = os.path.join(os.path.dirname(path) or ".", f".{os.path.basename(path)}.tmp{os.getpid()}")
    try:
        with open(tmp, "wb") as f:
            size = sum(f.write(block) for block in blocks)
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.remove(tmp)
    return size


def read_pattern(path):
    """The split pattern a counts file was made with (reads only its header)."""
    with open(os.fspath(path), "rb") as f:
        return _read_header(f, os.fspath(path))["pattern"]


def _read_header(f, path):
    magic = f.readline()
    if not magic.startswith(b"bpe-counts "):
        raise ValueError(f"{path} is not a counts file (it does not start with "
                         "'bpe-counts'); make one with python -m bpe count")
    if magic != MAGIC:
        raise ValueError(f"{path} is a counts file of version "
                         f"{magic[11:].strip().decode(errors='replace')!r}; this bpe "
                         f"reads version 1")
    try:
        header = json.loads(f.readline())
        for key, kind in HEADER_KEYS.items():
            if not isinstance(header[key], kind):
                raise TypeError
    except (ValueError, KeyError, TypeError):
        raise ValueError(f"{path} is damaged (its header line is not what version 1 "
                         "writes); count again") from None
    return header


def read_counts(path):
    """(pattern, Part) from a counts file; ValueError saying what is wrong if it is not
    one, is of another version, or is damaged."""
    path = os.fspath(path)
    with open(path, "rb") as f:
        header = _read_header(f, path)
        pattern, n_head, n = header["pattern"], header["head"], header["chunks"]
        tail_bytes, body_bytes = header["tail_bytes"], header["body_bytes"]
        checksum = header["sha256"]
        body = f.read(body_bytes + 1)
    if len(body) != body_bytes or hashlib.sha256(body).hexdigest() != checksum:
        raise ValueError(f"{path} is damaged (its checksum or size does not match: "
                         f"{len(body):,} body bytes, {body_bytes:,} expected); count again")
    freqs, lengths = array("q"), array("q")
    freqs.frombytes(body[:8 * n])
    lengths.frombytes(body[8 * n:8 * (2 * n + n_head)])
    if sys.byteorder != "little":
        freqs.byteswap()
        lengths.byteswap()
    blob = memoryview(body)[8 * (2 * n + n_head):]
    starts = list(accumulate(lengths, initial=0))
    same = {}  # one str per distinct head chunk (a long head repeats a few)
    head = [same.setdefault(c, c) for c in
            (str(blob[a:b], "utf-8") for a, b in zip(starts, starts[1:n_head + 1]))]
    del same
    chunks = (str(blob[a:b], "utf-8") for a, b in zip(starts[n_head:], starts[n_head + 1:]))
    tail = str(blob[starts[-1]:starts[-1] + tail_bytes], "utf-8")
    counts = Counter()
    dict.update(counts, zip(chunks, freqs))  # no second copy of a big dict
    return pattern, Part(head, counts, tail)
