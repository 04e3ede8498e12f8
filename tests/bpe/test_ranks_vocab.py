"""A ranks tokenizer's vocab (rank -> token, plus its special tokens) reads the ranks' own
bytes through a list by id (bpe.ranks_vocab.RanksVocab), with no second rank -> token dict
kept beside the ranks (issue 32: 5.2 MB for 100,000 ranks, 3.1 x a visitor's ranks file).
Counted by tracemalloc, never by time; and the vocab stays exactly the ranks inverted plus the
current specials through every change (tests/bpe/test_ranks_vocab_mapping.py: every Mapping
manner against the dict it replaced)."""
import tracemalloc

from bpe.loading import load_bytes
from bpe.ranks_tokenizer import RanksTokenizer, find_ranks_file

# cl100k_base's 1.68 MB file loaded as a visitor's upload: 7.7 x the file live, of which the
# ranks themselves (the dict 3.1 x, its bytes keys 2.35 x, its int values 1.7 x) are 7.1 x
# and stay (encode's lookup) and the vocab's list by id 0.5 x; with a dict id -> bytes for
# the vocab (before RanksVocab) 10.25 x live, and 13.4 x at the load's peak (8.5 x now)
LIVE_PER_FILE_BYTE = 8.0
PEAK_PER_FILE_BYTE = 9.0


def test_a_visitors_ranks_file_keeps_no_second_dict():
    with open(find_ranks_file(), "rb") as f:
        data = f.read()
    load_bytes(data, "mine.tiktoken")
    tracemalloc.start()
    try:
        start = tracemalloc.get_traced_memory()[0]
        tracemalloc.reset_peak()
        tok = load_bytes(data, "mine.tiktoken")
        live, peak = (n - start for n in tracemalloc.get_traced_memory())
    finally:
        tracemalloc.stop()
    assert len(tok.ranks) == 100_256 and len(tok.vocab) == 100_256 + 5  # GPT-4's specials
    assert live <= LIVE_PER_FILE_BYTE * len(data), f"{live / len(data):.2f} x the file"
    assert peak <= PEAK_PER_FILE_BYTE * len(data), f"peak {peak / len(data):.2f} x the file"


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
