"""How long the vocabulary health report takes on the big reference vocabularies.

    .venv/bin/python bench/health_time.py

Times bpe.health.health_report on GPT-4 (cl100k_base) and GPT-4o (o200k_base), without
and with a corpus (taylorswift.txt) for the unused-token check; loading is timed apart.
"""
import argparse
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
CORPORA = Path(os.environ.get("BPE_CORPORA", ROOT.parent / "shared" / "corpora"))


def main(argv=None):
    argparse.ArgumentParser(description=__doc__.splitlines()[0]).parse_args(argv)
    from bpe.health import health_report
    from bpe.reference import load_reference
    corpus = (CORPORA / "taylorswift.txt").read_text()
    for name in ("cl100k_base", "o200k_base"):
        start = time.perf_counter()
        tok = load_reference(name)
        loaded = time.perf_counter() - start
        for text, label in ((None, "no corpus"), (corpus, f"corpus {len(corpus):,} chars")):
            start = time.perf_counter()
            findings = health_report(tok, text)
            took = time.perf_counter() - start
            print(f"{name}: load {loaded:.2f}s; report ({label}) {took:.2f}s; "
                  + "; ".join(f"{f.kind} {len(f.rows)}" for f in findings))


if __name__ == "__main__":
    main()
