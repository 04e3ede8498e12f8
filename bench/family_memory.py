"""Memory of a loaded visitor file, per kind of tokenizer file, as a multiple of the file's
size (issue 32: "memory of the app per visitor file stays within a few times the file's
size"): what the tokenizer keeps alive after `bpe.load_files` (live), the load's peak of
live Python objects (tracemalloc) and its CPU (best of 3, untraced), in a plain process,
one child process per file so one's leftovers cannot count in another's numbers.

The files: tokenizer.json of 100,000 merges (SentencePiece-style BPE, byte-level) and of
100,000 HTML-shaped pieces (Unigram, WordPiece) from tests/helpers/hostile_parts; GPT-2's
encoder.json + vocab.bpe pair of the same byte-level vocab; a minbpe .model of the same
merges; cl100k's .tiktoken ranks file and Mistral's v1 SentencePiece .model (as installed
from their packages); llama.cpp's Llama-3 and Command-R GGUF vocabularies (from the
llama-cpp-python sdist `make test` downloads), when present.

    .venv/bin/python bench/family_memory.py                  # this checkout
    .venv/bin/python bench/family_memory.py --checkout /work/base   # another, side by side

It measures; it asserts nothing (the counted bounds are tests/bpe/test_hf_load_memory.py's,
tests/bpe/test_ranks_vocab.py's and tests/viz/test_vocab_memory.py's). A sentencepiece
model is run by the sentencepiece library, whose C++ memory tracemalloc does not see.
"""
import argparse
import json
import os
import subprocess
import sys
import tarfile
import time
import tracemalloc

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
_at = sys.argv.index("--checkout") + 1 if "--checkout" in sys.argv else None
CHECKOUT = os.path.abspath(sys.argv[_at]) if _at and _at < len(sys.argv) else ROOT
sys.path[:0] = [CHECKOUT, os.path.join(ROOT, "tests")]  # this checkout's file builders

SITE = os.path.join(ROOT, ".venv", "lib", f"python{sys.version_info[0]}.{sys.version_info[1]}",
                    "site-packages")
SDIST = os.path.join(ROOT, ".venv", "sdists", "llama_cpp_python-0.3.36.tar.gz")
GGUF_MEMBERS = {"gguf llama-3": "ggml-vocab-llama-bpe.gguf",
                "gguf command-r": "ggml-vocab-command-r.gguf",
                "gguf llama-2 (SentencePiece-style)": "ggml-vocab-llama-spm.gguf",
                "gguf bert-bge (WordPiece)": "ggml-vocab-bert-bge.gguf",
                "gguf nomic-bert-moe (Unigram)": "ggml-vocab-nomic-bert-moe.gguf"}
N = 100_000


def _installed(*parts):
    path = os.path.join(SITE, *parts)
    return path if os.path.exists(path) else None


def _gguf(member):
    if not os.path.exists(SDIST):
        return None
    with tarfile.open(SDIST, "r|gz") as tar:
        for entry in tar:
            if entry.name.endswith("vendor/llama.cpp/models/" + member):
                return tar.extractfile(entry).read()
    return None


def files(kind):
    """{file name: bytes} of one kind, or None when its source is not installed."""
    from helpers import hostile_parts as parts
    if kind == "tokenizer.json BPE":
        return {"bpe.json": parts.bpe_merges(N)}
    if kind == "tokenizer.json byte-level":
        return {"bytelevel.json": parts.bpe_merges(N, byte_level=True)}
    if kind == "tokenizer.json Unigram":
        return {"unigram.json": parts.html_vocab(N)}
    if kind == "tokenizer.json WordPiece":
        return {"wordpiece.json": parts.html_wordpiece(N)}
    if kind in ("GPT-2 encoder.json + vocab.bpe", "minbpe .model"):
        model = json.loads(parts.bpe_merges(N, byte_level=True))["model"]
        if kind == "minbpe .model":  # the same merges in minbpe's layout: bytes 0-255 first
            from bpe import RegexTokenizer
            from bpe.formats.hf.bytelevel import bytes_to_unicode
            byte_of = {ch: b for b, ch in bytes_to_unicode().items()}
            ids = {token: bytes(byte_of[ch] for ch in token) for token in model["vocab"]}
            idx_of = {bytes([b]): b for b in range(256)}
            merges = {}
            for line in model["merges"]:
                left, right = (ids[part] for part in line.split(" "))
                idx_of[left + right] = merges[(idx_of[left], idx_of[right])] = 256 + len(merges)
            tok = RegexTokenizer.from_merges(merges)
            return {"mine.model": tok.model_text().encode("utf-8")}
        return {"encoder.json": json.dumps(model["vocab"], ensure_ascii=False).encode(),
                "vocab.bpe": ("#version: 0.2\n" + "\n".join(model["merges"]) + "\n").encode()}
    if kind == "tiktoken ranks (cl100k)":
        path = _installed("tiktoken_ext", "data", "cl100k_base.tiktoken")
    elif kind == "SentencePiece .model (Mistral v1)":
        path = _installed("mistral_common", "data", "tokenizer.model.v1")
    else:
        data = _gguf(GGUF_MEMBERS[kind])
        return None if data is None else {GGUF_MEMBERS[kind]: data}
    if path is None:
        return None
    with open(path, "rb") as f:
        return {"mine" + os.path.splitext(path)[1]: f.read()}


KINDS = ("tokenizer.json BPE", "tokenizer.json byte-level", "tokenizer.json Unigram",
         "tokenizer.json WordPiece", "GPT-2 encoder.json + vocab.bpe", "minbpe .model",
         "tiktoken ranks (cl100k)", "SentencePiece .model (Mistral v1)", *GGUF_MEMBERS)


def measure(kind):
    from bpe.loading import load_files
    given = files(kind)
    if given is None:
        return {"kind": kind, "skipped": "not installed"}
    size = sum(map(len, given.values()))
    load_files(given)  # imports and first-use tables out of the count
    times = []
    for _ in range(3):  # the load's CPU, best of 3, untraced
        cpu = time.process_time()
        load_files(given)
        times.append(time.process_time() - cpu)
    cpu = min(times)
    tracemalloc.start()
    start = tracemalloc.get_traced_memory()[0]
    tok = load_files(given)
    live, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return {"kind": kind, "class": type(tok).__name__, "file_MB": round(size / 1e6, 2),
            "live_x_file": round((live - start) / size, 2),
            "peak_x_file": round((peak - start) / size, 2), "load_cpu_s": round(cpu, 2)}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--checkout", default=ROOT)
    parser.add_argument("--kinds", nargs="+", default=list(KINDS), choices=KINDS)
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(measure(args.child)))
        return
    name = os.path.basename(args.checkout.rstrip("/"))
    print("| checkout | kind | class | file | live / file | peak / file | load CPU |")
    print("|---|---|---|---:|---:|---:|---:|")
    for kind in args.kinds:
        out = subprocess.run([sys.executable, __file__, "--child", kind, "--checkout",
                              args.checkout], capture_output=True, text=True, check=False)
        if out.returncode:
            print(f"| {name} | {kind} | failed: {out.stderr.strip().splitlines()[-1][:80]} |||||")
            continue
        row = json.loads(out.stdout)
        if "skipped" in row:
            print(f"| {name} | {kind} | {row['skipped']} |||||", flush=True)
            continue
        print(f"| {name} | {kind} | {row['class']} | {row['file_MB']} MB | "
              f"{row['live_x_file']} x | {row['peak_x_file']} x | {row['load_cpu_s']} s |",
              flush=True)


if __name__ == "__main__":
    main()
