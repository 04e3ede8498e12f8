"""Record (done, elapsed, count) merge-rate traces of real bpe trainings on the shared
corpora, as fixtures for the ETA tests (tests/lab/test_training.py). Run from the checkout:
.venv/bin/python bench/record_merge_traces.py (about 30 s)."""
import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
CORPORA = ROOT.parent / "shared" / "corpora"


def main(argv=None):
    argparse.ArgumentParser(description=__doc__.splitlines()[0]).parse_args(argv)
    from bpe import BasicTokenizer, RegexTokenizer
    runs = [("tinyshakespeare.txt", "regex", 30000), ("tinyshakespeare.txt", "basic", 8192),
            ("taylorswift.txt", "basic", 20000), ("tinyshakespeare.txt", "basic", 4096)]
    for corpus, kind, vocab in runs:
        text = (CORPORA / corpus).read_text(encoding="utf-8")
        points = []
        def cb(p):
            if not points or p.elapsed - points[-1][1] >= 0.01 or p.done == p.total:
                points.append((p.done, round(p.elapsed, 4), p.count))
        tok = (RegexTokenizer("gpt4") if kind == "regex" else BasicTokenizer())
        tok.train(text, vocab, progress=cb)
        if points[-1][0] != len(tok.merges):
            points.append((len(tok.merges), points[-1][1], points[-1][2]))
        name = ROOT / f"tests/fixtures/merge_trace_{corpus.split('.')[0]}_{kind}_{vocab}.json"
        json.dump({"corpus": corpus, "kind": kind, "vocab_size": vocab, "total": vocab - 256,
                   "merges": len(tok.merges), "stop_reason": tok.stop_reason,
                   "points": points}, open(name, "w"))
        print(name, len(points), points[-1], tok.stop_reason, flush=True)


if __name__ == "__main__":
    main()
