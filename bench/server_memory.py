"""The app server's own memory for one visitor file (issue 32: "memory of the app per
visitor file stays within a few times the file's size").

Serves a checkout's app as its own `make run` serves it (the allocator settings of its
Makefile's run recipe), warms it with a 100-piece file of the kind on Vocabulary, then
uploads the issue's 3.6 MB tokenizer.json of 100,000 HTML-shaped Unigram pieces (or its
WordPiece twin, or a BPE file of 100,000 merges, SentencePiece style or byte-level:
tests/helpers/hostile_parts.bpe_merges; or llama.cpp's nomic-bert-moe (t5, 6.8 MB) or
llama-spm (0.7 MB) GGUF vocabulary, after its bert-bge one) in the same tab and opens
Vocabulary. The server
process's own RSS (not its workers': the owner-check and training workers have their own
caps) is read every
20 ms from before the upload to 3 s after the page settled: the peak and what is left,
over the reading just before the upload. Checkouts run in turn, A B B A with --checkout
twice, so a drift of the machine shows.

    .venv/bin/python bench/server_memory.py --checkout 99cb572 . . 99cb572 [--kind WordPiece]
    .venv/bin/python bench/server_memory.py --checkout 124e902 . . 124e902 --kind ByteLevel
    .venv/bin/python bench/server_memory.py --checkout c8afa92 . . c8afa92 --kind GGUF-t5
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
    (small_name, small), (big_name, big) = MAKERS[kind]()
    pieces = _pieces(big_name, big)
    with streamlit_server(Path(checkout) / "app.py", env=served_env(checkout),
                          cwd=checkout) as (url, proc), \
            sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        tab = browser.new_page(viewport={"width": 1400, "height": 900})
        tab.goto(url)
        settle(tab, 60_000)
        upload(tab, small_name, small)
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
        upload(tab, big_name, big)
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


def _pieces(name, data):
    """How many tokens Vocabulary lists for the file: its model's vocab (a tokenizer.json),
    or every token (a GGUF file, as bpe loads it)."""
    if name.endswith(".json"):
        return len(json.loads(data)["model"]["vocab"])
    import bpe
    return len(bpe.load_bytes(data, name).vocab)


def _json_pair(make):
    """A 100-piece warm-up file and the 100,000-piece file of one tokenizer.json kind."""
    return lambda: (("html100.json", make(100)), ("html.json", make(100_000)))


def _gguf_pair(member):
    """llama.cpp's bert-bge vocabulary (0.6 MB) as the warm-up, then one of its others (the
    llama-cpp-python sdist `make test` downloads: bench/family_memory.py reads it)."""
    def make():
        from lab.llama_cpp_ids import member as read
        warm, big = read("ggml-vocab-bert-bge.gguf"), read(member)
        if warm is None or big is None:
            raise SystemExit("the llama-cpp-python sdist is not downloaded: run `make test`")
        return ("warm.gguf", warm), (member, big)
    return make


MAKERS = {"Unigram": _json_pair(html_vocab), "WordPiece": _json_pair(html_wordpiece),
          "BPE": _json_pair(bpe_merges),
          "ByteLevel": _json_pair(lambda n: bpe_merges(n, byte_level=True)),
          "GGUF-t5": _gguf_pair("ggml-vocab-nomic-bert-moe.gguf"),
          "GGUF-llama": _gguf_pair("ggml-vocab-llama-spm.gguf")}


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
