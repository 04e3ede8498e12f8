"""Where a key press's time goes on Tokenize, in the page's own clock, for checkouts side
by side (the companion of bench/keystroke.py, which times the whole key press).

For one "x" typed at the end of a 10 KB text (--size) in the token view's box, the page records
(performance.now()) the keydown, every websocket message it sends and receives, and the
frame where the view first shows the new Characters count and its tokens:

  key → send          the view's JS handing the text to Streamlit, which sends it
  send → first msg    the server starting the rerun
  first msg → view    the rerun's messages up to the one carrying the token view
  view msg → shown    the browser decoding it and the view redrawing
  whole rerun         first to last message of the rerun
  key → shown         the sum, as the user sees it

Key presses alternate between the checkouts' servers (A B, then B A, ...); medians in ms.

    python bench/keystroke_phases.py 24183a0 . --keys 15
    python bench/keystroke_phases.py 75747a9 . --keys 10 --size 100000
"""
import argparse
import statistics
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from keystroke import (CHROMIUM, CHROMIUM_ARGS, COUNT_JS, Typist, checkout_dir,  # noqa: E402
                       read_corpus, server, wait_rendered)

# before Streamlit's code: timestamp the key, the websocket's sends and its messages
RECORD_JS = """
window.__phases = [];
const note = (what, size) => window.__phases.push([what, performance.now(), size]);
const send = WebSocket.prototype.send;
WebSocket.prototype.send = function (data) { note('send', data.byteLength || data.length); return send.call(this, data); };
const listen = WebSocket.prototype.addEventListener;
WebSocket.prototype.addEventListener = function (type, fn, ...rest) {
    const wrapped = type !== 'message' ? fn : function (event) {
        note('recv', event.data && (event.data.byteLength || event.data.size || event.data.length));
        return fn.call(this, event);
    };
    return listen.call(this, type, wrapped, ...rest);
};
document.addEventListener('keydown', () => note('key', 0), true);
"""
# count (a string as shown) -> window.__shown = the first frame's time that shows it
WATCH_JS = """count => {
    window.__phases = []; window.__shown = null;
    const tick = () => {
        const [shown, boxes] = (%s)();
        if (shown === count && boxes > 0) window.__shown = performance.now();
        else requestAnimationFrame(tick);
    };
    tick();
}""" % COUNT_JS
NAMES = ["key → send", "send → first msg", "first msg → view", "view msg → shown",
         "whole rerun", "key → shown"]


def press(typist):
    """One "x" -> the phases (ms) of NAMES."""
    tab = typist.tab
    tab.bring_to_front()
    typist.length += 1
    tab.evaluate(WATCH_JS, f"{typist.length:,}")
    tab.keyboard.press("x")
    tab.wait_for_function("() => window.__shown !== null", timeout=60_000)
    shown = tab.evaluate("window.__shown")
    wait_rendered(tab)
    log = tab.evaluate("window.__phases")
    key = next(t for what, t, _ in log if what == "key")
    sent = next(t for what, t, _ in log if what == "send" and t >= key)
    got = [(t, size or 0) for what, t, size in log if what == "recv" and t >= sent]
    view = max(got, key=lambda m: m[1])[0]  # the view's message is the rerun's largest
    return [sent - key, got[0][0] - sent, view - got[0][0], shown - view,
            got[-1][0] - got[0][0], shown - key]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("checkouts", nargs="+", help="directories or git revisions")
    ap.add_argument("--keys", type=int, default=15, help="key presses per checkout")
    ap.add_argument("--size", type=int, default=10_000, help="characters of text (10 KB)")
    args = ap.parse_args()
    from playwright.sync_api import sync_playwright
    corpus = read_corpus("taylorswift.txt")
    text = (corpus * (args.size // len(corpus) + 1))[:args.size]
    results = {where: [] for where in args.checkouts}
    with tempfile.TemporaryDirectory() as scratch:
        servers = {}
        try:
            for where in args.checkouts:
                servers[where] = server(checkout_dir(where, scratch))
            with sync_playwright() as p:
                browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
                typists = {where: Typist(browser, servers[where][1], text, True, RECORD_JS)
                           for where in args.checkouts}
                for k in range(args.keys):
                    for where in args.checkouts[::1 if k % 2 == 0 else -1]:
                        results[where].append(press(typists[where]))
                browser.close()
        finally:
            for proc, _ in servers.values():
                proc.terminate()
                proc.wait(timeout=20)
    print(f"{args.size:,} characters, {args.keys} key presses per checkout\n")
    print("| phase, median ms | " + " | ".join(args.checkouts) + " |")
    print("|---|" + "---:|" * len(args.checkouts))
    for i, name in enumerate(NAMES):
        print(f"| {name} | " + " | ".join(
            f"{statistics.median(r[i] for r in results[w]):.0f}" for w in args.checkouts) + " |")


if __name__ == "__main__":
    main()
