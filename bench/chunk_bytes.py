"""Bytes of memory per distinct chunk, counting and merging (issue 12's docs/SCALE.md).

    python bench/chunk_bytes.py [N_CHUNKS] [VOCAB_SIZE]

Builds N distinct chunks shaped like GPT-4 chunks of English (a leading space and 2-10
letters; mean 7.5 bytes), then reports the resident set (VmRSS) the counts add, and the
peak (VmHWM, reset through /proc/self/clear_refs) while training on them.
"""
import argparse
import random
import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bpe import RegexTokenizer  # noqa: E402
from bpe.counting.parts import Part  # noqa: E402
from bpe.counting.stream import train_from_part  # noqa: E402


def kib(field):
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1])


def main(n=1_000_000, vocab_size=2000):
    rng = random.Random(0)
    letters = "etaoinshrdlucmfwypvbgkjqxz"

    def word(i):  # distinct: i in base 26, padded with random letters to 2-10 letters
        digits = []
        while i:
            i, d = divmod(i, 26)
            digits.append(letters[d])
        pad = max(rng.randrange(2, 11) - len(digits) - 1, 0)
        return " " + "".join(digits) + "z" + "".join(rng.choices(letters, k=pad))

    base = kib("VmRSS")
    counts = Counter()
    dict.update(counts, ((word(i), rng.randrange(1, 1000)) for i in range(n)))
    counted = kib("VmRSS")
    mean_bytes = sum(map(len, counts)) / n
    with open("/proc/self/clear_refs", "w") as f:
        f.write("5")  # reset VmHWM to the current resident set
    train_from_part(RegexTokenizer(), Part([], counts, ""), vocab_size)
    peak = kib("VmHWM")
    print(f"{n:,} distinct chunks of {mean_bytes:.1f} bytes on average: counting holds "
          f"{(counted - base) * 1024 / n:.0f} bytes a chunk; training (V={vocab_size}) peaks "
          f"{(peak - base) * 1024 / n:.0f} bytes a chunk above the process before counting")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("n_chunks", type=int, nargs="?", default=1_000_000,
                        help="distinct chunks to count (1,000,000)")
    parser.add_argument("vocab_size", type=int, nargs="?", default=2000,
                        help="vocab size to train to (2000)")
    args = parser.parse_args()
    main(args.n_chunks, args.vocab_size)
