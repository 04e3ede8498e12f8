"""Key press -> ids on Tokenize, before (every key a round trip to Python) and after (the
browser encodes; Python checks), and the server CPU each key press costs.

For each checkout (--before: a directory, or a git revision exported to a temporary
directory, e.g. main; --after: this one), both servers running, presses alternating:
  key      in Chromium, one "x" at the end of a 2 KB / 10 KB / 100 KB text until the view
           shows the new character count with its tokens (p50 / p95; the after view draws
           its own ids at once, the before one waits for the rerun), timed inside the page
           from the input event to the frame that shows it (no CDP round trips in it)
  cpu      the server process's CPU time (user + system, /proc) per key press, over the
           same presses (each waits for its rerun to finish before the next)
  typing   the server's CPU per key press while typing: --burst keys at --gap ms apart
           (a fast typist), then until Python has checked the last text and the server
           is idle; its CPU over the whole burst divided by the keys
  paste    a 1 MB text put into the box (one input event) until its count and tokens show,
           A B B A, timed inside the page; the after view first gets its vocabulary (the
           engine line says "browser ids == Python"), as a visitor's would while reading

    python bench/browser_encode.py --before main --keys 15 > bench/results/view.md

Goals (issue 21): p95 <= 50 ms on 10 KB; 1 MB paste <= 1 s. Helpers come from
bench/keystroke.py (servers, checkouts, the key-press driver).
"""
import argparse
import os
import statistics
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from keystroke import (
    CHROMIUM,
    CHROMIUM_ARGS,
    VIEW_ROOT_JS,
    checkout_dir,
    p95,
    read_corpus,
    server,
    wait_count,
    wait_rendered,
)

# text -> ms from the input event that puts it in the box to the frame whose Characters
# figure shows its length and whose view has tokens
TIMED_INPUT_JS = """async (text) => {
    const root = %s;
    const area = root.querySelector('.tv textarea');
    const want = text.length.toLocaleString('en-US');
    const t0 = performance.now();
    Object.getOwnPropertyDescriptor(HTMLTextAreaElement.prototype, 'value').set.call(area, text);
    area.dispatchEvent(new Event('input', {bubbles: true}));
    await new Promise((done) => {
        const look = () => {
            const fig = root.querySelector('.fig[data-label="Characters"] .fig-value');
            if (fig && fig.textContent === want && root.querySelector('.tok')) done();
            else requestAnimationFrame(look);
        };
        look();
    });
    return performance.now() - t0;
}""" % VIEW_ROOT_JS
# (count, gap ms) -> types count "x" at the end of the text, one input event every gap ms,
# and returns the text's length
BURST_JS = """async ([count, gap]) => {
    const area = %s.querySelector('.tv textarea');
    const set = Object.getOwnPropertyDescriptor(HTMLTextAreaElement.prototype, 'value').set;
    for (let k = 0; k < count; k++) {
        set.call(area, area.value + 'x');
        area.dispatchEvent(new Event('input', {bubbles: true}));
        await new Promise((done) => setTimeout(done, gap));
    }
    return area.value.length;
}""" % VIEW_ROOT_JS
# the engine line says Python checked a text of the count the view shows
CHECKED_JS = """() => {
    const root = %s;
    const engine = root.querySelector('.tv-engine');
    const fig = root.querySelector('.fig[data-label="Tokens"] .fig-value');
    return !!engine && !!fig && engine.dataset.state === 'ok'
        && engine.textContent.includes('(' + fig.textContent + ' tokens)');
}""" % VIEW_ROOT_JS
ENGINE_READY_JS = """() => {
    const root = %s;
    const engine = root && root.querySelector('.tv-engine');
    return !!engine && engine.dataset.state === 'ok';
}""" % VIEW_ROOT_JS


def open_tab(browser, url, text=None):
    """A Tokenize tab, rendered, its vocabulary in (when it encodes in the browser), holding
    text when given."""
    tab = browser.new_page(viewport={"width": 1400, "height": 1000})
    tab.goto(url)
    wait_rendered(tab)
    tab.wait_for_function(f"() => {VIEW_ROOT_JS} !== null", timeout=120_000)
    settle(tab)
    if text is not None:
        tab.evaluate(TIMED_INPUT_JS, text)
        wait_count(tab, f"{len(text):,}")
        settle(tab)
    return tab


def settle(tab):
    """Wait for the rerun to finish, and for the browser's check when it has an engine."""
    wait_rendered(tab)
    if tab.evaluate(f"() => !!({VIEW_ROOT_JS}).querySelector('.tv-engine:not([hidden])')"):
        tab.wait_for_function(ENGINE_READY_JS, timeout=120_000)


def cpu_seconds(pid):
    """user + system CPU seconds of process pid so far (Linux /proc)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def idle(pid, quiet=0.8, step=0.1, timeout=120):
    """Wait until the process has used no CPU for `quiet` seconds (longer than the box's
    pause before it sends), polling its /proc counters."""
    import time
    deadline, last, still = time.monotonic() + timeout, cpu_seconds(pid), 0.0
    while still < quiet and time.monotonic() < deadline:
        time.sleep(step)
        now = cpu_seconds(pid)
        still = still + step if now == last else 0.0
        last = now


def typing_cpu(tab, pid, count, gap):
    """Server CPU seconds per key press over a burst of count keys gap ms apart."""
    before = cpu_seconds(pid)
    tab.evaluate(BURST_JS, [count, gap])
    tab.wait_for_function(CHECKED_JS, timeout=120_000)
    idle(pid)
    return (cpu_seconds(pid) - before) / count


def measure(checkouts, keys, texts, big, burst=12, gap=100):
    from playwright.sync_api import sync_playwright
    rows = {label: {} for label in checkouts}
    servers = {}
    try:
        for label, checkout in checkouts.items():
            servers[label] = server(checkout)
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            for name, text in texts.items():
                tabs = {label: open_tab(browser, servers[label][1], text) for label in checkouts}
                cpu = {label: 0.0 for label in checkouts}
                typed = {label: text for label in checkouts}
                for label in checkouts:
                    rows[label][name] = []
                for k in range(keys):
                    for label in (list(checkouts) if k % 2 == 0 else list(checkouts)[::-1]):
                        pid = servers[label][0].pid
                        before = cpu_seconds(pid)
                        typed[label] += "x"
                        took = tabs[label].evaluate(TIMED_INPUT_JS, typed[label]) / 1000
                        settle(tabs[label])
                        cpu[label] += cpu_seconds(pid) - before
                        rows[label][name].append(took)
                for label in checkouts:
                    rows[label]["cpu " + name] = cpu[label] / keys
                for label in checkouts:
                    rows[label]["typing " + name] = typing_cpu(
                        tabs[label], servers[label][0].pid, burst, gap)
                for tab in tabs.values():
                    tab.close()
            order = list(checkouts)
            for label in order + order[::-1] if big else ():  # A B B A
                tab = open_tab(browser, servers[label][1])
                took = tab.evaluate(TIMED_INPUT_JS, big) / 1000
                rows[label].setdefault("paste", []).append(took)
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
    parser.add_argument("--after", default=str(Path(__file__).resolve().parent.parent),
                        help="checkout or git revision")
    parser.add_argument("--keys", type=int, default=15, help="key presses per text size")
    parser.add_argument("--no-paste", action="store_true", help="skip the 1 MB paste")
    parser.add_argument("--burst", type=int, default=12, help="keys per typing burst")
    parser.add_argument("--gap", type=int, default=100, help="ms between a burst's keys")
    args = parser.parse_args()
    corpus = read_corpus("taylorswift.txt")
    long = corpus * (1_000_000 // len(corpus) + 1)
    texts = {"2 KB": corpus[:2_000], "10 KB": corpus[:10_000], "100 KB": long[:100_000]}
    big = None if args.no_paste else long[:1_000_000]
    load_start = os.getloadavg()[0]
    with tempfile.TemporaryDirectory() as scratch:
        checkouts = {"before": checkout_dir(args.before, scratch),
                     "after": checkout_dir(args.after, scratch)}
        results = measure(checkouts, args.keys, texts, big, args.burst, args.gap)
    b, a = results["before"], results["after"]
    print(f"before: {args.before}, after: {args.after}\n")
    print("| measure | before | after | after/before |")
    print("|---|---:|---:|---:|")
    for name in texts:
        for stat, fn in (("p50", statistics.median), ("p95", p95)):
            bv, av = fn(b[name]), fn(a[name])
            print(f"| key press → ids, {name}, {stat} | {bv * 1000:.0f} ms | "
                  f"{av * 1000:.0f} ms | {av / bv:.2f} |")
    for name in texts:
        bv, av = b["cpu " + name], a["cpu " + name]
        print(f"| server CPU per key press, {name} | {bv * 1000:.0f} ms | {av * 1000:.0f} ms | "
              f"{av / bv if bv else float('nan'):.2f} |")
    for name in texts:
        bv, av = b["typing " + name], a["typing " + name]
        print(f"| server CPU per key press typing ({args.burst} keys, {args.gap} ms apart), "
              f"{name} | {bv * 1000:.0f} ms | {av * 1000:.0f} ms | "
              f"{av / bv if bv else float('nan'):.2f} |")
    if big:
        bv, av = statistics.mean(b["paste"]), statistics.mean(a["paste"])
        print(f"| 1 MB paste → tokens, mean of 2 (A B B A) | {bv:.2f} s | {av:.2f} s | "
              f"{av / bv:.2f} |")
    print(f"\n{args.keys} key presses per size; load average (1 min) at the start: "
          f"{load_start:.1f}, at the end: {os.getloadavg()[0]:.1f}, on {os.cpu_count()} cores.")


if __name__ == "__main__":
    main()
