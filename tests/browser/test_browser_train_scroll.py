"""Train brings its progress panel, then its result, into view with st.html's script, not the deprecated
components.html iframe."""
import pytest
from helpers.app import until, wait_rendered

WAIT = 120_000
SCROLLED = """() => Math.max(...[document.scrollingElement,
    ...document.querySelectorAll('[data-testid="stMain"], [data-testid="stAppViewContainer"]')]
    .map(el => el ? el.scrollTop : 0))"""


RESULT_IN_VIEW = """() => { const r = document.getElementById("result")?.getBoundingClientRect();
    return !!r && r.top >= 0 && r.top < window.innerHeight; }"""


@pytest.fixture
def page(start_on):
    """A fresh tab, 800 x 600 (the Train button is far below), straight on the Train page."""
    return start_on("train", 800, 600)


def test_a_finished_training_scrolls_its_result_into_view_without_an_iframe(page):
    page.get_by_text("Train a tokenizer").first.wait_for(timeout=60_000)
    wait_rendered(page)
    page.locator(".st-key-train_vocab_size input").fill("300")
    button = page.locator(".st-key-train_submit button")
    button.scroll_into_view_if_needed()
    assert page.evaluate(SCROLLED) > 0
    button.click()
    page.get_by_text("Added to this session as").wait_for(timeout=WAIT)
    assert until(lambda: page.evaluate(RESULT_IN_VIEW), timeout=30)
    assert page.locator("iframe").count() == 0
