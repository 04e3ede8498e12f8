"""Issue 16's app repros that the core wiring closes, in a real browser on app.py.

- A .model whose split pattern backtracks catastrophically, uploaded in the sidebar and
  used on Tokenize: the page ends in a message naming the pattern, stays settled, and
  tokenizes again once GPT-4 is picked (before: a rerun every second, for good).
- A file name, a special token and a tokenizer name written as Markdown with an image
  pointing at a local counting server: shown literally on the pages that echo them,
  and the server is asked for nothing (before: the browser fetched the image).

Few and focused: the whole catalogue (10 app attempts) is bench/hostile.py's.
"""
from helpers.app import screenshot
from helpers.hostile_app import go, paste_live, pick, settle, upload
from helpers.hostile_cases import _model

SLOW = r"(?:a|a)+$|."


def _errors(tab):
    return [t.replace("\u200b", "") for t in
            tab.locator('[data-testid="stAlertContentError"]').all_inner_texts()]


def test_a_backtracking_model_on_tokenize_ends_in_a_message_and_the_page_recovers(page, cl100k):
    """Before: the box resent the text every second, each resend started a new run that
    encoded again for a second, and the page never settled (100% CPU for good)."""
    sent = []
    page.on("websocket", lambda ws: ws.on("framesent", lambda f: sent.append(f)))
    page.reload()
    assert settle(page, 60_000)
    upload(page, "slow.model", _model(SLOW, "0", "97 97"))
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
    upload(page, f"{name}.model", _model("", "1", f"{special} 300", "97 97"))
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
