"""viz.tokens and the modules it names: spans of whole characters, display_text (the one
renderer), view_row (linear, grapheme clusters included), the palette and pair_view."""

import pytest

from bpe import BasicTokenizer, RegexTokenizer
from viz.tokens import token_spans

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


# --- the token view's data: display_text (the one renderer) and view_row -----------------

from hypothesis import given, settings, strategies as st_  # noqa: E402

from viz.display import VIEW_MARKS, display_text, invisible_name  # noqa: E402
from viz.palette import VIEW_PALETTE, contrast  # noqa: E402
from viz.rows import view_row  # noqa: E402

INVISIBLE = "a\u200bb\u0000c\ufeffd"
SNEAKY = ["\x00", "\x07", "\x1b", "\x7f", "\x85", "\u00ad", "\u061c", "\u200b", "\u200c",
          "\u200d", "\u200e", "\u200f", "\u202a", "\u202b", "\u202c", "\u202d", "\u202e",
          "\u2060", "\u2066", "\u2067", "\u2068", "\u2069", "\ufeff", "\ufe0f", "\U000e0041",
          "\U000e0100"]


@pytest.mark.parametrize("ch", SNEAKY)
def test_every_invisible_or_bidi_character_gets_a_named_marker(ch):
    shown = display_text(("x" + ch + "y").encode())
    assert ch not in shown
    assert shown == f"x⟨{invisible_name(ch)}⟩y"


def test_display_text_keeps_emoji_glyphs_whole_and_shows_partial_bytes_as_hex():
    family = "👨\u200d👩\u200d👧"
    assert display_text(family.encode()) == family       # its joiners make one glyph
    assert display_text("❤\ufe0f".encode()) == "❤\ufe0f"
    assert display_text("a\u200db".encode()) == "a⟨ZWJ⟩b"  # a joiner between letters shows
    assert display_text("👋".encode()[:3]) == "⟨f0 9f 91⟩"   # never a bare "�"
    assert "\ufffd" not in display_text(b"\xff\xfe ok")


def test_display_text_whitespace_modes():
    assert display_text(b" a\tb\n") == " a\tb\n"
    assert display_text(b" a\tb\n", whitespace="markers") == "·a→b↵\n"
    assert display_text(b" a\tb\n", whitespace="gpt2") == "ĠaĉbĊ"
    with pytest.raises(ValueError, match="whitespace must be"):
        display_text(b"a", whitespace="dots")


def test_view_marks_cannot_be_forged_by_the_text():
    shown = display_text("\x01ZWSP\x02".encode(), marks=VIEW_MARKS)
    assert shown == "\x01SOH\x02ZWSP\x01STX\x02"


def _check_row(row, ids, text):
    assert row["ids"] == ids
    assert sum(row["n"]) == len(ids) == len(row["nb"])
    assert sum(row["nb"]) == len(text.encode("utf-8"))
    assert sum(row["nc"]) == len(text) == sum(len(s) for s in _spans_text(row, text))
    assert len(row["show"]) == len(row["n"]) == len(row["nc"])


def _spans_text(row, text):
    out, at = [], 0
    for nc in row["nc"]:
        out.append(text[at:at + nc])
        at += nc
    return out


def test_view_row_draws_each_grapheme_cluster_once(gpt4):
    text = "Hi 👋🏽 🇺🇳 👨\u200d👩\u200d👧 " + INVISIBLE
    ids = gpt4.encode_ordinary(text)
    row = view_row(gpt4.decode_tokens_bytes(ids), ids)
    _check_row(row, ids, text)
    pieces = _spans_text(row, text)
    for cluster in ("👋🏽", "🇺🇳", "👨\u200d👩\u200d👧"):
        holder = [p for p in pieces if cluster in p]
        assert len(holder) == 1, cluster  # one box holds the whole cluster
        s = pieces.index(holder[0])
        assert row["n"][s] > 1
    assert ["a", "\x01ZWSP\x02", "b", "\x01NUL\x02", "c", "\x01BOM\x02", "d"] == \
        [s.strip() for s in row["show"][-7:]]


@settings(max_examples=60, deadline=None)
@given(st_.text(alphabet=st_.sampled_from(list("ab \n\r\t") + SNEAKY +
                                          ["👋", "🏽", "🇺", "🇳", "é", "\u0301", "안"]),
                max_size=40))
def test_view_row_covers_any_text_exactly(gpt4, text):
    ids = gpt4.encode_ordinary(text)
    row = view_row(gpt4.decode_tokens_bytes(ids), ids)
    _check_row(row, ids, text)


def test_view_row_of_bytes_that_are_not_text():
    row = view_row([b"\xf0\x9f", b"a"], [1, 2])
    assert row["show"] == ["\x01f0 9f\x02", "a"] and row["nb"] == [2, 1]


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_token_colors_keep_text_contrast_in_both_themes(theme):
    ink = VIEW_PALETTE[f"ink_{theme}"]
    assert len(VIEW_PALETTE[theme]) == 12  # the CSS has classes c0..c11
    for background in VIEW_PALETTE[theme]:
        assert contrast(ink, background) >= 4.5, background


def test_pair_view_cuts_the_text_at_every_boundary_of_either(gpt4):
    from viz.pair import pair_view
    text = "Hello world! 👋🏽 don't"
    basic = BasicTokenizer()
    ids_a, ids_b = gpt4.encode_ordinary(text), basic.encode(text)
    row_a = view_row(gpt4.decode_tokens_bytes(ids_a), ids_a)
    row_b = view_row(basic.decode_tokens_bytes(ids_b), ids_b)
    pieces = pair_view(row_a, row_b, text.encode())["pieces"]
    assert sum(pieces["nb"]) == len(text.encode()) and sum(pieces["nc"]) == len(text)
    assert pieces["sa"][-1] == len(row_a["n"]) - 1 and pieces["sb"][-1] == len(row_b["n"]) - 1
    assert "".join(pieces["show"]) == text
    with pytest.raises(ValueError, match="same text"):
        pair_view(row_a, view_row([b"x"], [120]), text.encode())


# --- view_row's fast path (ASCII runs in bulk) against its careful path over everything ---
from viz.rows import view_spans  # noqa: E402  (the careful path, public for this check)

PIECES = list("ab \n\r\t\x00\x7f") + SNEAKY + ["👋", "🏽", "🇺", "🇳", "é", "\u0301", "안",
                                              "\u0600", "\r\n"]


def _careful_row(token_bytes, whitespace):
    n, nc, show, parts = [], [], [], []
    view_spans(list(token_bytes), whitespace, n, nc, show, parts)
    return {"n": n, "nc": nc, "show": show, "parts": parts}


@settings(max_examples=150, deadline=None)
@given(st_.lists(st_.sampled_from(PIECES), max_size=30), st_.data(),
       st_.sampled_from([None, "markers", "oneline", "gpt2"]))
def test_view_row_fast_path_equals_the_careful_path(pieces, data, whitespace):
    """Tokens cut anywhere in the bytes (inside characters too): the bulk ASCII path must
    give exactly what the careful character/grapheme rules give over the whole text."""
    raw = "".join(pieces).encode()
    cuts = sorted(data.draw(st_.sets(st_.integers(1, max(1, len(raw) - 1)), max_size=len(raw))))
    bounds = [0] + [c for c in cuts if 0 < c < len(raw)] + [len(raw)]
    token_bytes = [raw[a:b] for a, b in zip(bounds, bounds[1:]) if b > a]
    row = view_row(token_bytes, list(range(len(token_bytes))), whitespace=whitespace)
    expected = _careful_row(token_bytes, whitespace)
    assert {k: row[k] for k in expected} == expected


@pytest.mark.parametrize("token_bytes", [
    [b"a", "\u0301".encode(), b"b"],            # a combining mark joins the ASCII before it
    [b"x", "\u0600".encode(), b"1"],            # a prepended mark joins the ASCII after it
    [b"a\r", b"\nb"], [b"\r", b"\n"],           # CR|LF is one cluster
    [b"a", "👋".encode()[:2], "👋".encode()[2:], b" b"]])
def test_view_row_fast_path_at_the_edges_of_ascii(token_bytes):
    for whitespace in (None, "markers"):
        row = view_row(token_bytes, list(range(len(token_bytes))), whitespace=whitespace)
        expected = _careful_row(token_bytes, whitespace)
        assert {k: row[k] for k in expected} == expected


def test_view_row_fast_path_on_a_real_text_with_crlf(gpt4, taylorswift):
    text = taylorswift[:20_000].replace("\n", "\r\n") + " 👋🏽 done\x00"
    ids = gpt4.encode_ordinary(text)
    token_bytes = gpt4.decode_tokens_bytes(ids)
    for whitespace in (None, "markers"):
        row = view_row(token_bytes, ids, whitespace=whitespace)
        _check_row(row, ids, text)
        expected = _careful_row(token_bytes, whitespace)
        assert {k: row[k] for k in expected} == expected


def test_oneline_whitespace_keeps_a_row_on_one_line(gpt4):
    text = "a b\n\tc\r\nd"
    ids = gpt4.encode_ordinary(text)
    row = view_row(gpt4.decode_tokens_bytes(ids), ids, whitespace="oneline")
    assert "".join(row["show"]) == "a·b↵→c␍↵d"
    assert not any("\n" in s for s in row["show"])
    assert display_text(b"x\n", whitespace="oneline") == "x↵"
    with pytest.raises(ValueError, match="'oneline'"):
        view_row([b"a"], [1], whitespace="lines")


from viz import rows as tokens_module  # noqa: E402


def _cluster_rows(base, mark, n, split):
    """Token bytes of base + mark * n, each mark its own token (split: each of its bytes)."""
    pieces = [base.encode()]
    for _ in range(n):
        encoded = mark.encode()
        pieces.extend([encoded[k:k + 1] for k in range(len(encoded))] if split else [encoded])
    return pieces


@pytest.mark.parametrize("base, mark, split", [("e", "\u0301", False), ("👨", "\u200d", False),
                                               ("e", "\u0301", True), ("👨", "\u200d👨", False)])
def test_view_row_work_grows_linearly_in_one_long_grapheme_cluster(base, mark, split):
    """Issue 24: one cluster of n combining marks (or ZWJs) was quadratic in n. The work
    counter (bytes decoded, characters read by the cluster rule) at n, 2n and 4n must grow
    like n, and no box holds more than CLUSTER_LIMIT characters of one cluster."""
    work = []
    for n in (2_000, 4_000, 8_000):
        token_bytes = _cluster_rows(base, mark, n, split)
        tokens_module.WORK.update(decode=0, cluster=0)
        row = view_row(token_bytes, list(range(len(token_bytes))))
        work.append(sum(tokens_module.WORK.values()))
        assert sum(row["nb"]) == len(b"".join(token_bytes))
        assert max(row["nc"]) <= tokens_module.CLUSTER_LIMIT + len(mark)
    assert work[1] <= 2.1 * work[0] and work[2] <= 2.1 * work[1], work


def test_a_cluster_past_the_limit_is_cut_where_tokens_end():
    token_bytes = _cluster_rows("e", "\u0301", 200, split=False)
    row = view_row(token_bytes, list(range(len(token_bytes))))
    assert row["nc"][0] == tokens_module.CLUSTER_LIMIT  # "e" + 63 marks, then the rest
    assert sum(row["nc"]) == 201 and sum(row["n"]) == len(token_bytes)
