"""viz.methods: the report card's measures on real tokenizers, and the blame rows whose
charges add up to the token difference."""
import pytest
from hypothesis import given, settings, strategies as st

from bpe import methods
from bpe.methods.blame import blame
from viz import methods as vm
from viz.arena import arena_samples


@pytest.fixture(scope="module")
def toks(taylorswift):
    train = [taylorswift[:60_000]]
    return {"bpe": methods.train("bpe", train, 400),
            "superbpe": methods.train("superbpe", train, 400, transition=320),
            "wordpiece": methods.train("wordpiece", train, 400)}


def test_split_words_counts_cuts_inside_words_only():
    # "hello" cut after "he", "you" whole; a cut at a word's start does not count
    assert vm.split_words([0, 2, 5, 6], "hello you") == (2, 1)
    assert vm.split_words([], "") == (0, 0)


def test_token_starts_follow_the_text_for_a_lowercasing_tokenizer(toks):
    text = "Hello World"
    n, starts = vm.token_starts(toks["wordpiece"], text)
    assert n == len(toks["wordpiece"].encode(text)) and starts[0] == 0
    assert all(0 <= s < len(text) for s in starts) and starts == sorted(starts)


def test_report_card_rows(toks, taylorswift):
    held = taylorswift[-20_000:]
    card = vm.report_card(toks, held, arena_samples())
    assert [r["method"] for r in card] == list(toks)
    by = {r["method"]: r for r in card}
    n_bytes = len(held.encode())
    assert by["bpe"]["bytes/token"] == n_bytes / len(toks["bpe"].encode_ordinary(held))
    assert by["bpe"]["unique tokens"] == len(set(toks["bpe"].encode_ordinary(held)))
    assert 0 < by["bpe"]["split words"] < 1 and 0 <= by["bpe"]["Gini across languages"] < 1
    assert by["wordpiece"]["residue share"] is None  # no merges
    assert 0 <= by["superbpe"]["residue share"] <= 1
    assert vm.best_of(card)["bytes/token"] == max(card, key=lambda r: r["bytes/token"])["method"]
    with pytest.raises(ValueError, match="needs some text"):
        vm.report_card(toks, "", {})


@settings(max_examples=60, deadline=None)
@given(st.text(alphabet="ab cdé\n😀", max_size=80))
def test_blame_rows_add_up_to_the_difference(toks, text):
    result = blame(toks["bpe"], toks["superbpe"], text)
    rows = vm.blame_rows(result, "bpe", "superbpe")
    total, difference, agrees = vm.blame_sum(result)
    assert agrees and sum(r["charged"] for r in rows) == difference == total
    assert difference == len(toks["bpe"].encode_ordinary(text)) - \
        len(toks["superbpe"].encode_ordinary(text))


def test_pieces_rows_and_the_no_merges_line(toks):
    rows = vm.pieces_rows(toks["wordpiece"], limit=3)
    assert [r["id"] for r in rows] == [0, 1, 2] and rows[0]["piece"] == "[UNK]"
    assert not vm.has_merges(toks["wordpiece"]) and vm.has_merges(toks["bpe"])
    assert "has no merges" in vm.no_merges_message("wp")
