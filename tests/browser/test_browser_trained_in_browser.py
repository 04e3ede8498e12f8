"""A trained Regex tokenizer (a preset pattern) is encoded in the browser on Tokenize.

The regression: a guarded import of a moved module made every trained tokenizer fall back
to the server without a word of truth ("its vocabulary cannot be sent"). Here a tokenizer
trained by minbpe's rule is uploaded as its .model file (the same object a training puts in
the session: a RegexTokenizer with merges and no ranks), picked, and typed into: the view's
engine line must say the browser encoded it and that Python agreed."""
import urllib.parse

from helpers.app import until, view_engine, wait_rendered
from helpers.hostile_app import paste_live, pick, upload

from bpe import RegexTokenizer

CORPUS = "the year 2026 had 365 days, and the days had 24 hours. Tokens! " * 40


def test_trained_regex_tokenizer_is_encoded_in_the_browser(page):
    tok = RegexTokenizer("gpt4").train(CORPUS, 256 + 40)
    upload(page, "mine.model", tok.model_text().encode())
    page.locator('[data-testid="stSidebar"]').get_by_text("as “mine (uploaded)”").wait_for(
        timeout=60_000)
    wait_rendered(page)
    pick(page, "mine (uploaded)")
    page.wait_for_function("want => location.search.includes(want)",
                           arg=urllib.parse.quote_plus("session:mine (uploaded)"),
                           timeout=60_000)
    wait_rendered(page)
    paste_live(page, "the days had 24 hours")
    assert until(lambda: view_engine(page)[0] == "ok", 60)
    state, text = view_engine(page)
    assert state == "ok" and "Encoded in your browser" in text, (state, text)
