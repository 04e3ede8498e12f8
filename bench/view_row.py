"""viz.tokens.view_row on a 1 MB text: this checkout against an earlier revision of the same
file, side by side in one process, with the same output checked.

    python bench/view_row.py --before 9542c8d      # prints a Markdown table

The earlier viz/tokens.py is read with `git show REV:viz/tokens.py` and imported as its
own module. The text is taylorswift.txt repeated to 1,000,000 characters, encoded once
with GPT4Tokenizer; each timing is the best of --repeat runs.
"""
import argparse
import importlib.util
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from helpers.app import read_corpus  # noqa: E402


def module_at(rev):
    source = subprocess.run(["git", "-C", str(ROOT), "show", f"{rev}:viz/tokens.py"],
                            capture_output=True, text=True, check=True).stdout
    spec = importlib.util.spec_from_loader(f"tokens_{rev}", loader=None)
    module = importlib.util.module_from_spec(spec)
    exec(compile(source, f"{rev}:viz/tokens.py", "exec"), module.__dict__)
    return module


def best(fn, repeat):
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--before", default="9542c8d", help="git revision to compare with")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    from bpe import GPT4Tokenizer
    from viz import tokens as after
    before = module_at(args.before)
    tok = GPT4Tokenizer()
    corpus = read_corpus("taylorswift.txt")
    text = (corpus * (1_000_000 // len(corpus) + 1))[:1_000_000]
    ids = tok.encode_ordinary(text)
    token_bytes = tok.decode_tokens_bytes(ids)
    print(f"| whitespace | before ({args.before}) | after | after/before | same output |")
    print("|---|---:|---:|---:|---|")
    for ws in (None, "markers", "gpt2"):
        b = best(lambda: before.view_row(token_bytes, ids, whitespace=ws), args.repeat)
        a = best(lambda: after.view_row(token_bytes, ids, whitespace=ws), args.repeat)
        same = before.view_row(token_bytes, ids, whitespace=ws) == after.view_row(
            token_bytes, ids, whitespace=ws)
        print(f"| {ws} | {b * 1000:.0f} ms | {a * 1000:.0f} ms | {a / b:.2f} | {same} |")
    print(f"\n{len(ids):,} tokens; best of {args.repeat}; load average (1 min) "
          f"{os.getloadavg()[0]:.1f} on {os.cpu_count()} cores.")


if __name__ == "__main__":
    main()
