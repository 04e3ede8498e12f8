"""Streamed counting before and after sure boundaries (count.py's join), side by side.

    nice -n 19 python bench/stream16k.py [--mb 40] [--base COMMIT] [--reps 2]
                                         [--out bench/results/stream16k.md]
    python bench/stream16k.py run TREE MODE CORPUS      # one measurement (internal)
    python bench/stream16k.py report LOG SIZES [--mb ...]  # the table again, from its output

TREE is a folder holding a `bpe` package: this tree's, and BASE's (git archive into /tmp).
Each measurement is a fresh process that trains a GPT-4 tokenizer to V=1000 from a
generated corpus (bench/scale.py's make_corpus) in one MODE:
  one     train_from_files, one process
  workers train_from_files(workers=2) over 4 MB byte ranges (many joins)
  counts  the corpus cut in 8 files, each counted into a counts file, train_from_counts
and prints one JSON line: seconds, peak RSS of the process (VmHWM) and of its largest child
(the worker processes; ru_maxrss), a hash of the merges. Runs alternate BASE, NEW, NEW, BASE, ... so load
changes hit both alike. A second corpus splices long runs in across the cuts (weird_corpus), which the
base tree cannot join: there only this tree's numbers exist.
"""
import argparse
import hashlib
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MODES = ["one", "workers", "counts"]


def run(tree, mode, corpus):
    sys.path.insert(0, tree)
    from bpe import RegexTokenizer
    from bpe.counting import stream
    from bpe.counting.counts_file import write_counts
    start = time.perf_counter()
    tok = RegexTokenizer("gpt4")
    if mode == "one":
        stream.train_from_files(tok, [corpus], 1000)
    elif mode == "workers":
        part = stream.count_files(tok, [corpus], workers=2, range_bytes=4 << 20)
        stream.train_from_part(tok, part, 1000)
    else:
        data = Path(corpus).read_bytes()
        folder = tempfile.mkdtemp()
        files = []
        for i in range(8):  # cut at byte offsets (moved onto a character's first byte)
            lo, hi = len(data) * i // 8, len(data) * (i + 1) // 8
            while lo and data[lo] & 0xC0 == 0x80:
                lo += 1
            while hi < len(data) and data[hi] & 0xC0 == 0x80:
                hi += 1
            text_path = os.path.join(folder, f"{i}.txt")
            Path(text_path).write_bytes(data[lo:hi])
            files.append(os.path.join(folder, f"{i}.counts"))
            write_counts(files[-1], tok.pattern, stream.count_files(tok, [text_path]))
            os.remove(text_path)
        del data
        stream.train_from_counts(tok, files, 1000)
    seconds = time.perf_counter() - start
    merges = hashlib.sha256(repr(sorted(tok.merges.items())).encode()).hexdigest()[:12]
    print(json.dumps({"seconds": seconds, "peak_mib": vm_hwm_kib() / 1024,
                      "child_mib": resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024,
                      "merges": merges}))


def vm_hwm_kib():
    """This process's peak resident set. Not ru_maxrss: Linux carries that over exec from
    the forked parent, so it would report the bench's own peak."""
    with open("/proc/self/status") as f:
        return next(int(line.split()[1]) for line in f if line.startswith("VmHWM:"))


def measure(tree, mode, corpus):
    # a fixed hash seed: with a random one the peak moves by a few MB from run to run
    env = dict(os.environ, PYTHONHASHSEED="0")
    out = subprocess.run([sys.executable, __file__, "run", tree, mode, corpus],
                         capture_output=True, text=True, env=env)
    if out.returncode:
        last = (out.stderr.strip().splitlines() or ["?"])[-1]
        return {"error": last[:160]}
    return json.loads(out.stdout.strip().splitlines()[-1])


def weird_corpus(path, normal):
    """The normal corpus with a long run spliced in across five cuts: two 4 MB range
    boundaries and three eighths (the counts files' cuts). Each run is 900,000 digits (cut
    in threes by GPT-4), 100,000 spaces and 100,000 "="; each cut falls inside its digits,
    off the phase of their groups of three: what the base tree cannot join."""
    data = Path(normal).read_bytes()
    run = b"7" * 900_000 + b" " * 100_000 + b"=" * 100_000
    total = len(data) + 5 * len(run)
    targets = sorted([2 * (4 << 20), 6 * (4 << 20)] + [total * i // 8 for i in (3, 5, 7)])
    out, done = [], 0
    for k, cut in enumerate(targets):
        src = cut - 450_001 - k * len(run)  # where in data the run goes
        while data[src] & 0xC0 == 0x80 or (cut - src - k * len(run)) % 3 == 0:
            src += 1  # on a character's first byte, and the cut off the digits' phase
        out += [data[done:src], run]
        done = src
    out.append(data[done:])
    Path(path).write_bytes(b"".join(out))


def main_args(argv):
    parser = argparse.ArgumentParser()
    parser.add_argument("--mb", type=int, default=40)
    parser.add_argument("--base", default="75747a9a69d6a3e94319fe841f96bb8038033c70")
    parser.add_argument("--reps", type=int, default=2)
    parser.add_argument("--out", default=str(ROOT / "bench" / "results" / "stream16k.md"))
    return parser.parse_args(argv)


def main(argv):
    args = main_args(argv)
    sys.path.insert(0, str(ROOT / "bench"))
    from scale import make_corpus
    work = tempfile.mkdtemp(prefix="stream16k-")
    base = os.path.join(work, "base")
    os.mkdir(base)
    subprocess.run(f"git -C {ROOT} archive {args.base} bpe | tar -x -C {base}", shell=True,
                   check=True)
    normal, weird = os.path.join(work, "normal.txt"), os.path.join(work, "weird.txt")
    make_corpus(normal, args.mb)
    weird_corpus(weird, normal)
    trees = {"base": base, "new": str(ROOT)}
    rows = []
    for corpus in (normal, weird):
        for mode in MODES:
            results = {"base": [], "new": []}
            for rep in range(args.reps):
                for who in (["base", "new"] if rep % 2 == 0 else ["new", "base"]):
                    results[who].append(measure(trees[who], mode, corpus))
                    print(os.path.basename(corpus), mode, who, results[who][-1], flush=True)
            rows.append((os.path.basename(corpus), mode, results))
    sizes = " and ".join(f"{os.path.getsize(p) / 1e6:.1f} MB" for p in (normal, weird))
    write_report(args, rows, sizes)
    for path in (normal, weird):
        os.remove(path)


def span(runs, key, digits=0):
    """min-max of the runs' values (the peak moves by a few MB from run to run)."""
    values = sorted(r[key] for r in runs if key in r)
    if not values:
        return "-"
    lo, hi = (f"{v:.{digits}f}" for v in (values[0], values[-1]))
    return lo if lo == hi else f"{lo}-{hi}"


def ratio(base, new, key):
    b = [r[key] for r in base if key in r]
    n = [r[key] for r in new if key in r]
    return f"{min(n) / min(b):.3f}" if b and n and min(b) else "-"


def write_report(args, rows, sizes):
    lines = ["| corpus | mode | base s | new s | new/base time (best) | base peak MiB | "
             "new peak MiB | new/base peak (best) | base workers' peak | new workers' peak "
             "| same merges |", "|---|---|---|---|---|---|---|---|---|---|---|"]
    for corpus, mode, results in rows:
        b, n = results["base"], results["new"]
        errors = [r["error"] for r in b if "error" in r]
        same = "base: `" + errors[0][:90] + "`" if errors else \
            ("yes" if len({r["merges"] for r in b + n}) == 1 else "NO")
        lines.append(f"| {corpus} | {mode} | {span(b, 'seconds', 1) if not errors else 'fails'}"
                     f" | {span(n, 'seconds', 1)} | {ratio(b, n, 'seconds')} | "
                     f"{span(b, 'peak_mib')} | {span(n, 'peak_mib')} | "
                     f"{ratio(b, n, 'peak_mib')} | {span(b, 'child_mib')} | "
                     f"{span(n, 'child_mib')} | {same} |")
    text = (f"Command: `nice -n 19 python bench/stream16k.py --mb {args.mb} --reps {args.reps}`"
            f" (corpora of {sizes}; min-max of {args.reps} runs per cell, ratios of the "
            f"best; base = {args.base[:7]})\n\n" + "\n".join(lines) + "\n")
    Path(args.out + ".table").write_text(text)
    print(text)


def report(log):
    """Rebuild the table from a log of this script's lines (`CORPUS MODE WHO {json}`)."""
    import ast
    rows = {}
    for line in Path(log).read_text().splitlines():
        parts = line.split(" ", 3)
        if len(parts) == 4 and parts[3].startswith("{"):
            corpus, mode, who, result = parts
            rows.setdefault((corpus, mode), {"base": [], "new": []})[who].append(
                ast.literal_eval(result))
    return [(c, m, r) for (c, m), r in rows.items()]


if __name__ == "__main__":
    if sys.argv[1:2] == ["run"]:
        run(*sys.argv[2:5])
    elif sys.argv[1:2] == ["report"]:  # report LOG SIZES [main's options]
        write_report(main_args(sys.argv[4:]), report(sys.argv[2]), sys.argv[3])
    else:
        main(sys.argv[1:])
