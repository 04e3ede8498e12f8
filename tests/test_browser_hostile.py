"""Issue 16's app repros that the core wiring closes, in a real browser on app.py.

- A .model whose split pattern backtracks catastrophically, uploaded in the sidebar and
  used on Tokenize: the page answers with a message within a bound (before: 100% CPU
  on a server thread for good).
- A file name, a special token and a tokenizer name written as Markdown with an image
  pointing at a local counting server: shown literally on the pages that echo them,
  and the server is asked for nothing (before: the browser fetched the image).

Few and focused: the whole catalogue (10 app attempts) is bench/hostile.py's.
"""
import http.server
import threading

import pytest

from conftest import screenshot
from hostile_cases import _model, go, pick, settle, upload



class _Counter(http.server.BaseHTTPRequestHandler):
    hits = []

    def do_GET(self):
        self.hits.append(self.path)
        self.send_response(200)
        self.send_header("Content-Type", "image/gif")
        self.end_headers()
        self.wfile.write(b"GIF89a\x01\x00\x01\x00\x00\x00\x00;")

    def log_message(self, *args):
        pass


@pytest.fixture(scope="module")
def probe():
    """(base URL of a local server that counts requests, the list of paths asked)"""
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Counter)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", _Counter.hits
    finally:
        server.shutdown()


def test_markdown_in_names_and_specials_renders_as_typed_and_fetches_nothing(page, probe):
    base, hits = probe
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
