"""Basic training's memory over merges: the trainer at REV (default main) and this tree's,
side by side, each in a child process capped like the app's worker (RLIMIT_AS).

    nice .venv/bin/python bench/basic_memory.py                 # tinyshakespeare -> 100,000
    nice .venv/bin/python bench/basic_memory.py --before HEAD~1 --cap-mb 1024 --repeat 1

Each child trains BasicTokenizer (min_frequency=1, as minbpe) and prints, every
--every merges, its RSS, its peak RSS and the sum of len(token) made so far (the bytes
the vocab dict must hold). A run ends at the vocab size, at MemoryError (the cap), or
after training by pickling the tokenizer, as the worker does to send it to the app.
Children alternate before/after, --repeat times; times are the child's CPU seconds
(process_time: the machine is shared, wall time is noise), the best per checkpoint.

--project runs this tree's trainer once with a vocab of token *lengths* instead of
bytes (train_merges adds them as it would concatenate bytes): the sum of len(vocab[i])
at every checkpoint up to the vocab size, which no implementation of a dict of bytes
can go below, and the memory the trainer itself takes when no bytes are built.
"""
import argparse
import hashlib
import json
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT.parent / "shared" / "corpora" / "tinyshakespeare.txt"


def status_mb(field):
    """VmRSS / VmHWM of this process in MB."""
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1]) / 1024
    return 0.0


def child(args):
    """One training in this process: JSON lines on stdout."""
    sys.path.insert(0, args.child)
    from bpe import BasicTokenizer
    from bpe.train import train_merges
    text = Path(args.corpus).read_text(encoding="utf-8")
    if args.cap_mb:
        cap = args.cap_mb * 2**20
        resource.setrlimit(resource.RLIMIT_AS, (cap, cap))
    made = [0]
    digest = hashlib.sha256()  # of every merge so far, to check both sides make the same
    start = time.process_time()  # CPU seconds: 2 cores shared by many make wall time noise

    def emit(**row):
        row.update(rss=status_mb("VmRSS"), hwm=status_mb("VmHWM"),
                   seconds=time.process_time() - start, merges_sha=digest.hexdigest()[:12])
        print(json.dumps(row), flush=True)

    def progress(p):
        made[0] += p.token if args.lengths else len(p.token)
        digest.update(b"%d %d %d %d;" % (*p.pair, p.idx, p.count))
        if p.done % args.every == 0:
            emit(done=p.done, vocab_mb=made[0] / 2**20, count=p.count)

    emit(done=0, vocab_mb=0.0)
    try:
        if args.lengths:
            # subtle: ints for bytes: `vocab[a] + vocab[b]` adds lengths; the "first" tie
            # rule never reads the vocab, so the merges are the same
            result = train_merges([(text.encode("utf-8"), 1)], args.vocab_size, 1, progress,
                                  vocab={i: 1 for i in range(256)})
            emit(end=result.stop_reason, done=len(result.merges), vocab_mb=made[0] / 2**20)
            return
        tok = BasicTokenizer().train(text, args.vocab_size, progress=progress,
                                     tie_break=args.tie_break, record_ties=args.record_ties)
        emit(end=tok.stop_reason, done=len(tok.merges), vocab_mb=made[0] / 2**20)
    except MemoryError:
        emit(end="MemoryError in training", done=None, vocab_mb=made[0] / 2**20)
        return
    import pickle
    try:
        size = len(pickle.dumps(tok, pickle.HIGHEST_PROTOCOL))
        emit(end=f"pickled: {size / 2**20:,.0f} MB", done=len(tok.merges),
             vocab_mb=made[0] / 2**20)
    except MemoryError:
        emit(end="MemoryError pickling the tokenizer", done=len(tok.merges),
             vocab_mb=made[0] / 2**20)


def run(tree, args, *extra):
    command = [sys.executable, __file__, "--child", str(tree), "--corpus", str(args.corpus),
               "--vocab-size", str(args.vocab_size), "--every", str(args.every),
               "--cap-mb", str(args.cap_mb), "--tie-break", args.tie_break, *extra]
    if args.record_ties:
        command.append("--record-ties")
    out = subprocess.run(command, capture_output=True, text=True, check=False)
    rows = [json.loads(line) for line in out.stdout.splitlines() if line.startswith("{")]
    if not rows or "end" not in rows[-1]:
        rows.append({"end": f"died (exit {out.returncode}): {out.stderr.strip()[-200:]}",
                     "done": None})
    return rows


def best(runs):
    """Per checkpoint (merges done): the fastest time and the largest peak over runs."""
    table = {}
    for rows in runs:
        for row in rows:
            if "end" in row:
                continue
            old = table.get(row["done"])
            if old is None:
                table[row["done"]] = dict(row)
            else:
                old["seconds"] = min(old["seconds"], row["seconds"])
                old["hwm"] = max(old["hwm"], row["hwm"])
    return table


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--corpus", default=str(CORPUS))
    parser.add_argument("--vocab-size", type=int, default=100_000)
    parser.add_argument("--every", type=int, default=5000, help="merges between rows")
    parser.add_argument("--cap-mb", type=int, default=2048, help="RLIMIT_AS; 0 = none")
    parser.add_argument("--before", default="main", help="git revision to compare against")
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument("--tie-break", default="first")
    parser.add_argument("--record-ties", action="store_true")
    parser.add_argument("--project", action="store_true",
                        help="also the sum of token lengths up to the vocab size")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    parser.add_argument("--lengths", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        return child(args)

    with tempfile.TemporaryDirectory() as before:
        archive = subprocess.run(["git", "-C", str(ROOT), "archive", args.before, "bpe"],
                                 capture_output=True, check=True).stdout
        subprocess.run(["tar", "-x", "-C", before], input=archive, check=True)
        runs = {"before": [], "after": []}
        for _ in range(args.repeat):
            runs["before"].append(run(before, args))
            runs["after"].append(run(ROOT, args))
    rev = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", args.before],
                         capture_output=True, text=True).stdout.strip()
    print(f"corpus {Path(args.corpus).name}, vocab_size {args.vocab_size:,}, "
          f"cap {args.cap_mb:,} MB, tie_break {args.tie_break}, record_ties "
          f"{args.record_ties}, best of {args.repeat}; before = {args.before} ({rev})\n")
    print("| merges | sum len(token) MB | before: peak RSS MB | after: peak RSS MB | "
          "after - before MB | before: CPU s | after: CPU s | after / before CPU | same merges |")
    print("|---:|---:|---:|---:|---:|---:|---:|---:|---|")
    tables = {side: best(r) for side, r in runs.items()}
    for done in sorted(set(tables["before"]) | set(tables["after"])):
        b, a = tables["before"].get(done), tables["after"].get(done)
        cells = [f"{done:,}", f"{(a or b)['vocab_mb']:,.1f}",
                 f"{b['hwm']:,.0f}" if b else "-", f"{a['hwm']:,.0f}" if a else "-",
                 f"{a['hwm'] - b['hwm']:+,.0f}" if a and b else "-",
                 f"{b['seconds']:.2f}" if b else "-", f"{a['seconds']:.2f}" if a else "-",
                 f"{a['seconds'] / b['seconds']:.2f}" if a and b and done else "-",
                 str(a["merges_sha"] == b["merges_sha"]) if a and b else "-"]
        print("| " + " | ".join(cells) + " |")
    for side, side_runs in runs.items():
        ends = "; ".join(f"{r[-1]['end']} (merges {r[-1]['done']}, peak "
                         f"{r[-1].get('hwm', 0):,.0f} MB)" for r in side_runs)
        print(f"\n{side}: {ends}")
    if args.project:
        rows = run(ROOT, argparse.Namespace(**{**vars(args), "cap_mb": 0}), "--lengths")
        print("\nLengths only (no bytes built), this tree's trainer, no cap:\n")
        print("| merges | sum len(token) MB | peak RSS MB | CPU s | same merges as with bytes |")
        print("|---:|---:|---:|---:|---|")
        for row in rows:
            if "end" not in row:
                bytes_row = tables["after"].get(row["done"])
                same = str(bytes_row["merges_sha"] == row["merges_sha"]) if bytes_row else "-"
                print(f"| {row['done']:,} | {row['vocab_mb']:,.1f} | {row['hwm']:,.0f} | "
                      f"{row['seconds']:.2f} | {same} |")
        print(f"\nend: {rows[-1]['end']} at {rows[-1]['done']} merges")


if __name__ == "__main__":
    main()
