"""Compare's server-side cost per rerun: the aligned view's data (viz.compare.aligned,
packed by the token view's wire format) against the old drawing (two tokens_html strings of colored spans),
side by side in one run, on 2 KB and 20 KB of English prose with GPT-4 vs GPT-4o.

    .venv/bin/python bench/compare_view.py
"""
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bpe import GPT4Tokenizer  # noqa: E402
from bpe.reference import load_reference  # noqa: E402
from lab.token_view import pack  # noqa: E402
from viz import compare as cmp  # noqa: E402
from viz.tokens import token_spans, tokens_html  # noqa: E402

CORPUS = Path(__file__).resolve().parent.parent.parent / "shared" / "corpora" / "taylorswift.txt"


def best(fn, repeat=5):
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t)
    return min(times), out


def main():
    a, b = GPT4Tokenizer(), load_reference("o200k_base")
    text_all = CORPUS.read_text(encoding="utf-8")
    for size in (2_000, 20_000):
        text = text_all[:size]
        result = cmp.compare(a, b, text)
        new_t, view = best(lambda: pack({"pair": cmp.aligned(a, b, result)}))
        old_t, html = best(lambda: "".join(
            tokens_html(token_spans(tok, ids)) for tok, ids in ((a, result.ids_a), (b, result.ids_b))))
        print(f"{size:>6} chars: aligned+pack {new_t * 1000:7.1f} ms {len(view) / 1024:7.1f} KiB | "
              f"two tokens_html {old_t * 1000:7.1f} ms {len(html) / 1024:7.1f} KiB | "
              f"time ratio {new_t / old_t:.2f}")


if __name__ == "__main__":
    main()
