"""Tokenize in Chromium: while the browser encodes, Python's check waits for typing to
pause (one rerun per pause, not one per key), the engine line says "==" only for the text
the box holds, and a difference still ends with Python's tokens drawn."""
import time

import pytest
from helpers.app import LYING_ENCODER_JS, drawn_ids, until, view_engine, wait_rendered

pytestmark = pytest.mark.browser

# counts the page's runs (the app's script state going to "running") and, whenever the
# engine line turns "ok", what the box held and what the line said at that moment
WATCH_JS = """() => {
    window.__runs = 0;
    window.__oks = [];
    const app = document.querySelector('[data-testid="stApp"]');
    new MutationObserver(() => {
        if (app.getAttribute('data-test-script-state') === 'running') window.__runs += 1;
    }).observe(app, {attributes: true, attributeFilter: ['data-test-script-state']});
    for (const host of document.querySelectorAll('*')) {
        const root = host.shadowRoot;
        const engine = root && root.querySelector('.tv-engine');
        if (!engine) continue;
        const area = root.querySelector('.tv textarea');
        new MutationObserver(() => {
            if (engine.dataset.state === 'ok') window.__oks.push([area.value, engine.textContent]);
        }).observe(engine, {attributes: true, childList: true, characterData: true, subtree: true});
        return true;
    }
    return false;
}"""


@pytest.fixture
def tab(page):
    """The app's home page (its own session) once Python has checked the browser's ids."""
    assert until(lambda: view_engine(page)[0] == "ok")
    return page


def test_typing_is_checked_once_per_pause_and_ok_only_for_the_box_text(tab, cl100k):
    area = tab.locator(".tv textarea").first
    area.fill("Typed on:")
    assert until(lambda: view_engine(tab)[0] == "ok" and "(3 tokens)" in view_engine(tab)[1])
    assert tab.evaluate(WATCH_JS)
    typed = " x" * 20  # a token every two keys: an older text's count differs
    area.press_sequentially(typed, delay=60)
    state, line = view_engine(tab)
    assert state == "browser" and "checking" in line  # Python's check is pending
    text = "Typed on:" + typed
    want = cl100k.encode_ordinary(text)
    assert until(lambda: view_engine(tab)[0] == "ok")
    assert f"({len(want):,} tokens)" in view_engine(tab)[1]
    assert drawn_ids(tab) == want
    # 40 keys 60 ms apart: the box sent once, after the pause (sending every 150 ms, the
    # box made 12 runs); a machine stalling past the pause mid-typing may add one or two
    # (no lower bound: React may commit a quick run's "running" and "notRunning" as one
    # change, which the observer never sees; a quiet CI run counted 0. That the watch
    # works is shown by its record of the final text's "==" below)
    runs = tab.evaluate("window.__runs")
    assert runs <= 3, f"{runs} page runs for 40 keys"
    oks = tab.evaluate("window.__oks")
    assert [value for value, _ in oks][-1:] == [text], oks
    for value, said in oks:
        count = len(cl100k.encode_ordinary(value))
        assert f"({count:,} tokens)" in said, f"'==' for another text than {value!r}: {said}"


def test_a_difference_ends_with_pythons_tokens_drawn(tab, cl100k):
    tab.evaluate(LYING_ENCODER_JS)
    area = tab.locator(".tv textarea").first
    area.fill("")
    area.press_sequentially("Lies in the browser", delay=20)
    assert until(lambda: view_engine(tab)[0] == "bad")
    assert "browser ids != Python" in view_engine(tab)[1]
    # the page sent ids only (the browser had drawn the text); the view asked for rows
    want = cl100k.encode_ordinary("Lies in the browser")
    assert until(lambda: drawn_ids(tab) == want, 30)
    assert view_engine(tab)[0] == "bad"


def test_a_toggle_flipped_before_the_check_redraws_the_browsers_tokens(tab, cl100k):
    """The browser drew the typed text; a toggle flipped before Python's check (the page
    then answers with ids only) still shows: the browser draws its tokens again."""
    tab.locator(".tv textarea").first.fill("typed first")
    assert until(lambda: view_engine(tab)[0] == "ok" and "(2 tokens)" in view_engine(tab)[1])
    # in one go, well within the pause the check waits for: type, let the browser draw
    # its tokens (two frames), then flip the toggle
    tab.evaluate("""async () => {
        for (const host of document.querySelectorAll('*')) {
            const area = host.shadowRoot && host.shadowRoot.querySelector('.tv textarea');
            if (!area) continue;
            area.value = 'toggled while typing';
            area.dispatchEvent(new Event('input', {bubbles: true}));
            break;
        }
        for (let k = 0; k < 2; k++) await new Promise((done) => requestAnimationFrame(done));
        const label = [...document.querySelectorAll('label')]
            .find((l) => l.textContent.includes('Whitespace markers'));
        label.querySelector('input').click();
    }""")
    marked = "el => el.querySelector('.tokens').textContent.includes('·')"  # space ·
    view = tab.locator(".tv").first
    # the redraw waits for the server's check, which a busy machine may hold past 60 s
    assert until(lambda: view.evaluate(marked) and view_engine(tab)[0] == "ok", timeout=150)
    wait_rendered(tab)
    assert view.evaluate(marked) and view_engine(tab)[0] == "ok"
    assert drawn_ids(tab) == cl100k.encode_ordinary("toggled while typing")


def test_a_check_arriving_with_a_toggles_run_keeps_the_line_checked(browser, app_url, cl100k):
    """A slow server (issue 32's load): the box sends its typed text while the run of a
    toggle flipped after the typing is still out, so the page's check of that text (ids
    only, with the new toggles) comes together with the toggle's run. Here the server's
    messages are held and then let go at once, as load holds them. The browser draws its
    tokens again with the markers, and the line stays "==": no other check is coming (it
    said "checking with Python" for good before the fix in live.js drawLocal)."""
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    held, hold, socket = [], [False], []

    def route(ws):
        server = ws.connect_to_server()
        socket.append(ws)
        server.on_message(lambda m: held.append((m, time.monotonic())) if hold[0] else ws.send(m))
        ws.on_message(server.send)
    tab = context.new_page()
    tab.route_web_socket("**/_stcore/stream", route)
    try:
        tab.goto(app_url)
        wait_rendered(tab)
        assert until(lambda: view_engine(tab)[0] == "ok")
        area = tab.locator(".tv textarea").first
        area.fill("typed first")
        assert until(lambda: view_engine(tab)[0] == "ok" and "(2 tokens)" in view_engine(tab)[1])
        hold[0] = True
        area.fill("toggled while typing")  # the browser draws it; its check waits for a pause
        tab.get_by_text("Whitespace markers").click()
        # the pause passes and the box sends the text; both runs' answers are held: wait
        # until the server has said nothing for 2 s (the evaluate lets Playwright's
        # thread hand us the messages: its callbacks run only inside its calls)
        assert until(lambda: tab.evaluate("1") and held
                     and time.monotonic() - held[-1][1] > 2, timeout=150)
        hold[0] = False
        for message, _ in held:
            socket[0].send(message)
        marked = "el => el.querySelector('.tokens').textContent.includes('·')"
        view = tab.locator(".tv").first
        assert until(lambda: view.evaluate(marked) and view_engine(tab)[0] == "ok", timeout=30), \
            view_engine(tab)
        assert drawn_ids(tab) == cl100k.encode_ordinary("toggled while typing")
    finally:
        context.close()
