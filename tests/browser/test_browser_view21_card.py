"""The hover card shows a token as its vocabulary writes it, in Chromium: a SentencePiece
model's "▁world" beside the text " world" the box draws; GPT-4's card has no such line."""
import urllib.parse

import pytest

from lab.share import pack_text

pytestmark = pytest.mark.browser


def _open(browser, app_url, tokenizer, text):
    from helpers.app import wait_rendered
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    tab = context.new_page()
    tab.goto(f"{app_url}/?" + urllib.parse.urlencode({"tokenizer": tokenizer,
                                                       "ztext": pack_text(text)}))
    wait_rendered(tab)
    return context, tab


def test_the_card_shows_a_sentencepiece_piece(browser, app_url):
    context, tab = _open(browser, app_url, "Mistral v1 (SentencePiece)", "Hello tokenizing world")
    try:
        token = tab.locator(".tv .tokens .tok", has_text="world").first
        token.wait_for(timeout=60_000)
        token.hover()
        card = tab.locator(".tv .tv-card").first
        card.wait_for(state="visible")
        assert card.locator(".k-piece .v").inner_text() == '"\u2581world"'
        assert card.locator(".k-text .v").inner_text() == '" world"'
    finally:
        context.close()


def test_a_vocabulary_of_bytes_has_no_piece_line(browser, app_url):
    context, tab = _open(browser, app_url, "GPT-4 (cl100k_base)", "Hello tokenizing world")
    try:
        token = tab.locator(".tv .tokens .tok", has_text="world").first
        token.wait_for(timeout=60_000)
        token.hover()
        card = tab.locator(".tv .tv-card").first
        card.wait_for(state="visible")
        assert card.locator(".k-text .v").inner_text() == '" world"'
        assert card.locator(".k-piece").count() == 0
    finally:
        context.close()
