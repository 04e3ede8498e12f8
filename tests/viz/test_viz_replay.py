"""Replay steps: the ids of step k, the merge it names, where it lands; the thinned curve."""
import pytest

from bpe.replay import encode_with_first_merges, merge_parents, token_counts_by_merge
from viz.marks import span_token_starts
from viz.replay import (counts_frame, merge_name, next_step, previous_step, replay_step,
                         used_steps)

TEXT = "the theme of the thesis: then there, then there! 😉😉 ünïcödé"


@pytest.fixture(scope="module")
def tok(taylorswift, small_tok):
    return small_tok(taylorswift[:20000] + TEXT * 3, 256 + 120)


def test_step_k_is_the_text_after_k_merges(tok):
    parents = merge_parents(tok)
    ids = tok.encode(TEXT)
    for k in (0, 1, 5, 37, 120):
        step = replay_step(tok, ids, k, parents)
        assert step.ids == encode_with_first_merges(tok, TEXT, k, parents)
        assert step.row["text"] == TEXT and step.row["ids"] == step.ids
        assert sum(step.row["n"]) == len(step.ids)
        assert all(idx < 256 + k for idx in step.ids)


def test_step_names_its_merge_and_outlines_where_it_landed(tok):
    parents = merge_parents(tok)
    ids = tok.encode(TEXT)
    seen_some = False
    for k in range(1, 121):
        step = replay_step(tok, ids, k, parents)
        assert step.idx == 255 + k and parents[step.idx] == step.pair
        assert step.count == tok.merge_counts[step.idx]
        assert step.occurrences == step.ids.count(step.idx)
        starts = span_token_starts(step.row)
        assert step.highlight == [i for i in range(len(starts) - 1)
                                  if step.idx in step.ids[starts[i]:starts[i + 1]]]
        assert (step.occurrences > 0) == bool(step.highlight)
        seen_some |= step.occurrences > 0
    assert seen_some
    zero = replay_step(tok, ids, 0, parents)
    assert zero.idx is None and not zero.highlight and zero.ids == list(TEXT.encode())


def test_k_out_of_range(tok):
    with pytest.raises(ValueError, match="from 0 to 120"):
        replay_step(tok, tok.encode(TEXT), 121, merge_parents(tok))


def test_gpt4_step_without_counts(gpt4):
    parents = merge_parents(gpt4)
    ids = gpt4.encode(TEXT)
    the = gpt4.encode("the")[0]
    step = replay_step(gpt4, ids, the - 255, parents)
    assert step.idx == the and step.count is None and step.occurrences > 0
    assert merge_name(gpt4, the, step.pair) in ("[th] + [e] -> [the]", "[t] + [he] -> [the]")


def test_merge_name_shows_whitespace(gpt4):
    idx = gpt4.encode(" the")[0]
    assert merge_name(gpt4, idx, merge_parents(gpt4)[idx]).endswith("-> [·the]")


def test_counts_frame_thins_but_keeps_ends_and_k(gpt4):
    counts = token_counts_by_merge(gpt4, TEXT)
    assert len(counts) == 100_001
    frame = counts_frame(counts, max_points=500, keep=[12_345])
    assert len(frame) <= 502
    ks = frame["k"].tolist()
    assert ks[0] == 0 and ks[-1] == 100_000 and 12_345 in ks and ks == sorted(set(ks))
    assert frame["tokens"].tolist() == [counts[k] for k in ks]
    small = counts_frame([11, 9, 7, 5])
    assert small["k"].tolist() == [0, 1, 2, 3] and small["tokens"].tolist() == [11, 9, 7, 5]


def test_used_steps_are_where_the_count_changes(gpt4, tok):
    for t in (gpt4, tok):
        parents = merge_parents(t)
        used = used_steps(t.encode(TEXT), parents)
        counts = token_counts_by_merge(t, TEXT)
        assert used == [k for k in range(1, len(counts)) if counts[k] != counts[k - 1]]
        assert next_step(used, 0) == used[0] and next_step(used, used[-1]) is None
        assert previous_step(used, used[1]) == used[0] and previous_step(used, used[0]) is None
