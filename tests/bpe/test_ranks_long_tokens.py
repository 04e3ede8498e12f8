"""A ranks file whose long tokens cannot be merges (issue 32: one 20 MB token) is refused by
parse_ranks with a sentence, before anything downstream spends time or memory on it."""
import base64

import pytest

from bpe.formats.ranks import LONG_TOKEN, parse_ranks, ranks_text

BYTES = {bytes([b]): b for b in range(256)}


def file_with(tokens):
    return (ranks_text(BYTES) + "".join(f"{base64.b64encode(t).decode()} {256 + i}\n"
                                        for i, t in enumerate(tokens))).encode()


def test_one_huge_token_is_refused_with_a_sentence():
    data = file_with([b"ab" * 1_000_000])
    with pytest.raises(ValueError, match=r"rank 256 is 2,000,000 bytes long, but no other token "
                                         r"is 1,000,000 to 1,999,999 bytes long.*not byte-pair"):
        parse_ranks(data, source="x.tiktoken")


def test_a_doubling_chain_of_long_tokens_is_kept():
    tokens = [b"a" * 2 ** k for k in range(1, 15)]
    assert len(parse_ranks(file_with(tokens))) == 256 + len(tokens)


def test_many_long_tokens_of_one_length_need_a_shorter_part():
    # equal lengths are no parts of each other: 300-byte tokens need one of 150..299 bytes
    tokens = [bytes([i % 256]) * (LONG_TOKEN + 44) + bytes([i // 256]) for i in range(2000)]
    with pytest.raises(ValueError, match="301 bytes long, but no other token is 151 to 300"):
        parse_ranks(file_with(tokens))
    assert parse_ranks(file_with([b"z" * 151] + tokens))
