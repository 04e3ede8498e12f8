"""The token view component on its own page (tests/helpers/token_view_app.py), in Chromium:
the aligned pair (Compare's view) wraps lines only where both tokenizers cut."""
import pytest
from helpers.app import ROOT, streamlit_server, wait_rendered


@pytest.fixture(scope="module")
def pair_url():
    with streamlit_server(ROOT / "tests" / "helpers" / "token_view_app.py") as (url, _):
        yield url


# per piece: its line (top), whether A and B both cut before it, whether a <br> precedes
# it, and its run's index and whether that run had to wrap (wider than a line)
PIECES_JS = """() => {
    for (const host of document.querySelectorAll('*')) {
        const root = host.shadowRoot;
        if (!root || !root.querySelector('.tokens.aligned .piece')) continue;
        const runs = [...root.querySelectorAll('.tokens.aligned .run')];
        return [...root.querySelectorAll('.tokens.aligned .piece')].map(p => {
            const prev = p.previousSibling || p.parentElement.previousSibling;
            return {top: Math.round(p.getBoundingClientRect().top),
                    both: p.classList.contains('cut-a') && p.classList.contains('cut-b'),
                    afterBreak: !!prev && prev.nodeName === 'BR' && !p.previousSibling,
                    run: runs.indexOf(p.closest('.run')),
                    wrapped: p.closest('.run').classList.contains('wrapped')};
        });
    }
    return null;
}"""


def test_pair_lines_wrap_only_where_both_sides_cut(browser, pair_url):
    context = browser.new_context(viewport={"width": 800, "height": 1000})
    tab = context.new_page()
    try:
        tab.goto(pair_url)
        wait_rendered(tab)
        tab.wait_for_function(f"() => ({PIECES_JS})() !== null", timeout=60_000)
        pieces = tab.evaluate(PIECES_JS)
        tab.screenshot(path=str(ROOT / "screenshots" / "pair_view_800.png"), full_page=True)
    finally:
        context.close()
    assert len({p["top"] for p in pieces}) >= 4       # the text does wrap at 800 px
    assert sum(not p["both"] for p in pieces) > 50     # and A and B disagree a lot
    assert not any(p["wrapped"] for p in pieces)       # no run is wider than a line here
    for before, piece in zip(pieces, pieces[1:]):
        if piece["top"] != before["top"]:              # a new line starts at this piece:
            assert piece["both"] or piece["afterBreak"], piece  # only where both cut
        if piece["run"] == before["run"]:
            assert piece["top"] == before["top"]       # a run is never split over lines


def test_a_theme_from_streamlits_menu_recolours_the_view_at_once(browser, app_url):
    """Light -> Dark from the main menu: the tokens take the dark palette with no rerun
    (the browser sends nothing to the server between the click and the new colours)."""
    from viz.palette import VIEW_PALETTE
    context = browser.new_context(viewport={"width": 1400, "height": 1000}, color_scheme="light")
    tab = context.new_page()
    sent = []
    tab.on("websocket", lambda ws: ws.on("framesent", lambda payload: sent.append(payload)))
    tab.goto(app_url)
    wait_rendered(tab)
    first = tab.locator(".tv .tokens .tok").first

    def rgb(color):
        return "rgb({}, {}, {})".format(*(int(color[i:i + 2], 16) for i in (1, 3, 5)))
    dark = {rgb(c) for c in VIEW_PALETTE["dark"]}
    assert first.evaluate("e => getComputedStyle(e).backgroundColor") not in dark
    tab.get_by_test_id("stMainMenu").click()
    before = len(sent)
    tab.get_by_test_id("stMainMenuItem-theme-Dark").click()
    first.page.wait_for_function(
        """([el, dark]) => dark.includes(getComputedStyle(el).backgroundColor)""",
        arg=[first.element_handle(), sorted(dark)], timeout=10_000)
    assert len(sent) == before  # no rerun asked for
    light = tab.get_by_test_id("stMainMenuItem-theme-Light")
    if not light.is_visible():  # the menu may stay open after a theme is picked
        tab.get_by_test_id("stMainMenu").click()
    light.click()
    first.page.wait_for_function(
        """([el, dark]) => !dark.includes(getComputedStyle(el).backgroundColor)""",
        arg=[first.element_handle(), sorted(dark)], timeout=10_000)
    context.close()
