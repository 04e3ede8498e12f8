"""Arena in real Chromium: four tokenizers stacked on a shipped sample, their ids read back
from the page and checked against our tokenizers; all eight on the sample table.
Screenshots: screenshots/arena_{light,dark}_{1400,800}.png, all four from one load (the
window narrowed and the scheme switched live)."""
from helpers.app import scheme_of, screenshot, switch_scheme, until, wait_rendered

from bpe import reference

FOUR = ["cl100k_base", "o200k_base", "llama3", "tekken"]


def open_arena(browser, app_url, width):
    context = browser.new_context(viewport={"width": width, "height": 1000},
                                  color_scheme="light")
    tab = context.new_page()
    tab.goto(app_url + "/arena")
    tab.locator(".tokens [data-ids]").first.wait_for(timeout=90_000)
    wait_rendered(tab)
    return context, tab


def lane_ids(tab, nth):
    ids = tab.locator(".tokens").nth(nth).evaluate(
        "el => Array.from(el.querySelectorAll('.tok[data-ids]')).map(s => s.dataset.ids)")
    return [int(i) for group in ids for i in group.split()]


def test_four_tokenizers_stacked_and_screenshots(browser, app_url):
    """Loaded once at 1400 px in light; the ids are checked there, then the page is shot
    in light and dark (switched live, helpers.app.switch_scheme) at 1400 px, and again
    after the window is narrowed live to 800 px: the views' scheme is checked in each."""
    context, tab = open_arena(browser, app_url, 1400)
    try:
        text = tab.get_by_label("Text for every tokenizer", exact=True).input_value()
        for nth, name in enumerate(FOUR):
            tok = reference.load_reference(name)
            assert lane_ids(tab, nth) == tok.encode(text, allowed_special="none")
        assert tab.get_by_text("ids ==").count() >= 4
        assert tab.get_by_text("ids !=").count() == 0
        assert tab.locator('[data-testid="stVegaLiteChart"]').count() == 1
        tab.set_viewport_size({"width": 1400, "height": 4600})
        tab.locator('[data-testid="stExpander"] summary', has_text="Llama 3").click()
        tab.locator('[data-testid="stExpander"] summary', has_text="Mistral Tekken").click()
        wait_rendered(tab)
        for scheme, width in (("light", 1400), ("dark", 1400), ("dark", 800), ("light", 800)):
            if width != tab.viewport_size["width"]:
                tab.set_viewport_size({"width": width, "height": 4600})
                wait_rendered(tab)
            if scheme != scheme_of(tab):
                switch_scheme(tab, scheme)
            tab.evaluate("document.querySelectorAll('*').forEach(e => { e.scrollTop = 0; })")
            assert tab.locator(".tokens").count() == 8  # 4 lanes + 4 chat renderings
            views = tab.locator(".tv").count()  # the lanes, the chats and the live boxes
            assert views >= 8 + 1 + 4
            want = views if scheme == "dark" else 0
            # the views repaint on the media query's change event, after the app's frame
            assert until(lambda want=want: tab.locator(".tv.dark").count() == want), \
                (tab.locator(".tv.dark").count(), want)
            screenshot(tab, f"arena_{scheme}_{width}")
    finally:
        context.close()


def test_the_lanes_and_the_chat_cost_follow_typing(browser, app_url):
    """Issue 21: Arena's text and its chat messages are live boxes: no Ctrl+Enter."""
    context, tab = open_arena(browser, app_url, 1400)
    try:
        before = lane_ids(tab, 0)
        tab.get_by_label("Text for every tokenizer", exact=True).fill("live lanes 123")
        tab.locator(".tokens", has_text="lanes").first.wait_for(timeout=60_000)
        wait_rendered(tab)
        ids = lane_ids(tab, 0)
        assert ids != before
        assert ids == reference.load_reference("cl100k_base").encode("live lanes 123")
        summary = tab.locator('[data-testid="stExpander"] summary', has_text="GPT-4 (cl100k_base)")
        cost = summary.inner_text()
        tab.get_by_label("Message 4", exact=True).fill("Show me one. " * 40)
        tab.wait_for_function(
            "([old]) => Array.from(document.querySelectorAll('[data-testid=\"stExpander\"] summary'))"
            ".some(s => s.innerText.includes('GPT-4 (cl100k_base)') && s.innerText !== old)",
            arg=[cost], timeout=60_000)
    finally:
        context.close()
