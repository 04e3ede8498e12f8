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

import regex

from ..formats import atomic, reading
from ..patterns import PATTERNS
from .parts import Part, sure_pairs

MAGIC = b"bpe-counts 1\n"
MAX_HEADER_BYTES = 16 << 20  # the header's JSON line: the sources list is the only long part
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
    blocks = [MAGIC, json.dumps(header).encode() + b"\n", *body]
    atomic.write_files({path: blocks})  # the one way to save: whole or not at all
    return sum(map(len, blocks))


def read_pattern(path):
    """The split pattern a counts file was made with (reads only its header)."""
    with reading.open_regular(path, "the counts file") as f:
        return _read_header(f, os.fspath(path))["pattern"]


def _read_header(f, path):
    magic = f.readline(len(MAGIC) + 32)  # bounded: a file of no newline is not read whole
    if not magic.startswith(b"bpe-counts "):
        raise ValueError(f"{path} is not a counts file (it does not start with "
                         "'bpe-counts'); make one with python -m bpe count")
    if magic != MAGIC:
        raise ValueError(f"{path} is a counts file of version "
                         f"{magic[11:].strip().decode(errors='replace')!r}; this bpe "
                         f"reads version 1")
    line = f.readline(MAX_HEADER_BYTES + 1)
    if len(line) > MAX_HEADER_BYTES:
        raise ValueError(f"{path} is damaged (its header line is longer than "
                         f"{MAX_HEADER_BYTES >> 20} MB; version 1 writes a short one); count again")
    try:
        header = json.loads(line)
        for key, kind in HEADER_KEYS.items():
            if not isinstance(header[key], kind):
                raise TypeError
    except (ValueError, KeyError, TypeError):
        raise ValueError(f"{path} is damaged (its header line is not what version 1 "
                         "writes); count again") from None
    return header


def read_counts(path):
    """(pattern, Part) from a counts file; ValueError saying what is wrong if it is not
    one, is of another version, or is damaged. The checksum only proves the file is the
    one written; a file made by hand with a matching checksum is checked too, before
    anything is allocated from its numbers: sizes consistent with the body, every count
    at least 1, every length at least 0, chunks distinct and UTF-8, and (for a preset
    pattern) no chunk holding two characters that the pattern always splits apart."""
    path = os.fspath(path)
    with reading.open_regular(path, "the counts file") as f:
        header = _read_header(f, path)
        pattern, n_head, n = header["pattern"], header["head"], header["chunks"]
        tail_bytes, body_bytes = header["tail_bytes"], header["body_bytes"]
        checksum = header["sha256"]
        _check_sizes(path, n_head, n, tail_bytes, body_bytes, os.fstat(f.fileno()).st_size)
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
    if n and min(freqs) < 1:
        raise _forged(path, "a chunk count below 1")
    if lengths and min(lengths) < 0:
        raise _forged(path, "a negative chunk length")
    blob = memoryview(body)[8 * (2 * n + n_head):]
    if sum(lengths) + tail_bytes != len(blob):
        raise _forged(path, "chunk lengths that do not add up to the body")
    starts = list(accumulate(lengths, initial=0))
    try:
        same = {}  # one str per distinct head chunk (a long head repeats a few)
        head = [same.setdefault(c, c) for c in
                (str(blob[a:b], "utf-8") for a, b in zip(starts, starts[1:n_head + 1]))]
        del same
        chunks = (str(blob[a:b], "utf-8") for a, b in zip(starts[n_head:], starts[n_head + 1:]))
        tail = str(blob[starts[-1]:starts[-1] + tail_bytes], "utf-8")
        counts = Counter()
        dict.update(counts, zip(chunks, freqs))  # no second copy of a big dict
    except UnicodeDecodeError as e:
        raise _forged(path, f"a chunk that is not UTF-8 ({e.reason})") from None
    if len(counts) != n:
        raise _forged(path, f"{n - len(counts):,} repeated chunks")
    _check_chunks(path, pattern, counts)
    return pattern, Part(head, counts, tail)


def _check_sizes(path, n_head, n, tail_bytes, body_bytes, file_size):
    """ValueError unless the header's numbers fit the file: checked before any of them
    sizes an allocation (a header claiming 3e9 chunks must not be believed)."""
    if min(n_head, n, tail_bytes, body_bytes) < 0:
        raise _forged(path, "a negative size in its header")
    if body_bytes > file_size or 8 * (2 * n + n_head) + tail_bytes > body_bytes:
        raise _forged(path, f"a header claiming more than its {file_size:,} bytes hold")


def _check_chunks(path, pattern, counts):
    """For a preset pattern: ValueError if a counted chunk holds a sure pair (two
    characters every split of every text cuts apart; bpe.counting.parts), i.e. a chunk
    the pattern could never have made."""
    if pattern not in PATTERNS.values():
        return
    sure = sure_pairs(regex.compile(pattern).findall)
    if sure is None:
        return
    search = sure.search
    for chunk in counts:
        if len(chunk) > 1 and search(chunk):
            raise _forged(path, f"a chunk its pattern would have split ({chunk[:40]!r})")


def _forged(path, what):
    return ValueError(f"{path} is not what bpe count writes: it holds {what}, though its "
                      "checksum matches; count the text again with python -m bpe count")
