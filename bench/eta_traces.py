"""The Train page's ETA against recorded real trainings (tests/fixtures/merge_trace_*):
the worst ratio between estimated and real time left, from 10% of the merges on where a
second or more is really left, for lab.train.training.estimate_left and for the old estimate
(merges left at the average rate so far). Run: .venv/bin/python bench/eta_traces.py"""
import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "tests"), str(ROOT / "tests" / "lab")]


def main(argv=None):
    argparse.ArgumentParser(description=__doc__.splitlines()[0]).parse_args(argv)
    from lab.train.training import estimate_left
    from test_training import TRACES, load_trace, naive_left, worst_ratio
    print("| trace | merges | seconds | estimate_left worst | old average-rate worst |")
    print("|---|---:|---:|---:|---:|")
    for path in TRACES:
        points, total = load_trace(path)
        new = worst_ratio(estimate_left, points, total)[0]
        old = worst_ratio(naive_left, points, total)[0]
        print(f"| {path.stem.removeprefix('merge_trace_')} | {total:,} | {points[-1][1]:.1f} "
              f"| {new:.2f}x | {old:.2f}x |")


if __name__ == "__main__":
    main()
