"""The chunker's cost stays near-linear on hostile input (issue 24): when pieces encoded
on their own take more tokens than in the whole text's encoding, an over-budget cut gives
way in O(log budget) encodes, not one encode per token of the budget; counted, not timed."""
import math

from viz import token_budget


class PaddedBytes:
    """One id per byte for the whole text, but `extra` more for any other text, as if a
    piece alone always lost some merges: every cut near the budget is over it."""

    def __init__(self, whole, extra):
        self.whole, self.extra, self.calls = whole, extra, 0

    def encode(self, text, allowed_special="none"):
        self.calls += 1
        ids = list(text.encode("utf-8"))
        return ids if text == self.whole else ids + [0] * self.extra

    def decode_tokens_bytes(self, ids):
        return [bytes([i]) for i in ids]


def test_an_over_budget_cut_costs_log_encodes():
    text = "ab" * 20_000
    budget, extra = 1_000, 500
    tok = PaddedBytes(text, extra)
    pieces = token_budget.chunk_text(tok, text, budget)
    assert "".join(p.text for p in pieces) == text
    assert all(p.n_tokens <= budget for p in pieces)
    assert max(len(p.text) for p in pieces) == budget - extra  # still the latest that fits
    per_piece = (tok.calls - 1) / len(pieces)  # the first call is the whole text
    assert per_piece <= 2 * math.log2(budget) + 4, per_piece


def test_cuts_skip_the_middle_of_characters_without_a_table():
    text = "é東🫠a" * 3
    tok = PaddedBytes(text, 0)
    cuts = token_budget._cuts(tok, text, "none")
    # one id per byte: a cut after each character, at its character offset
    assert [c for _, c in cuts] == list(range(1, len(text) + 1))
    assert [n for n, _ in cuts] == [len(text[:c].encode()) for _, c in cuts]
