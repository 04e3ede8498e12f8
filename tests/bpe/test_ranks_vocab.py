"""A ranks tokenizer's vocab (rank -> token, plus its special tokens) is built once from the
ranks and then copied as the special tokens change, with no second rank -> token dict kept
beside it (issue 32: 5.2 MB for 100,000 ranks, a third of a visitor's ranks file's memory).
Counted by tracemalloc, never by time; and the vocab stays exactly the ranks inverted plus the
current specials through every change."""
import tracemalloc

from bpe.loading import load_bytes
from bpe.ranks_tokenizer import RanksTokenizer, find_ranks_file

# cl100k_base's 1.68 MB file loaded as a visitor's upload: 10.3 x the file live (the ranks
# dict 7 x, the vocab 3 x); 13.4 x with the second dict (124e902), which this refuses
LIVE_PER_FILE_BYTE = 11.5


def test_a_visitors_ranks_file_keeps_one_vocab_dict():
    with open(find_ranks_file(), "rb") as f:
        data = f.read()
    load_bytes(data, "mine.tiktoken")
    tracemalloc.start()
    try:
        start = tracemalloc.get_traced_memory()[0]
        tok = load_bytes(data, "mine.tiktoken")
        live = tracemalloc.get_traced_memory()[0] - start
    finally:
        tracemalloc.stop()
    assert len(tok.ranks) == 100_256
    assert live <= LIVE_PER_FILE_BYTE * len(data), f"{live / len(data):.2f} x the file"


def test_the_vocab_follows_the_special_tokens():
    ranks = {bytes([b]): b for b in range(256)} | {b"ab": 256, b"abc": 257}
    tok = RanksTokenizer(ranks, special_tokens={"<a>": 300})
    plain = {idx: token for token, idx in ranks.items()}
    assert tok.vocab == {**plain, 300: b"<a>"}
    tok.register_special_tokens({"<b>": 301})
    assert tok.vocab == {**plain, 300: b"<a>", 301: b"<b>"}
    twin = tok.with_special_tokens({"<c>": 302})
    tok.unregister_special_tokens({"<a>"})
    assert tok.vocab == {**plain, 301: b"<b>"}
    assert twin.vocab == {**plain, 300: b"<a>", 301: b"<b>", 302: b"<c>"}
    twin.unregister_special_tokens({"<a>", "<b>", "<c>"})
    assert twin.vocab == plain and tok.vocab == {**plain, 301: b"<b>"}
    assert tok.decode(tok.encode("abc<b>", allowed_special="all")) == "abc<b>"
