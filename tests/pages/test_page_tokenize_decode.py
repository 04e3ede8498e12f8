"""Tokenize's "Decode ids" on hostile input: an id past 2**32, an item of thousands of
digits and more ids than the view draws each get a sentence, never "This page stopped on
an unexpected error (OverflowError)"; and the count is bounded before anything is parsed
(300,000 ids once cost +989 MB: a box each in the view)."""
import re

import pytest

PAGE = "pages/tokenize.py"


def decode(at, text):
    at.text_area(key="tokenize_decode").input(text).run()
    assert not at.exception
    return [re.sub(r"\\(.)", r"\1", e.value) for e in at.error]  # as md() escaped shows


@pytest.mark.parametrize("typed, says", [
    ("99999999999999999999", "out of range"),
    ("1" * 5000, "too many for a token id"),
])
def test_out_of_range_ids_get_a_sentence(open_page, typed, says):
    at = open_page(PAGE)
    errors = decode(at, typed)
    assert any(says in e for e in errors), errors
    assert not any("unexpected error" in e for e in errors), errors


def test_too_many_ids_are_refused_before_parsing(open_page):
    at = open_page(PAGE)
    errors = decode(at, " ".join(["15339"] * 300_000))
    assert any("20,000" in e and "at a time" in e for e in errors), errors
    assert not at.get("bidi_component") or all(
        not e.proto.id.endswith("-tokenize_decoded") for e in at.get("bidi_component"))
    errors = decode(at, "15339 1917")  # a few ids still decode
    assert not errors and any(e.proto.id.endswith("-tokenize_decoded")
                              for e in at.get("bidi_component"))
