"""What a person waits for, before and after a change: the CLI's `encode` and `eval` on 1 MB,
and the app's first Tokenize load, each run from a copy of an older commit and from this
tree, side by side (A B B A).

    .venv/bin/python bench/first_load.py                     # both, against cd73411
    .venv/bin/python bench/first_load.py --only cli --rounds 3
    .venv/bin/python bench/first_load.py --only app --before <commit>

- CLI: `python -m bpe encode --model M -o OUT mixed.txt` and `python -m bpe eval --model M
  mixed.txt` for M in --models (cl100k_base, o200k_base), each a fresh process in the
  tree's folder: wall seconds and CPU seconds (user + system of the process and its
  children, from os.wait4). The 1 MB of mixed text is bench/cold_start.py's.
- App: `streamlit run app.py` headless on a free port (tests/helpers/app.py's
  streamlit_server), then Chromium (Playwright) opens it: seconds from starting the server
  process to the first colored token box (`.tv .tokens .tok`) on the default page, and the
  server's CPU seconds by then (/proc).

"Before" is `git archive <commit>` unpacked in a temp folder. Each tree gets its own
bytecode cache and derived-table cache (bpe.derived_cache), both filled by one untimed run
first, as an installed copy has them. Figures are medians over the pairs; ratios are
after / before per pair.
"""
import argparse
import io
import os
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))
sys.path.insert(0, str(ROOT / "tests"))
from cold_start import mixed_text, timed  # noqa: E402
from helpers.app import CHROMIUM, CHROMIUM_ARGS, streamlit_server  # noqa: E402

BEFORE = "cd73411"  # the tree before the cold-start and warm-encode work
MODELS = ["cl100k_base", "o200k_base"]
TOKEN_BOX = ".tv .tokens .tok"


def unpack(commit, where):
    """The tree of commit, unpacked into where (a fresh folder)."""
    data = subprocess.run(["git", "-C", str(ROOT), "archive", commit], check=True,
                          capture_output=True).stdout
    where.mkdir(parents=True)
    with tarfile.open(fileobj=io.BytesIO(data)) as tar:
        tar.extractall(where, filter="data")
    return where


def tree_env(tree, work, label):
    """The environment a tree's processes run in: its own bytecode and derived caches."""
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # as cold_start.py: bytecode as installed
    env["PYTHONPYCACHEPREFIX"] = str(work / f"pycache_{label}")
    env["BPE_DERIVED_CACHE"] = str(work / f"derived_{label}")
    return env


def cli_commands(model, text_path, out):
    return {"encode": [sys.executable, "-m", "bpe", "encode", "--model", model, "-o", str(out),
                       str(text_path)],
            "eval": [sys.executable, "-m", "bpe", "eval", "--model", model, str(text_path)]}


def server_cpu(pid):
    """CPU seconds (user + system) a running process has used, from /proc."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def first_tokens(browser, tree, env):
    """(seconds from the server's start to the first token box, server CPU seconds)."""
    start = time.perf_counter()
    extra = {k: v for k, v in env.items() if os.environ.get(k) != v}
    extra["PYTHONDONTWRITEBYTECODE"] = ""  # an empty value unsets it for Python
    with streamlit_server(tree / "app.py", env=extra, cwd=tree) as (url, proc):
        context = browser.new_context(viewport={"width": 1400, "height": 1000})
        try:
            tab = context.new_page()
            tab.goto(url)
            tab.locator(TOKEN_BOX).first.wait_for(timeout=180_000)
            seconds = time.perf_counter() - start
            cpu = server_cpu(proc.pid)
        finally:
            context.close()
    return seconds, cpu


def side_by_side(run, trees, rounds):
    """[{label: result}] over rounds of A B B A; run(label, tree) -> a result."""
    pairs = []
    for _ in range(rounds):
        for order in (("before", "after"), ("after", "before")):
            pairs.append({label: run(label, trees[label]) for label in order})
    return pairs


def ratio_row(name, pairs, key):
    med = statistics.median
    before = med(p["before"][key] for p in pairs)
    after = med(p["after"][key] for p in pairs)
    ratio = med(p["after"][key] / p["before"][key] for p in pairs)
    return f"{name} | {before:.2f} | {after:.2f} | {ratio:.2f}"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", default=BEFORE, help=f"the older commit (default {BEFORE})")
    parser.add_argument("--rounds", type=int, default=2, help="A B B A rounds (default 2)")
    parser.add_argument("--only", choices=["cli", "app"], help="one of the two measures")
    parser.add_argument("--models", nargs="*", default=MODELS, help="the CLI's --model values")
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="first_load_"))
    trees = {"before": unpack(args.before, work / "before"), "after": ROOT}
    envs = {label: tree_env(tree, work, label) for label, tree in trees.items()}
    text_path = work / "mixed.txt"
    text_path.write_text(mixed_text(), encoding="utf-8")
    print(f"before = {args.before} (git archive), after = {ROOT}; "
          f"{text_path.stat().st_size:,} bytes of mixed text; {args.rounds} rounds of A B B A; "
          f"load before: {os.getloadavg()[0]:.2f}\n")
    if args.only in (None, "cli"):
        print("| command | before wall s | after wall s | wall ratio | before CPU s | "
              "after CPU s | CPU ratio |\n|---|---:|---:|---:|---:|---:|---:|")
        for model in args.models:
            for verb in ("encode", "eval"):
                def run(label, tree):
                    out = work / f"ids_{label}.bin"
                    return timed(cli_commands(model, text_path, out)[verb], envs[label],
                                 cwd=tree, stdout=subprocess.DEVNULL)
                for label, tree in trees.items():  # untimed: fills both caches
                    run(label, tree)
                pairs = side_by_side(run, trees, args.rounds)
                wall = ratio_row(f"{verb} --model {model}", pairs, "wall")
                cpu = ratio_row("", pairs, "cpu").split(" | ", 1)[1]
                print(f"| {wall} | {cpu} |", flush=True)
                if verb == "encode":  # the same ids from both trees
                    same = (work / "ids_before.bin").read_bytes() == (work / "ids_after.bin").read_bytes()
                    print(f"|   (ids identical before/after: {same}) | | | | | | |", flush=True)
    if args.only in (None, "app"):
        from playwright.sync_api import sync_playwright
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS,
                                        headless=True)
            try:
                def run(label, tree):
                    seconds, cpu = first_tokens(browser, tree, envs[label])
                    return {"wall": seconds, "cpu": cpu}
                for label, tree in trees.items():  # untimed: fills both caches
                    run(label, tree)
                pairs = side_by_side(run, trees, args.rounds)
            finally:
                browser.close()
        print("\n| app, first Tokenize load | before s | after s | ratio |\n|---|---:|---:|---:|")
        print(f"| to the first token box (wall) | {ratio_row('', pairs, 'wall').split(' | ', 1)[1]} |")
        print(f"| server CPU by then | {ratio_row('', pairs, 'cpu').split(' | ', 1)[1]} |")
    print(f"\nload after: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
