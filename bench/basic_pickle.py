"""What sending a trained Basic tokenizer back from the worker costs: pickled as it is
(with its vocab of bytes) or without the vocab and caches, rebuilt from the merges on
load (a proposal for Tokenizer in bpe/base.py, tried here on a subclass).

    nice .venv/bin/python bench/basic_pickle.py plain 45000
    nice .venv/bin/python bench/basic_pickle.py lean 45000

Run each in its own process: the figure is the process's peak RSS (VmHWM).
"""
import argparse
import pickle
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from bpe import BasicTokenizer  # noqa: E402

DERIVED = ("vocab", "_cache", "_special_regex", "_token_ids")  # what _reset rebuilds


def peak_mb():
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) // 1024
    return 0


class LeanBasic(BasicTokenizer):
    def __getstate__(self):
        return {k: v for k, v in self.__dict__.items() if k not in DERIVED}

    def __setstate__(self, state):
        self.__dict__.update(state)
        self._reset()


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter,
                                     epilog="\n".join(__doc__.splitlines()[3:]))
    parser.add_argument("how", choices=["plain", "lean"], help="pickle as it is, or lean")
    parser.add_argument("merges", type=int, help="merges to train (e.g. 45000)")
    args = parser.parse_args(argv)
    how, merges = args.how, args.merges
    cls = LeanBasic if how == "lean" else BasicTokenizer
    text = (ROOT.parent / "shared" / "corpora" / "tinyshakespeare.txt").read_text()
    tok = cls().train(text, 256 + merges)
    trained = peak_mb()
    data = pickle.dumps(tok, pickle.HIGHEST_PROTOCOL)
    print(f"{how}, {merges:,} merges: peak {trained:,} MB after training, {peak_mb():,} MB "
          f"after pickling; pickle {len(data) / 2**20:,.1f} MB")
    back = pickle.loads(data)
    assert back.vocab == tok.vocab and back.merges == tok.merges
    assert back.encode(text[:2000]) == tok.encode(text[:2000])


if __name__ == "__main__":
    main()
