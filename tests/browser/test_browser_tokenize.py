"""Tokenize and Compare in real Chromium. Tokenize: type into the token view's own text
box (no Enter), read the ids from the drawn boxes' data-ids and check them against
tiktoken; unbreakable token boxes at 800 px, bidi overrides, invisible characters, the
hover card, a 1 MB paste, escaping, dark theme. Compare: train the one-click pair.
Screenshots go to screenshots/tokenize_*.png and compare_*.png."""
import re
import time

from helpers.app import metrics, screenshot, until, wait_rendered

TEXT = "Hello <b>world</b>! 2026-11-23 안녕 👍🏽 — tokens\tand\nlines"
PROSE = ("Byte pair encoding starts from single bytes and, one merge at a time, glues together "
         "the pair that occurs most often, so that counting tokens is not counting words. ") * 6


def ready(tab):
    """Wait for the page's first full run: the token view has drawn its boxes."""
    tab.locator(".tv .tokens .tok").first.wait_for(timeout=60_000)
    wait_rendered(tab)


def tall_screenshot(tab, name, height=2000, width=1400):
    """Streamlit scrolls inside its own container, so a full-page shot is one viewport:
    make the viewport tall enough for the whole page first."""
    tab.set_viewport_size({"width": width, "height": height})
    wait_rendered(tab)
    screenshot(tab, name)


def view_ids(tab, nth=0):
    """The ids of the nth colored view, from its boxes' data-ids."""
    ids = tab.locator(".tokens").nth(nth).evaluate(
        "el => Array.from(el.querySelectorAll('.tok[data-ids]')).map(s => s.dataset.ids)")
    return [int(i) for group in ids for i in group.split()]


def figures(tab):
    """label -> value of the token view's counts (Tokens, Characters, ...)."""
    return tab.locator(".tv").first.evaluate(
        """el => Object.fromEntries(Array.from(el.querySelectorAll('.fig')).map(f =>
            [f.dataset.label, f.querySelector('.fig-value').textContent]))""")



def type_live(tab, text, clear=True):
    """Type into the view's text box key by key, never pressing Ctrl+Enter."""
    area = tab.locator(".tv textarea")
    if clear:
        area.fill("")
    area.press_sequentially(text, delay=15)


# the engine line's state: "browser" (drawn here, Python's check pending), "loading", "ok",
# "bad", "server", or "" when the view has none
ENGINE_STATE = "el => { const e = el.querySelector('.tv-engine'); return e && !e.hidden ? e.dataset.state : ''; }"


# whether a drawn token box ends at the byte offset given as "-N" (the text's end: its
# last window is drawn)
DRAWN_UP_TO = """(el, end) => Array.from(el.querySelectorAll('.tok[data-bytes]'))
    .some(t => t.dataset.bytes.endsWith(end))"""


def show_text(tab, text):
    """Put text in the box as a paste does (one input event), and wait until the view
    shows its tokens and Python has them (when the browser drew them first, its check is
    in). (Playwright's fill types a 1 MB text far slower than a paste.)"""
    tab.locator(".tv textarea").first.evaluate(
        "(el, text) => { el.value = text; el.dispatchEvent(new Event('input', {bubbles: true})); }",
        text)
    assert until(lambda: figures(tab).get("Characters") == f"{len(text):,}", 60), figures(tab)
    view = tab.locator(".tv").first
    assert until(lambda: view.evaluate(ENGINE_STATE) not in ("browser", "loading"), 60)
    wait_rendered(tab)


def test_default_page_shows_gpt4_tokens(page, gpt4):
    from viz.samples import DEFAULT_SAMPLE, SAMPLES
    text = SAMPLES[DEFAULT_SAMPLE]
    ready(page)
    assert figures(page)["Tokens"] == f"{len(gpt4.encode(text)):,}"
    assert view_ids(page) == gpt4.encode(text)
    spans = page.locator(".tokens").first.evaluate(
        "el => Array.from(el.querySelectorAll('.tok[data-bytes]')).map(s => s.dataset.bytes)")
    bounds = [tuple(map(int, b.split("-"))) for b in spans]
    assert bounds[0][0] == 0 and bounds[-1][1] == len(text.encode())
    assert all(a[1] == b[0] for a, b in zip(bounds, bounds[1:]))  # contiguous byte offsets
    first = page.locator(".tokens .tok").first
    assert first.evaluate("e => getComputedStyle(e).backgroundColor") != "rgba(0, 0, 0, 0)"
    assert first.get_attribute("title") is None  # the hover card, not a title tooltip
    tall_screenshot(page, "tokenize_default", 1400)


def test_typing_updates_the_ids_live_without_enter(page, cl100k):
    ready(page)
    type_live(page, TEXT)
    want = cl100k.encode_ordinary(TEXT)
    assert until(lambda: view_ids(page) == want, 30), (view_ids(page), want)
    assert until(lambda: figures(page)["Tokens"] == f"{len(want):,}", 30), figures(page)
    type_live(page, " more", clear=False)  # keeps following, still no Enter
    want = cl100k.encode_ordinary(TEXT + " more")
    assert until(lambda: view_ids(page) == want, 30)
    assert page.locator(".tv textarea").input_value() == TEXT + " more"  # caret not reset


def test_html_and_script_in_the_text_stay_text(page):
    ready(page)
    hostile = '<script>alert(1)</script><img src=x onerror="alert(2)"> <b onclick="x">bold</b>'
    dialogs = []
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    show_text(page, hostile + " \u202e\u0000")
    view = page.locator(".tv").first
    assert view.evaluate("el => el.querySelectorAll('script, img, b, [onerror], [onclick]').length") == 0
    shown = view.evaluate("el => el.querySelector('.tokens').textContent")
    assert "<script>alert(1)</script>" in shown and 'onerror="alert(2)"' in shown
    assert not dialogs


def test_a_token_is_one_box_at_800px(page):
    ready(page)
    page.set_viewport_size({"width": 800, "height": 1000})
    show_text(page, PROSE + "\n\ndef merge(ids, pair, idx):\n    return [idx]\n" + TEXT)
    rects = page.locator(".tokens").first.evaluate(
        """el => Array.from(el.querySelectorAll('.tok')).map(t =>
            [t.getClientRects().length, t.classList.contains('wrapped')])""")
    assert len(rects) > 100
    assert all(n == 1 or wrapped for n, wrapped in rects)
    # and the text really wraps over several lines (between boxes)
    tops = page.locator(".tokens").first.evaluate(
        "el => new Set(Array.from(el.querySelectorAll('.tok')).map(t => t.offsetTop)).size")
    assert tops > 5
    screenshot(page, "tokenize_800")


def test_right_to_left_override_cannot_reorder_the_boxes(page, gpt4):
    ready(page)
    text = "abc \u202eRTL override\u202c def \u2067ghi\u2069 jkl"
    show_text(page, text)
    boxes = page.locator(".tokens").first.evaluate(
        """el => Array.from(el.querySelectorAll('.tok')).map(t => {
            const r = t.getBoundingClientRect(); return [r.left, r.top, t.textContent]; })""")
    assert view_ids(page) == gpt4.encode(text)
    assert len({round(top) for _, top, _ in boxes}) == 1  # one line
    lefts = [left for left, _, _ in boxes]
    assert lefts == sorted(lefts)  # logical order, left to right
    assert any("RLO" in t for _, _, t in boxes)  # the override is shown, not obeyed
    assert "".join(t for _, _, t in boxes).index("RTL") < "".join(t for _, _, t in boxes).index("def")


def test_invisible_characters_have_width(page, gpt4):
    ready(page)
    text = "a\u200bb\u0000c\ufeffd"
    show_text(page, text)
    assert view_ids(page) == gpt4.encode(text)
    widths = page.locator(".tokens").first.evaluate(
        "el => Array.from(el.querySelectorAll('.tok')).map(t => t.getBoundingClientRect().width)")
    assert len(widths) == len(gpt4.encode(text)) and all(w > 0 for w in widths)


def test_hover_card_and_linked_highlight(page, gpt4):
    ready(page)
    text = "Hi 👋🏽 there"
    show_text(page, text)
    ids = gpt4.encode(text)
    cluster = page.locator(".tokens .tok.multi").first
    cluster.hover()
    card = page.locator(".tv-card")
    card.wait_for(state="visible")
    group = [int(i) for i in cluster.get_attribute("data-ids").split()]
    assert len(group) > 1 and card.locator(".k-ids .v").inner_text() == " ".join(map(str, group))
    assert card.locator(".k-index").inner_text().startswith("tokens 1–")
    assert "👋🏽" in card.locator(".k-text .v").inner_text()
    parts = card.locator(".hexpart").all_inner_texts()
    token_bytes = gpt4.decode_tokens_bytes(group)
    assert parts == [b.hex(" ") for b in token_bytes]  # hex split per token
    start, end = map(int, cluster.get_attribute("data-bytes").split("-"))
    assert card.locator(".k-bytes .v").inner_text() == f"{start}–{end}"
    assert card.locator(".k-chars .v").inner_text() == "2–5"
    # the same tokens light up in the id list
    assert page.locator(".tv-ids .id.hl").count() == len(group)
    assert page.locator(".tv-ids .id.hl").first.inner_text() == str(ids[1])
    # a click pins the card: it stays while the mouse goes elsewhere
    cluster.click()
    page.mouse.move(5, 5)
    page.wait_for_timeout(200)
    assert card.is_visible() and "pinned" in card.get_attribute("class")
    screenshot(page, "tokenize_hover")


def test_one_megabyte_paste_is_windowed(page, gpt4):
    ready(page)
    text = ("Tokenizers cut text; 토큰 😉 2026-11-23.\n" * 40_000)[:1_000_000]
    started = time.monotonic()
    show_text(page, text)
    print(f"1 MB paste to tokens: {time.monotonic() - started:.2f} s")
    assert figures(page)["Tokens"] == f"{len(gpt4.encode(text)):,}"
    drawn = page.locator(".tv").first.evaluate("el => el.querySelectorAll('.tok, .id, .tr').length")
    assert drawn < 10_000  # only the windows near the visible part are in the DOM
    assert "windows" in page.locator(".tv-windowed").first.inner_text()
    box = page.locator(".tokens").first
    box.evaluate("el => { el.scrollTop = el.scrollHeight; }")
    assert until(lambda: box.evaluate(DRAWN_UP_TO, f"-{len(text.encode())}"), 10)


def test_dark_theme_follows_the_os(browser, app_url):
    context = browser.new_context(viewport={"width": 1400, "height": 1000}, color_scheme="dark")
    tab = context.new_page()
    try:
        tab.goto(app_url)
        ready(tab)
        view = tab.locator(".tv").first
        assert "dark" in view.get_attribute("class")
        ink = tab.locator(".tokens .tok").first.evaluate("e => getComputedStyle(e).color")
        assert ink == "rgb(242, 242, 242)"
        tall_screenshot(tab, "tokenize_dark", 1400)
    finally:
        context.close()


def test_compare_trains_the_pair_and_shows_both_views(page):
    ready(page)
    page.get_by_role("link", name="Compare", exact=True).click()
    button = page.get_by_role("button", name=re.compile("Train Regex and Basic"))
    button.wait_for(timeout=60_000)
    wait_rendered(page)
    screenshot(page, "compare_empty")
    button.click()
    # the pair is trained: both join the session and the one aligned view draws A and B.
    # Until then the page already compares GPT-4 with GPT-4o, so wait for the sentence
    # that names the pair (not the progress panel, which names it too), then for the view
    # the rerun redraws.
    page.locator('[data-testid="stMarkdown"]', has_text="cuts above the text").filter(
        has_text="Basic 512 (Shakespeare)").first.wait_for(timeout=120_000)
    wait_rendered(page)
    assert until(lambda: page.locator(".tokens.aligned .piece").count() > 0, 60)
    shown = metrics(page)
    assert {"Tokens A", "Tokens B", "Boundaries shared"} <= shown.keys()
    assert page.locator(".tokens.aligned").count() == 1
    ids_a = page.locator(".tokens.aligned [data-ids-a]").evaluate_all("els => els.map(e => e.dataset.idsA)")
    ids_b = page.locator(".tokens.aligned [data-ids-b]").evaluate_all("els => els.map(e => e.dataset.idsB)")
    # every token of each side is drawn once: the ids on the spans' first pieces
    for side, ids in (("A", ids_a), ("B", ids_b)):
        assert sum(len(group.split()) for group in ids) == int(shown[f"Tokens {side}"].replace(",", ""))
    tall_screenshot(page, "compare_pair", 1900)


def test_typing_does_not_send_the_text_back_and_toggles_survive_a_visit(browser, app_url):
    """A run the box's typing started leaves the box's text alone (the box has it): the
    text is not in the server's answer. Any other run, here a toggle's, sends it. The
    page is a fragment: a toggle flipped in a page-only run is still on after a visit
    to another page (lab.memory's shadow follows page-only runs)."""
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    page = context.new_page()
    got = []
    # listening before the first load (the page fixture's tab has its socket open already,
    # and a reload to catch it cost a second load of the app)
    page.on("websocket", lambda ws: ws.on(
        "framereceived", lambda p: got.append(p if isinstance(p, bytes) else p.encode())))
    try:
        page.goto(app_url)
        ready(page)
        marker = "Quokkas-tokenize-marker-" * 3
        got.clear()
        show_text(page, PROSE + marker)
        assert not any(marker.encode() in frame for frame in got)
        got.clear()
        page.get_by_text("Whitespace markers").click()
        marked = "el => el.querySelector('.tokens').textContent.includes('·')"  # space ·
        assert until(lambda: page.locator(".tv").first.evaluate(marked), 30)
        wait_rendered(page)
        assert any(marker.encode() in frame for frame in got)  # a toggle's run sends the text
        page.get_by_role("link", name="Compare").click()
        page.get_by_role("heading", name="Compare").first.wait_for(timeout=60_000)
        wait_rendered(page)
        page.get_by_role("link", name="Tokenize").click()
        ready(page)
        assert page.locator(".tv textarea").input_value() == PROSE + marker
        assert page.locator(".tv").first.evaluate(marked)  # the toggle is still on
    finally:
        context.close()


def drawn_tokens_match(tab, cl100k, text):
    """Every drawn token box (in every drawn window, kept or new) holds the ids tiktoken
    gives for its byte range of text, and every drawn id in the Ids list is tiktoken's."""
    ids = cl100k.encode_ordinary(text)
    starts, at = {}, 0
    for k, b in enumerate(cl100k.decode_tokens_bytes(ids)):
        starts[at] = k
        at += len(b)
    boxes = tab.locator(".tokens").first.evaluate(
        "el => Array.from(el.querySelectorAll('.tok[data-ids]')).map(t => [t.dataset.bytes, t.dataset.ids])")
    listed = tab.locator(".tv-ids").first.evaluate(
        "el => Array.from(el.querySelectorAll('.id')).map(e => [+e.dataset.t, +e.textContent])")
    assert len(boxes) > 100 and len(listed) > 100
    for span, group in boxes:
        start = int(span.split("-")[0])
        k = starts[start]
        want = ids[k:k + len(group.split())]
        assert [int(i) for i in group.split()] == want, (span, group, want)
    assert all(ids[t] == i for t, i in listed)
    return len(ids)


def test_typing_anywhere_in_a_windowed_text_redraws_what_changed(page, cl100k):
    """A 10 KB text is drawn in windows; a redraw keeps the windows that did not change.
    After typing at the end, in the middle (a window the redraw must rebuild) and at the
    start (every window shifts), each drawn box still holds tiktoken's ids."""
    ready(page)
    text = (PROSE * 8)[:10_000]
    show_text(page, text)
    assert page.locator(".tokens.scroll .win").count() > 2  # windowed
    area = page.locator(".tv textarea")
    for where, typed in ((len(text), " end"), (300, " middle"), (0, "Start ")):
        area.evaluate("(el, at) => { el.focus(); el.setSelectionRange(at, at); }", where)
        page.keyboard.type(typed, delay=20)
        text = text[:where] + typed + text[where:]
        assert until(lambda: figures(page).get("Characters") == f"{len(text):,}", 30)
        wait_rendered(page)
        assert figures(page)["Tokens"] == f"{drawn_tokens_match(page, cl100k, text):,}"
    # scrolled to the end, the windows drawn there hold the right ids too: wait for the
    # window with the text's last byte (not drawn before the scroll: the text is windowed)
    box = page.locator(".tokens").first
    last = f"-{len(text.encode())}"
    assert not box.evaluate(DRAWN_UP_TO, last)
    box.evaluate("el => { el.scrollTop = el.scrollHeight; }")
    assert until(lambda: box.evaluate(DRAWN_UP_TO, last), 10)
    drawn_tokens_match(page, cl100k, text)


def test_tokens_are_reached_with_the_keyboard_and_clusters_are_not_striped(page, gpt4):
    ready(page)
    text = "Hi 👋🏽 there 👍🏽👍🏽👍🏽"
    show_text(page, text)
    box = page.locator(".tv .tokens[data-row]").first
    box.focus()
    page.keyboard.press("ArrowRight")
    assert page.locator('.tv .tok.hl[data-i="0"]').count() == 1
    page.keyboard.press("ArrowRight")
    assert page.locator('.tv .tok.hl[data-i="1"]').count() == 1
    card = page.locator(".tv-card")
    card.wait_for(state="visible")
    page.keyboard.press("Enter")
    assert "pinned" in card.get_attribute("class")
    # the card sits above the token: neither the token nor the id list is under it
    token = page.locator('.tv .tok.hl[data-i="1"]').first.bounding_box()
    ids = page.locator(".tv-ids").first.bounding_box()
    c = card.bounding_box()

    def overlaps(a, b):
        return not (a["x"] + a["width"] <= b["x"] or b["x"] + b["width"] <= a["x"]
                    or a["y"] + a["height"] <= b["y"] or b["y"] + b["height"] <= a["y"])
    assert not overlaps(c, token) and not overlaps(c, ids)
    # clusters over several tokens: one plain glyph, cut ticks in a thin band under it,
    # and count badges that take their own room (boxes never overlap)
    multis = page.locator(".tv .tok.multi").evaluate_all("""els => els.map(e => ({
        size: getComputedStyle(e).backgroundSize, r: e.getBoundingClientRect().toJSON()}))""")
    assert len(multis) >= 4
    assert all(m["size"] == "100% 4px" for m in multis)
    rects = [{"x": m["r"]["x"], "y": m["r"]["y"], "width": m["r"]["width"], "height": m["r"]["height"]}
             for m in multis]
    assert not any(overlaps(a, b) for i, a in enumerate(rects) for b in rects[i + 1:])
    screenshot(page, "tokenize_keyboard_clusters")
