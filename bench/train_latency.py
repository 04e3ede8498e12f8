"""Does one user's training stall everyone else? A second session's rerun latency while
the first trains on 1 MB, against the same session's latency with the server idle.

Session A uploads tinyshakespeare.txt (1.1 MB) on the Train page and trains a Basic
tokenizer (seconds of merging, in lab.jobs' worker process). Session B meanwhile types a
new text into the Tokenize page's live text box again and again (as a paste, no Enter);
one request's latency is the time from putting the text in to the token view's "Tokens"
figure showing GPT4Tokenizer's count for that text. The same
requests are timed first with nothing else running. The goal (issue 7) is ≤ 1 s.

    python bench/train_latency.py --requests 12     # prints a Markdown summary

Two Chromium contexts on 127.0.0.1, one local server; bounded by --requests and --timeout.
"""
import argparse
import random
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))
sys.path.insert(0, str(ROOT / "tests"))

from helpers.app import CHROMIUM, CHROMIUM_ARGS, CORPORA, wait_rendered  # noqa: E402
from keystroke import FIGURE_JS, SET_TEXT_JS  # noqa: E402
from load import WORDS, start_server  # noqa: E402

GOAL = 1.0  # seconds


def timed_request(tab, gpt4, rng):
    """Type a random text on the Tokenize page; seconds until its token count shows."""
    text = "".join(rng.choice(WORDS) for _ in range(rng.randint(5, 60)))
    expected = f"{len(gpt4.encode(text, allowed_special='none')):,}"
    tab.wait_for_function(f"() => ({FIGURE_JS})('Tokens') !== null", timeout=60_000)
    start = time.perf_counter()
    tab.evaluate(SET_TEXT_JS, text)
    tab.wait_for_function(f"expected => ({FIGURE_JS})('Tokens') === expected",
                          arg=expected, timeout=60_000)
    return time.perf_counter() - start


def start_training(tab, url, corpus, vocab_size):
    tab.goto(url + "/train")
    wait_rendered(tab)
    tab.locator(".st-key-train_source").get_by_text("Upload text files").click()
    wait_rendered(tab)
    tab.locator(".st-key-train_uploads input[type=file]").set_input_files(str(corpus))
    tab.get_by_text("Bytes (UTF-8)").first.wait_for(timeout=60_000)
    wait_rendered(tab)
    tab.locator(".st-key-train_kind").get_by_text("Basic").click()
    tab.locator(".st-key-train_vocab_size input").fill(str(vocab_size))
    tab.locator(".st-key-train_submit button").click()
    tab.get_by_text("Merges done").wait_for(timeout=120_000)  # merging has begun


def summary(name, seconds):
    return (f"| {name} | {len(seconds)} | {statistics.median(seconds):.2f} s | "
            f"{max(seconds):.2f} s | {'yes' if max(seconds) <= GOAL else '**no**'} |")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--requests", type=int, default=12)
    parser.add_argument("--vocab-size", type=int, default=3000)
    parser.add_argument("--timeout", type=float, default=300, help="seconds in all")
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright
    from bpe import GPT4Tokenizer
    gpt4 = GPT4Tokenizer()
    corpus = CORPORA / "tinyshakespeare.txt"
    proc, url = start_server()
    deadline = time.monotonic() + args.timeout
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            b = browser.new_context().new_page()
            b.goto(url)
            wait_rendered(b)
            rng = random.Random(0)
            timed_request(b, gpt4, rng)  # warm up: GPT-4's ranks, the page's caches
            idle = [timed_request(b, gpt4, rng) for _ in range(args.requests)]

            a = browser.new_context().new_page()
            start_training(a, url, corpus, args.vocab_size)
            during, trained = [], False
            while len(during) < args.requests and time.monotonic() < deadline:
                during.append(timed_request(b, gpt4, rng))
                # subtle: only requests served while A still trains count as "during"
                trained = a.get_by_text("Added to this session as").count() > 0
                if trained:
                    break
            if not trained:
                a.get_by_text("Added to this session as").wait_for(timeout=300_000)
            browser.close()
    finally:
        proc.terminate()
        proc.wait(10)
    print(f"Second session's rerun latency (Tokenize page, text put in until the "
          f"token view's Tokens figure is right), while a first session trains Basic on "
          f"{corpus.name} ({corpus.stat().st_size / 1e6:.1f} MB), vocab "
          f"{args.vocab_size}, in lab.jobs' worker process:\n")
    print("| server | requests | median | max | max ≤ 1 s |")
    print("|---|---|---|---|---|")
    print(summary("idle", idle))
    print(summary("while training", during))
    if len(during) < args.requests:
        print(f"\n(training finished after {len(during)} of {args.requests} requests)")


if __name__ == "__main__":
    main()
