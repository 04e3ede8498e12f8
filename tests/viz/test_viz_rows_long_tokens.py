"""viz.rows on tokens of megabytes (a WordPiece unk_token of 25 MB, a SentencePiece
unk_surface of 8 MB): a row costs what it shows. 200 copies of a 2 MB token took 5.2 s
of CPU and 1.1 GB in view_row; the row now carries each such token cut to
TOKEN_SHOW_BYTES with "…", while nb and nc stay the whole token's."""
import tracemalloc

from viz.rows import TOKEN_SHOW_BYTES, view_row


def test_a_huge_token_is_shown_cut_with_true_lengths():
    big = ("é" * 1_000_000).encode()  # 2 MB, 1M characters
    token_bytes = [b"a ", big, b" b", big, "👋".encode()]
    tracemalloc.start()
    row = view_row(token_bytes, [1, 2, 3, 2, 4])
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert row["nb"] == [2, len(big), 2, len(big), 4]
    assert sum(row["nc"]) == 2 + 1_000_000 + 2 + 1_000_000 + 1
    assert max(map(len, row["show"])) <= TOKEN_SHOW_BYTES + 1
    assert row["show"][1].endswith("…") and row["show"][1].startswith("éé")
    assert peak < 8 * TOKEN_SHOW_BYTES * len(token_bytes) + (1 << 20), peak  # not the 4 MB


def test_short_tokens_are_unchanged():
    token_bytes = [b"x" * TOKEN_SHOW_BYTES, "é".encode() * 10, b"y"]
    row = view_row(token_bytes, [1, 2, 3])
    assert row["show"][0] == "x" * TOKEN_SHOW_BYTES and "…" not in "".join(row["show"])
