"""Driving app.py in a Playwright tab for the hostile attempts (bench/hostile.py and
tests/browser/test_browser_hostile.py): upload a file in the sidebar, go to a page, pick
a tokenizer, type or paste text, and wait for the run to settle. The attempts themselves
are helpers.hostile_cases'.
"""
from helpers.app import wait_rendered


def upload(tab, name, data):
    tab.get_by_text("Load a tokenizer file").click()
    tab.locator('[data-testid="stSidebar"] input[type=file]').set_input_files(
        files=[{"name": name, "mimeType": "application/octet-stream", "buffer": data}])


def go(tab, title):
    tab.locator('[data-testid="stSidebarNav"] a', has_text=title).first.click()


def pick(tab, name_part, label="Tokenizer"):
    tab.locator('[data-testid="stMain"] [data-testid="stSelectbox"]', has_text=label).first.click()
    tab.locator('[role="option"]', has_text=name_part).first.click()


def type_text(tab, label, text):
    box = tab.get_by_label(label, exact=True).first
    box.fill(text)
    box.press("Control+Enter" if box.evaluate("e => e.tagName") == "TEXTAREA" else "Enter")


def paste_live(tab, text):
    """Put text in Tokenize's live view box as a paste does (one input event)."""
    tab.locator(".tv textarea").first.evaluate(
        "(el, t) => { el.value = t; el.dispatchEvent(new Event('input', {bubbles: true})); }",
        text)


def settle(tab, timeout=30_000):
    """Wait until the script run ends; False if it is still running at timeout."""
    tab.wait_for_timeout(1000)  # an input's rerun starts a moment after the keypress
    try:
        wait_rendered(tab, timeout)
        return True
    except Exception:
        return False
