"""A structured fuzzer for the files a visitor can hand the lab: minbpe .model, tiktoken
ranks (plain and gzip), tokenizer.json and counts files (issue 24).

    .venv/bin/python bench/fuzz_files.py                 # 300 attempts, every kind
    .venv/bin/python bench/fuzz_files.py --n 2000 --seed 7 --kinds hf ranks

Each attempt starts from a valid file of its kind (made here from a small trained
tokenizer) and applies one or two structured mutations: numbers made huge or negative,
lines repeated or cut, tokens that double in length, deep or odd JSON, hostile regexes and
normalizers, gzip bombs, forged counts files. The file is then loaded (bpe.load_bytes, or
read_counts) and, if it loads, used on a short text: encode and decode.

Every attempt runs in a forked child capped at --memory-mb of address space and
--cpu-s seconds of CPU. It passes when the child loads the file or refuses it with one
ValueError/TypeError (a message); it fails on any other exception (MemoryError,
RecursionError, a bug), on the CPU cap, or on being killed. The table lists the failures
with the mutation that made them; the exit status is 1 if any attempt failed.
"""
import argparse
import base64
import gzip
import json
import multiprocessing
import random
import resource
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

SAMPLE = "hello world, the cat sat on the mat. 123 4567 naïve café 😊\n" * 30
PROBE = "Hello 👋 world 1234 <|endoftext|> naïve\n\tend"
BAD_PATTERNS = [r"(a|a)+$|.", r"(a+)+$|[\s\S]", r"c{10000000}|[\s\S]", r"(\w+)\1", r"(?R)",
                r"(?:x*)*y|.", r"[\s\S]", "", r"\p{L}", "(", r"(?i)(?:" * 50 + "a" + ")" * 50]


def valid_files():
    """kind -> (file name, bytes) of a valid file of each kind."""
    from bpe import RegexTokenizer
    from bpe.counting.counts_file import write_counts
    from bpe.counting.stream import count_texts
    from bpe.formats import ranks
    from bpe.formats.hf import tokenizer_json as hf
    tok = RegexTokenizer("gpt4").train(SAMPLE, 300)
    tok.register_special_tokens({"<|endoftext|>": 300})
    with tempfile.TemporaryDirectory() as folder:
        counts = Path(folder) / "a.counts"
        write_counts(counts, tok.pattern, count_texts(tok, ["x " * 10_000 + SAMPLE]))
        counts_bytes = counts.read_bytes()
    ranks_bytes = ranks.ranks_text(ranks.mergeable_ranks(tok)).encode()
    return {
        "model": ("a.model", tok.model_text().encode()),
        "ranks": ("a.tiktoken", ranks_bytes),
        "ranks_gz": ("a.tiktoken.gz", gzip.compress(ranks_bytes)),
        "hf": ("tokenizer.json", json.dumps(hf.hf_json(tok)).encode()),
        "counts": ("a.counts", counts_bytes),
    }


# ------------------------------------------------------------------- mutations
def lines_mutation(rng, data):
    lines = data.split(b"\n")
    i = rng.randrange(len(lines))
    choice = rng.randrange(6)
    if choice == 0:
        lines[i] = lines[i] + b"9" * rng.choice([3, 12, 40])
    elif choice == 1:
        lines[i:i] = [lines[i]] * rng.choice([2, 1000, 50_000])
    elif choice == 2:
        del lines[i:]
    elif choice == 3:
        lines[i] = b"-" + lines[i]
    elif choice == 4:
        lines[i] = bytes(rng.randrange(256) for _ in range(rng.randrange(1, 20)))
    else:
        lines.insert(i, rng.choice(BAD_PATTERNS).encode())
    return b"\n".join(lines), f"lines[{choice}]"


def doubling_ranks(rng, data):
    """Tokens a, aa, aaaa... up to 2^k bytes: merge recovery and the tree go deep."""
    k = rng.choice([10, 14, 16])
    out = [base64.b64encode(bytes([b])) + b" %d" % b for b in range(256)]
    out += [base64.b64encode(b"a" * (1 << j)) + b" %d" % (255 + j) for j in range(1, k + 1)]
    return b"\n".join(out), f"doubling 2^{k}"


_bombs = {}  # (filler, MB) -> compressed bytes: compressing 512 MB takes seconds


def gzip_bomb(rng, data):
    filler, mb = rng.choice([b"\0", b"\n", b"YQ== 1\n"]), rng.choice([64, 512])
    if (filler, mb) not in _bombs:
        _bombs[filler, mb] = gzip.compress(filler * ((mb << 20) // len(filler)), 9)
    return _bombs[filler, mb], f"gzip bomb {filler!r} x {mb} MB"


def chained_model(rng, data):
    depth = rng.choice([3000, 20_000])
    body = ["minbpe v1", "", "0", "97 97"] + [f"{255 + i} 97" for i in range(1, depth)]
    return "\n".join(body).encode(), f"chained .model {depth}"


def model_pattern(rng, data):
    lines = data.split(b"\n")
    lines[1] = rng.choice(BAD_PATTERNS).encode()
    return b"\n".join(lines), "pattern"


def hf_mutation(rng, data):
    doc = json.loads(data)
    choice = rng.randrange(7)
    if choice == 0:
        doc["normalizer"] = {"type": "Sequence", "normalizers": [
            {"type": "Replace", "pattern": {"String": s}, "content": "a" * 1000}
            for s in ("", "a", "a")]}
    elif choice == 1:
        doc["pre_tokenizer"] = {"type": "Sequence", "pretokenizers": [
            {"type": "Split", "pattern": {"Regex": rng.choice(BAD_PATTERNS)},
             "behavior": "Isolated", "invert": False}]}
    elif choice == 2:
        doc["normalizer"] = {"type": "Replace", "pattern": {"Regex": r"(a|a)+$"}, "content": ""}
        doc.setdefault("added_tokens", []).append(
            {"id": 10_000, "content": "a" * 40 + "b", "single_word": False, "lstrip": False,
             "rstrip": False, "normalized": True, "special": False})
    elif choice == 3:
        nested = {}
        for _ in range(rng.choice([100, 10_000])):
            nested = {"type": "Sequence", "normalizers": [nested]}
        doc["normalizer"] = nested
    elif choice == 4:
        doc["model"]["vocab"] = {k: v * rng.choice([-1, 10 ** 9]) for k, v in
                                 doc["model"]["vocab"].items()}
    elif choice == 5:
        doc["model"]["merges"] = doc["model"]["merges"] * 3
    else:
        doc["normalizer"] = {"type": "NFKC"}
    try:
        return json.dumps(doc).encode(), f"hf[{choice}]"
    except RecursionError:  # the fuzzer's own json cannot write it: send the text by hand
        depth = 10_000
        return (b'{"normalizer": ' + b'{"type": "Sequence", "normalizers": [' * depth
                + b"{}" + b"]}" * depth + b"}"), "hf deep"


def counts_mutation(rng, data):
    first = data.index(b"\n") + 1
    second = data.index(b"\n", first) + 1
    header = json.loads(data[first:second])
    key = rng.choice(["chunks", "head", "tail_bytes", "body_bytes"])
    header[key] = rng.choice([-1, 3_000_000_000, header[key] + 1])
    return data[:first] + json.dumps(header).encode() + b"\n" + data[second:], f"counts {key}"


MUTATIONS = {
    "model": [lines_mutation, chained_model, model_pattern],
    "ranks": [lines_mutation, doubling_ranks],
    "ranks_gz": [gzip_bomb, lambda rng, d: (gzip.compress(lines_mutation(rng, gzip.decompress(d))[0]),
                                            "lines in gzip")],
    "hf": [hf_mutation],
    "counts": [counts_mutation, lines_mutation],
}


# --------------------------------------------------------------------- attempts
def _child(kind, name, data, memory_mb, cpu_s, conn):
    resource.setrlimit(resource.RLIMIT_AS, (memory_mb << 20, memory_mb << 20))
    resource.setrlimit(resource.RLIMIT_CPU, (cpu_s, cpu_s + 1))
    try:
        if kind == "counts":
            from bpe.counting.counts_file import read_counts
            with tempfile.NamedTemporaryFile(suffix=".counts") as f:
                f.write(data)
                f.flush()
                read_counts(f.name)
        else:
            from bpe import load_bytes
            tok = load_bytes(data, name, pattern="gpt4")
            tok.decode(tok.encode(PROBE, disallowed_special=()))
        conn.send(("loaded", ""))
    except (ValueError, TypeError) as e:
        conn.send(("refused", " ".join(str(e).split())[:120]))
    except BaseException as e:  # noqa: BLE001 — what the fuzzer is looking for
        conn.send(("FAILED", f"{type(e).__name__}: {' '.join(str(e).split())[:120]}"))


def attempt(kind, name, data, memory_mb, cpu_s):
    """(outcome, detail) of loading data in a capped child process."""
    ctx = multiprocessing.get_context("fork")
    ours, theirs = ctx.Pipe(duplex=False)
    child = ctx.Process(target=_child, args=(kind, name, data, memory_mb, cpu_s, theirs))
    child.start()
    theirs.close()
    child.join(cpu_s * 4 + 30)
    if child.is_alive():
        child.kill()
        child.join()
        return "FAILED", "still running at the wall-clock bound"
    try:
        return ours.recv()
    except EOFError:  # it died before it could say anything
        return "FAILED", f"the process died (exit {child.exitcode}: CPU or memory cap)"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--n", type=int, default=300, help="attempts (default 300)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--kinds", nargs="+", choices=sorted(MUTATIONS), default=sorted(MUTATIONS))
    parser.add_argument("--memory-mb", type=int, default=1024, help="address-space cap per attempt")
    parser.add_argument("--cpu-s", type=int, default=10, help="CPU-time cap per attempt")
    args = parser.parse_args(argv)
    rng = random.Random(args.seed)
    files = valid_files()
    tally, failures = {}, []
    started = time.monotonic()
    for i in range(args.n):
        kind = args.kinds[i % len(args.kinds)]
        name, data = files[kind]
        mutate = rng.choice(MUTATIONS[kind])
        data, what = mutate(rng, data)
        if rng.random() < 0.3 and kind in ("model", "ranks", "hf"):
            data, more = lines_mutation(rng, data)
            what += " + " + more
        outcome, detail = attempt(kind, name, data, args.memory_mb, args.cpu_s)
        tally[kind, outcome] = tally.get((kind, outcome), 0) + 1
        if outcome == "FAILED":
            failures.append((kind, what, detail))
    print(f"{args.n} attempts in {time.monotonic() - started:.0f} s (seed {args.seed})\n")
    print("| kind | loaded | refused | failed |\n|---|---|---|---|")
    for kind in args.kinds:
        print(f"| {kind} | {tally.get((kind, 'loaded'), 0)} | {tally.get((kind, 'refused'), 0)} "
              f"| {tally.get((kind, 'FAILED'), 0)} |")
    if failures:
        print("\nFailures:")
        for kind, what, detail in failures:
            print(f"- {kind}, {what}: {detail}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
