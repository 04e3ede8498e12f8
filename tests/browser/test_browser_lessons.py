"""The lesson pages in real Chromium: /why's sections follow typing, /rebuild_gpt4 recovers
the merges in the worker and its ids equal tiktoken's as you type, /evaluate's report
(read back from its CSV download) has GPT-2's and GPT-4's rows. Screenshots of each at
800 and 1400 px, light and dark, go to $TMPDIR/lab_screenshots (not the repository).

Each page loads once, at 1400 px in light; its checks and its typing run there, then again
after the tab is switched to dark (Streamlit follows the OS scheme live,
helpers.app.switch_scheme), then at 800 px in dark and back in light (the window narrowed
live: the page and its views follow the resize), so every check runs in all four looks
without loading the page and running its server work twice. A fresh load at 800 px is
tests/browser/test_browser_tokenize.py's. Each test also checks that its page fetched
nothing from another machine."""
import csv
import io
import tempfile
from pathlib import Path
from urllib.parse import urlparse

from helpers.app import scheme_of, switch_scheme, until, wait_rendered

from viz import why

SHOTS = Path(tempfile.gettempdir()) / "lab_screenshots"


def open_tab(browser, url):
    """(context, tab, the URL of every request the tab makes from its first load on): a
    1400 px window in light."""
    context = browser.new_context(viewport={"width": 1400, "height": 1000},
                                  color_scheme="light", accept_downloads=True)
    tab = context.new_page()
    urls = []
    tab.on("request", lambda request: urls.append(request.url))
    tab.goto(url)
    return context, tab, urls


def assert_stayed_on_this_machine(urls):
    """The lesson pages fetch nothing from elsewhere (fonts, images, scripts): called at
    a test's end, after the page's loads, its typing and both schemes' screenshots."""
    outside = sorted({url for url in urls if urlparse(url).scheme not in ("data", "blob")
                      and urlparse(url).hostname not in ("127.0.0.1", "localhost")})
    assert len(urls) > 3 and not outside, outside


def shoot(tab, name, width):
    SHOTS.mkdir(exist_ok=True)
    wait_rendered(tab)
    # Streamlit scrolls its main block, not the page: make the window as tall as it
    height = tab.locator('[data-testid="stMainBlockContainer"]').evaluate("e => e.scrollHeight")
    tab.set_viewport_size({"width": width, "height": min(height + 100, 16_000)})
    wait_rendered(tab)
    tab.screenshot(path=str(SHOTS / f"{name}.png"), full_page=True)


def views_follow(tab, scheme):
    """Every token view has repainted in scheme (they follow the media query's change
    event, after the app's frame)."""
    views = tab.locator(".tv").count()
    want = views if scheme == "dark" else 0
    assert until(lambda: tab.locator(".tv.dark").count() == want), \
        (tab.locator(".tv.dark").count(), want)


def shoot_every_look(tab, name, check):
    """The page as loaded (1400 px, light) is screenshot NAME_light_1400; then the tab is
    switched to dark, narrowed to 800 px and switched back to light, check(tab) running
    again and a screenshot taken in each: NAME_dark_1400, NAME_dark_800, NAME_light_800."""
    shoot(tab, f"{name}_light_1400", 1400)
    for scheme, width in (("dark", 1400), ("dark", 800), ("light", 800)):
        if width != tab.viewport_size["width"]:
            # narrowed first, so shoot() measures the page's height at its new width
            tab.set_viewport_size({"width": width, "height": 1000})
            wait_rendered(tab)
        if scheme != scheme_of(tab):
            switch_scheme(tab, scheme)
        views_follow(tab, scheme)
        check(tab)
        shoot(tab, f"{name}_{scheme}_{width}", width)


def view_with_text(tab, text):
    """The index of the token view whose text box holds text, -1 if none (the views
    live in shadow roots: Playwright's locators reach them, document queries do not)."""
    boxes = tab.locator(".tv textarea")
    return next((n for n in range(boxes.count()) if boxes.nth(n).input_value() == text), -1)


def row_ids(tab, nth_view, caption_start):
    """The ids of the row whose caption starts with caption_start, in the nth view."""
    return tab.locator(".tv").nth(nth_view).evaluate("""(view, start) => {
        const row = Array.from(view.querySelectorAll('.tv-row'))
            .find(r => r.querySelector('.tv-cap')?.textContent.startsWith(start));
        return row ? Array.from(row.querySelectorAll('.tok[data-ids]'))
            .flatMap(s => s.dataset.ids.split(' ').map(Number)) : null;
    }""", caption_start)


def type_into(tab, nth_view, text):
    area = tab.locator(".tv textarea").nth(nth_view)
    area.fill("")
    area.press_sequentially(text, delay=15)


def why_sections_shown(tab, typed=None):
    """Every section's header and view (holding its text; the first one's text is typed
    if the test typed into it)."""
    headers = tab.locator('[data-testid="stHeading"] h2').all_inner_texts()
    assert len(headers) >= 10 and len(headers) == len(why.SECTIONS)
    for n, section in enumerate(why.SECTIONS):
        text = typed if n == 0 and typed is not None else section.text
        # each section's view is its own component: on a busy machine a later one may
        # still be mounting when the headers are there
        assert until(lambda text=text: view_with_text(tab, text) >= 0), section.slug


def test_why_sections_follow_typing(browser, app_url, cl100k):
    context, tab, urls = open_tab(browser, app_url + "/why")
    try:
        tab.locator(".tokens [data-ids]").first.wait_for(timeout=90_000)
        wait_rendered(tab)
        why_sections_shown(tab)
        n = view_with_text(tab, why.SECTIONS[0].text)
        type_into(tab, n, "blueberry")
        want = cl100k.encode_ordinary("blueberry")
        assert until(lambda: row_ids(tab, n, "GPT-4 (cl100k_base)") == want), \
            row_ids(tab, n, "GPT-4 (cl100k_base)")
        assert tab.locator(".tv textarea").nth(n).input_value() == "blueberry"
        shoot_every_look(tab, "why", lambda tab: why_sections_shown(tab, "blueberry"))
        assert_stayed_on_this_machine(urls)
    finally:
        context.close()


def rebuild_shown(tab):
    merges = tab.locator('[data-testid="stMetric"]', has_text="Merges recovered")
    assert "100,000" in merges.inner_text()
    assert tab.get_by_text("ids == tiktoken").count() == 1


def test_rebuild_recovers_and_equals_tiktoken(browser, app_url, cl100k):
    context, tab, urls = open_tab(browser, app_url + "/rebuild_gpt4")
    try:
        tab.locator('[data-testid="stMetric"]', has_text="Merges recovered").wait_for(
            timeout=120_000)
        tab.locator(".tv .tokens [data-ids]").first.wait_for(timeout=60_000)
        wait_rendered(tab)
        rebuild_shown(tab)
        text = "Rebuilt  merges: 1234567 🦙\n\tdone"
        type_into(tab, 0, text)
        want = cl100k.encode_ordinary(text)
        assert until(lambda: row_ids(tab, 0, "Rebuilt") == want), row_ids(tab, 0, "Rebuilt")
        wait_rendered(tab)
        assert until(lambda: tab.get_by_text("ids == tiktoken").count() == 1)
        assert tab.get_by_text("ids != tiktoken").count() == 0
        shoot_every_look(tab, "rebuild_gpt4", rebuild_shown)
        assert_stayed_on_this_machine(urls)
    finally:
        context.close()


def evaluate_charts_shown(tab):
    assert tab.locator('[data-testid="stVegaLiteChart"]').count() == 2


def test_evaluate_report_has_gpt2_and_gpt4_rows(browser, app_url):
    context, tab, urls = open_tab(browser, app_url + "/evaluate")
    try:
        tab.locator('[data-testid="stDataFrame"]').first.wait_for(timeout=120_000)
        wait_rendered(tab)
        evaluate_charts_shown(tab)
        upload = Path(tempfile.mkdtemp()) / "mine.txt"
        upload.write_text("Hello 世界, my own file.\n", encoding="utf-8")
        tab.locator('[data-testid="stMainBlockContainer"] input[type="file"]').set_input_files(
            str(upload))
        tab.get_by_text("mine.txt").first.wait_for(timeout=30_000)
        wait_rendered(tab)
        with tab.expect_download() as download:
            tab.get_by_role("button", name="Download CSV").first.click()
        rows = list(csv.DictReader(io.StringIO(Path(download.value.path()).read_text())))
        assert {r["tokenizer"] for r in rows} == {"GPT-4 (cl100k_base)",
                                                  "GPT-2 (r50k_base)"}
        assert sum(r["file"] == "total" for r in rows) == 2
        mine = [r for r in rows if r["file"] == "file: mine.txt"]
        # Hello, 世, 界, ",", my, own, file.: each Han character a word
        assert len(mine) == 2 and all(r["words"] == "7" for r in mine)
        shoot_every_look(tab, "evaluate", evaluate_charts_shown)
        assert_stayed_on_this_machine(urls)
    finally:
        context.close()
