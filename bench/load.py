"""Many users at once: N browser sessions tokenizing (and some training) against one
local Streamlit server, bounded in sessions, requests and time.

Each session is a separate Chromium context, so a separate Streamlit session. Every
request puts a random text into the Tokenize page's live text box (as a paste: no Enter)
and waits for the token view's "Tokens" figure; it counts as served when the figure
shows GPT4Tokenizer's count for that text within
30 s (a wrong or missing answer by then is an error). A text whose count happens to
equal the previous text's could pass before its own rerun; random texts rarely do. Every fourth session also trains a tokenizer on the
shipped sample corpus once. The server's peak memory is its whole process tree's (the
training workers included), sampled every 0.2 s from /proc.

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

from keystroke import FIGURE_JS, SET_TEXT_JS, VIEW_ROOT_JS, server  # noqa: E402  the token view
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]
SHOTS = ROOT / "screenshots"  # a session's first failure is photographed here
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


def tree_rss_kib(pid):
    """Resident memory of pid and all its descendants, in KiB (Linux /proc)."""
    total = 0
    for p in _tree(pid):
        try:
            with open(f"/proc/{p}/status") as f:
                for line in f:
                    if line.startswith("VmRSS:"):
                        total += int(line.split()[1])
        except OSError:
            pass
    return total


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


async def wait_idle(page):
    await page.wait_for_function(
        """() => { const a = document.querySelector('[data-testid="stApp"]');
                   return a && a.getAttribute('data-test-script-state') !== 'running'
                          && !document.querySelector('[data-testid="stStatusWidget"]'); }""",
        timeout=60_000)


async def tokens_figure(page):
    """The token view's "Tokens" figure as an int, or None before it is drawn."""
    shown = await page.evaluate(FIGURE_JS, "Tokens")
    return None if shown is None else int(shown.replace(",", ""))


async def session(browser, url, n, requests, train, gpt4, stats, deadline):
    context = await browser.new_context()
    page = await context.new_page()
    rng = random.Random(n)
    try:
        await page.goto(url)
        await wait_idle(page)
        await page.wait_for_function(f"() => {VIEW_ROOT_JS} !== null", timeout=60_000)
        for _ in range(requests):
            if time.monotonic() > deadline:
                break
            text = "".join(rng.choice(WORDS) for _ in range(rng.randint(5, 60)))
            start = time.perf_counter()
            expected = len(gpt4.encode(text, allowed_special="none"))
            try:
                await page.evaluate(SET_TEXT_JS, text)
                # served = the right count appears; a stale or wrong one until the
                # timeout is an error
                try:
                    await page.wait_for_function(
                        f"n => ({FIGURE_JS})('Tokens') === n",
                        arg=f"{expected:,}", timeout=30_000)
                    stats["served"] += 1
                    stats["latency"].append(time.perf_counter() - start)
                except Exception:
                    got = await tokens_figure(page)
                    stats["errors"].append(f"session {n}: Tokens {got}, expected {expected}")
            except Exception as e:  # a timeout or missing element is an error to count
                stats["errors"].append(f"session {n}: {type(e).__name__}: {str(e)[:120]}")
                if not any(f"session {n}:" in x for x in stats["errors"][:-1]):
                    await page.screenshot(path=str(SHOTS / f"load_tokenize_{n}.png"), full_page=True)
        if train and time.monotonic() < deadline:
            await train_once(page, url, n, stats)
    finally:
        await context.close()


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


async def run(args):
    SHOTS.mkdir(exist_ok=True)
    from playwright.async_api import async_playwright
    from bpe import GPT4Tokenizer
    gpt4 = GPT4Tokenizer()
    proc, url = start_server()
    monitor = PeakMemory(proc.pid)
    monitor.start()
    stats = {"served": 0, "errors": [], "latency": [], "trainings": 0, "train_s": []}
    start = time.monotonic()
    try:
        async with async_playwright() as p:
            browser = await p.chromium.launch(executable_path="/usr/bin/chromium",
                                              args=CHROMIUM_ARGS)
            deadline = time.monotonic() + args.seconds
            await asyncio.gather(*[
                session(browser, url, n, args.requests, n % 4 == 0, gpt4, stats, deadline)
                for n in range(args.sessions)])
            await browser.close()
    finally:
        monitor.running = False
        elapsed = time.monotonic() - start
        peak_mib = max(monitor.peak, tree_rss_kib(proc.pid)) / 1024
        proc.terminate()
        proc.wait(timeout=20)
    lat = stats["latency"] or [float("nan")]
    print(f"## Load: {args.sessions} concurrent sessions on one server\n")
    print(f"`python bench/load.py --sessions {args.sessions} --requests {args.requests} "
          f"--seconds {args.seconds}`, {time.strftime('%Y-%m-%d')}, "
          f"{os.cpu_count()} cores, load generator on the same machine\n")
    print("| figure | value |\n|---|---|")
    print(f"| tokenize requests served (answer checked) | {stats['served']} |")
    print(f"| trainings completed | {stats['trainings']} |")
    print(f"| errors | {len(stats['errors'])} |")
    p95 = sorted(lat)[max(0, int(round(0.95 * len(lat))) - 1)]
    print(f"| tokenize latency median / p95 / max | {statistics.median(lat):.2f} s / "
          f"{p95:.2f} s / {max(lat):.2f} s |")
    print(f"| server peak memory (process tree) | {peak_mib:.0f} MiB |")
    print(f"| wall time | {elapsed:.0f} s |")
    for e in stats["errors"][:10]:
        print(f"- {e}")
    return 1 if stats["errors"] else 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sessions", type=int, default=8)
    ap.add_argument("--requests", type=int, default=15)
    ap.add_argument("--seconds", type=int, default=240, help="stop starting requests after this")
    args = ap.parse_args()
    if not 1 <= args.sessions <= 32:
        ap.error("--sessions must be between 1 and 32 on this machine")
    sys.exit(asyncio.run(run(args)))


if __name__ == "__main__":
    main()
