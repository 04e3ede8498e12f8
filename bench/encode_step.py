"""bpe/encode.py's long-chunk merging before and after the heap and the levels became one
merger (apply_ranks_levels, which now pauses a sweep instead of handing the chunk to a
heap), side by side in one process: the ratio after / before is what to read.

The "before" code is bpe/encode.py as git holds it at --before (default main), loaded as
a module of its own; "after" is the working tree's. Most cases run apply_ranks, as
GPT4Tokenizer does, on chunks of taylorswift.txt split by the GPT-4 pattern, GPT-4's
ranks, no cache (whole tokens skipped); the two sides in turn (order swapped every
round) for --rounds rounds, timed in this process's CPU seconds (time.process_time: on a
shared machine, wall time mostly measures the neighbours); the median of the paired
ratios is reported, and ids must be equal or the case is not reported.

- ..., tok.encode: GPT4Tokenizer().encode(text) as a user calls it (its chunk cache
  cleared every time), with bpe.ranks_tokenizer's apply_ranks set to each side's.
- taylorswift: the corpus as it is (what encoding it costs; no chunk is long enough to
  reach the mergers, so this is the control).
- no spaces: the corpus with white space taken out, so words run together into long
  chunks, which are cut where nothing joins, then merged.
- no spaces, uncut: those long chunks without the cutting, all merged whole.
- hand-made ranks: 1,000-byte chunks under ranks where a merge makes a pair ranked
  below its own ("ab", then "cab"): before, the levels gave up and the heap began again;
  after, the sweep pauses.

    .venv/bin/python bench/encode_step.py [--rounds 31] [--before main]
"""
import argparse
import os
import random
import re
import subprocess
import sys
import time
import types
from functools import partial
from statistics import median
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))
from run_all import interleaved  # noqa: E402  (turns taken, order flipped every round)


def module_at(rev):
    source = subprocess.run(["git", "show", f"{rev}:bpe/encode.py"], cwd=ROOT, check=True,
                            capture_output=True, text=True).stdout
    module = types.ModuleType("encode_before")
    exec(compile(source, f"{rev}:bpe/encode.py", "exec"), module.__dict__)
    return module


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=31)
    parser.add_argument("--before", default="main")
    args = parser.parse_args()
    from bpe import GPT4Tokenizer
    from bpe import encode as after
    before = module_at(args.before)
    tok = GPT4Tokenizer()
    ranks = tok.ranks
    joinable = after.joinable_table(ranks)
    corpora = Path(os.environ.get("BPE_CORPORA", ROOT.parent / "shared" / "corpora"))
    text = (corpora / "taylorswift.txt").read_text(encoding="utf-8")
    chunks = [c.encode() for c in tok.split(text)]
    chunks = [c for c in chunks if c not in ranks]
    long_chunks = [c.encode() for c in tok.split(re.sub(r"\s+", "", text))]
    long_chunks = [c for c in long_chunks if len(c) >= after.LONG_CHUNK]
    rng = random.Random(0)
    hand_made = {bytes([b]): b for b in range(256)} | {b"cab": 256, b"ab": 257}
    hand_chunks = ["".join(rng.choice("abc") for _ in range(1000)).encode() for _ in range(20)]
    cases = {
        "taylorswift, tok.encode": ([text], None, None),
        "no spaces, tok.encode": ([re.sub(r"\s+", "", text)], None, None),
        "taylorswift": (chunks, ranks, joinable),
        "no spaces": (long_chunks, ranks, joinable),
        "no spaces, uncut": (long_chunks, ranks, None),
        "hand-made ranks": (hand_chunks, hand_made, None),
    }
    print(f"before: {args.before}:bpe/encode.py; after: the working tree; {args.rounds} "
          "rounds, the two sides in turn (order swapped every round); CPU seconds, medians")
    print("| case | chunks | bytes | before (s) | after (s) | after / before (paired) |")
    print("|---|---:|---:|---:|---:|---:|")
    import bpe.ranks_tokenizer

    def whole_encode(module):
        """tok.encode(text) as a user calls it, through module's apply_ranks, cache cleared."""
        def run(text):
            bpe.ranks_tokenizer.apply_ranks = module.apply_ranks
            tok._cache.clear()
            return tok.encode(text)
        return run

    for name, (items, table, cut) in cases.items():
        if table is None:  # whole texts through GPT4Tokenizer.encode
            fns = [("before", whole_encode(before)), ("after", whole_encode(after))]
        else:
            fns = [(side, partial(module.apply_ranks, ranks=table, joinable=cut))
                   for side, module in (("before", before), ("after", after))]
        times = {"before": [], "after": []}  # CPU seconds, beside interleaved's wall time
        out = {}

        def timed(side, fn, items=items):
            def run():
                start = time.process_time()
                out[side] = [fn(c) for c in items]
                times[side].append(time.process_time() - start)
            return run
        interleaved({side: timed(side, fn) for side, fn in fns}, args.rounds)
        if out["before"] != out["after"]:
            print(f"| {name} | ids differ: not reported |")
            continue
        ratios = [a / b for a, b in zip(times["after"], times["before"])]
        size = sum(len(c if isinstance(c, bytes) else c.encode()) for c in items)
        print(f"| {name} | {len(items):,} | {size:,} | {median(times['before']):.4f} | "
              f"{median(times['after']):.4f} | {median(ratios):.3f} |")


if __name__ == "__main__":
    main()
