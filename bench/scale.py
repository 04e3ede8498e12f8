"""Training on a big generated corpus: ours in one process, ours on Dask, rustbpe (issue 12).

    nice -n 19 python bench/scale.py [--big-mb 2000] [--small-mb 100 --mid-mb 500]
                                     [--vocab-size 10000] [--out bench/results/scale.md]
    python bench/scale.py run WHO CORPUS VOCAB_SIZE     # one measurement (internal)

Each measurement runs in a fresh process and prints one JSON line: seconds, the peak
resident set of the process (VmHWM) and of its largest child (Dask workers), and a hash
of the merges. Corpora are generated under /tmp from the shared corpora and Python's
standard-library source, with mutated words and fresh numbers so that distinct chunks keep
growing with the size, and deleted at the end.
"""
import argparse
import hashlib
import json
import os
import random
import resource
import subprocess
import sys
import sysconfig
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
BLOCK = 1 << 20
LETTERS = "abcdefghijklmnopqrstuvwxyz"


def source_text():
    """The shared corpora and about 20 MB of the standard library's source."""
    corpora = Path(os.environ.get("BPE_CORPORA", ROOT.parent.parent / "shared" / "corpora"))
    parts = [p.read_text(encoding="utf-8") for p in sorted(corpora.glob("*.txt"))]
    size = 0
    for path in sorted(Path(sysconfig.get_paths()["stdlib"]).rglob("*.py")):
        try:
            text = path.read_text(encoding="utf-8")
        except (UnicodeDecodeError, OSError):
            continue
        parts.append(text)
        size += len(text)
        if size > 20 << 20:
            break
    return "".join(parts)


def make_corpus(path, mb, seed=0):
    """Write about mb MB: random 1 MB collages of the source, in which random windows
    get two letters swapped (new words) and random numbers are inserted."""
    rng = random.Random(seed)
    src = source_text()
    with open(path, "w", encoding="utf-8") as f:
        for _ in range(mb):
            pieces = []
            size = 0
            while size < BLOCK:
                start = rng.randrange(len(src) - 4096)
                piece = src[start:start + rng.randrange(512, 4096)]
                if rng.random() < 0.05:
                    a, b = rng.sample(LETTERS, 2)
                    piece = piece.translate(str.maketrans(a + b, b + a))
                if rng.random() < 0.1:
                    piece += f" {rng.randrange(10 ** rng.randrange(1, 9))} "
                pieces.append(piece)
                size += len(piece)
            f.write("".join(pieces))


def peak_kib(status="/proc/self/status"):
    with open(status) as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    return 0


def rust_texts(path):
    with open(path, encoding="utf-8") as f:
        while True:
            lines = f.readlines(1 << 20)
            if not lines:
                return
            yield "".join(lines)


def run(who, corpus, vocab_size):
    from bpe import RegexTokenizer
    from bpe.counting import stream
    merges = None
    if who.startswith("count-dask-"):  # counting only, N workers, the cluster started
        from distributed import Client, LocalCluster
        from bpe.counting.dask_engine import count_files_dask
        with LocalCluster(n_workers=int(who.rsplit("-", 1)[1]), threads_per_worker=1,
                          processes=True, dashboard_address=None) as cluster, \
                Client(cluster) as client:
            client.wait_for_workers(int(who.rsplit("-", 1)[1]))
            start = time.perf_counter()
            count_files_dask(RegexTokenizer(), [corpus], client=client, range_bytes=16 << 20)
            who, seconds = None, time.perf_counter() - start
    start = time.perf_counter()
    chunks = None
    if who == "ours":  # stream.train_from_files, in its two steps to see the chunk count
        tok = RegexTokenizer()
        part = stream.count_files(tok, [corpus])
        chunks = len(part.head) + len(part.counts)
        merges = stream.train_from_part(tok, part, vocab_size).merges
    elif who == "ours2":  # this machine, two counting processes (no Dask)
        tok = stream.train_from_files(RegexTokenizer(), [corpus], vocab_size, workers=2)
        merges = tok.merges
    elif who == "dask":
        from bpe.counting.dask_engine import count_files_dask
        part = count_files_dask(RegexTokenizer(), [corpus], workers=2)
        merges = stream.train_from_part(RegexTokenizer(), part, vocab_size).merges
    elif who == "rustbpe":
        import rustbpe
        from bpe.patterns import GPT4_SPLIT_PATTERN
        rust = rustbpe.Tokenizer()
        rust.train_from_iterator(rust_texts(corpus), vocab_size, pattern=GPT4_SPLIT_PATTERN)
    if who is not None:
        seconds = time.perf_counter() - start
    kib = 1 / 1024
    me, kids = resource.getrusage(resource.RUSAGE_SELF), \
        resource.getrusage(resource.RUSAGE_CHILDREN)
    print(json.dumps({
        # CPU seconds (all threads and waited-for children): steadier than wall time on
        # a machine shared with other work, though it counts work, not waiting
        "cpu_s": me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime,
        "load": os.getloadavg()[0],
        "seconds": seconds, "peak_mib": peak_kib() * kib, "distinct_chunks": chunks,
        "children_peak_mib": resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * kib,
        "merges_sha": hashlib.sha256(repr(list(merges.items())).encode()).hexdigest()[:16]
        if merges else None, "n_merges": len(merges) if merges else None}))


def measure(who, corpus, vocab_size):
    out = subprocess.run([sys.executable, __file__, "run", who, str(corpus), str(vocab_size)],
                         capture_output=True, text=True, check=False)
    if out.returncode:
        raise SystemExit(f"{who} failed:\n{out.stderr[-3000:]}")
    result = json.loads(out.stdout.strip().splitlines()[-1])
    print(who, corpus.name, result, file=sys.stderr, flush=True)
    return result


def main(argv):
    if argv and argv[0] == "run":
        return run(argv[1], argv[2], int(argv[3]))
    ap = argparse.ArgumentParser()
    ap.add_argument("--small-mb", type=int, default=100)
    ap.add_argument("--mid-mb", type=int, default=500)
    ap.add_argument("--big-mb", type=int, default=2000)
    ap.add_argument("--vocab-size", type=int, default=10_000)
    ap.add_argument("--no-memory", action="store_true",
                    help="skip the small and mid corpora (the memory-bound rows)")
    ap.add_argument("--out", default=str(ROOT / "bench" / "results" / "scale.md"))
    args = ap.parse_args(argv)
    began = time.time()
    V = args.vocab_size
    rows = {}
    with tempfile.TemporaryDirectory(dir="/tmp", prefix="bpe-scale-") as tmp:
        sizes = [args.big_mb] if args.no_memory else \
            sorted({args.small_mb, args.mid_mb, args.big_mb})
        corpora = {}
        for mb in sizes:
            corpora[mb] = Path(tmp) / f"corpus{mb}.txt"
            make_corpus(corpora[mb], mb)
        for mb in sizes:
            rows[(mb, "ours")] = measure("ours", corpora[mb], V)
        big = corpora[args.big_mb]
        for who in ("ours2", "dask", "rustbpe", "count-dask-1", "count-dask-2"):
            rows[(args.big_mb, who)] = measure(who, big, V)
        chunks = {mb: rows[(mb, "ours")]["distinct_chunks"] for mb in sizes}
    write_report(args, rows, chunks, time.time() - began)


def write_report(args, rows, chunks, seconds):
    V, big = args.vocab_size, args.big_mb
    ours, dask, rust = rows[(big, "ours")], rows[(big, "dask")], rows[(big, "rustbpe")]
    c1, c2 = rows[(big, "count-dask-1")], rows[(big, "count-dask-2")]
    ours2 = rows[(big, "ours2")]
    mbps1, mbps2 = big / c1["seconds"], big / c2["seconds"]
    lines = [
        "# Scale: streamed training, Dask counting (issue 12)", "",
        f"Written by `bench/scale.py` ({seconds:.0f} s in all), "
        f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, "
        f"{os.cpu_count()} cores shared with other sessions, "
        f"`nice -n 19 python bench/scale.py --small-mb {args.small_mb} --mid-mb "
        f"{args.mid_mb} --big-mb {big} --vocab-size {V}"
        f"{' --no-memory' if args.no_memory else ''}`.", "",
        "| run | corpus | wall time | CPU time | load | peak RSS | wall vs rustbpe | merges |",
        "|---|---|---|---|---|---|---|---|"]
    for (mb, who), r in sorted(rows.items()):
        peak = f"{r['peak_mib']:.0f} MiB" + (f" (+ worker {r['children_peak_mib']:.0f} MiB)"
                                             if who.startswith(("dask", "count")) else "")
        ratio = f"{r['seconds'] / rust['seconds']:.2f}×" if mb == big and \
            who in ("ours", "ours2", "dask") else ""
        lines.append(f"| {who} | {mb} MB | {r['seconds']:.1f} s | {r.get('cpu_s', 0):.1f} s | "
                     f"{r.get('load', 0):.1f} | {peak} | {ratio} | "
                     f"{r['merges_sha'] or '-'} |")
    lines += [
        "", f"- distinct chunks: " + ", ".join(f"{mb} MB: {n:,}" for mb, n in chunks.items()),
        f"- exact merges one process vs Dask vs 2 local processes: "
        f"{ours['merges_sha'] == dask['merges_sha'] == ours2['merges_sha']}",
        f"- peak RSS one process at {big} MB: {ours['peak_mib']:.0f} MiB (goal ≤ 1536)",
        f"- time vs rustbpe at {big} MB: ours {ours['seconds'] / rust['seconds']:.2f}×, "
        f"2 local processes {ours2['seconds'] / rust['seconds']:.2f}×, "
        f"Dask {dask['seconds'] / rust['seconds']:.2f}× (goal ≤ 2×)",
        f"- counting only, Dask: 1 worker {mbps1:.1f} MB/s, 2 workers {mbps2:.1f} MB/s: "
        f"{mbps2 / mbps1:.2f}× (goal ≥ 1.7×)",
        f"- 1 TB at {mbps1:.1f} MB/s per worker: {1e6 / mbps1 / 3600:,.0f} worker-hours, "
        f"e.g. {1e6 / mbps1 / 3600 / 100:.1f} h on 100 one-core workers",
    ]
    if not args.no_memory:
        small, mid = rows[(args.small_mb, "ours")], rows[(args.mid_mb, "ours")]
        lines.append(f"- memory bounded: peak at {args.mid_mb} MB / peak at {args.small_mb} MB"
                     f" = {mid['peak_mib'] / small['peak_mib']:.2f} (goal ≤ 1.3)")
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text("\n".join(lines) + "\n", encoding="utf-8")
    print("\n".join(lines))


if __name__ == "__main__":
    main(sys.argv[1:])
