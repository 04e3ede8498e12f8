"""Encode speed of every tokenizer.json family (tests/helpers/hf_families.py: tokenizers'
own trainers and converted SentencePiece models) in bpe against `tokenizers` itself, on
tinyshakespeare (1.1 MB), one process, one thread for tokenizers (RAYON_NUM_THREADS=1,
TOKENIZERS_PARALLELISM=false), encode of the whole text as one string, cold cache each
round (a fresh load), median of ROUNDS; also token_spans' cost on a 100 kB slice.

    .venv/bin/python bench/hf_families.py [--rounds 3] [--families bpe_whitespace,...]
    .venv/bin/python bench/hf_families.py --help

Prints a Markdown table (MB/s ours, MB/s tokenizers, ratio) to paste into
bench/results/hffamilies.md. Ids are checked equal on each run.
"""
import argparse
import os
import statistics
import sys
import time

os.environ.setdefault("RAYON_NUM_THREADS", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, HERE)
os.environ.setdefault("BPE_CORPORA", os.path.join(HERE, "..", "shared", "corpora"))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--families", default="", help="comma-separated names (default: all)")
    args = parser.parse_args(argv)
    from bpe import load_bytes
    from tests.conftest import read_corpus
    from tests.helpers.hf_families import FAMILIES
    text = read_corpus("tinyshakespeare.txt")
    mb = len(text.encode("utf-8")) / 1e6
    names = [n for n in FAMILIES if not args.families or n in args.families.split(",")]
    print("| family | ours MB/s | tokenizers MB/s | tokenizers / ours | spans, 100 kB |")
    print("|---|---:|---:|---:|---:|")
    for name in names:
        hf = FAMILIES[name]()
        data = hf.to_str().encode()
        ours_t, theirs_t = [], []
        for _ in range(args.rounds):
            tok = load_bytes(data, f"{name}.json")
            t = time.perf_counter()
            ids = tok.encode(text, allowed_special="all")
            ours_t.append(time.perf_counter() - t)
            t = time.perf_counter()
            expected = hf.encode(text).ids
            theirs_t.append(time.perf_counter() - t)
            assert ids == expected, name
        t = time.perf_counter()
        tok.token_spans(text[:100_000])
        spans = time.perf_counter() - t
        ours, theirs = mb / statistics.median(ours_t), mb / statistics.median(theirs_t)
        print(f"| {name} | {ours:.2f} | {theirs:.2f} | {theirs / ours:.1f}x | {spans:.2f} s |",
              flush=True)


if __name__ == "__main__":
    main()
