"""Compare's server-side cost per rerun: the aligned view's data (viz.compare.aligned,
packed by the token view's wire format), on 2 KB, 20 KB and 200 KB of English prose with
GPT-4 vs GPT-4o. (It once ran against the old HTML renderer, tokens_html, since deleted.)

    .venv/bin/python bench/compare_view.py
"""
import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bpe import GPT4Tokenizer  # noqa: E402
from bpe.reference import load_reference  # noqa: E402
from lab.token_view import pack  # noqa: E402
from viz import compare as cmp  # noqa: E402

CORPUS = Path(__file__).resolve().parent.parent.parent / "shared" / "corpora" / "taylorswift.txt"


def best(fn, repeat=5):
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t)
    return min(times), out


def main():
    argparse.ArgumentParser(description=__doc__.split("\n")[0]).parse_args()
    a, b = GPT4Tokenizer(), load_reference("o200k_base")
    text_all = CORPUS.read_text(encoding="utf-8")
    for size in (2_000, 20_000, 200_000):
        text = (text_all * (size // len(text_all) + 1))[:size]
        result = cmp.compare(a, b, text)
        new_t, view = best(lambda: pack({"pair": cmp.aligned(a, b, result)}))
        print(f"{size:>7} chars: aligned+pack {new_t * 1000:7.1f} ms {len(view) / 1024:7.1f} KiB")


if __name__ == "__main__":
    main()
