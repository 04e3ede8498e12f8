"""viz.ties: the comparison of tie rules and the marks for tied merges."""
from bpe import RegexTokenizer
from bpe.tie_break import TIE_BREAKS
from lab.jobs.workers import train_rules
from viz.ties import (compare_two, parting, rules_table, tie_marks, tie_share, tied_merges_rows,
                      token_lists, vocab_of)


def test_rules_on_taylorswift(taylorswift):
    results = train_rules(taylorswift, 512)
    assert set(results) == set(TIE_BREAKS)
    ties, merges = tie_share(results["first"])
    assert merges == 256 and ties >= 60  # the claim: ties are everywhere
    rows = rules_table(results)
    assert len(rows) == 3 and all(row["first merge that differs"] for row in rows)
    part = parting(results, "first", "smallest_ids")
    assert part["first"] != part["smallest_ids"]
    assert part["first"] in part["candidates"] and part["smallest_ids"] in part["candidates"]
    only_a, only_b = token_lists(results, "first", "greatest_bytes")
    diff = compare_two(results["first"], results["greatest_bytes"])
    assert len(only_a) == len(diff["only_a"]) and only_a


def test_the_rule_first_matches_the_tokenizer(taylorswift):
    text = taylorswift[:20000]
    results = train_rules(text, 300, rules=("first",))
    assert results["first"].merges == RegexTokenizer().train(text, 300).merges


def test_identical_rules_never_part():
    results = train_rules("abc abc", 260, rules=("first",))
    results["copy"] = results["first"]
    assert rules_table(results)[0]["first merge that differs"] is None
    assert parting(results, "first", "copy") is None


def test_tie_marks_and_rows():
    results = train_rules("ab cd ab cd", 258, pattern="", rules=("first",))
    result = results["first"]
    vocab = vocab_of(result.merges)
    marks = tie_marks(result.merge_ties, vocab)
    assert marks[256].startswith("tied with ")  # ab, b' ', ' c', cd, d' ', ' a': all twice
    rows = tied_merges_rows(result)
    assert rows[0]["merge"] == 1 and rows[0]["candidates"] == len(result.merge_ties[256])
    many = {300: [(1, 2)] + [(i, i) for i in range(20)]}
    assert "and 12 more" in tie_marks(many, {i: bytes([i]) for i in range(256)})[300]
