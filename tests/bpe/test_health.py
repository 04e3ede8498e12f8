"""Vocabulary health on a tokenizer built to hold each kind of finding, and on GPT-4o."""
import pytest

from bpe import RegexTokenizer
from bpe.health import (health_report, invalid_utf8, longest, low_count, near_duplicates,
                        unreachable, unused)


@pytest.fixture(scope="module")
def built():
    tok = RegexTokenizer()  # GPT-4's split pattern
    tok.merges = {
        (116, 104): 256,   # th
        (256, 101): 257,   # the
        (32, 257): 258,    # " the"
        (84, 104): 259,    # Th
        (259, 101): 260,   # The
        (101, 32): 261,    # "e ": the pattern always cuts a letter from a following space
        (0xE6, 0x97): 262,  # the first two bytes of 日: not UTF-8 alone
        (97, 98): 263,     # ab
        (98, 99): 264,     # bc
        (97, 264): 265,    # a+bc: "abc" encodes to [ab, c] first, so this is never made
    }
    tok.merge_counts = {256: 50, 257: 40, 258: 30, 259: 9, 260: 9, 261: 5, 262: 3, 263: 3,
                        264: 1, 265: 1}
    tok._reset()
    return tok


def ids_of(finding):
    return {row["id"] for row in finding.rows}


def test_invalid_utf8(built):
    finding = invalid_utf8(built)
    # the merged cut character first, then the 128 lone bytes a byte-level vocabulary needs
    assert [row["id"] for row in finding.rows] == [262, *range(0x80, 0x100)]
    assert finding.title.startswith("129 tokens") and "(128 of them single bytes)" in finding.title


def test_vocabulary_and_health_count_the_same_tokens(gpt4):
    from bpe.health import is_whole_utf8
    from viz.vocab import vocab_frame
    frame = vocab_frame(gpt4)
    not_whole = set(frame.index[~frame["whole_chars"]])
    assert not_whole == ids_of(invalid_utf8(gpt4))
    assert len(not_whole) == 773  # 645 merged tokens and the 128 lone bytes 0x80-0xFF
    assert not is_whole_utf8(bytes([0x80])) and is_whole_utf8("日".encode())


def test_unreachable(built):
    finding = unreachable(built)
    never_in_utf8 = {0xC0, 0xC1, *range(0xF5, 0x100)}
    assert ids_of(finding) == {261, 265} | never_in_utf8
    reasons = {row["id"]: row["reason"] for row in finding.rows}
    assert "cuts it into e |" in reasons[261] and "[263, 99]" in reasons[265]
    assert finding.hint
    # and each reachable merged token really is made by some text
    for idx in set(built.merges.values()) - {261, 262, 265}:
        assert built.encode_ordinary(built.decode([idx])) == [idx]


def test_unreachable_probes_longer_chunks():
    # GPT-4o's pattern cuts "'m" alone into ' | m, yet keeps "a'm" whole, where BPE
    # makes 'm: a token the pattern cuts alone but a longer chunk holds is not listed
    tok = RegexTokenizer("gpt4o")
    tok.merges = {(39, 109): 256, (73, 256): 257, (32, 257): 258}  # 'm, I'm, " I'm"
    tok._reset()
    assert ids_of(unreachable(tok)) & {256, 257, 258} == set()


def test_unused_and_counts(built):
    finding = unused(built, "the the The")
    used = {116, 104, 101, 84, 32, 257, 258, 260}  # what encoding that text can use
    assert 257 not in ids_of(finding) and 258 not in ids_of(finding)
    assert 263 in ids_of(finding) and 0 in ids_of(finding)
    assert "2 do" not in finding.title and " do)" in finding.title
    assert len(finding.rows) == len(built.vocab) - len(used & set(
        built.encode_ordinary("the the The")))


def test_near_duplicates(built):
    finding = near_duplicates(built)
    groups = [set(map(int, row["ids"].split(", "))) for row in finding.rows]
    assert {257, 258, 260} in groups


def test_longest(built):
    rows = longest(built, top=3).rows
    assert [row["bytes"] for row in rows] == [4, 3, 3]
    assert rows[0]["id"] == 258


def test_low_count(built):
    finding = low_count(built, 4)
    assert ids_of(finding) == {262, 263, 264, 265}
    assert "min_frequency=4" in finding.hint
    assert low_count(RegexTokenizer(), 4).rows == []


def test_report_reports_progress(built):
    seen = []
    findings = health_report(built, "the cat", progress=seen.append)
    assert [f.kind for f in findings] == ["invalid_utf8", "unreachable", "unused", "residue",
                                          "near_duplicates", "longest", "low_count"]
    assert seen and seen[-1].done == seen[-1].total
    assert "unused" not in [f.kind for f in health_report(built)]


def test_gpt4o_unreachable_tokens_really_are(gpt4):
    from bpe.reference import load_reference
    tok = load_reference("o200k_base")
    finding = unreachable(tok)
    cut = [row for row in finding.rows if row["bytes"] > 1]
    assert cut  # e.g. "\n//": GPT-4o's pattern never keeps a newline with slashes
    for row in cut:
        text = tok.decode([row["id"]])
        assert row["id"] not in tok.encode_ordinary("x" + text + "y")
    assert len(unreachable(gpt4).rows) == 13  # cl100k: only the 13 bytes UTF-8 never uses


def test_low_count_says_not_checked_without_counts(built, gpt4):
    finding = low_count(gpt4, 2)
    assert not finding.checked and finding.rows == []
    assert "no merge counts" in finding.title and "0 merges" not in finding.title
    assert low_count(built, 2).checked


def test_unreachable_over_its_budget_is_not_run(built, monkeypatch):
    import bpe.health as health
    monkeypatch.setattr(health, "MAX_CHECKED_BYTES", 10)
    calls = []
    monkeypatch.setattr(built, "encode_chunk", lambda b: calls.append(b) or [0])
    finding = unreachable(built)
    assert not finding.checked and calls == []
    assert "not checked" in finding.title and "MB" in finding.title
    monkeypatch.undo()
    assert unreachable(built).checked


def test_a_long_token_is_written_short_in_its_row():
    from bpe.health import SHOWN_BYTES, token_row
    tok = RegexTokenizer()
    tok.vocab = {**tok.vocab, 256: b"a" * 10_000}
    row = token_row(tok, 256)
    assert row["bytes"] == 10_000 and row["token"] == "a" * SHOWN_BYTES + " …"


# ------------------------------------------------------------------ leftover tokens
def recount(tok, corpus):
    """idx -> (final, intermediate) by a second road: the encoded ids, and how often each
    merge was applied to make them (bpe.replay walks the merge trees)."""
    from collections import Counter

    from bpe.replay import merge_applications, merge_parents
    ids = tok.encode_ordinary(corpus)
    final = Counter(ids)
    applied = merge_applications(ids, merge_parents(tok))
    return {idx: (final[idx], n - final[idx]) for idx, n in applied.items()}


def test_leftovers_count_final_and_intermediate_uses(taylorswift):
    from bpe.health import leftovers
    tok = RegexTokenizer().train(taylorswift[:20_000], 256 + 200)
    corpus = taylorswift[20_000:40_000]
    finding = leftovers(tok, corpus)
    assert finding.checked and finding.kind == "residue"
    expected = recount(tok, corpus)
    low = {idx: fi for idx, fi in expected.items() if fi[0] / sum(fi) < 0.1}
    assert {row["id"]: (row["final"], row["intermediate"]) for row in finding.rows} == low
    rs = [row["R"] for row in finding.rows]
    assert rs == sorted(rs) and len(rs) > 1  # lowest R first
    assert finding.title.startswith(f"{len(low)} of the {len(expected)} merged tokens")
    assert "this lab's own choice" in finding.why and "large web corpus" in finding.why


def test_leftovers_with_a_corpus_only_and_not_for_pieces(taylorswift):
    from bpe import methods
    from bpe.health import leftovers
    tok = RegexTokenizer().train(taylorswift[:5000], 256 + 50)
    assert "residue" not in [f.kind for f in health_report(tok)]
    assert "residue" in [f.kind for f in health_report(tok, taylorswift[:2000])]
    pieces = methods.train("wordpiece", [taylorswift[:5000]], 300)
    finding = leftovers(pieces, taylorswift[:2000])
    assert not finding.checked and "has no merges" in finding.title
