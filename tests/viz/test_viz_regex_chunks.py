"""Chunk overlay: chunks cover the text, skipped text is flagged, tokens crossing chunks
are found, bad and catastrophic patterns stop with a message."""
import pytest

from bpe import BasicTokenizer, compile_pattern
from bpe.patterns import PATTERNS as PRESETS
from viz.marks import span_char_starts
from viz.regex_chunks import (Chunk, chunk_frame, chunk_starts, crossing_spans,
                              find_chunks, span_chunks)
from viz.samples import SAMPLES
from viz.rows import view_row


@pytest.mark.parametrize("preset", list(PRESETS))
def test_preset_chunks_are_the_tokenizers_chunks(preset):
    _, compiled = compile_pattern(PRESETS[preset])
    for text in SAMPLES.values():
        found = find_chunks(PRESETS[preset], text)
        assert [text[c.start:c.end] for c in found] == compiled.findall(text)
        assert all(c.matched for c in found)
        assert found[0].start == 0 and found[-1].end == len(text)
        assert all(a.end == b.start for a, b in zip(found, found[1:]))


def test_skipped_text_becomes_unmatched_chunks():
    found = find_chunks(r"\w+", "hi, yo!")
    assert [(c.start, c.end, c.matched) for c in found] == [
        (0, 2, True), (2, 4, False), (4, 6, True), (6, 7, False)]
    # empty matches cut nothing
    assert [(c.start, c.end, c.matched) for c in find_chunks(r"x*", "ab")] == [(0, 2, False)]


def test_invalid_pattern_says_what_to_do():
    with pytest.raises(ValueError, match="invalid split pattern.*preset"):
        find_chunks("(unclosed", "text")


def test_catastrophic_pattern_stops_with_a_message():
    with pytest.raises(TimeoutError, match="stopped.*backtracks"):
        find_chunks(r"(a|a)+$", "a" * 40 + "!", timeout=0.2)


def view(tok, ids):
    return view_row(tok.decode_tokens_bytes(ids), ids)


def test_own_tokens_never_cross_own_chunks(gpt4):
    for text in SAMPLES.values():
        row = view(gpt4, gpt4.encode(text))
        assert crossing_spans(row, find_chunks(PRESETS["gpt4"], text)) == []


def test_tokens_of_a_pattern_free_tokenizer_cross_chunks():
    text = "of the of the of the of the, and the end"
    tok = BasicTokenizer().train(text * 10, 256 + 20)  # merges across spaces
    row = view(tok, tok.encode(text))
    found = find_chunks(PRESETS["gpt4"], text)
    crossing = crossing_spans(row, found)
    assert crossing
    starts = chunk_starts(found)
    offsets = span_char_starts(row)
    for i, (start, end) in enumerate(zip(offsets, offsets[1:])):
        inside = any(start < b < end for b in starts)
        assert (i in crossing) == inside
    assert span_chunks(row, found) == [
        max(j for j, b in enumerate(starts) if b <= start) for start in offsets[:-1]]


def test_crossing_at_the_edges():
    tok = BasicTokenizer()
    row = view(tok, list(b"abcd"))
    assert crossing_spans(row, [Chunk(0, 2, True), Chunk(2, 4, True)]) == []
    ab = BasicTokenizer().train("ab" * 10, 257)  # one merge: "ab"
    row = view(ab, ab.encode("xab"))
    assert row["show"] == ["x", "ab"]
    assert crossing_spans(row, [Chunk(0, 2, True), Chunk(2, 3, True)]) == [1]


def test_chunk_table(gpt4):
    text = SAMPLES["Whitespace"]
    found = find_chunks(PRESETS["gpt4"], text)
    ids = gpt4.encode(text)
    table = chunk_frame(text, found, view(gpt4, ids))
    assert len(table) == len(found) and table["tokens"].sum() == len(ids)
    assert table["#"].tolist() == list(range(len(found)))
    assert "·" in "".join(table["text"]) and "↵" in "".join(table["text"])
    assert "\n" not in "".join(table["text"])  # a newline is a marker, on one line
