"""The vocabulary table: one row per token, pairs and children right, search and sort."""
import pytest

from bpe import BasicTokenizer
from viz.vocab import (empty_columns, is_whole_utf8, search_tokens, sort_tokens,
                       text_usage, token_detail, visible, vocab_frame)

TEXT = 'Hi "there", the  theme\n\tof thé 😉 😉 then\\ there.'


@pytest.fixture(scope="module")
def tok(taylorswift, small_tok):
    return small_tok(taylorswift[:20000] + TEXT * 5, 256 + 200)


@pytest.fixture(scope="module")
def frame(tok):
    return vocab_frame(tok)


@pytest.fixture(scope="module")
def gpt4_frame(gpt4):
    return vocab_frame(gpt4)


def test_one_row_per_token_with_its_bytes(tok, frame):
    assert list(frame.index) == sorted(tok.vocab)
    for idx, row in frame.iterrows():
        token = tok.vocab[idx]
        assert bytes.fromhex(row["hex"]) == token
        assert row["length"] == len(token)
        assert row["token"] == visible(token)


def test_pairs_merge_and_count_come_from_the_merges(tok, frame):
    merged = frame[frame["left"].notna()]
    assert len(merged) == len(tok.merges) == 200
    for idx, row in merged.iterrows():
        assert tok.merges[(row["left"], row["right"])] == idx
        assert tok.vocab[row["left"]] + tok.vocab[row["right"]] == tok.vocab[idx]
        assert row["merge"] == idx - 255
        assert row["count"] == tok.merge_counts[idx]
        left, right = (visible(tok.vocab[row[side]]) for side in ("left", "right"))
        assert row["pair"] == f"{left} + {right}"
    assert frame.loc[97, "pair"] == "" and frame["merge"].isna().sum() == 256


def test_children_count_the_tokens_built_on_each(tok, frame):
    expected = {idx: 0 for idx in tok.vocab}
    for pair in tok.merges:
        for part in set(pair):
            expected[part] += 1
    assert frame["children"].to_dict() == expected


def test_gpt4_frame_flags_specials_partial_bytes_and_no_counts(gpt4, gpt4_frame):
    assert len(gpt4_frame) == len(gpt4.vocab)
    assert set(gpt4_frame.index[gpt4_frame["special"]]) == set(gpt4.special_tokens.values())
    assert gpt4_frame["count"].isna().all()
    assert int(gpt4_frame["merge"].max()) == 100_000
    partial = gpt4_frame[~gpt4_frame["whole_chars"]]
    assert len(partial) > 100
    assert all(not is_whole_utf8(gpt4.vocab[idx]) for idx in partial.index[:50])
    assert gpt4_frame.loc[gpt4.encode(" the")[0], "token"] == "·the"


def test_visible_shows_whitespace_and_escapes_control_characters():
    # the one renderer's markers (viz.display.display_text), on one line
    assert visible(b" a\n\t") == "·a↵→"
    assert visible("é".encode()[:1]) == "⟨c3⟩"  # part of a character: hex, never "�"
    assert visible(b"\x00\xe2\x80\x8b") == "⟨NUL⟩⟨ZWSP⟩"
    assert is_whole_utf8("😉".encode()) and not is_whole_utf8("😉".encode()[:3])


def test_substring_search(frame):
    found = search_tokens(frame, "th")
    assert len(found) > 0 and all("th" in t for t in found["text"])
    assert len(found) == sum("th" in t for t in frame["text"])
    assert len(search_tokens(frame, "TH", case=False)) >= len(found)
    # regex metacharacters are plain text in substring mode
    assert all("." in t for t in search_tokens(frame, ".")["text"])
    assert search_tokens(frame, "") is frame


def test_regex_search(frame):
    found = search_tokens(frame, r"^ t", "regex")
    assert len(found) > 0 and all(t.startswith(" t") for t in found["text"])


def test_search_matches_what_the_table_shows(gpt4_frame):
    # the example: a · in the query is the space the token column shows as ·
    found = search_tokens(gpt4_frame, "^·[a-z]{3}$", "regex")
    assert len(found) > 500
    assert all(len(t) == 4 and t[0] == " " and t[1:].isalpha() for t in found["text"])
    assert found["id"].tolist() == search_tokens(gpt4_frame, "^ [a-z]{3}$", "regex")["id"].tolist()
    assert (search_tokens(gpt4_frame, "·the")["id"].tolist()
            == search_tokens(gpt4_frame, " the")["id"].tolist())
    newline = search_tokens(gpt4_frame, "↵↵")
    assert len(newline) > 0 and all("\n\n" in t for t in newline["text"])
    # the other markers match as displayed: half characters by their hex
    partial = search_tokens(gpt4_frame, "⟨f0 9f")
    assert len(partial) > 0 and all(not w for w in partial["whole_chars"])


def test_empty_columns_only_where_nothing_is_recorded(gpt4_frame, frame):
    assert empty_columns(gpt4_frame) == ["count"]  # merges recovered, counts never kept
    assert empty_columns(frame) == []  # trained here: counts recorded


def test_invalid_regex_says_how_to_fix_it(frame):
    with pytest.raises(ValueError, match="invalid regex.*substring"):
        search_tokens(frame, "(unclosed", "regex")
    with pytest.raises(ValueError, match="mode"):
        search_tokens(frame, "a", "glob")


def test_catastrophic_regex_stops():
    # tokens of 2, 4, ... 128 a's; (a|a)+b backtracks 2^n times on each
    frame = vocab_frame(BasicTokenizer().train("a" * 200, 256 + 7))
    assert frame["length"].max() == 128
    with pytest.raises(TimeoutError):
        search_tokens(frame, "(a|a)+b", "regex", timeout=0.2)


def test_sorts(frame, tok):
    by_length = sort_tokens(frame, "length", descending=True)
    assert by_length["length"].is_monotonic_decreasing
    by_count = sort_tokens(frame, "merge count", descending=True)
    counted = by_count["count"].notna()
    assert counted.iloc[:200].all() and not counted.iloc[200:].any()  # bytes last
    assert by_count["count"].iloc[0] == max(tok.merge_counts.values())
    assert sort_tokens(by_length, "id")["id"].is_monotonic_increasing
    with pytest.raises(ValueError, match="sort by"):
        sort_tokens(frame, "colour")


def test_token_detail(tok, frame):
    first = tok.merges[min(tok.merges, key=tok.merges.get)]  # id 256
    detail = token_detail(frame, first)
    assert (detail["left"], detail["right"]) == next(p for p, i in tok.merges.items() if i == 256)
    assert isinstance(detail["left"], int) and detail["count"] == tok.merge_counts[256]
    built = detail["built_on"]
    assert len(built) == detail["children"]
    assert all(256 in (row["left"], row["right"]) for _, row in built.iterrows())
    byte = token_detail(frame, 104)
    assert byte["left"] is None and byte["count"] is None and byte["merge"] is None
    with pytest.raises(KeyError, match="ids run from 0"):
        token_detail(frame, 10**6)


def test_text_usage(tok, frame):
    used, untouched = text_usage(tok, frame, TEXT)
    ids = tok.encode(TEXT)
    assert used["uses"].sum() == len(ids)
    assert set(used.index) == set(ids)
    assert used["uses"].is_monotonic_decreasing
    assert untouched == len(tok.vocab) - len(set(ids))
