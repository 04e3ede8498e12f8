"""The Methods page in real Chromium: pick two methods, train them side by side in the
worker, and see the report card, the aligned view and the blame sum check."""
import pytest
from helpers.app import WAIT, wait_rendered


@pytest.mark.slow
def test_train_two_methods_and_see_the_report_card(browser, app_url):
    # its own tab, straight to /methods (the page fixture's would load the home page first)
    context = browser.new_context(viewport={"width": 1400, "height": 2400})
    page = context.new_page()
    try:
        train_two_methods(page, app_url)
    finally:
        context.close()


def train_two_methods(page, app_url):
    page.goto(app_url + "/methods")
    # the page's own text, not only "not running": a fresh session straight to /methods
    # can be between runs with its main block still empty (a quiet CI run saw '')
    page.get_by_text("Pick two or more methods").wait_for(timeout=WAIT)
    wait_rendered(page)
    main = page.locator('[data-testid="stMain"]')
    assert "Pick two or more methods" in main.inner_text()
    page.locator(".st-key-methods_vocab_size input").fill("400")
    page.locator(".st-key-methods_vocab_size input").press("Enter")
    wait_rendered(page)
    page.locator(".st-key-methods_train button").click()
    page.get_by_text("Report card").wait_for(timeout=WAIT)
    wait_rendered(page)
    text = main.inner_text()
    assert "2 methods side by side, vocab size 400" in text
    assert "Traceback" not in text
    main.locator('[data-testid="stDataFrame"]').first.wait_for(timeout=WAIT)  # the card
    page.get_by_text("they agree exactly").wait_for(timeout=WAIT)
    # both joined the session: the sidebar lists them
    sidebar = page.locator('[data-testid="stSidebar"]').inner_text()
    assert "bpe 400 (Shakespeare)" in sidebar and "picky 400 (Shakespeare)" in sidebar
