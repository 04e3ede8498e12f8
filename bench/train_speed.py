"""Training speed and peak memory, ours against rustbpe, one core each, A B B A, with the
merges checked equal under tie_break="smallest_ids" (rustbpe's rule).

    .venv/bin/python bench/train_speed.py --rounds 2                   # both cases
    .venv/bin/python bench/train_speed.py --case shakespeare-4096 --rounds 3

Cases:
- shakespeare-4096: tinyshakespeare.txt, V=4096;
- big-32768: a 50 MB corpus, V=32768: bench/run_all.py's make_big_corpus (copies of
  tinyshakespeare.txt and taylorswift.txt, each copy after the first two with its lines
  shuffled and two lowercase letters swapped, so the chunks keep changing), written once
  to a temp file.

Each side runs in a fresh process pinned to one core (os.sched_setaffinity; rustbpe's
rayon pool gets RAYON_NUM_THREADS=1, our chunk counting sees one core). The child reads
the file, then trains: ours RegexTokenizer().train(text, V, tie_break="smallest_ids"),
rustbpe Tokenizer().train_from_iterator([text], V, pattern=GPT-4's) (the whole text as one
document, so its split is ours). The child's CPU seconds (user + system) and its own
ru_maxrss come from os.wait4; the table gives medians over the pairs of the per-pair ratio,
and "merges equal" compares every token's bytes in rank order.
"""
import argparse
import hashlib
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

CASES = {"shakespeare-4096": 4096, "big-32768": 32768}
BIG_BYTES = 50_000_000


def child(side, path, vocab_size):
    os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})
    text = Path(path).read_text(encoding="utf-8")
    start = time.process_time()
    if side == "ours":
        from bpe import RegexTokenizer
        tok = RegexTokenizer()
        tok.train(text, vocab_size, tie_break="smallest_ids")
        tokens = [tok.vocab[idx] for idx in range(256, vocab_size)]
    else:
        import rustbpe
        from bpe.patterns import GPT4_SPLIT_PATTERN
        tok = rustbpe.Tokenizer()
        tok.train_from_iterator([text], vocab_size, pattern=GPT4_SPLIT_PATTERN)
        ranks = sorted(tok.get_mergeable_ranks(), key=lambda item: item[1])
        tokens = [bytes(token) for token, rank in ranks if rank >= 256]
    train_cpu = time.process_time() - start
    digest = hashlib.sha256(b"\0".join(len(t).to_bytes(4, "big") + t for t in tokens))
    return {"train_cpu": train_cpu, "merges": len(tokens), "digest": digest.hexdigest()}


def run(side, path, vocab_size, env):
    start = time.perf_counter()
    proc = subprocess.Popen([sys.executable, __file__, "--child", side, path, str(vocab_size)],
                            stdout=subprocess.PIPE, env=env)
    out = proc.stdout.read()
    _, status, usage = os.wait4(proc.pid, 0)
    if os.waitstatus_to_exitcode(status):
        raise SystemExit(f"{side} failed on {path}")
    result = json.loads(out.decode().strip().splitlines()[-1])
    result.update(cpu=usage.ru_utime + usage.ru_stime, wall=time.perf_counter() - start,
                  peak_mib=usage.ru_maxrss / 1024)
    return result


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--case", nargs="*", choices=list(CASES), help="default: both")
    parser.add_argument("--rounds", type=int, default=2, help="A B B A rounds (default 2)")
    parser.add_argument("--child", nargs=3, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        side, path, vocab_size = args.child
        print(json.dumps(child(side, path, int(vocab_size))))
        return
    from lab.train.corpora import shared_corpora_dir
    from run_all import make_big_corpus
    work = Path(tempfile.mkdtemp(prefix="train_speed_"))
    env = dict(os.environ, RAYON_NUM_THREADS="1")
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # bytecode as an installed package has it
    env["PYTHONPYCACHEPREFIX"] = str(work / "pycache")
    print(f"{args.rounds} rounds of A B B A, one core each; load before: "
          f"{os.getloadavg()[0]:.2f}\n")
    print("| case | ours CPU s (whole process) | rustbpe CPU s | CPU ratio | train-only ratio "
          "| ours peak MiB | rustbpe peak MiB | merges equal |")
    print("|---|---:|---:|---:|---:|---:|---:|---|")
    for case in args.case or CASES:
        vocab_size = CASES[case]
        if case.startswith("big"):
            path = work / "big.txt"
            make_big_corpus(path, BIG_BYTES)
        else:
            path = shared_corpora_dir() / "tinyshakespeare.txt"
        run("ours", str(path), 300, env)  # untimed: fills the bytecode cache
        pairs = []
        for _ in range(args.rounds):
            for order in (("ours", "rustbpe"), ("rustbpe", "ours")):
                pairs.append({side: run(side, str(path), vocab_size, env) for side in order})
        med = statistics.median
        equal = all(p["ours"]["digest"] == p["rustbpe"]["digest"] for p in pairs)
        print(f"| {case} | {med(p['ours']['cpu'] for p in pairs):.2f} | "
              f"{med(p['rustbpe']['cpu'] for p in pairs):.2f} | "
              f"{med(p['ours']['cpu'] / p['rustbpe']['cpu'] for p in pairs):.2f} | "
              f"{med(p['ours']['train_cpu'] / p['rustbpe']['train_cpu'] for p in pairs):.2f} | "
              f"{med(p['ours']['peak_mib'] for p in pairs):.0f} | "
              f"{med(p['rustbpe']['peak_mib'] for p in pairs):.0f} | {equal} |", flush=True)
    print(f"\nload after: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
