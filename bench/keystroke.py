"""Keystroke -> updated token view, and 1 MB paste -> tokens, for two checkouts side by side.

For each checkout (this one, and --before: a directory, or a git revision of this
repository, exported to a temporary directory; e.g. ../other-checkout or HEAD~3):
  server   the page's rerun time for one more character in a 2 KB text (AppTest, median)
  e2e      in Chromium, one key press in a 2 KB / 10 KB (/ 100 KB: --big) text until the view shows the new
           character count (p50 / p95). The old view only updates on Ctrl+Enter, so there a
           "keystroke" is the key plus Ctrl+Enter; the new one needs no Enter and its time
           includes its 150 ms debounce.
  ws       the websocket bytes and messages of one key press (from the press until the
           rerun it caused has finished), server -> browser and browser -> server, as
           Chromium saw them (median over the key presses)
  paste    a 1 MB text put into the box (one input event, as a paste; the old view: its
           textarea filled, then Ctrl+Enter) until the count shows 1,000,000 characters
           and token boxes are drawn, twice per checkout (A B B A; --no-paste skips it).

    python bench/keystroke.py --before /work/main --keys 15 > bench/results/view.md

Texts are slices of the shared taylorswift.txt corpus. Both servers run from this
virtualenv with PYTHONDONTWRITEBYTECODE=1 (nothing is written into the other checkout).
"""
import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from helpers.app import CHROMIUM, CHROMIUM_ARGS, free_port, read_corpus, wait_rendered  # noqa: E402

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


def server(checkout, wait=90):
    """`streamlit run app.py` of checkout on a free 127.0.0.1 port, headless, writing no
    bytecode into the checkout -> (process, url), once its health check answers (within
    `wait` seconds). The benches' one way to start the app (bench/load.py uses it too)."""
    port = free_port()
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1")
    proc = subprocess.Popen(
        [sys.executable, "-m", "streamlit", "run", str(Path(checkout) / "app.py"),
         "--server.port", str(port), "--server.address", "127.0.0.1",
         "--server.headless", "true"], cwd=checkout, env=env,
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + wait
    while time.monotonic() < deadline:
        try:
            urllib.request.urlopen(url + "/_stcore/health", timeout=2)
            return proc, url
        except OSError:
            time.sleep(0.3)
    proc.kill()
    raise RuntimeError(f"the server of {checkout} did not start")


def checkout_dir(where, scratch):
    """A directory as is; anything else is a git revision of this repository, exported
    (git archive) into a new directory under scratch."""
    if Path(where).is_dir():
        return str(Path(where).resolve())
    target = Path(scratch) / where.replace("/", "_")
    target.mkdir()
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", where],
                             capture_output=True, check=True).stdout
    subprocess.run(["tar", "-x", "-C", str(target)], input=archive, check=True)
    return str(target)


class Wire:
    """Counts the websocket frames a tab receives and sends (Chromium's view of them)."""

    def __init__(self, tab):
        self.got = self.sent = self.got_n = self.sent_n = 0
        tab.on("websocket", self._watch)

    def _watch(self, ws):
        ws.on("framereceived", lambda payload: self._count(payload, True))
        ws.on("framesent", lambda payload: self._count(payload, False))

    def _count(self, payload, received):
        size = len(payload.encode() if isinstance(payload, str) else payload)
        if received:
            self.got, self.got_n = self.got + size, self.got_n + 1
        else:
            self.sent, self.sent_n = self.sent + size, self.sent_n + 1

    def totals(self):
        return self.got, self.got_n, self.sent, self.sent_n


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


class Typist:
    """One checkout's Tokenize tab holding `text`, ready for key presses at its end."""

    def __init__(self, browser, url, text, new, init_script=None):
        self.tab = browser.new_page(viewport={"width": 1400, "height": 1000})
        self.wire, self.length, self.new = Wire(self.tab), len(text), new
        if init_script:  # JS that runs in the page before Streamlit's own
            self.tab.add_init_script(init_script)
        self.tab.goto(url)
        wait_rendered(self.tab)
        put_text(self.tab, text, new)
        wait_count(self.tab, f"{len(text):,}")
        wait_rendered(self.tab)
        area = (self.tab.locator(".tv-editor textarea").first if new
                else self.tab.locator('[data-testid="stTextArea"] textarea').first)
        area.click()
        self.tab.keyboard.press("Control+End")

    def press(self):
        """One more "x": (seconds until the view shows the new count, the websocket
        traffic from the press until its rerun finished, as Wire.totals)."""
        self.tab.bring_to_front()  # the other checkout's tab may have been in front
        before = self.wire.totals()
        start = time.perf_counter()
        self.tab.keyboard.press("x")
        if not self.new:
            self.tab.keyboard.press("Control+Enter")
        self.length += 1
        wait_count(self.tab, f"{self.length:,}")
        took = time.perf_counter() - start
        wait_rendered(self.tab)
        return took, [b - a for a, b in zip(before, self.wire.totals())]


def p95(values):
    return sorted(values)[max(0, round(0.95 * len(values)) - 1)]


def measure(checkouts, keys, texts, big):
    """label -> figures, for every checkout: both servers run at once and the key
    presses alternate between them (before, after; then after, before; ...), so a change
    in the machine's load lands on both alike."""
    from playwright.sync_api import sync_playwright
    rows = {label: {"server_2k": server_time(checkout, texts["2 KB"], keys)}
            for label, checkout in checkouts.items()}
    new = {label: is_new_view(checkout) for label, checkout in checkouts.items()}
    servers = {}
    try:
        for label, checkout in checkouts.items():
            servers[label] = server(checkout)
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            for name, text in texts.items():
                typists = {label: Typist(browser, servers[label][1], text, new[label])
                           for label in checkouts}
                for label in checkouts:
                    rows[label][name], rows[label]["ws " + name] = [], []
                for k in range(keys):
                    for label in (list(checkouts) if k % 2 == 0 else list(checkouts)[::-1]):
                        took, traffic = typists[label].press()
                        rows[label][name].append(took)
                        rows[label]["ws " + name].append(traffic)
                for typist in typists.values():
                    typist.tab.close()
            order = list(checkouts)
            for label in order + order[::-1] if big else ():  # A B B A
                tab = browser.new_page(viewport={"width": 1400, "height": 1000})
                tab.goto(servers[label][1])
                wait_rendered(tab)
                start = time.perf_counter()
                put_text(tab, big, new[label])
                wait_count(tab, f"{len(big):,}", timeout=300)
                rows[label].setdefault("paste_1mb", []).append(time.perf_counter() - start)
                tab.close()
            browser.close()
    finally:
        for proc, _ in servers.values():
            proc.terminate()
            proc.wait(timeout=20)
    return rows


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--before", default="main",
                        help="checkout (directory) or git revision to compare against")
    parser.add_argument("--after", default=str(ROOT), help="checkout or git revision")
    parser.add_argument("--keys", type=int, default=15, help="key presses per text size")
    parser.add_argument("--no-paste", action="store_true", help="skip the 1 MB paste")
    parser.add_argument("--big", action="store_true", help="also key presses in a 100 KB text")
    args = parser.parse_args()
    corpus = read_corpus("taylorswift.txt")
    texts = {"2 KB": corpus[:2_000], "10 KB": corpus[:10_000]}
    if args.big:
        texts["100 KB"] = (corpus * (100_000 // len(corpus) + 1))[:100_000]
    big = None if args.no_paste else (corpus * (1_000_000 // len(corpus) + 1))[:1_000_000]
    load_start = os.getloadavg()[0]
    with tempfile.TemporaryDirectory() as scratch:
        checkouts = {"before": checkout_dir(args.before, scratch),
                     "after": checkout_dir(args.after, scratch)}
        results = measure(checkouts, args.keys, texts, big)
    b, a = results["before"], results["after"]
    print(f"before: {args.before}, after: {args.after}\n")
    print("| measure | before | after | after/before |")
    print("|---|---:|---:|---:|")
    print(f"| server rerun, 2 KB, median | {b['server_2k'] * 1000:.0f} ms | "
          f"{a['server_2k'] * 1000:.0f} ms | {a['server_2k'] / b['server_2k']:.2f} |")
    for name in texts:
        for stat, fn in (("p50", statistics.median), ("p95", p95)):
            bv, av = fn(b[name]), fn(a[name])
            print(f"| keystroke → view, {name}, {stat} | {bv * 1000:.0f} ms | "
                  f"{av * 1000:.0f} ms | {av / bv:.2f} |")
    for name in texts:
        for i, what in enumerate(("bytes server → browser", "messages server → browser",
                                  "bytes browser → server", "messages browser → server")):
            bv = statistics.median(t[i] for t in b["ws " + name])
            av = statistics.median(t[i] for t in a["ws " + name])
            print(f"| websocket per key press, {name}: {what}, median | {bv:,.0f} | "
                  f"{av:,.0f} | {av / bv:.2f} |")
    if big:
        bv, av = statistics.mean(b["paste_1mb"]), statistics.mean(a["paste_1mb"])
        print(f"| 1 MB paste → tokens, mean of 2 (before, after, after, before) | "
              f"{bv:.1f} s | {av:.1f} s | {av / bv:.2f} |")
    print(f"\n{args.keys} key presses per size; load average (1 min) at the start: "
          f"{load_start:.1f}, at the end: {os.getloadavg()[0]:.1f}, on {os.cpu_count()} cores.")


if __name__ == "__main__":
    main()
