"""A visitor's tiktoken ranks file (cl100k_base's, 1.68 MB, as installed with tiktoken) in
memory: what bpe keeps once it is loaded against what tiktoken itself keeps for the same
ranks (issue 32: "memory of the app per visitor file stays within a few times the file's
size"; the ranks dict is the encoder's lookup in both).

Each side runs in its own fresh process, its imports done first, and reports the growth of
the process's RSS over the load (MALLOC_ARENA_MAX=2, as `make run` serves the app):
- tiktoken: the ranks read as its load_tiktoken_bpe reads them (a dict bytes -> rank, kept
  by the Encoding), then tiktoken.Encoding over them with GPT-4's pattern (its Rust CoreBPE
  holds an encoder, a decoder and the sorted tokens beside that dict);
- bpe: bpe.load_bytes of the file's bytes, as the app loads an upload (a 256-token ranks file
  loaded first, so first-use tables are not counted).

    .venv/bin/python bench/ranks_owner_memory.py [--checkout DIR]
"""
import argparse
import base64
import gc
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
GPT4_PATTERN = (r"""'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}+|\p{N}{1,3}| ?[^\s\p{L}"""
                r"""\p{N}]++[\r\n]*|\s*[\r\n]|\s+(?!\S)|\s+""")


def rss():
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    return 0


def measure(side, checkout):
    sys.path.insert(0, checkout)
    import tiktoken

    import bpe
    from bpe.ranks_tokenizer import find_ranks_file
    with open(find_ranks_file(), "rb") as f:
        data = f.read()
    warm = b"".join(base64.b64encode(bytes([b])) + b" %d\n" % b for b in range(256))
    bpe.load_bytes(warm, "warm.tiktoken", pattern="gpt4")
    gc.collect()
    before = rss()
    if side == "tiktoken":
        ranks = {base64.b64decode(token): int(rank)
                 for token, rank in (line.split() for line in data.splitlines() if line)}
        kept = tiktoken.Encoding("cl100k-upload", pat_str=GPT4_PATTERN, mergeable_ranks=ranks,
                                 special_tokens={"<|endoftext|>": 100257})
        del ranks  # the Encoding keeps its own reference
    else:
        kept = bpe.load_bytes(data, "mine.tiktoken")
    gc.collect()
    grown = rss() - before
    assert kept is not None
    return len(data), grown


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--checkout", default=ROOT)
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        size, grown = measure(args.child, os.path.abspath(args.checkout))
        print(size, grown)
        return
    env = dict(os.environ, MALLOC_ARENA_MAX="2")
    print("| side | checkout | file | RSS grown | x file |")
    print("|---|---|---:|---:|---:|")
    for side in ("tiktoken", "bpe", "tiktoken", "bpe"):
        out = subprocess.run([sys.executable, __file__, "--child", side, "--checkout",
                              args.checkout], capture_output=True, text=True, env=env,
                             check=True).stdout.split()
        size, grown = int(out[0]), int(out[1])
        print(f"| {side} | {os.path.basename(args.checkout.rstrip('/'))} | "
              f"{size / 1e6:.2f} MB | {grown / 1e6:.1f} MB | {grown / size:.2f} x |", flush=True)


if __name__ == "__main__":
    main()
