"""Counts files made by hand with a matching checksum are refused with one clear error,
before their numbers size any allocation (issue 24: forged counts files)."""
import hashlib
import json
from array import array

import pytest

from bpe import RegexTokenizer
from bpe.counting.counts_file import MAGIC, read_counts, write_counts
from bpe.counting.stream import count_texts

# a part's first ~16K characters are its head, kept apart uncounted: start past it
PREFIX = "x " * 10_000
TEXT = PREFIX + "hello world, the cat sat on the mat. 123 4567 hello again\n" * 20


@pytest.fixture
def counts_path(tmp_path):
    tok = RegexTokenizer("gpt4")
    path = tmp_path / "a.counts"
    write_counts(path, tok.pattern, count_texts(tok, [TEXT]))
    return path


def forge(path, change_header=None, change_body=None):
    """Rewrite a counts file with its body and/or header changed, its sha256 made to
    match again: what a careful forger would do."""
    data = path.read_bytes()
    first = data.index(b"\n") + 1
    second = data.index(b"\n", first) + 1
    header = json.loads(data[first:second])
    body = bytearray(data[second:])
    if change_body:
        body = change_body(header, body)
    header["body_bytes"] = len(body)
    header["sha256"] = hashlib.sha256(body).hexdigest()
    if change_header:
        change_header(header)
    path.write_bytes(MAGIC + json.dumps(header).encode() + b"\n" + bytes(body))


def set_int64(body, index, value):
    arr = array("q")
    arr.frombytes(bytes(body[8 * index:8 * index + 8]))
    arr[0] = value
    body[8 * index:8 * index + 8] = arr.tobytes()
    return body


def test_an_honest_file_reads_back(counts_path):
    pattern, part = read_counts(counts_path)
    assert part.counts and min(part.counts.values()) >= 1


@pytest.mark.parametrize("value", [0, -5])
def test_a_count_below_one_is_refused(counts_path, value):
    forge(counts_path, change_body=lambda h, b: set_int64(b, 0, value))
    with pytest.raises(ValueError, match="a chunk count below 1"):
        read_counts(counts_path)


def test_a_negative_length_is_refused(counts_path):
    def change(header, body):
        n = header["chunks"]
        set_int64(body, n, -3)  # the first length
        return set_int64(body, n + 1, 3 + int.from_bytes(bytes(body[8 * (n + 1):8 * (n + 2)]), "little"))
    forge(counts_path, change_body=change)
    with pytest.raises(ValueError, match="negative chunk length|do not add up"):
        read_counts(counts_path)


def test_a_huge_length_is_refused(counts_path):
    forge(counts_path, change_body=lambda h, b: set_int64(b, h["chunks"], 1 << 40))
    with pytest.raises(ValueError, match="do not add up"):
        read_counts(counts_path)


def test_a_header_claiming_billions_of_chunks_is_refused_before_any_allocation(counts_path):
    forge(counts_path, change_header=lambda h: h.update(chunks=3_000_000_000))
    with pytest.raises(ValueError, match="claiming more than"):
        read_counts(counts_path)


def test_a_negative_size_in_the_header_is_refused(counts_path):
    forge(counts_path, change_header=lambda h: h.update(tail_bytes=-1))
    with pytest.raises(ValueError, match="negative size"):
        read_counts(counts_path)


def test_repeated_chunks_are_refused(tmp_path):
    tok = RegexTokenizer("gpt4")
    path = tmp_path / "dup.counts"
    write_counts(path, tok.pattern, count_texts(tok, [PREFIX + " ab cd ab cd"]))
    assert {" ab", " cd"} <= set(read_counts(path)[1].counts)
    forge(path, change_body=lambda h, b: b.replace(b" ab cd", b" ab ab"))  # " cd" -> " ab"
    with pytest.raises(ValueError, match="repeated chunks"):
        read_counts(path)


def test_a_chunk_the_pattern_would_split_is_refused(tmp_path):
    tok = RegexTokenizer("gpt4")
    path = tmp_path / "split.counts"
    write_counts(path, tok.pattern, count_texts(tok, [PREFIX + "hello 12 world and more words after it"]))
    forge(path, change_body=lambda h, b: b.replace(b"12", b"a1"))  # letter then digit: always cut
    with pytest.raises(ValueError, match="would have split"):
        read_counts(path)


def test_a_chunk_that_is_not_utf8_is_refused_naming_the_file(tmp_path):
    tok = RegexTokenizer("gpt4")
    path = tmp_path / "bad.counts"
    write_counts(path, tok.pattern, count_texts(tok, [PREFIX + "hello wörld again"]))
    forge(path, change_body=lambda h, b: b.replace("ö".encode(), b"\xff\xfe"))
    with pytest.raises(ValueError, match=r"bad\.counts.*not UTF-8"):
        read_counts(path)
