"""viz.token_budget: pieces within the budget, on token and character boundaries, text kept whole."""
import io
import json
import zipfile

import pytest

from bpe import BasicTokenizer, RegexTokenizer
from viz.token_budget import chunk_text, cut_kind, summary, to_jsonl, to_zip
from viz.samples import SAMPLES

TEXT = "\n".join(SAMPLES.values())


def check(tok, text, pieces, max_tokens):
    assert "".join(p.text for p in pieces) == text
    for i, p in enumerate(pieces, 1):
        assert p.index == i
        assert text[p.start:p.end] == p.text
        assert p.n_tokens == len(tok.encode(p.text, allowed_special="none")) <= max_tokens
    assert [p.start for p in pieces[1:]] == [p.end for p in pieces[:-1]]


@pytest.mark.parametrize("max_tokens", [7, 50, 100_000])
@pytest.mark.parametrize("prefer", ["tokens", "lines", "sentences"])
def test_pieces_within_budget_and_text_whole(gpt4, max_tokens, prefer):
    pieces = chunk_text(gpt4, TEXT, max_tokens, prefer=prefer)
    check(gpt4, TEXT, pieces, max_tokens)
    if max_tokens == 100_000:
        assert len(pieces) == 1 and pieces[0].cut == "end"


def test_budget_of_one_token(gpt4):
    text = SAMPLES["English prose"]
    pieces = chunk_text(gpt4, text, 1)
    check(gpt4, text, pieces, 1)
    assert [p.n_tokens for p in pieces] == [1] * len(gpt4.encode(text))


def test_cuts_fall_on_token_boundaries_of_the_whole_encoding(gpt4, taylorswift):
    text = taylorswift[:20_000]
    whole = gpt4.encode(text)
    pieces = chunk_text(gpt4, text, 64)
    assert sum(p.n_tokens for p in pieces) == len(whole)
    ids = [i for p in pieces for i in gpt4.encode(p.text)]
    assert ids == whole


def test_never_splits_a_character(gpt4):
    text = SAMPLES["Emoji"] + " 🫠🫠🫠 東京"
    for max_tokens in (3, 4, 5):
        pieces = chunk_text(gpt4, text, max_tokens)
        check(gpt4, text, pieces, max_tokens)
        assert all("\ufffd" not in p.text for p in pieces)


def test_a_character_over_budget_is_an_error(gpt4):
    # 🫠 takes 3 tokens in GPT-4, so a budget of 2 cannot hold it
    assert len(gpt4.encode("🫠")) == 3
    with pytest.raises(ValueError, match=r"no cut within 2 tokens of offset 1 \('🫠'…\) falls "
                                         "between two characters"):
        chunk_text(gpt4, "a🫠", 2)


def test_basic_tokenizer_fills_the_budget_exactly():
    tok = BasicTokenizer()
    pieces = chunk_text(tok, "abcdefghij", 3)
    assert [p.text for p in pieces] == ["abc", "def", "ghi", "j"]
    assert [p.cut for p in pieces] == ["token", "token", "token", "end"]


def test_prefers_line_ends(gpt4):
    text = "".join(f"line number {i} says something short\n" for i in range(40))
    by_lines = chunk_text(gpt4, text, 30, prefer="lines")
    assert all(p.text.endswith("\n") for p in by_lines)
    assert all(p.cut == "line" for p in by_lines[:-1])
    anywhere = chunk_text(gpt4, text, 30, prefer="tokens")
    assert not all(p.text.endswith("\n") for p in anywhere)
    assert len(anywhere) < len(by_lines)


def test_prefers_sentence_ends(gpt4):
    text = " ".join(f"Sentence {i} is here, and it goes on a while." for i in range(30))
    pieces = chunk_text(gpt4, text, 40, prefer="sentences")
    assert all(p.text.endswith(".") for p in pieces)
    assert all(p.cut == "sentence" for p in pieces[:-1])


def test_a_preferred_cut_too_early_is_not_taken(gpt4):
    # the only line end is after 1 token of a 20-token budget: cutting there wastes it
    text = "Hi\n" + "word " * 60
    pieces = chunk_text(gpt4, text, 20, prefer="lines")
    assert pieces[0].n_tokens == 20 and pieces[0].cut == "token"


def test_cut_kind():
    text = "One. Two!\nThree。四"
    assert cut_kind(text, 4) == "sentence"
    assert cut_kind(text, 5) == "token"
    assert cut_kind(text, 10) == "line"
    assert cut_kind(text, 16) == "sentence"
    assert cut_kind(text, len(text)) == "end"


def test_a_piece_that_costs_more_alone_moves_the_cut_earlier():
    class Fussy(BasicTokenizer):
        """Charges one token more for any text ending in 'b' (as a split pattern may
        treat the end of a piece differently from the middle of the text)."""

        def encode(self, text, allowed_special="none_raise"):
            ids = super().encode(text, allowed_special=allowed_special)
            return ids + [0] if text.endswith("b") and text != "b" else ids
    tok = Fussy()
    text = "abababab"
    pieces = chunk_text(tok, text, 2)
    check(tok, text, pieces, 2)
    assert pieces[0].text == "a"


def test_special_token_text_is_ordinary_by_default():
    tok = RegexTokenizer().train("hello world " * 10, 260)
    tok.register_special_tokens({"<|end|>": 300})
    pieces = chunk_text(tok, "hi<|end|>there", 100)
    assert pieces[0].n_tokens == len(tok.encode("hi<|end|>there", allowed_special="none"))
    special = chunk_text(tok, "hi<|end|>there", 100, allowed_special="all")
    assert special[0].n_tokens < pieces[0].n_tokens


@pytest.mark.parametrize("args, message", [
    ((0,), "max_tokens must be a whole number of at least 1, not 0"),
    ((2.5,), "not 2.5"),
    ((True,), "not True"),
])
def test_bad_budget(args, message):
    with pytest.raises(ValueError, match=message):
        chunk_text(BasicTokenizer(), "abc", *args)


def test_bad_preference():
    with pytest.raises(ValueError, match="prefer must be one of tokens, lines, sentences"):
        chunk_text(BasicTokenizer(), "abc", 5, prefer="words")


def test_empty_text_has_no_pieces():
    assert chunk_text(BasicTokenizer(), "", 5) == []
    assert summary([]) == {"pieces": 0, "largest": 0, "tokens": 0}


def test_downloads(gpt4):
    pieces = chunk_text(gpt4, TEXT, 40)
    rows = [json.loads(line) for line in to_jsonl(pieces).splitlines()]
    assert [r["text"] for r in rows] == [p.text for p in pieces]
    assert rows[0].keys() == {"index", "text", "n_tokens", "start", "end", "cut"}
    with zipfile.ZipFile(io.BytesIO(to_zip(pieces))) as zf:
        names = zf.namelist()
        assert names[0] == "piece_0001.txt" and len(names) == len(pieces)
        assert "".join(zf.read(n).decode("utf-8") for n in names) == TEXT
    assert summary(pieces) == {"pieces": len(pieces),
                               "largest": max(p.n_tokens for p in pieces),
                               "tokens": sum(p.n_tokens for p in pieces)}
