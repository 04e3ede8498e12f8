"""Driving the app in tests: where the checkout and the corpora are, a Streamlit server
on a free port, what the browser tests wait on and read (a rendered run, the metrics
on the page, a screenshot), and the Train page's opening and upload. Imported as `from helpers.app import ...`; the
fixtures built on these (app_url, browser, page) are tests/conftest.py's.
"""
import contextlib
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CORPORA = Path(os.environ.get("BPE_CORPORA", ROOT.parent / "shared" / "corpora"))


def read_corpus(name):
    path = CORPORA / name
    if not path.exists():
        raise FileNotFoundError(f"{path} is missing: the tests read ../shared/corpora beside "
                                "the checkout, or set BPE_CORPORA to the folder")
    return path.read_text(encoding="utf-8")


CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run",
                 "--disable-quic"]
SCREENSHOTS = ROOT / "screenshots"
# the environment `make run` serves the app in (the Makefile says why)
SERVED_AS = {"MALLOC_ARENA_MAX": "2", "MALLOC_MMAP_THRESHOLD_": "131072"}


def free_port():
    import socket
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def streamlit_server(script, *, cap_bytes=None, env=None, cwd=ROOT):
    """`streamlit run script` on a free local port; yields (its URL, the process).
    cap_bytes: cap its address space (a memory bomb that works fails there instead of
    taking the machine); env: extra environment variables; cwd: where it runs (Streamlit
    reads .streamlit/config.toml there). Its output goes to a file, shown if it does not
    start: a pipe nobody reads would stall the server once full."""
    import subprocess
    import tempfile
    import urllib.request

    def cap():
        import resource
        resource.setrlimit(resource.RLIMIT_AS, (cap_bytes, cap_bytes))

    port = free_port()
    log = tempfile.TemporaryFile()
    proc = subprocess.Popen(
        [sys.executable, "-m", "streamlit", "run", str(script),
         "--server.headless", "true", "--server.port", str(port),
         "--server.address", "127.0.0.1", "--browser.gatherUsageStats", "false"],
        cwd=cwd, env={**os.environ, **SERVED_AS, **(env or {})}, stdout=log, stderr=subprocess.STDOUT,
        preexec_fn=cap if cap_bytes else None)
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    try:
        while True:
            try:
                urllib.request.urlopen(url + "/_stcore/health", timeout=2)
                break
            except OSError:
                if proc.poll() is not None or time.monotonic() > deadline:
                    log.seek(0)
                    raise RuntimeError(f"streamlit did not start for {script}: " +
                                       log.read().decode(errors="replace")[-2000:]) from None
                time.sleep(0.3)
        yield url, proc
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        log.close()


@contextlib.contextmanager
def app_server():
    """The app (`streamlit run app.py`) on a free local port; yields its URL."""
    with streamlit_server(ROOT / "app.py") as (url, _):
        yield url


def wait_rendered(tab, timeout=60_000):
    """Wait until Streamlit has finished running the script (no 'Running' status)."""
    tab.wait_for_selector('[data-testid="stApp"]', timeout=timeout)
    tab.wait_for_function(
        """() => {
            const app = document.querySelector('[data-testid="stApp"]');
            const busy = document.querySelector('[data-testid="stStatusWidget"]');
            // 'notRunning' only after a run has finished ('initial' before the first)
            return app && app.getAttribute('data-test-script-state') === 'notRunning'
                && !busy;
        }""", timeout=timeout)
    tab.wait_for_timeout(300)


def metrics(tab):
    """label -> shown value of every st.metric on the page."""
    return tab.eval_on_selector_all(
        '[data-testid="stMetric"]',
        """els => Object.fromEntries(els.map(e => [
            e.querySelector('[data-testid="stMetricLabel"]').innerText.trim(),
            e.querySelector('[data-testid="stMetricValue"]').innerText.trim()]))""")


def scheme_of(tab):
    """"dark" or "light": the color scheme the tab's page is told the OS has."""
    return "dark" if tab.evaluate("matchMedia('(prefers-color-scheme: dark)').matches") else "light"


def switch_scheme(tab, scheme, timeout=30):
    """Tell the tab the OS switched to `scheme` ("light"/"dark") and wait until Streamlit's
    app has repainted in it. Streamlit and the token views follow the media query live,
    without a rerun, so a flow can take both schemes' screenshots in one run instead of
    repeating itself in a second context. Refuses a switch to the scheme the tab already
    has: the wait below would then be met before the switch, and prove nothing."""
    if scheme not in ("light", "dark"):
        raise ValueError(f"scheme must be 'light' or 'dark', not {scheme!r}")
    if scheme_of(tab) == scheme:
        raise ValueError(f"the tab is already {scheme}: switch to the other scheme")
    tab.emulate_media(color_scheme=scheme)
    # the app's background: near white in light, near black in dark
    repainted = until(lambda: tab.evaluate("""() => {
        const app = document.querySelector('[data-testid="stApp"]');
        const [r, g, b] = getComputedStyle(app).backgroundColor.match(/\\d+/g).map(Number);
        return 0.299 * r + 0.587 * g + 0.114 * b < 128 ? 'dark' : 'light';
    }""") == scheme, timeout)
    if not repainted:
        raise AssertionError(f"the app did not repaint in {scheme} within {timeout} s")


def screenshot(tab, name):
    """Save a full-page screenshot to screenshots/NAME.png (looked at by people)."""
    SCREENSHOTS.mkdir(exist_ok=True)
    tab.screenshot(path=str(SCREENSHOTS / f"{name}.png"), full_page=True)




# ------------------------------------------------------------- the Train page, in a tab
WAIT = 120_000  # ms: a rerun that trains or reads an upload on a busy 2-core machine


def open_train(tab, url=None):
    """Go to the Train page (tall enough that a screenshot shows the corpus, the form and
    the results at once) and wait for its run: by its link in the sidebar, or with url
    (the app's), by loading url/train in the tab (a fresh tab then runs no other page
    first)."""
    tab.set_viewport_size({"width": 1400, "height": 2600})
    if url:
        tab.goto(f"{url}/train")
    else:
        tab.get_by_role("link", name="Train", exact=True).click()
    tab.get_by_text("Train a tokenizer").first.wait_for(timeout=60_000)
    wait_rendered(tab)


def upload_corpus(tab, *files, shows="Bytes (UTF-8)"):
    """files: (name, bytes); on the Train page, picks "Upload text files", sets them on the
    uploader and waits for the rerun that has read them (the page then shows `shows`)."""
    tab.locator(".st-key-train_source").get_by_text("Upload text files").click()
    tab.locator(".st-key-train_uploads input[type=file]").wait_for(state="attached",
                                                                    timeout=WAIT)
    wait_rendered(tab)
    tab.locator(".st-key-train_uploads input[type=file]").set_input_files(
        [{"name": name, "mimeType": "text/plain", "buffer": data} for name, data in files])
    tab.get_by_text(shows).first.wait_for(timeout=WAIT)
    wait_rendered(tab)


# --- the token view's engine line and drawn ids (Playwright's locators pierce its shadow root)
def view_engine(tab):
    """[state, text] of the first token view's engine line ("ok" once Python agreed)."""
    return tab.locator(".tv .tv-engine").first.evaluate("e => [e.dataset.state, e.textContent]")


def drawn_ids(tab):
    """The ids the first token view draws, in order, from its boxes' data-ids."""
    groups = tab.locator(".tv .tokens").first.evaluate(
        "el => Array.from(el.querySelectorAll('.tok[data-ids]')).map(s => s.dataset.ids)")
    return [int(i) for group in groups for i in group.split()]


# the page's own encoder module (same URL, same module) made to lie about one id: the
# browser's ids then differ from Python's
LYING_ENCODER_JS = """async () => {
    const url = performance.getEntriesByType('resource').map((e) => e.name)
        .find((n) => n.includes('encoder.js'));
    const m = await import(url);
    const encode = m.Encoder.prototype.encode;
    m.Encoder.prototype.encode = function (t, s) {
        const out = encode.call(this, t, s);
        if (out.ids.length) out.ids[0] += 1;
        return out;
    };
}"""


def until(check, timeout=60, every=0.1):
    """The one poll of the tests: call check() every `every` seconds until it returns
    something truthy, and return that; after timeout seconds return its last (falsy)
    value, so the caller's assert says what was seen. Never a fixed sleep."""
    deadline = time.monotonic() + timeout
    while True:
        got = check()
        if got or time.monotonic() > deadline:
            return got
        time.sleep(every)
