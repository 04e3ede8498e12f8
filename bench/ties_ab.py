"""One training for farm-bench's paired A/B: the trainer in MODULE_PATH, tie rule RULE.

    farm-bench -n 9 -- .venv/bin/python bench/ties_ab.py bpe/train.py first 8192 \\
        --vs '.venv/bin/python bench/ties_ab.py /tmp/old_train.py first 8192'

(the old trainer: git show <commit>:bpe/train.py > /tmp/old_train.py; "first" is the
only rule it knows). Counting the chunks is included, identical on both sides.
"""
import argparse
import importlib.util
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from bpe.regex import compile_pattern  # noqa: E402



def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("module_path", help="a trainer module (bpe/train.py, or an old copy)")
    parser.add_argument("rule", help="a tie rule (first, smallest_ids, greatest_bytes) or "
                                     "record_ties")
    parser.add_argument("vocab_size", type=int)
    args = parser.parse_args(argv)
    path, rule, vocab_size = args.module_path, args.rule, args.vocab_size
    spec = importlib.util.spec_from_file_location("trainer", path)
    trainer = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(trainer)
    text = (ROOT.parent / "shared" / "corpora" / "tinyshakespeare.txt").read_text()
    words = [(c.encode(), f) for c, f in Counter(compile_pattern("gpt4")[1].findall(text)).items()]
    kwargs = {} if rule == "first" else {"tie_break": rule}
    if rule == "record_ties":
        kwargs = {"record_ties": True}
    trainer.train_merges(words, vocab_size, **kwargs)


if __name__ == "__main__":
    main()
