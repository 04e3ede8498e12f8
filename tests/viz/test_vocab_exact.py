"""The Vocabulary page's narrow table and its row-limited sort mean what the plain
definitions mean: vocab_numbers against each token's facts read off the tokenizer one by
one, and sort_tokens(limit=) against pandas' stable sort_values, on real text (a trained
tokenizer, GPT-4, a SentencePiece-like Unigram upload) and on hypothesis fuzz."""
import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings, strategies as st

from bpe import BasicTokenizer, load_bytes
from helpers.hostile_parts import html_vocab
from viz.vocab import (SORTS, has_token, is_whole_utf8, rows_of, sort_tokens, text_usage,
                       vocab_numbers)


def plain_rows(tok):
    """Each token's row, read off the tokenizer one token at a time."""
    parents = {idx: pair for pair, idx in tok.merges.items() if idx in tok.vocab}
    children = {idx: 0 for idx in tok.vocab}
    for a, b in parents.values():
        for half in {a, b}:  # "a" + "a" is one child of "a"
            if half in children:
                children[half] += 1
    specials = set(tok.special_tokens.values())
    return [(idx, len(tok.vocab[idx]), *parents.get(idx, (None, None)),
             idx - 255 if idx in parents else None, tok.merge_counts.get(idx),
             children[idx], is_whole_utf8(tok.vocab[idx]), idx in specials)
            for idx in sorted(tok.vocab)]


def table_rows(frame):
    return [tuple(None if pd.isna(v) else v.item() if hasattr(v, "item") else v for v in row)
            for row in frame.itertuples(index=False)]


def assert_same_table(tok):
    frame = vocab_numbers(tok)
    assert list(frame.columns) == ["id", "length", "left", "right", "merge", "count",
                                   "children", "whole_chars", "special"]
    assert frame.index.tolist() == sorted(tok.vocab)
    assert table_rows(frame) == plain_rows(tok)


def pandas_sorted(frame, by, descending):
    """The definition: pandas' stable sort, missing values last."""
    return frame.sort_values(SORTS[by], ascending=not descending, kind="stable",
                             na_position="last")


def assert_same_sorts(frame, limits=(None, 0, 1, 7, 1000)):
    for by in SORTS:
        for descending in (False, True):
            expected = pandas_sorted(frame, by, descending)["id"].tolist()
            for limit in limits:
                got = sort_tokens(frame, by, descending, limit=limit)["id"].tolist()
                assert got == expected[:limit], (by, descending, limit)


@pytest.fixture(scope="module")
def trained(taylorswift):
    tok = BasicTokenizer().train(taylorswift[:30000], 256 + 300)
    tok.register_special_tokens({"<|end|>": 556, "<|pad|>": 600})
    return tok


def test_a_trained_tokenizer(trained):
    assert_same_table(trained)
    assert_same_sorts(vocab_numbers(trained))


def test_gpt4(gpt4):
    assert_same_table(gpt4)
    frame = vocab_numbers(gpt4)
    assert_same_sorts(frame, limits=(None, 1000))
    assert frame["id"].dtype == np.int32


def test_a_unigram_upload():
    tok = load_bytes(html_vocab(3000), "html.json")
    assert_same_table(tok)
    assert_same_sorts(vocab_numbers(tok))


def test_lookups_by_id(trained):
    frame = vocab_numbers(trained)
    ids = [600, 3, 556, 300]
    assert rows_of(frame, ids)["id"].tolist() == ids
    assert has_token(frame, 600) and not has_token(frame, 557) and not has_token(frame, 10**9)
    with pytest.raises(KeyError, match="no token with id 557: ids run from 0 to 600"):
        rows_of(frame, [3, 557])
    used, _ = text_usage(trained, frame, "the the theme")
    assert used.index.tolist() == sorted(set(trained.encode_ordinary("the the theme")),
                                         key=lambda i: (-trained.encode_ordinary(
                                             "the the theme").count(i), i))


def test_a_bad_limit_is_a_sentence(trained):
    frame = vocab_numbers(trained)
    for limit in (-1, 2.5, True, "10"):
        with pytest.raises(ValueError, match="limit must be a whole number"):
            sort_tokens(frame, "length", limit=limit)


@settings(max_examples=60, deadline=None)
@given(text=st.text(alphabet="ab c\n😉é", min_size=1, max_size=200),
       merges=st.integers(0, 40))
def test_fuzz_trained_tables(text, merges):
    tok = BasicTokenizer().train(text, 256 + merges)
    assert_same_table(tok)
    assert_same_sorts(vocab_numbers(tok), limits=(None, 3, 300))


@settings(max_examples=100, deadline=None)
@given(rows=st.lists(st.tuples(st.integers(0, 5), st.one_of(st.none(), st.integers(0, 4))),
                     min_size=0, max_size=60),
       limit=st.one_of(st.none(), st.integers(0, 70)))
def test_fuzz_sorts_with_ties_and_missing_counts(rows, limit):
    """Many equal keys and missing counts: ties stay in id order, missing last, both ways."""
    ids = list(range(0, 3 * len(rows), 3))  # ids with gaps, in order
    frame = pd.DataFrame({"id": np.array(ids, dtype=np.int32),
                          "length": np.array([r[0] for r in rows], dtype=np.int32),
                          "count": pd.array([r[1] for r in rows], dtype="Int64")},
                         index=pd.Index(np.array(ids, dtype=np.int32), name="idx"))
    assert_same_sorts(frame, limits=(limit,))
    # a frame out of id order (a search's result re-sorted) sorts by id too
    shuffled = frame.iloc[::-1]
    assert sort_tokens(shuffled, "id", limit=limit)["id"].tolist() == ids[:limit]
