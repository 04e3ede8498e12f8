"""Merge replay in real Chromium: move the slider with the keyboard and see the token count
change to what encoding with that many merges gives. Also opens each of the five learning
views once, checks what only a browser shows (the Graphviz SVG, the chunk underlines) and
saves screenshots/views_*.png."""
from conftest import screenshot, wait_rendered

from bpe.replay import encode_with_first_merges, merge_parents
from viz.samples import DEFAULT_SAMPLE, SAMPLES


def open_view(tab, app_url, path):
    tab.goto(f"{app_url}/{path}")
    tab.locator('[data-testid="stMainBlockContainer"] h1').first.wait_for(timeout=60_000)
    wait_rendered(tab)


def metric(tab, label):
    return tab.eval_on_selector_all(
        '[data-testid="stMetric"]',
        """(els, label) => els.map(e => [
            e.querySelector('[data-testid="stMetricLabel"]').innerText.trim(),
            e.querySelector('[data-testid="stMetricValue"]').innerText.trim()])
            .filter(([l]) => l === label).map(([, v]) => v)[0]""", label)


def tall_screenshot(tab, name, height=1800):
    """Streamlit scrolls inside its own container: make the viewport hold the page."""
    tab.set_viewport_size({"width": 1400, "height": height})
    wait_rendered(tab)
    screenshot(tab, name)


def test_replay_slider_changes_the_token_count(page, app_url, gpt4):
    text = SAMPLES[DEFAULT_SAMPLE]
    parents = merge_parents(gpt4)
    open_view(page, app_url, "replay")
    page.locator('[data-testid="stMetric"]').first.wait_for(timeout=60_000)
    k0 = 100  # the page's first k
    assert metric(page, "Tokens at this k") == \
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
    assert metric(page, "Tokens at this k") == expected
    assert expected != f"{len(encode_with_first_merges(gpt4, text, k0, parents)):,}"
    # the exact-k box followed the slider
    assert page.locator('[data-testid="stNumberInput"] input').first.input_value() == str(k)
    tall_screenshot(page, "views_replay")
