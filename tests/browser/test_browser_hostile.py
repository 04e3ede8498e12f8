"""Issue 16's app repros that the core wiring closes, in a real browser on app.py.

- A .model whose split pattern backtracks catastrophically, uploaded in the sidebar and
  used on Tokenize: the page ends in a message naming the pattern, stays settled, and
  tokenizes again once GPT-4 is picked (before: a rerun every second, for good).
- A file name, a special token and a tokenizer name written as Markdown with an image
  pointing at a local counting server: shown literally on the pages that echo them,
  and the server is asked for nothing (before: the browser fetched the image).

Few and focused: the whole catalogue (10 app attempts) is bench/hostile.py's.
"""
import pytest
from helpers.app import screenshot
from helpers.hostile_app import go, paste_live, pick, settle, upload
from helpers.hostile_cases import model_text

SLOW = r"(?:a|a)+$|."


def _errors(tab):
    return [t.replace("\u200b", "") for t in
            tab.locator('[data-testid="stAlertContentError"]').all_inner_texts()]


@pytest.fixture
def heard_page(browser, app_url):
    """(a fresh tab on the home page, the list of frames its websocket sent): listening
    from before its first load, which conftest's page (already loaded, its socket open)
    could only have by loading the page a second time."""
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    tab = context.new_page()
    sent = []
    tab.on("websocket", lambda ws: ws.on("framesent", lambda f: sent.append(f)))
    tab.goto(app_url)
    yield tab, sent
    context.close()


def test_a_backtracking_model_on_tokenize_ends_in_a_message_and_the_page_recovers(heard_page,
                                                                                   cl100k):
    """Before: the box resent the text every second, each resend started a new run that
    encoded again for a second, and the page never settled (100% CPU for good)."""
    page, sent = heard_page
    assert settle(page, 60_000)
    upload(page, "slow.model", model_text(SLOW, "0", "97 97"))
    assert settle(page)
    pick(page, "slow")
    assert settle(page)
    text = "a" * 40 + "b"
    boxes = page.locator(".tv .tok[data-ids]")  # the view draws in its own shadow root
    paste_live(page, text)
    page.locator('[data-testid="stAlertContentError"]', has_text="took more than").wait_for(
        timeout=120_000)
    assert settle(page, 120_000), "the page was still running"
    screenshot(page, "hostile_slow_tokenize")
    assert page.locator('[data-testid="stException"]').count() == 0
    [error] = _errors(page)
    assert error.startswith("slow (uploaded) cannot encode this text"), error
    assert SLOW in error and "catastrophically" in error, error
    assert boxes.count() == 0  # no tokens left over from the text before
    # settled for good: nothing sent, no rerun afterwards (the bug resent every second)
    quiet_from = len(sent)
    page.wait_for_timeout(4000)
    assert len(sent) == quiet_from, sent[quiet_from:]
    assert settle(page, 1000)

    pick(page, "cl100k")  # back to GPT-4: the same text tokenizes again
    boxes.first.wait_for(timeout=120_000)
    assert settle(page, 120_000)
    assert _errors(page) == []
    ids = boxes.evaluate_all("els => els.map(e => e.dataset.ids).join(' ')")
    assert [int(i) for i in ids.split()] == cl100k.encode(text)


def test_markdown_in_names_and_specials_renders_as_typed_and_fetches_nothing(page, fetch_counter):
    base, hits = fetch_counter
    special = f"![s]({base}/special)"          # a .model special token holds no spaces
    name = f"**b** ![i]({base}/name)"
    fetched = []
    page.on("request", lambda r: fetched.append(r.url) if base in r.url else None)
    upload(page, f"{name}.model", model_text("", "1", f"{special} 300", "97 97"))
    assert settle(page)
    for title in ("Special tokens", "Vocabulary", "Regex chunks"):
        go(page, title)
        assert settle(page, 60_000), title
        page.wait_for_timeout(500)
        if title != "Regex chunks":
            pick(page, "(uploaded)")
            assert settle(page, 60_000), title
        page.wait_for_timeout(1000)  # let any image load
        screenshot(page, f"hostile_names_{title.replace(' ', '_').lower()}")
        assert page.locator('[data-testid="stException"]').count() == 0, title
        bold = page.locator('[data-testid="stApp"] strong', has_text="b").all_inner_texts()
        assert "b" not in [t.strip() for t in bold], title
        text = page.evaluate("() => document.body.innerText").replace("\u200b", "")
        assert "**b** ![i](http://127.0.0.1:" in text or special in text, title
    assert hits == [] and fetched == [], (hits, fetched)


def test_a_huge_combining_cluster_is_refused_with_a_sentence_and_a_long_one_drawn(page):
    """issue 32: one letter and 200,000 combining marks pasted on Tokenize. Chromium lays a
    grapheme cluster out in time that grows with the square of its length, so the text box
    never drew it (40 s+). The box refuses a run past editor.js MARK_RUN_LIMIT (2,000), keeps
    its text and says why; a run of 2,000 is taken and drawn as boxes of rows.js's
    CLUSTER_LIMIT characters."""
    go(page, "Tokenize")
    page.locator(".tv .tokens .tok").first.wait_for(timeout=60_000)
    assert settle(page, 60_000)
    area = page.locator(".tv textarea").first
    before = area.input_value()
    paste_live(page, "a" + "\u0301" * 200_000)
    status = page.locator(".tv .tv-status.over")
    status.wait_for(timeout=60_000)
    assert "200,000 combining marks" in status.inner_text()
    assert area.input_value() == before  # the box never held the cluster
    assert settle(page, 60_000)
    assert page.locator('[data-testid="stException"]').count() == 0

    paste_live(page, "a" + "\u0301" * 2_000)
    boxes = page.locator(".tv .tok[data-ids]")
    assert settle(page, 120_000)
    assert area.input_value() == "a" + "\u0301" * 2_000
    assert page.locator(".tv .tv-status.over").count() == 0
    boxes.first.wait_for(timeout=60_000)
    # every box holds at most CLUSTER_LIMIT (64) characters of the one cluster
    lengths = boxes.evaluate_all("els => els.map(e => e.textContent.length)")
    assert 2001 // 64 <= len(lengths) and max(lengths) <= 64 + 1, lengths[:5]
