"""bpe/encode.py cuts a long chunk into pieces where no token can span and merges each piece:
a piece that happens to be a token is merged like any other piece, never looked up whole,
because some tokens' own bytes merge into other tokens (only a whole chunk is taken as its
token, tiktoken's rule). Checked against tiktoken on hand-made ranks and on Llama 3's."""
import pytest

from bpe import reference
from bpe.encode import apply_ranks, joinable_table
from bpe.ranks_tokenizer import RanksTokenizer
from lab import parity


def test_a_piece_that_is_a_token_is_merged_not_looked_up():
    tiktoken = pytest.importorskip("tiktoken", reason="pip install tiktoken")
    # b"x" * 24 is a token, but no merge leads to it: its bytes stay bytes. The chunk is
    # cut where y meets x and x meets z (no token holds those pairs): the middle piece is
    # exactly that token
    table = {bytes([b]): b for b in range(256)} | {b"x" * 24: 256}
    data = b"y" * 24 + b"x" * 24 + b"z" * 30
    expected = tiktoken.Encoding("t", pat_str=r"\S+", mergeable_ranks=table,
                                 special_tokens={})._encode_single_piece(data)
    assert expected == list(data)
    assert apply_ranks(data, table, joinable=joinable_table(table)) == expected
    assert RanksTokenizer(table, "gpt2").encode_chunk(data) == expected


def test_llama3_token_that_its_own_bytes_do_not_make():
    tok = reference.load_reference("llama3")
    dots = b".:" * 16
    assert dots in tok.ranks and apply_ranks(dots, tok.ranks) != [tok.ranks[dots]]
    encode = parity.owner_encoder("llama3", tok)[1]
    for text in ("&" * 30 + ".:" * 16 + "}" * 30, "@" * 24 + ".:" * 16 + "}" * 40):
        assert len(tok.split(text)) == 1  # one long chunk, cut into pieces by encode
        assert tok.encode_ordinary(text) == encode(text)
