"""The app server's own memory for one visitor file (issue 32: "memory of the app per
visitor file stays within a few times the file's size").

Serves a checkout's app as its own `make run` serves it (the allocator settings of its
Makefile's run recipe), warms it with a 100-piece file of the kind on Vocabulary, then
uploads the issue's 3.6 MB tokenizer.json of 100,000 HTML-shaped Unigram pieces (or its
WordPiece twin, or a BPE file of 100,000 merges, SentencePiece style or byte-level:
tests/helpers/hostile_parts.bpe_merges) in the same tab and opens Vocabulary. The server
process's own RSS (not its workers': the owner-check and training workers have their own
caps) is read every
20 ms from before the upload to 3 s after the page settled: the peak and what is left,
over the reading just before the upload. Checkouts run in turn, A B B A with --checkout
twice, so a drift of the machine shows.

    .venv/bin/python bench/server_memory.py --checkout 99cb572 . . 99cb572 [--kind WordPiece]
    .venv/bin/python bench/server_memory.py --checkout 124e902 . . 124e902 --kind ByteLevel
"""
import argparse
import json
import os
import re
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT / "tests"), str(ROOT), str(ROOT / "bench")]

import helpers.app  # noqa: E402
from helpers.app import CHROMIUM, CHROMIUM_ARGS, streamlit_server  # noqa: E402
from helpers.hostile_app import go, settle, upload  # noqa: E402
from helpers.hostile_parts import bpe_merges, html_vocab, html_wordpiece  # noqa: E402
from keystroke import checkout_dir  # noqa: E402


def served_env(checkout):
    """NAME=VALUE settings that the checkout's Makefile puts before `streamlit run` in its
    run recipe ($(VAR)s expanded from the Makefile's own VAR := lines)."""
    text = (Path(checkout) / "Makefile").read_text()
    names = dict(re.findall(r"^(\w+) :?= (.*)$", text, re.M))
    recipe = re.search(r"^run:.*\n\t(.*)\$\(BIN\)/streamlit run", text, re.M).group(1)
    recipe = re.sub(r"\$\((\w+)\)", lambda m: names.get(m.group(1), ""), recipe)
    return dict(word.split("=", 1) for word in recipe.split() if "=" in word)


def rss_mb(pid):
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


def visit(checkout, kind):
    """(file bytes, base MB, peak over base, left over base) for one fresh server."""
    from playwright.sync_api import sync_playwright
    make = MAKERS[kind]
    small, big = make(100), make(100_000)
    pieces = len(json.loads(big)["model"]["vocab"])
    with streamlit_server(Path(checkout) / "app.py", env=served_env(checkout),
                          cwd=checkout) as (url, proc), \
            sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        tab = browser.new_page(viewport={"width": 1400, "height": 900})
        tab.goto(url)
        settle(tab, 60_000)
        upload(tab, "html100.json", small)
        settle(tab, 60_000)
        go(tab, "Vocabulary")
        settle(tab, 60_000)
        time.sleep(3)
        base = rss_mb(proc.pid)
        peak, done = [base], threading.Event()

        def watch():
            while not done.is_set():
                peak[0] = max(peak[0], rss_mb(proc.pid))
                time.sleep(0.02)
        watcher = threading.Thread(target=watch)
        watcher.start()
        upload(tab, "html.json", big)
        settle(tab, 120_000)
        go(tab, "Vocabulary")
        settle(tab, 120_000)
        time.sleep(3)
        done.set()
        watcher.join()
        left = rss_mb(proc.pid) - base
        shown = tab.get_by_text(f"{pieces:,} matching tokens").count()
        browser.close()
    if not shown:
        raise RuntimeError(f"{checkout}: Vocabulary did not show the {pieces:,} pieces")
    return len(big), base, peak[0] - base, left


MAKERS = {"Unigram": html_vocab, "WordPiece": html_wordpiece,
          "BPE": bpe_merges, "ByteLevel": lambda n: bpe_merges(n, byte_level=True)}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--checkout", nargs="+", default=["."], metavar="DIR_OR_REV")
    parser.add_argument("--kind", choices=sorted(MAKERS), default="Unigram")
    args = parser.parse_args()
    # each checkout is served with its own Makefile's settings, none of this one's
    helpers.app.SERVED_AS = {}
    for name in [name for name in os.environ if name.startswith("MALLOC_")]:
        del os.environ[name]
    rows = ["| checkout | served with | file | server before | peak | left | peak / file | "
            "left / file |", "|---|---|---:|---:|---:|---:|---:|---:|"]
    with tempfile.TemporaryDirectory() as scratch:
        dirs = {}
        for where in args.checkout:
            if where not in dirs:
                dirs[where] = checkout_dir(where, scratch)
            size, base, peak, left = visit(dirs[where], args.kind)
            mb = size / 2**20
            env = " ".join(f"{k}={v}" for k, v in served_env(dirs[where]).items())
            rows.append(f"| {where} | {env} | {mb:.1f} MiB | {base:.0f} MiB | +{peak:.1f} MiB | "
                        f"+{left:.1f} MiB | {peak / mb:.1f} x | {left / mb:.1f} x |")
            print(rows[-1], flush=True)
    print(f"\n{args.kind} file; load average (1 min) at the end {os.getloadavg()[0]:.1f} on "
          f"{os.cpu_count()} cores")
    print("\n".join(rows))


if __name__ == "__main__":
    main()
