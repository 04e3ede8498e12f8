"""Merge replay in real Chromium: move the slider with the keyboard and see the token count
change to what encoding with that many merges gives. Also opens each of the five learning
views once, checks what only a browser shows (the Graphviz SVG, the chunk underlines) and
saves screenshots/views_*.png."""
import pytest
from helpers.app import metrics, screenshot, wait_rendered

from bpe.replay import encode_with_first_merges, merge_parents
from viz.samples import DEFAULT_SAMPLE, SAMPLES


@pytest.fixture
def page(browser):
    """A fresh tab (its own Streamlit session) on no page yet: each test goes straight to
    its view. conftest's page would first load and run the home page, in a session these
    tests leave at once (a goto starts a new one)."""
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    yield context.new_page()
    context.close()


def open_view(tab, app_url, path):
    tab.goto(f"{app_url}/{path}")
    tab.locator('[data-testid="stMainBlockContainer"] h1').first.wait_for(timeout=60_000)
    wait_rendered(tab)


def pick(tab, label, option):
    """Choose option in the selectbox labelled label, and wait for the rerun."""
    tab.get_by_role("combobox", name=label, exact=True).click()
    tab.get_by_role("option", name=option, exact=True).click()
    wait_rendered(tab)


def tall_screenshot(tab, name, height=1800):
    """Streamlit scrolls inside its own container: make the viewport hold the page."""
    tab.set_viewport_size({"width": 1400, "height": height})
    wait_rendered(tab)
    screenshot(tab, name)


def test_replay_slider_changes_the_token_count(page, app_url, gpt4):
    text = SAMPLES[DEFAULT_SAMPLE]
    parents = merge_parents(gpt4)
    open_view(page, app_url, "replay")
    k0 = 100  # the page's first k
    # wait for the figure itself: the metrics draw one after another, so the first one
    # on screen is no sign that "Tokens at this k" is there yet
    page.wait_for_function(
        """want => Array.from(document.querySelectorAll('[data-testid="stMetric"]')).some(e =>
            e.innerText.includes('Tokens at this k') && e.innerText.includes(want))""",
        arg=f"{len(encode_with_first_merges(gpt4, text, k0, parents)):,}", timeout=60_000)
    assert metrics(page)["Tokens at this k"] == \
        f"{len(encode_with_first_merges(gpt4, text, k0, parents)):,}"

    # the slider's thumb is a visually hidden <input type="range"> (react-aria)
    thumb = page.locator('[data-testid="stSlider"] input[type="range"]').first
    thumb.focus()
    thumb.press("PageUp")  # a big step; the arrows move k by one
    page.wait_for_function(
        """k0 => {
            const t = document.querySelector('[data-testid="stSlider"] input[type="range"]');
            return t && Number(t.value) > k0;
        }""", arg=k0, timeout=30_000)
    wait_rendered(page)
    k = int(thumb.input_value())
    expected = f"{len(encode_with_first_merges(gpt4, text, k, parents)):,}"
    page.wait_for_function(
        """want => Array.from(document.querySelectorAll('[data-testid="stMetric"]')).some(e =>
            e.innerText.includes('Tokens at this k') && e.innerText.includes(want))""",
        arg=expected, timeout=30_000)
    assert metrics(page)["Tokens at this k"] == expected
    assert expected != f"{len(encode_with_first_merges(gpt4, text, k0, parents)):,}"
    # the exact-k box followed the slider
    assert page.locator('[data-testid="stNumberInput"] input').first.input_value() == str(k)
    # jump to the next merge this text uses: its tokens are outlined (the token view's
    # boxes live in a shadow root, which Playwright's locators pierce)
    page.get_by_role("button", name="Next merge it uses").click()
    page.locator(".tv .tok.m-outline").first.wait_for(timeout=30_000)
    wait_rendered(page)
    assert page.locator(".tv .tok.m-outline").first.evaluate(
        "e => getComputedStyle(e).outlineStyle") == "solid"
    assert int(thumb.input_value()) > k
    tall_screenshot(page, "views_replay")


def test_play_steps_through_merges_until_stopped(page, app_url):
    open_view(page, app_url, "replay")
    thumb = page.locator('[data-testid="stSlider"] input[type="range"]').first
    start = int(thumb.input_value())
    page.get_by_role("button", name="Play").click()
    # the timed fragment moves k on its own, more than once
    page.wait_for_function(
        """start => Number(document.querySelector(
            '[data-testid="stSlider"] input[type="range"]').value) > start""",
        arg=start, timeout=30_000)
    first = int(thumb.input_value())
    page.wait_for_function(
        """k => Number(document.querySelector(
            '[data-testid="stSlider"] input[type="range"]').value) > k""",
        arg=first, timeout=30_000)
    # the page's own Stop, not the header's: while a run is slow (a loaded machine) the
    # header's status shows Streamlit's Stop button too
    page.get_by_test_id("stMainBlockContainer").get_by_role("button", name="Stop").click()
    page.get_by_role("button", name="Play").wait_for(timeout=30_000)
    wait_rendered(page)
    # stopped where the exact-k box says (the AppTest checks the timer is off)
    stopped = int(thumb.input_value())
    assert stopped > first
    assert page.locator('[data-testid="stNumberInput"] input').first.input_value() == str(stopped)


def test_views_render_in_chromium(page, app_url):
    """What only a browser shows: Graphviz's SVG, the chunk underlines, the outlines."""
    open_view(page, app_url, "vocabulary")
    page.locator('[data-testid="stDataFrame"]').first.wait_for(timeout=60_000)
    assert metrics(page)["Tokens"] == "100,261"
    tall_screenshot(page, "views_vocabulary", 2000)

    open_view(page, app_url, "merge_tree")
    svg = page.locator('[data-testid="stGraphVizChart"] svg').first
    svg.wait_for(timeout=60_000)
    # one SVG box per tree node: ·encoding is 9 bytes, so 9 leaves and 8 merges
    assert page.locator('[data-testid="stGraphVizChart"] svg g.node').count() == 17
    assert "·encoding" in svg.text_content()
    # click another token of the text; Markdown characters in tokens show as typed
    field = page.get_by_label("A short text")
    field.fill("**bold** `code` :smile: tokens")
    field.press("Enter")
    # wait for the new text's tokens: the old sample ends in ·tokens too, so a wait on
    # that label alone passed before the rerun had drawn the new buttons (a CI race)
    page.wait_for_function(
        """() => [...document.querySelectorAll('[data-testid="stButtonGroup"] [role="radio"]')]
            .map(e => e.innerText).join('').includes('`code`')""", timeout=30_000)
    wait_rendered(page)
    labels = page.locator('[data-testid="stButtonGroup"] [role="radio"]').all_inner_texts()
    assert "".join(labels).replace("·", " ") == "**bold** `code` :smile: tokens"
    page.get_by_role("radio", name="·tokens").click()
    page.wait_for_function(
        """() => (document.querySelector('[data-testid="stGraphVizChart"] svg') || {})
            .textContent?.includes('·tokens')""", timeout=30_000)
    wait_rendered(page)
    tall_screenshot(page, "views_merge_tree")

    open_view(page, app_url, "regex_chunks")
    tok = page.locator(".tv .tok").first
    tok.wait_for(timeout=60_000)
    assert "inset" in tok.evaluate("e => getComputedStyle(e).boxShadow")  # chunk underline
    assert page.locator(".tv .tok.ch0").count() and page.locator(".tv .tok.ch1").count()
    # markers (·) no longer let a line wrap inside a token: one line box per token
    page.set_viewport_size({"width": 800, "height": 1000})
    wait_rendered(page)
    assert page.locator(".tv .tok:not(.cont)").evaluate_all(
        "els => els.filter(e => e.getClientRects().length !== 1).length") == 0
    tall_screenshot(page, "views_chunks")
    pick(page, "Pattern", "GPT-2 (r50k_base)")
    pick(page, "Sample", "Python code")
    page.wait_for_function(
        """() => Array.from(document.querySelectorAll('[data-testid="stMetric"]')).some(e =>
            e.innerText.includes('Tokens crossing a chunk') && e.innerText.includes('17'))""",
        timeout=30_000)
    wait_rendered(page)
    outlined = page.locator(".tv .tok.m-outline").evaluate_all(
        "els => els.filter(e => getComputedStyle(e).outlineStyle === 'solid').length")
    assert outlined == 17  # GPT-4's tokens that cross GPT-2's chunks, outlined
    tall_screenshot(page, "views_chunks_crossing", 2000)

    open_view(page, app_url, "specials")
    page.locator(".tv .tok").first.wait_for(timeout=60_000)
    marked = page.locator(".tv .tok.m-special").evaluate_all(
        "els => els.filter(e => getComputedStyle(e).fontWeight === '700').length")
    assert marked == 3 + 0 + 1  # 'all', 'none' and the chosen set; none_raise raised
    tall_screenshot(page, "views_specials")
