"""Does the tie rule cost speed? Old trainer (git HEAD~N's bpe/train.py, given as a path)
vs today's, each rule, side by side on the same words, alternating.

    .venv/bin/python bench/ties_speed.py OLD_TRAIN_PY [vocab_size]
"""
import argparse
import importlib.util
import statistics
import sys
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from bpe.regex import compile_pattern  # noqa: E402
from bpe.tie_break import TIE_BREAKS  # noqa: E402
from bpe.train import train_merges  # noqa: E402


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("old_train_py", help="the old bpe/train.py (git show REV:bpe/train.py)")
    parser.add_argument("vocab_size", type=int, nargs="?", default=4096)
    args = parser.parse_args(argv)
    spec = importlib.util.spec_from_file_location("old_train", args.old_train_py)
    old = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(old)
    vocab_size = args.vocab_size
    text = (ROOT.parent / "shared" / "corpora" / "tinyshakespeare.txt").read_text()
    chunks = Counter(compile_pattern("gpt4")[1].findall(text))
    words = [(c.encode(), f) for c, f in chunks.items()]
    contenders = {"before": lambda: old.train_merges(words, vocab_size)}
    for rule in TIE_BREAKS:
        contenders[rule] = lambda rule=rule: train_merges(words, vocab_size, tie_break=rule)
    contenders["first+record_ties"] = lambda: train_merges(words, vocab_size, record_ties=True)
    times = {name: [] for name in contenders}
    for round_ in range(5):
        for name in (list(contenders) if round_ % 2 == 0 else list(contenders)[::-1]):
            start = time.perf_counter()
            contenders[name]()
            times[name].append(time.perf_counter() - start)
    base = statistics.median(times["before"])
    for name, t in times.items():
        print(f"{name:20s} median {statistics.median(t):.3f}s  ratio to before {statistics.median(t) / base:.3f}")


if __name__ == "__main__":
    main()
