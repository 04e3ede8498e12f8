"""Spans and the token HTML: grouping split characters, colors, escaping, markers."""
import re

import pytest

from bpe import BasicTokenizer, RegexTokenizer
from viz.tokens import PALETTE, span_colors, token_spans, tokens_html, truncated

TEXT = "Hi <b>there</b> 😉\tok\n안녕 👨‍👩‍👧"


@pytest.fixture(scope="module")
def tok():
    return RegexTokenizer().train("Hi there ok " * 20, 256 + 10)


def test_spans_cover_the_text_exactly(gpt4, tok):
    for t in (gpt4, tok, BasicTokenizer()):
        ids = t.encode(TEXT)
        spans = token_spans(t, ids)
        assert "".join(s.text for s in spans) == TEXT
        assert [i for s in spans for i in s.ids] == ids
        assert all(a.end == b.start and a.byte_end == b.byte_start
                   for a, b in zip(spans, spans[1:]))
        assert spans[-1].byte_end == len(TEXT.encode())


def test_tokens_splitting_a_character_become_one_span():
    spans = token_spans(BasicTokenizer(), list("a😉b".encode()))
    assert [s.text for s in spans] == ["a", "😉", "b"]
    assert spans[1].ids == (240, 159, 152, 137) and spans[1].hex == "f0 9f 98 89"


def test_gpt4_emoji_bytes_group_into_characters(gpt4):
    ids = gpt4.encode("🫠")
    assert len(ids) > 1  # GPT-4 has no single token for it
    assert [s.text for s in token_spans(gpt4, ids)] == ["🫠"]


def test_invalid_utf8_is_shown_replaced_not_lost():
    spans = token_spans(BasicTokenizer(), [0xFF, 97])
    assert [s.text for s in spans] == ["\ufffd", "a"]


def test_neighbours_never_share_a_color_by_position(gpt4):
    colors = span_colors(token_spans(gpt4, gpt4.encode(TEXT * 5)))
    assert all(a != b for a, b in zip(colors, colors[1:]))


def test_same_token_same_color_by_id(gpt4):
    spans = token_spans(gpt4, gpt4.encode("cat dog cat dog cat"))
    colors = span_colors(spans, "id")
    by_ids = {}
    for span, color in zip(spans, colors):
        assert by_ids.setdefault(span.ids, color) == color
    assert set(colors) <= set(PALETTE)


def test_html_is_escaped_and_carries_ids(gpt4):
    ids = gpt4.encode("<script>alert(1)</script> <img onerror=x>")
    out = tokens_html(token_spans(gpt4, ids))
    assert "<script>alert" not in out and "<img" not in out
    assert "&lt;" in out
    found = [int(i) for group in re.findall(r'data-ids="([^"]*)"', out) for i in group.split()]
    assert found == ids


def test_whitespace_markers_keep_line_breaks(gpt4):
    out = tokens_html(token_spans(gpt4, gpt4.encode("a b\tc\nd")), whitespace="markers")
    assert "·" in out and "→" in out and "↵</span>\n" in out
    gpt2 = tokens_html(token_spans(gpt4, gpt4.encode("a b")), whitespace="gpt2")
    assert "Ġ" in gpt2
    with pytest.raises(ValueError, match="whitespace"):
        tokens_html([], whitespace="dots")


def test_hover_shows_ids_hex_and_position(gpt4):
    out = tokens_html(token_spans(gpt4, gpt4.encode("hello world")))
    assert 'title="span 1\nid: 1917\nbytes: 20 77 6f 72 6c 64\nchars 5–11, bytes 5–11"' in out


def test_limit_draws_part_and_says_so(gpt4):
    spans = token_spans(gpt4, gpt4.encode("word " * 300))
    out = tokens_html(spans, limit=100)
    assert out.count('class="tok"') == 100
    assert f"first 100 of {len(spans)} tokens" in truncated(spans, limit=100)
    per_char = len(gpt4.encode("🫠"))  # several tokens, one span
    emoji = token_spans(gpt4, gpt4.encode("🫠" * 300))
    assert f"first {100 * per_char} of {300 * per_char} tokens" in truncated(emoji, limit=100)
    assert truncated(spans[:50], limit=100) is None


def test_chunk_underline_and_highlight(gpt4):
    spans = token_spans(gpt4, gpt4.encode("ab cd"))
    out = tokens_html(spans, chunk_starts=[0, 2], highlight={1})
    assert out.count("border-bottom") == 2 and out.count("outline:") == 1
