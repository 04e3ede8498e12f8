"""Tokenize and Compare in real Chromium: type text, read the "Tokens" metric and the
data-ids from the page, check them against GPT4Tokenizer; open Compare and train the
one-click pair. Screenshots go to screenshots/tokenize_*.png and compare_*.png."""
import re

from conftest import metrics, screenshot, wait_rendered

TEXT = "Hello <b>world</b>! 2026-11-23 안녕 👍🏽 — tokens\tand\nlines"


def ready(tab):
    """Wait for the page's first full run: its metrics are drawn, then nothing runs."""
    tab.locator('[data-testid="stMetric"]').first.wait_for(timeout=60_000)
    wait_rendered(tab)


def tall_screenshot(tab, name, height=2000):
    """Streamlit scrolls inside its own container, so a full-page shot is one viewport:
    make the viewport tall enough for the whole page first."""
    tab.set_viewport_size({"width": 1400, "height": height})
    wait_rendered(tab)
    screenshot(tab, name)



def view_ids(tab, nth=0):
    """The ids of the nth colored view, from its spans' data-ids."""
    ids = tab.locator(".tokens").nth(nth).evaluate(
        "el => Array.from(el.querySelectorAll('.tok')).map(s => s.dataset.ids)")
    return [int(i) for group in ids for i in group.split()]


def type_into(tab, text, characters):
    """Type into the text area and commit it (Ctrl+Enter), then wait for the new run:
    the Characters metric changes to the new text's length."""
    area = tab.locator('[data-testid="stTextArea"] textarea').first
    area.fill(text)
    area.press("Control+Enter")
    tab.wait_for_function(
        """n => Array.from(document.querySelectorAll('[data-testid="stMetric"]')).some(e =>
            e.innerText.includes('Characters') && e.innerText.includes(n))""",
        arg=characters, timeout=60_000)
    wait_rendered(tab)


def test_default_page_shows_gpt4_tokens(page, gpt4):
    from viz.samples import DEFAULT_SAMPLE, SAMPLES
    text = SAMPLES[DEFAULT_SAMPLE]
    ready(page)
    shown = metrics(page)
    assert shown["Tokens"] == f"{len(gpt4.encode(text)):,}"
    assert view_ids(page) == gpt4.encode(text)
    # st.html kept the renderer's <style>, inline colors and hover titles
    first = page.locator(".tokens .tok").first
    assert first.evaluate("e => getComputedStyle(e).borderTopLeftRadius") == "3px"
    assert first.evaluate("e => getComputedStyle(e).backgroundColor") != "rgba(0, 0, 0, 0)"
    assert first.get_attribute("title").startswith("span 0\nid: ")
    tall_screenshot(page, "tokenize_default", 1400)


def test_typed_text_tokens_match_gpt4(page, gpt4):
    ready(page)
    type_into(page, TEXT, f"{len(TEXT):,}")
    ids = gpt4.encode(TEXT)
    assert metrics(page)["Tokens"] == f"{len(ids):,}"
    assert view_ids(page) == ids
    # the HTML in the text is shown as text, not made into elements
    assert page.locator(".tokens b").count() == 0
    assert "<b>world</b>" in page.locator(".tokens").first.inner_text()
    page.get_by_text("Whitespace markers").click()
    wait_rendered(page)
    page.locator(".tokens .ws").first.wait_for()
    tall_screenshot(page, "tokenize_typed", 1300)
    page.get_by_role("tab", name="Table").click()
    page.locator('[data-testid="stDataFrame"]').first.wait_for()
    wait_rendered(page)
    screenshot(page, "tokenize_table")


def test_compare_trains_the_pair_and_shows_both_views(page):
    ready(page)
    page.get_by_role("link", name="Compare").click()
    button = page.get_by_role("button", name="Train Regex and Basic")
    button.wait_for(timeout=60_000)
    wait_rendered(page)
    screenshot(page, "compare_empty")
    button.click()
    # the pair is trained and picked: B's view is titled with its name
    page.get_by_text(re.compile(r"^B · Basic 512")).wait_for(timeout=60_000)
    wait_rendered(page)
    shown = metrics(page)
    assert {"Tokens A", "Tokens B", "Boundaries shared"} <= shown.keys()
    assert page.locator(".tokens").count() == 2
    assert view_ids(page, 0) and view_ids(page, 1)
    assert int(shown["Cross a category (B)"].replace(",", "")) > 0  # Basic crosses them
    tall_screenshot(page, "compare_pair", 1900)
