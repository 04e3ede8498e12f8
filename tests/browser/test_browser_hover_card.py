"""The hover card shows a token as its vocabulary writes it, in Chromium: a SentencePiece
model's "▁world" beside the text " world" the box draws; GPT-4's card has no such line."""
import urllib.parse

import pytest

from lab.share import pack_text

pytestmark = pytest.mark.browser


def _card_of_world(browser, app_url, tokenizer):
    """(piece line or None, text line) of the hover card over "world" in "Hello tokenizing
    world", opened by a link in a fresh tab."""
    from helpers.app import wait_rendered
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    tab = context.new_page()
    try:
        tab.goto(f"{app_url}/?" + urllib.parse.urlencode(
            {"tokenizer": tokenizer, "ztext": pack_text("Hello tokenizing world")}))
        wait_rendered(tab)
        token = tab.locator(".tv .tokens .tok", has_text="world").first
        token.wait_for(timeout=60_000)
        token.hover()
        card = tab.locator(".tv .tv-card").first
        card.wait_for(state="visible")
        piece = card.locator(".k-piece .v")
        return (piece.inner_text() if piece.count() else None,
                card.locator(".k-text .v").inner_text())
    finally:
        context.close()


def test_the_card_shows_a_sentencepiece_piece(browser, app_url):
    assert _card_of_world(browser, app_url, "Mistral v1 (SentencePiece)") == (
        '"\u2581world"', '" world"')


def test_a_vocabulary_of_bytes_has_no_piece_line(browser, app_url):
    assert _card_of_world(browser, app_url, "GPT-4 (cl100k_base)") == (None, '" world"')
