"""Reading a corpus from files, shared by counting (bpe.counting) and encoding
(bpe.encoding): byte ranges that tile files on character starts, UTF-8 pieces read a
megabyte at a time, and the clock that reports bytes done. It neither counts nor
encodes.
"""
import codecs
import os
import time
from typing import NamedTuple

from .formats import reading

READ_BYTES = 1 << 20         # bytes read from a file at a time
RANGE_BYTES = 64 << 20       # bytes of a file one worker counts as one task

class NotUTF8Error(ValueError):
    """A file holds bytes that are not UTF-8; says which and where."""

    def __init__(self, path, offset, byte):
        super().__init__(f"{path} is not UTF-8 text (byte 0x{byte:02x} at offset {offset}); "
                         "convert it first, e.g. iconv -f latin1 -t utf-8")
        self.path, self.offset, self.byte = path, offset, byte

    def __reduce__(self):  # so it survives the trip back from a worker process
        return type(self), (self.path, self.offset, self.byte)


class CountProgress(NamedTuple):
    """What the counting progress callback receives, now and then."""
    done: int          # bytes counted so far
    total: int         # bytes to count (0 if unknown, e.g. an iterator)
    elapsed: float     # seconds since counting began

    @property
    def bytes_per_s(self) -> float:
        return self.done / self.elapsed if self.elapsed > 0 else 0.0

    @property
    def eta(self) -> float:
        """Seconds left at the rate so far (0 when unknown)."""
        rate = self.bytes_per_s
        return (self.total - self.done) / rate if rate and self.total else 0.0



def read_pieces(path, start=0, end=None, read_bytes=None):
    """Yield (bytes_read, text) for path's bytes from start to end, decoded as UTF-8 a
    piece at a time. start and end are moved forward past UTF-8 continuation bytes, so
    ranges that tile a file tile its characters. NotUTF8Error names the byte offset."""
    read_bytes = read_bytes or READ_BYTES
    with reading.open_regular(path, "the text file") as f:  # a FIFO or device: refused
        size = os.fstat(f.fileno()).st_size
        end = size if end is None else min(end, size)
        start, end = char_start(f, start, size), char_start(f, end, size)
        f.seek(start)
        decoder = codecs.getincrementaldecoder("utf-8")("strict")
        pos = start
        while pos < end or pos == start:
            data = f.read(min(read_bytes, end - pos))
            final = pos + len(data) >= end
            held = len(decoder.getstate()[0])
            try:
                text = decoder.decode(data, final=final)
            except UnicodeDecodeError as e:
                raise NotUTF8Error(path, pos - held + e.start, e.object[e.start]) from None
            pos += len(data)
            yield len(data), text
            if final:
                return


def char_start(f, pos, size):
    """pos, moved past at most 3 UTF-8 continuation bytes (10xxxxxx)."""
    if pos <= 0 or pos >= size:
        return max(0, min(pos, size))
    f.seek(pos)
    for i, byte in enumerate(f.read(3)):
        if byte & 0xC0 != 0x80:
            return pos + i
    return pos + 3  # invalid UTF-8 here; decoding will say where


def file_ranges(paths, range_bytes=RANGE_BYTES):
    """[(path, start, end)] cutting each file into ranges of about range_bytes."""
    ranges = []
    for path in paths:
        size = os.path.getsize(path)
        cuts = list(range(0, size, range_bytes)) + [size]
        ranges += [(path, lo, hi) for lo, hi in zip(cuts, cuts[1:])] or [(path, 0, 0)]
    return ranges



class Clock:
    """Calls progress with a CountProgress at most every PROGRESS_INTERVAL seconds."""
    PROGRESS_INTERVAL = 0.1

    def __init__(self, total, progress):
        self.total, self.progress = total, progress
        self.done, self.start, self.last = 0, time.perf_counter(), 0.0

    def add(self, nbytes):
        self.done += nbytes
        if self.progress is not None:
            now = time.perf_counter()
            if now - self.last >= self.PROGRESS_INTERVAL or self.done >= self.total:
                self.last = now
                self.progress(CountProgress(self.done, self.total, now - self.start))

    def track(self, parts, ranges):
        """Yield parts, counting each range's bytes as done when its part arrives."""
        for part, (_, lo, hi) in zip(parts, ranges):
            self.add(hi - lo)
            yield part
