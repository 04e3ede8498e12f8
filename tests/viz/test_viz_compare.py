"""viz.compare: byte-position alignment, shared boundaries, category crossings, domain table."""
import re

import pandas as pd
import pytest

from bpe import BasicTokenizer, RegexTokenizer
from viz.compare import (AGREED, BETTER, WORSE, aligned, boundary_stats, char_category, compare,
                         cross_category_count, domain_frame, domain_marks, domain_styler,
                         span_bounds, token_boundaries)
from viz.samples import SAMPLES

TEXT = "The year 2026 had 365 days; 🫠 melted. 안녕!"


@pytest.fixture(scope="module")
def basic():
    """A Basic tokenizer whose merges cross word and digit boundaries ("r 2", "d 3")."""
    return BasicTokenizer().train("year 2026 had 365 days " * 50, 256 + 40)


@pytest.fixture(scope="module")
def regex():
    return RegexTokenizer().train("year 2026 had 365 days " * 50, 256 + 40)


def test_boundaries_are_the_token_starts_after_the_first(gpt4):
    ids = gpt4.encode("hello world!")
    assert token_boundaries(gpt4, ids) == [5, 11]  # "hello" | " world" | "!"


def test_boundary_stats_share_over_union():
    assert boundary_stats([1, 2, 3], [1, 2, 3])["shared_pct"] == 100.0
    assert boundary_stats([1, 2], [3, 4]) == {"shared": 0, "union": 4, "shared_pct": 0.0}
    assert boundary_stats([], [])["shared_pct"] == 100.0  # one token each: nothing differs


def test_a_tokenizer_agrees_with_itself(gpt4):
    result = compare(gpt4, gpt4, TEXT)
    assert result.stats["shared_pct"] == 100.0
    assert result.stats["only_a"] == result.stats["only_b"] == 0
    pair = aligned(gpt4, gpt4, result)
    pieces = pair["pieces"]
    assert pieces["sa"] == pieces["sb"] == list(range(len(pieces["sa"])))  # piece = span
    assert set(pair["a"]["colors"]) == set(pair["b"]["colors"]) == {AGREED}  # all grey
    assert result.stats["tokens_a"] == result.stats["tokens_b"] == len(gpt4.encode(TEXT))


def test_bytes_against_gpt4_share_every_gpt4_boundary(gpt4):
    raw = BasicTokenizer()  # no merges: one token per byte, a cut everywhere
    result = compare(gpt4, raw, TEXT)
    n_bytes = len(TEXT.encode())
    gpt4_cuts = len(gpt4.encode(TEXT)) - 1
    assert result.stats["tokens_b"] == n_bytes
    assert result.stats["shared"] == gpt4_cuts
    assert result.stats["shared_pct"] == pytest.approx(100 * gpt4_cuts / (n_bytes - 1))
    assert result.stats["only_a"] == 0 and result.stats["only_b"] == n_bytes - 1 - gpt4_cuts


def test_the_aligned_pair_cuts_at_every_span_boundary_of_either_side(regex, basic):
    text = "year 2026 had 365 days\nand then 🫠"
    result = compare(regex, basic, text)
    pair = aligned(regex, basic, result, "regex", "basic")
    pieces, row_a, row_b = pair["pieces"], pair["a"], pair["b"]
    assert row_a["ids"] == result.ids_a and row_b["ids"] == result.ids_b
    assert (row_a["caption"], row_b["caption"], row_a["text"]) == ("regex", "basic", text)
    assert sum(pieces["nb"]) == len(text.encode())
    # a piece starts wherever either side starts a span, and nowhere else
    starts = {sum(pieces["nb"][:p]) for p in range(len(pieces["nb"]))}
    span_starts = []
    for row in (row_a, row_b):
        at, t, mine = 0, 0, set()
        for n in row["n"]:
            mine.add(at)
            at += sum(row["nb"][t:t + n])
            t += n
        span_starts.append(mine)
    assert starts == span_starts[0] | span_starts[1]
    assert "".join(pieces["show"]).replace("\n", "") == \
        text.replace(" ", "·").replace("\n", "↵")
    assert result.stats["only_a"] + result.stats["only_b"] > 0  # they do differ
    # grey exactly where the other side has the same span; never grey elsewhere
    for row, other in ((row_a, row_b), (row_b, row_a)):
        theirs = set(span_bounds(other))
        assert [c == AGREED for c in row["colors"]] == [b in theirs for b in span_bounds(row)]
    assert AGREED in row_a["colors"] and set(row_a["colors"]) - {AGREED}


def test_categories_follow_the_split_pattern_classes():
    assert [char_category(c) for c in "aé한1٣ \t\n,$😉\u200d"] == (
        ["letter"] * 3 + ["digit"] * 2 + ["space"] * 3 + ["punctuation"] * 4)


def test_basic_crosses_categories_regex_does_not(basic, regex):
    text = "year 2026 had 365 days"
    assert cross_category_count(basic, basic.encode(text)) > 0
    assert cross_category_count(regex, regex.encode(text)) == 0
    result = compare(regex, basic, text)
    assert result.stats["cross_a"] == 0 and result.stats["cross_b"] > 0


def test_a_leading_space_does_not_count_as_crossing(gpt4):
    ids = gpt4.encode(" hello world")
    assert cross_category_count(gpt4, ids) == 0
    raw = BasicTokenizer()
    assert cross_category_count(raw, raw.encode("a1 b,")) == 0  # single bytes never cross


def test_special_token_text_is_compared_as_plain_text(gpt4, regex):
    result = compare(gpt4, regex, "end <|endoftext|> here")
    assert 100257 not in result.ids_a
    assert gpt4.decode(result.ids_a) == "end <|endoftext|> here"


def test_domain_frame_is_bytes_per_token(gpt4):
    raw = BasicTokenizer()
    frame = domain_frame({"GPT-4": gpt4, "bytes": raw})
    assert list(frame.columns) == ["GPT-4", "bytes"]
    assert list(frame.index) == ["prose", "code", "numbers", "Korean", "emoji", "whitespace"]
    assert (frame["bytes"] == 1.0).all()  # no merges: one byte per token
    prose = SAMPLES["English prose"]
    assert frame.at["prose", "GPT-4"] == len(prose.encode()) / len(gpt4.encode(prose))


def test_domain_marks_say_better_or_worse():
    frame = pd.DataFrame({"GPT-4": [2.0, 2.0, 2.0], "mine": [3.0, 1.0, 2.0]},
                         index=["prose", "code", "numbers"])
    shown = domain_marks(frame, "GPT-4")
    assert list(shown["GPT-4"]) == ["2.00", "2.00", "2.00"]
    assert list(shown["mine"]) == ["3.00 ▲ +50%", "1.00 ▼ -50%", "2.00 = +0%"]
    with pytest.raises(ValueError, match="pick one of"):
        domain_marks(frame, "GPT-5")


def test_domain_styler_colors_cells_against_the_reference():
    frame = pd.DataFrame({"GPT-4": [2.0, 2.0], "mine": [3.0, 1.0]}, index=["prose", "code"])
    html_text = domain_styler(frame, "GPT-4").to_html()
    # each CSS rule lists the cells (by row/col id) that get its declarations
    rules = dict((decl.strip(), sel) for sel, decl in re.findall(r"([^{}]+)\{([^}]*)\}", html_text))
    better = next(sel for decl, sel in rules.items() if BETTER in decl)
    worse = next(sel for decl, sel in rules.items() if WORSE in decl)
    assert "row0_col1" in better and "row1_col1" not in better
    assert "row1_col1" in worse and "row0_col1" not in worse
    assert "col0" not in better + worse  # the reference itself is not colored


def test_tokenizations_of_different_bytes_are_refused(gpt4):
    class Lossy(BasicTokenizer):
        """Drops every "x": its ids do not give the text back."""
        def encode(self, text, allowed_special="none_raise"):
            return super().encode(text.replace("x", ""), allowed_special=allowed_special)

    with pytest.raises(ValueError, match="same bytes"):
        compare(gpt4, Lossy(), "text with an x")


def test_cuts_inside_an_emoji_that_only_one_side_makes_are_marked(gpt4):
    # " 👍🏽": GPT-4 makes 5 tokens, GPT-4o 3, cut differently inside the one cluster
    from bpe.reference import load_reference
    gpt4o = load_reference("o200k_base")
    text = " 👍🏽"
    result = compare(gpt4, gpt4o, text)
    assert (len(result.ids_a), len(result.ids_b)) == (5, 3)
    pair = aligned(gpt4, gpt4o, result, "GPT-4", "GPT-4o")
    inner = pair["pieces"]["inner"]
    assert inner, pair["pieces"]
    cuts_a, cuts_b = zip(*inner.values())
    assert set(sum(cuts_a, [])) != set(sum(cuts_b, []))
    # and neither side greys the cluster as "the same token on both sides"
    assert AGREED not in pair["a"]["colors"] and AGREED not in pair["b"]["colors"]


def test_a_cluster_cut_alike_on_both_sides_has_no_inner_mark(gpt4):
    result = compare(gpt4, gpt4, " 👍🏽 ok")
    pair = aligned(gpt4, gpt4, result)
    assert pair["pieces"]["inner"] == {}
    assert set(pair["a"]["colors"]) == {AGREED}
