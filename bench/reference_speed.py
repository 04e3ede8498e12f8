"""Our encoder against each reference's owner library, side by side on the same text.

For each of the eight reference tokenizers: time our encode_ordinary and the owner's
encode (lab.parity.owner_encoder: tiktoken, llama_models, sentencepiece, mistral_common)
on the same corpus, alternating, best of --repeat, and check the ids are equal.
Prints a Markdown table of the times and their ratio (ours / theirs). Times are this
process's CPU seconds (time.process_time; --wall for wall time): on a shared machine the
wall clock mostly measures the neighbours. Both encoders run on this one thread.

    .venv/bin/python bench/reference_speed.py --chars 300000 --repeat 3
"""
import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bpe import reference  # noqa: E402
from lab import parity  # noqa: E402
from lab.train.corpora import shared_corpora_dir  # noqa: E402


clock = time.process_time


def timed(fn, text):
    start = clock()
    fn(text)
    return clock() - start


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chars", type=int, default=300_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--wall", action="store_true", help="time the wall clock instead")
    parser.add_argument("--only", nargs="*", help="these references only")
    args = parser.parse_args()
    global clock
    clock = time.perf_counter if args.wall else time.process_time
    corpus = (shared_corpora_dir() / "tinyshakespeare.txt").read_text(encoding="utf-8")
    text = corpus[:args.chars]
    print(f"{len(text):,} characters of tinyshakespeare, best of {args.repeat}, our chunk cache cleared before each run, "
          f"{'wall' if args.wall else 'CPU'} seconds\n")
    print("| tokenizer | owner library | tokens | ours (s) | theirs (s) | ours / theirs | ids equal |")
    print("|---|---|---|---|---|---|---|")
    for name in args.only or reference.REFERENCES:
        tok = reference.load_reference(name)
        library, encode = parity.owner_encoder(name)
        ours = theirs = float("inf")
        for _ in range(args.repeat):  # alternate, so both see the same machine load
            getattr(tok, "_cache", {}).clear()  # cold: our chunk cache would remember the text
            ours = min(ours, timed(tok.encode_ordinary, text))
            theirs = min(theirs, timed(encode, text))
        ids = tok.encode_ordinary(text)
        same = ids == encode(text)
        print(f"| {name} | {library} | {len(ids):,} | {ours:.3f} | {theirs:.3f} | "
              f"{ours / theirs:.1f} | {same} |")


if __name__ == "__main__":
    main()
