"""Each bpe.methods variant's effect and training cost at the same vocab size as our BPE.

Trains bpe, superbpe, boundless, picky (tau 1 and 0.9) on a slice of taylorswift.txt and
counts held-out tokens; parity vs bpe on samples/arena (each sample's first half trains,
the second half measures the Gini of tokens per byte). Then the cost table: each variant
against bpe on one corpus at one vocab size, at the small size above and at a bigger one
(all of tinyshakespeare.txt, vocab 4096; parity gets the corpus as one language).

Cost is CPU seconds (process_time) of the whole train() call of each, in one process,
timed A B B A (bpe, variant, variant, bpe) so that load drifting during the run falls on
both alike; the ratio is variant / bpe over both runs. The goal (issue 28) is <= 3x.

    python bench/methods.py [--train-chars 60000] [--vocab 1000] [--big-vocab 4096]
                            [--skip-big] [--skip-big-method NAME] [--rounds N] [--out FILE.md]
"""
import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bpe import methods  # noqa: E402
from bpe.methods.parity import gini  # noqa: E402

CORPORA = ROOT.parent / "shared" / "corpora"


VARIANTS = [("superbpe", {}), ("boundless", {}), ("picky", {"tau": 1.0}),
            ("picky", {"tau": 0.9}), ("parity", {})]


def timed(fn, *args, **kwargs):
    start = time.process_time()
    result = fn(*args, **kwargs)
    return result, time.process_time() - start


def label(name, options):
    return name + "".join(f" {k}={v}" for k, v in options.items())


def cost_rows(docs, vocab, variants=VARIANTS, rounds=1):
    """(label, bpe s, variant s, ratio) per variant: both trained on docs at vocab,
    A B B A, CPU seconds summed over the two runs of each; with rounds > 1 the A B B A
    is repeated and each side's smallest sum kept (other processes' load only ever
    adds time, so the smallest is the least disturbed)."""
    rows = []
    for name, options in variants:
        texts = {"en": "\n\n".join(docs)} if name == "parity" else docs
        a_sums, b_sums = [], []
        for _ in range(rounds):
            a1 = timed(methods.train, "bpe", docs, vocab)[1]
            b1 = timed(methods.train, name, texts, vocab, **options)[1]
            b2 = timed(methods.train, name, texts, vocab, **options)[1]
            a2 = timed(methods.train, "bpe", docs, vocab)[1]
            a_sums.append(a1 + a2)
            b_sums.append(b1 + b2)
        a, b = min(a_sums), min(b_sums)
        rows.append((label(name, options), a, b, b / a))
        print(*rows[-1], flush=True)
    return rows


def cost_table(title, rows):
    lines = [title, "", "| method | bpe s (2 runs) | method s (2 runs) | vs bpe | <= 3x |",
             "|---|---|---|---|---|"]
    lines += [f"| {name} | {a:.2f} | {b:.2f} | {r:.1f}x | {'yes' if r <= 3 else 'NO'} |"
              for name, a, b, r in rows]
    return lines


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpora", default=str(CORPORA if CORPORA.exists()
                                                 else Path("/work/shared/corpora")))
    parser.add_argument("--train-chars", type=int, default=60_000)
    parser.add_argument("--held-chars", type=int, default=20_000)
    parser.add_argument("--vocab", type=int, default=1000)
    parser.add_argument("--arena-vocab", type=int, default=600)
    parser.add_argument("--big-corpus", default="tinyshakespeare.txt")
    parser.add_argument("--big-vocab", type=int, default=4096)
    parser.add_argument("--skip-big", action="store_true", help="only the small sizes")
    parser.add_argument("--skip-big-method", action="append", default=[], metavar="NAME",
                        help="leave NAME out of the big cost table (repeatable)")
    parser.add_argument("--rounds", type=int, default=1,
                        help="repeat each A B B A this often and keep each side's smallest "
                             "sum (steadier on a loaded machine)")
    parser.add_argument("--out", default=None, help="write the markdown table here")
    args = parser.parse_args()
    text = (Path(args.corpora) / "taylorswift.txt").read_text(encoding="utf-8")
    docs = text[:args.train_chars].split("\n\n")
    held = text[args.train_chars:args.train_chars + args.held_chars]
    rows = []
    bpe = methods.train("bpe", docs, args.vocab)
    base = len(bpe.encode(held))
    rows.append(("bpe", base, "", "-"))
    for name, options, paper in [
            ("superbpe", {}, "up to 33% fewer tokens at 200k vocab"),
            ("boundless", {}, "~20% more bytes per token"),
            ("picky", {"tau": 1.0}, "tau=1 is BPE"),
            ("picky", {"tau": 0.9}, "same compression, fewer junk tokens")]:
        tok = methods.train(name, docs, args.vocab, **options)
        n = len(tok.encode(held))
        extra = ""
        if name == "picky":
            extra = (f"merges == bpe: {tok.merges == bpe.merges}; "
                     f"removed {len(tok.removed)}")
        rows.append((label(name, options), n, f"{(n - base) / base:+.1%} {extra}", paper))
    arena = {p.stem: p.read_text(encoding="utf-8") for p in sorted((ROOT / "samples" / "arena").glob("*.txt"))}
    train_half = {k: v[:len(v) // 2] for k, v in arena.items()}
    test_half = {k: v[len(v) // 2:] for k, v in arena.items()}
    a_bpe, a_bpe_s = timed(methods.train, "bpe", list(train_half.values()), args.arena_vocab)
    a_par, a_par_s = timed(methods.train, "parity", train_half, args.arena_vocab)
    one = methods.train("parity", {"en": text[:args.train_chars]}, args.vocab).merges == \
        methods.train("bpe", [text[:args.train_chars]], args.vocab).merges

    def g(tok, texts):
        return gini([len(tok.encode(t)) / len(t.encode("utf-8")) for t in texts.values()])
    lines = [
        "# bpe.methods: each paper's effect at small scale", "",
        f"`python bench/methods.py{' ' + ' '.join(sys.argv[1:]) if sys.argv[1:] else ''}`"
        f" — taylorswift.txt: {args.train_chars} chars train, {args.held_chars} held out, "
        f"vocab {args.vocab}.", "",
        "| method | held-out tokens | vs bpe | paper |",
        "|---|---|---|---|"]
    lines += [f"| {a} | {b} | {c} | {d} |" for a, b, c, d in rows]
    lines += ["", f"Parity on samples/arena ({len(arena)} samples, first half trains, second "
              f"half measures; vocab {args.arena_vocab}):", "",
              "| method | Gini tokens/byte (held-out half) | Gini (train half) | total tokens (held-out) | train s |",
              "|---|---|---|---|---|",
              f"| bpe | {g(a_bpe, test_half):.4f} | {g(a_bpe, train_half):.4f} | "
              f"{sum(len(a_bpe.encode(t)) for t in test_half.values())} | {a_bpe_s:.2f} |",
              f"| parity | {g(a_par, test_half):.4f} | {g(a_par, train_half):.4f} | "
              f"{sum(len(a_par.encode(t)) for t in test_half.values())} | {a_par_s:.2f} |",
              "", f"Parity with one language gives bpe's merges: {one}.",
              "Paper (2508.04796): Gini of per-language cost falls sharply for a small global loss."]
    lines += [""] + cost_table(
        f"Training cost, taylorswift.txt {args.train_chars} chars, vocab {args.vocab} "
        f"(CPU s, A B B A, best of {args.rounds}):", cost_rows(docs, args.vocab, rounds=args.rounds))
    if not args.skip_big:
        big = (Path(args.corpora) / args.big_corpus).read_text(encoding="utf-8")
        lines += [""] + cost_table(
            f"Training cost, all of {args.big_corpus} ({len(big.encode('utf-8'))} bytes), "
            f"vocab {args.big_vocab} (CPU s, A B B A, best of {args.rounds}):",
            cost_rows(big.split("\n\n"), args.big_vocab,
                      [v for v in VARIANTS if v[0] not in args.skip_big_method], args.rounds))
    out = "\n".join(lines) + "\n"
    print(out)
    if args.out:
        Path(args.out).write_text(out, encoding="utf-8")


if __name__ == "__main__":
    main()
