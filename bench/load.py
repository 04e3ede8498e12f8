"""Many users at once: N browser sessions typing on the Tokenize page (and some training)
against one local Streamlit server, bounded in sessions, requests and time.

Each session is a separate Chromium context, so a separate Streamlit session. Sessions
arrive one every --arrive seconds (default 0.5 s: 20 arrive over 10 s), each opening the
app and waiting for the Tokenize page's view, with up to --load-timeout seconds for that
(page loads are reported apart). When every session is in (or has failed to load), they
all type at once: every request puts a random text into the page's live text box (as a
paste: no Enter), then waits --pause seconds, as a person between edits. A request is
timed twice: until the view's "Tokens" figure shows GPT4Tokenizer's count for the text
("shown": the browser encodes by itself), and until the server's answer for it has been
checked against the browser's ids ("checked by Python": the view then reads "browser ids
== Python (N tokens)"). Either missing after 30 s is an error. A text whose count equals
the previous text's could pass before its own rerun; random texts rarely do. Every fourth
session also trains a tokenizer on the shipped sample corpus once, after its requests.
The server's peak memory is its whole process tree's (the training workers included),
sampled every 0.2 s from /proc.

Why sessions arrive spread out: a fresh Chromium context parses Streamlit's JavaScript and
loads GPT-4's vocabulary into the view (about 2 s of CPU per tab here, against 0.4 s of
the server's CPU), so 20 tabs opened at the same instant on 2 cores took 27-35 s to
reach the page's load event, past Playwright's 30 s navigation timeout. That is the load
generator's own cost on this machine, not the server's (which used 4-5 s of CPU for 10
page loads at once); real visitors bring their own CPUs and do not all arrive in the same
millisecond.

    python bench/load.py --sessions 8 --requests 15      # prints a Markdown summary

Traffic goes to 127.0.0.1 only. A session's first failed request (and a failed training)
is saved as screenshots/load_*.png, to see what the page showed.
"""
import argparse
import asyncio
import os
import random
import statistics
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from keystroke import FIGURE_JS, SET_TEXT_JS, VIEW_ROOT_JS, p95, server  # noqa: E402  the token view
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]
SHOTS = ROOT / "screenshots"  # a session's first failure is photographed here
# the view's engine line once Python's answer for the text was checked: "... (N tokens)"
CHECKED_JS = """n => {
    const root = %s;
    const engine = root && root.querySelector('.tv-engine');
    return !!engine && engine.dataset.state === 'ok' && engine.textContent.endsWith(`(${n} tokens)`);
}""" % VIEW_ROOT_JS
WORDS = ["token", "merge", " pair", "안녕", "😉", "123", "\n", "  ", "naïve", "<b>", "the"]


def start_server():
    """This checkout's app on a free local port -> (process, url) (bench/train_latency.py
    starts its server through this too)."""
    return server(ROOT)


def _tree(pid):
    """pid and all its descendants (Linux /proc)."""
    children = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as f:
                    ppid = int(f.read().rsplit(")", 1)[1].split()[1])
                children.setdefault(ppid, []).append(int(entry))
            except (OSError, ValueError, IndexError):
                pass
    found, stack = [], [pid]
    while stack:
        p = stack.pop()
        found.append(p)
        stack.extend(children.get(p, []))
    return found


def _tree_kib(pid, file, field):
    """The sum of one "Field:  N kB" line of /proc/P/file over pid and its descendants."""
    total = 0
    for p in _tree(pid):
        try:
            with open(f"/proc/{p}/{file}") as f:
                for line in f:
                    if line.startswith(field):
                        total += int(line.split()[1])
        except OSError:
            pass
    return total


def tree_rss_kib(pid):
    """Resident memory of pid and all its descendants, in KiB (Linux /proc)."""
    return _tree_kib(pid, "status", "VmRSS:")


def tree_pss_kib(pid):
    """Proportional memory of pid and all its descendants, in KiB (Linux smaps_rollup): a
    page shared by n of them counts 1/n in each, so a forked worker's pages shared with the
    server are not counted twice, as tree_rss_kib counts them."""
    return _tree_kib(pid, "smaps_rollup", "Pss:")


def tree_cpu_s(pid):
    """CPU seconds (user + system) used so far by pid and its descendants, the ones that
    ended and were waited for included (their parent's cutime/cstime)."""
    total = 0.0
    for p in _tree(pid):
        try:
            with open(f"/proc/{p}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            total += sum(map(int, fields[11:15])) / os.sysconf("SC_CLK_TCK")
        except (OSError, ValueError, IndexError):
            pass
    return total


class PeakMemory(threading.Thread):
    def __init__(self, pid):
        super().__init__(daemon=True)
        self.pid, self.peak, self.running = pid, 0, True

    def run(self):
        while self.running:
            self.peak = max(self.peak, tree_rss_kib(self.pid))
            time.sleep(0.2)


async def wait_idle(page, seconds=60):
    await page.wait_for_function(
        """() => { const a = document.querySelector('[data-testid="stApp"]');
                   return a && a.getAttribute('data-test-script-state') !== 'running'
                          && !document.querySelector('[data-testid="stStatusWidget"]'); }""",
        timeout=seconds * 1000)


async def tokens_figure(page):
    """The token view's "Tokens" figure as an int, or None before it is drawn."""
    shown = await page.evaluate(FIGURE_JS, "Tokens")
    return None if shown is None else int(shown.replace(",", ""))


async def session(browser, url, n, args, gpt4, stats, ready, go):
    """One visitor: arrives n * args.arrive s after the start, loads the page, waits for
    everyone (go), types args.requests texts, and (every fourth) trains once."""
    await asyncio.sleep(n * args.arrive)
    context = await browser.new_context()
    page = await context.new_page()
    rng = random.Random(n)
    try:
        start = time.perf_counter()
        try:
            await page.goto(url, timeout=args.load_timeout * 1000)
            await wait_idle(page, args.load_timeout)
            await page.wait_for_function(f"() => {VIEW_ROOT_JS} !== null",
                                         timeout=args.load_timeout * 1000)
            stats["page_load"].append(time.perf_counter() - start)
        except Exception as e:  # a page that never loads is an error, and types nothing
            stats["errors"].append(f"session {n} page load: {type(e).__name__}: {str(e)[:120]}")
            return
        finally:
            ready()
        await go.wait()
        deadline = time.monotonic() + args.seconds
        for _ in range(args.requests):
            if time.monotonic() > deadline:
                break
            await request(page, n, rng, gpt4, stats)
            await asyncio.sleep(args.pause)
        if n % 4 == 0 and time.monotonic() < deadline:
            await train_once(page, url, n, stats)
    finally:
        await context.close()


async def request(page, n, rng, gpt4, stats):
    """One edit: a random text in the box, timed until shown, then until checked."""
    text = "".join(rng.choice(WORDS) for _ in range(rng.randint(5, 60)))
    expected = len(gpt4.encode(text, allowed_special="none"))
    start = time.perf_counter()
    try:
        await page.evaluate(SET_TEXT_JS, text)
        try:
            await page.wait_for_function(f"n => ({FIGURE_JS})('Tokens') === n",
                                         arg=f"{expected:,}", timeout=30_000)
            stats["latency"].append(time.perf_counter() - start)
            await page.wait_for_function(CHECKED_JS, arg=f"{expected:,}", timeout=30_000)
            stats["checked"].append(time.perf_counter() - start)
            stats["served"] += 1
        except Exception:
            got = await tokens_figure(page)
            stats["errors"].append(f"session {n}: Tokens {got} or not checked, expected "
                                   f"{expected}")
    except Exception as e:  # a timeout or missing element is an error to count
        stats["errors"].append(f"session {n}: {type(e).__name__}: {str(e)[:120]}")
    if stats["errors"] and f"session {n}:" in stats["errors"][-1] and not any(
            f"session {n}:" in x for x in stats["errors"][:-1]):
        await page.screenshot(path=str(SHOTS / f"load_tokenize_{n}.png"), full_page=True)


async def train_once(page, url, n, stats):
    """Open Train, keep the default sample corpus, submit the form, wait for a result."""
    start = time.perf_counter()
    try:
        await page.goto(url + "/train")
        await wait_idle(page)
        await page.get_by_role("button", name="Train").first.click()
        await page.get_by_text("Merge table", exact=False).first.wait_for(timeout=120_000)
        stats["trainings"] += 1
        stats["train_s"].append(time.perf_counter() - start)
    except Exception as e:
        stats["errors"].append(f"session {n} training: {type(e).__name__}: {str(e)[:120]}")
        await page.screenshot(path=str(SHOTS / f"load_train_{n}.png"), full_page=True)


async def warm_up(browser, url):
    """One visit before the clock: the server's first page builds GPT-4 and the view's
    vocabulary files once (a fresh server's cost, not a visitor's)."""
    context = await browser.new_context()
    page = await context.new_page()
    await page.goto(url, timeout=120_000)
    await page.wait_for_function(f"() => {VIEW_ROOT_JS} !== null", timeout=120_000)
    await context.close()


def spread(values):
    """"median / p95 / max" of seconds."""
    if not values:
        return "-"
    return (f"{statistics.median(values):.2f} s / {p95(values):.2f} s / "
            f"{max(values):.2f} s")


async def run(args):
    SHOTS.mkdir(exist_ok=True)
    from playwright.async_api import async_playwright
    from bpe import GPT4Tokenizer
    gpt4 = GPT4Tokenizer()
    proc, url = start_server()
    monitor = PeakMemory(proc.pid)
    monitor.start()
    stats = {"served": 0, "errors": [], "latency": [], "checked": [], "trainings": 0,
             "train_s": [], "page_load": []}
    loads, typing = {}, {}
    try:
        async with async_playwright() as p:
            browser = await p.chromium.launch(executable_path="/usr/bin/chromium",
                                              args=CHROMIUM_ARGS)
            await warm_up(browser, url)
            go, arrived = asyncio.Event(), []
            loads["start"], loads["cpu"] = time.monotonic(), tree_cpu_s(proc.pid)

            def ready():
                arrived.append(1)
                if len(arrived) == args.sessions:
                    loads["wall"] = time.monotonic() - loads["start"]
                    loads["server_cpu"] = tree_cpu_s(proc.pid) - loads["cpu"]
                    loads["load"] = os.getloadavg()[0]
                    typing["start"], typing["cpu"] = time.monotonic(), tree_cpu_s(proc.pid)
                    go.set()
            await asyncio.gather(*[session(browser, url, n, args, gpt4, stats, ready, go)
                                   for n in range(args.sessions)])
            typing["wall"] = time.monotonic() - typing["start"]
            typing["server_cpu"] = tree_cpu_s(proc.pid) - typing["cpu"]
            typing["load"] = os.getloadavg()[0]
            await browser.close()
    finally:
        monitor.running = False
        peak_mib = max(monitor.peak, tree_rss_kib(proc.pid)) / 1024
        proc.terminate()
        proc.wait(timeout=20)
    print(f"## Load: {args.sessions} sessions typing at once on one server\n")
    print(f"`python bench/load.py --sessions {args.sessions} --requests {args.requests} "
          f"--arrive {args.arrive:g} --pause {args.pause:g}`, {time.strftime('%Y-%m-%d')}, "
          f"{os.cpu_count()} cores, the browsers on the same machine, the server warmed by "
          "one visit\n")
    print("| figure | value |\n|---|---|")
    print(f"| page loads (arriving {args.arrive:g} s apart) median / p95 / max | "
          f"{spread(stats['page_load'])} |")
    print(f"| all in after / server CPU meanwhile / load average (1 min) | "
          f"{loads['wall']:.0f} s / {loads['server_cpu']:.1f} s / {loads['load']:.1f} |")
    print(f"| tokenize requests served (shown and checked) | {stats['served']} |")
    print(f"| keystroke → Tokens shown, median / p95 / max | {spread(stats['latency'])} |")
    print(f"| keystroke → checked by Python, median / p95 / max | {spread(stats['checked'])} |")
    print(f"| trainings completed | {stats['trainings']} ({spread(stats['train_s'])}) |")
    print(f"| errors | {len(stats['errors'])} |")
    print(f"| typing phase: wall / server CPU / load average (1 min) at its end | "
          f"{typing['wall']:.0f} s / {typing['server_cpu']:.1f} s / {typing['load']:.1f} |")
    print(f"| server peak memory (process tree) | {peak_mib:.0f} MiB |")
    for e in stats["errors"][:10]:
        print(f"- {e}")
    return 1 if stats["errors"] else 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sessions", type=int, default=8)
    ap.add_argument("--requests", type=int, default=15)
    ap.add_argument("--seconds", type=int, default=240,
                    help="a session starts no request after this, counted from when all are in")
    ap.add_argument("--arrive", type=float, default=0.5,
                    help="seconds between two sessions' arrivals (0: all at once)")
    ap.add_argument("--pause", type=float, default=0.5,
                    help="seconds a session waits after each answer before its next edit")
    ap.add_argument("--load-timeout", type=int, default=120,
                    help="seconds a session's first page may take to show the view")
    args = ap.parse_args()
    if not 1 <= args.sessions <= 32:
        ap.error("--sessions must be between 1 and 32 on this machine")
    sys.exit(asyncio.run(run(args)))


if __name__ == "__main__":
    main()
