"""Long single chunks: our GPT4Tokenizer against tiktoken's cl100k_base, side by side
(--ranks o200k_base: our o200k reference against tiktoken built from the same ranks).

Each case is one long piece that the split pattern leaves whole (or nearly), so the
per-chunk merge loop is all that is timed. Both encoders run in this process, in
alternation, best of --repeat; the ratio ours/tiktoken is what to read (absolute times
depend on the machine). Ids are compared too: a row is only reported if they match.

    .venv/bin/python bench/long_chunks.py [--repeat 3] [--scale 1.0] [--ranks o200k_base]
"""
import argparse
import random
import string
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


def cases(scale):
    rng = random.Random(0)
    n = int(1_000_000 * scale)
    return {
        '"x" * 1_000_000': "x" * n,
        '"👍" * 100_000': "👍" * (n // 10),
        '"^" * 100_000': "^" * (n // 10),
        "1 MB random letters": "".join(rng.choice(string.ascii_letters) for _ in range(n)),
        '" " * 100_000': " " * (n // 10),
        '"0" * 100_000': "0" * (n // 10),
    }


def best(fn, text, repeat):
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        ids = fn(text)
        times.append(time.perf_counter() - start)
    return min(times), ids


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--scale", type=float, default=1.0)
    parser.add_argument("--ranks", default="cl100k_base", help="cl100k_base or o200k_base")
    args = parser.parse_args()
    import tiktoken
    from bpe import GPT4Tokenizer
    from bpe.formats.ranks import tiktoken_kwargs
    if args.ranks == "cl100k_base":
        ours = GPT4Tokenizer()
    else:
        from bpe.reference import load_reference
        ours = load_reference(args.ranks)
    theirs = tiktoken.Encoding(**tiktoken_kwargs(ours, name=args.ranks))
    print(f"ranks: {args.ranks}")
    print("| case | ours (s) | tiktoken (s) | ours / tiktoken | ids equal |")
    print("|---|---:|---:|---:|---|")
    for name, text in cases(args.scale).items():
        t_theirs, ids_theirs = best(theirs.encode_ordinary, text, args.repeat)
        t_ours, ids_ours = best(ours.encode_ordinary, text, args.repeat)
        print(f"| {name} | {t_ours:.3f} | {t_theirs:.3f} | {t_ours / t_theirs:.2f}x | "
              f"{ids_ours == ids_theirs} |", flush=True)


if __name__ == "__main__":
    main()
