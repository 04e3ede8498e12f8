"""Keystroke -> updated token view, and 1 MB paste -> tokens, for two checkouts side by side.

For each checkout (this one, and --before, e.g. /work/main with the old st.html view):
  server   the page's rerun time for one more character in a 2 KB text (AppTest, median)
  e2e      in Chromium, one key press in a 2 KB / 10 KB text until the view shows the new
           character count (p50 / p95). The old view only updates on Ctrl+Enter, so there a
           "keystroke" is the key plus Ctrl+Enter; the new one needs no Enter and its time
           includes its 150 ms debounce.
  paste    a 1 MB text put into the box (one input event, as a paste; the old view: its
           textarea filled, then Ctrl+Enter) until the count shows 1,000,000 characters
           and token boxes are drawn.

    python bench/keystroke.py --before /work/main --keys 15 > bench/results/view.md

Texts are slices of the shared taylorswift.txt corpus. Both servers run from this
virtualenv with PYTHONDONTWRITEBYTECODE=1 (nothing is written into the other checkout).
"""
import argparse
import os
import statistics
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from conftest import CHROMIUM, CHROMIUM_ARGS, _free_port, read_corpus, wait_rendered  # noqa: E402

# The token view draws inside its component's shadow root. These snippets find it (the
# view with a text box; the host is cached, so polling every frame stays cheap), set its
# text as a paste does, and read a figure. bench/load.py and bench/train_latency.py use
# them too.
VIEW_ROOT_JS = """(() => {
    const cached = window.__benchViewHost;
    if (cached && cached.isConnected) return cached.shadowRoot;
    for (const host of document.querySelectorAll('*')) {
        if (host.shadowRoot && host.shadowRoot.querySelector('.tv-editor:not([hidden]) textarea')) {
            window.__benchViewHost = host;
            return host.shadowRoot;
        }
    }
    return null;
})()"""
# text -> the view's text box holds it (native value setter, then one input event)
SET_TEXT_JS = """text => {
    const area = %s.querySelector('.tv textarea');
    Object.getOwnPropertyDescriptor(HTMLTextAreaElement.prototype, 'value').set.call(area, text);
    area.dispatchEvent(new Event('input', {bubbles: true}));
    area.focus();
}""" % VIEW_ROOT_JS
# label -> the figure's shown value ("1,234"), or null before the view has drawn it
FIGURE_JS = """label => {
    const root = %s;
    const fig = root && root.querySelector(`.fig[data-label="${label}"] .fig-value`);
    return fig ? fig.textContent.trim() : null;
}""" % VIEW_ROOT_JS

# the shown "Characters" count and the number of drawn tokens, for the new view and the
# old one (an st.metric above an st.html view)
COUNT_JS = """() => {
    const root = %s;
    const fig = root && root.querySelector('.fig[data-label="Characters"] .fig-value');
    if (fig) return [fig.textContent, root.querySelectorAll('.tok').length];
    for (const m of document.querySelectorAll('[data-testid="stMetric"]')) {
        if (m.innerText.includes('Characters')) {
            return [m.querySelector('[data-testid="stMetricValue"]').innerText.trim(),
                    document.querySelectorAll('.tokens .tok').length];
        }
    }
    return [null, 0];
}""" % VIEW_ROOT_JS


def is_new_view(checkout):
    return (Path(checkout) / "lab" / "token_view.py").exists()


def server(checkout):
    port = _free_port()
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1")
    proc = subprocess.Popen(
        [sys.executable, "-m", "streamlit", "run", str(Path(checkout) / "app.py"),
         "--server.port", str(port), "--server.address", "127.0.0.1",
         "--server.headless", "true"], cwd=checkout, env=env,
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"
    for _ in range(300):
        try:
            urllib.request.urlopen(url + "/_stcore/health", timeout=2)
            return proc, url
        except OSError:
            time.sleep(0.3)
    proc.kill()
    raise RuntimeError(f"the server of {checkout} did not start")


def server_time(checkout, text, keys):
    """Median seconds of the app's rerun (frame, sidebar and the Tokenize page) after one
    more character (AppTest, in a child process so each checkout imports its own modules)."""
    code = f"""
import sys, time, statistics
sys.path.insert(0, {str(checkout)!r})
from streamlit.runtime.pages_manager import PagesManager
from streamlit.testing.v1 import AppTest
init = PagesManager.__init__
def stay_in_frame(self, *args, **kwargs):  # as tests/conftest.py: pages run inside app.py
    init(self, *args, **kwargs)
    PagesManager.uses_pages_directory = False
PagesManager.__init__ = stay_in_frame
at = AppTest.from_file({str(Path(checkout) / "app.py")!r}, default_timeout=300)
at.run()
at.switch_page("pages/tokenize.py")
at.run()
text = {text!r}
new = {is_new_view(checkout)!r}
times = []
for k in range({keys}):
    text += "x"
    start = time.perf_counter()
    if new:
        at.session_state["tokenize_text"] = text
        at.run()
    else:
        at.text_area(key="tokenize_text").input(text).run()
    times.append(time.perf_counter() - start)
    assert not at.exception, at.exception
print(statistics.median(times))
"""
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1")
    out = subprocess.run([sys.executable, "-c", code], cwd=checkout, env=env,
                         capture_output=True, text=True, timeout=900)
    if out.returncode:
        raise RuntimeError(out.stderr[-2000:])
    return float(out.stdout.strip().splitlines()[-1])


def wait_count(tab, chars, timeout=120):
    tab.wait_for_function(f"() => {{ const [c, n] = ({COUNT_JS})(); "
                          f"return c === {chars!r} && n > 0; }}",
                          timeout=timeout * 1000, polling="raf")


def put_text(tab, text, new):
    """Replace the text as a paste does (the native value setter, then one input event,
    which React's textarea also takes); the old view then needs Ctrl+Enter."""
    if new:
        tab.wait_for_function(f"() => {VIEW_ROOT_JS} !== null", timeout=120_000)
        tab.evaluate(SET_TEXT_JS, text)
        return
    area = tab.locator('[data-testid="stTextArea"] textarea').first
    area.wait_for(timeout=120_000)
    area.evaluate("""(area, text) => {
        Object.getOwnPropertyDescriptor(HTMLTextAreaElement.prototype, 'value').set.call(area, text);
        area.dispatchEvent(new Event('input', {bubbles: true}));
        area.focus();
    }""", text)
    area.press("Control+Enter", timeout=300_000)


def keystrokes(tab, text, keys, new):
    """Seconds from a key press to the view showing the new count, `keys` times."""
    put_text(tab, text, new)
    wait_count(tab, f"{len(text):,}")
    wait_rendered(tab)
    area = (tab.locator(".tv-editor textarea").first if new
            else tab.locator('[data-testid="stTextArea"] textarea').first)
    area.click()
    tab.keyboard.press("Control+End")
    times = []
    for k in range(keys):
        start = time.perf_counter()
        tab.keyboard.press("x")
        if not new:
            tab.keyboard.press("Control+Enter")
        wait_count(tab, f"{len(text) + k + 1:,}")
        times.append(time.perf_counter() - start)
        wait_rendered(tab)
    return times


def p95(values):
    return sorted(values)[max(0, round(0.95 * len(values)) - 1)]


def measure(checkout, keys, texts, big):
    from playwright.sync_api import sync_playwright
    new = is_new_view(checkout)
    row = {"server_2k": server_time(checkout, texts["2 KB"], keys)}
    proc, url = server(checkout)
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            for name, text in texts.items():
                tab = browser.new_page(viewport={"width": 1400, "height": 1000})
                tab.goto(url)
                wait_rendered(tab)
                row[name] = keystrokes(tab, text, keys, new)
                tab.close()
            tab = browser.new_page(viewport={"width": 1400, "height": 1000})
            tab.goto(url)
            wait_rendered(tab)
            start = time.perf_counter()
            put_text(tab, big, new)
            wait_count(tab, f"{len(big):,}", timeout=300)
            row["paste_1mb"] = time.perf_counter() - start
            browser.close()
    finally:
        proc.terminate()
        proc.wait(timeout=20)
    return row


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--before", default="/work/main", help="checkout with the old view")
    parser.add_argument("--after", default=str(ROOT), help="checkout with the new view")
    parser.add_argument("--keys", type=int, default=15, help="key presses per text size")
    args = parser.parse_args()
    corpus = read_corpus("taylorswift.txt")
    texts = {"2 KB": corpus[:2_000], "10 KB": corpus[:10_000]}
    big = (corpus * (1_000_000 // len(corpus) + 1))[:1_000_000]
    results = {}
    load_start = os.getloadavg()[0]
    for label, checkout in (("before", args.before), ("after", args.after)):
        results[label] = measure(checkout, args.keys, texts, big)
    b, a = results["before"], results["after"]
    print("| measure | before (old st.html view, Ctrl+Enter) | after (token view, live) | after/before |")
    print("|---|---:|---:|---:|")
    print(f"| server rerun, 2 KB, median | {b['server_2k'] * 1000:.0f} ms | "
          f"{a['server_2k'] * 1000:.0f} ms | {a['server_2k'] / b['server_2k']:.2f} |")
    for name in texts:
        for stat, fn in (("p50", statistics.median), ("p95", p95)):
            bv, av = fn(b[name]), fn(a[name])
            print(f"| keystroke → view, {name}, {stat} | {bv * 1000:.0f} ms | "
                  f"{av * 1000:.0f} ms | {av / bv:.2f} |")
    print(f"| 1 MB paste → tokens | {b['paste_1mb']:.1f} s | {a['paste_1mb']:.1f} s | "
          f"{a['paste_1mb'] / b['paste_1mb']:.2f} |")
    print(f"\n{args.keys} key presses per size; load average (1 min) at the start: "
          f"{load_start:.1f}, at the end: {os.getloadavg()[0]:.1f}, on {os.cpu_count()} cores.")


if __name__ == "__main__":
    main()
