"""viz.rows.view_row on a 1 MB text: this checkout against an earlier revision of the same
file, side by side in one process, with the same output checked.

    python bench/view_row.py --before 9542c8d      # prints a Markdown table

The earlier viz/tokens.py is read with `git show REV:viz/tokens.py` and imported as its
own module. The text is taylorswift.txt repeated to 1,000,000 characters, encoded once
with GPT4Tokenizer; each timing is the best of --repeat runs.

    python bench/view_row.py --scaling             # issue 24: growth at n, 2n, 4n

--scaling times every per-text function of the view (view_row, Compare's aligned pair:
viz.compare.aligned over GPT-4 and GPT-4o) on hostile texts (one grapheme cluster of n
combining marks or ZWJs, n regional indicators, n CJK characters, prose) at n, 2n and 4n
characters and exits 1 if a time grows more than 6x from n to 4n (linear: 4x).
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
    """The module holding view_row at rev: viz/rows.py, or viz/tokens.py before the split."""
    for path in ("viz/rows.py", "viz/tokens.py"):
        shown = subprocess.run(["git", "-C", str(ROOT), "show", f"{rev}:{path}"],
                               capture_output=True, text=True)
        if shown.returncode == 0 and "def view_row" in shown.stdout:
            break
    else:
        raise SystemExit(f"no view_row at {rev}")
    spec = importlib.util.spec_from_loader(f"rows_{rev}", loader=None)
    module = importlib.util.module_from_spec(spec)
    exec(compile(shown.stdout, f"{rev}:{path}", "exec"), module.__dict__)
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
    parser.add_argument("--scaling", action="store_true", help="check linear growth instead")
    parser.add_argument("-n", type=int, default=50_000, help="--scaling's smallest n")
    args = parser.parse_args()
    if args.scaling:
        sys.exit(scaling(args.n, args.repeat))
    from bpe import GPT4Tokenizer
    from viz import rows as after
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


HOSTILE = {"e + U+0301 x n": lambda n: "e" + "\u0301" * n,
           "👨 + ZWJ x n": lambda n: "👨" + "\u200d" * n,
           "(ZWJ 👨) x n/2": lambda n: "👨" + "\u200d👨" * (n // 2),
           "regional indicators x n": lambda n: "\U0001F1FA" * n,
           "CJK x n": lambda n: "".join(chr(0x4E00 + (k * 7919) % 20000) for k in range(n)),
           "prose": lambda n: (read_corpus("taylorswift.txt") * (n // 1000 + 1))[:n]}


def scaling(n, repeat):
    """Time each per-text function at n, 2n, 4n; 1 if any grows super-linearly."""
    from bpe import reference
    from viz.compare import aligned, compare
    from viz.rows import view_row
    gpt4, gpt4o = (reference.load_reference(name) for name in ("cl100k_base", "o200k_base"))
    print(f"| text | function | n={n:,} | 2n | 4n | 4n / n |")
    print("|---|---|---:|---:|---:|---:|")
    worst = 0.0
    for label, make in HOSTILE.items():
        texts = [make(n * k) for k in (1, 2, 4)]
        encoded = [(gpt4.encode_ordinary(t), t) for t in texts]
        jobs = {"view_row": lambda e: view_row(gpt4.decode_tokens_bytes(e[0]), e[0]),
                "Compare aligned": lambda e: aligned(gpt4, gpt4o, compare(gpt4, gpt4o, e[1]))}
        for name, job in jobs.items():
            times = [best(lambda e=e, job=job: job(e), repeat) for e in encoded]
            ratio = times[2] / max(times[0], 1e-9)
            worst = max(worst, ratio)
            print(f"| {label} | {name} | {times[0] * 1000:.0f} ms | {times[1] * 1000:.0f} ms | "
                  f"{times[2] * 1000:.0f} ms | {ratio:.1f} |")
    print(f"\nbest of {repeat}; Compare includes both encodes; load average (1 min) "
          f"{os.getloadavg()[0]:.1f} on {os.cpu_count()} cores. Worst 4n/n: {worst:.1f} "
          f"({'linear' if worst <= 6 else 'SUPER-LINEAR'}).")
    return 0 if worst <= 6 else 1


if __name__ == "__main__":
    main()
