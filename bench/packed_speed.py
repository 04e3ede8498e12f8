"""The price of packed tables in encode and decode CPU (issue 32, eleventh round): a cold
encode (each time a fresh load of the file, so its chunk cache is empty) and a decode of
tinyshakespeare's ids, for a minbpe .model of 4,096 merges trained on the corpus, the same
merges as GPT-2's encoder.json + vocab.bpe pair, and Mistral's v1 SentencePiece .model (as
installed with mistral_common). CPU seconds (time.process_time), best of 3 for encodes and
5 for decodes, and a hash of the ids so two checkouts can be seen to agree.

    .venv/bin/python bench/packed_speed.py                        # this checkout
    .venv/bin/python bench/packed_speed.py --checkout /work/base  # another, side by side

Run the two A B B A on a quiet machine. It measures; it asserts nothing.
"""
import argparse
import hashlib
import json
import os
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CORPUS = os.path.join(ROOT, "..", "shared", "corpora", "tinyshakespeare.txt")
SITE = os.path.join(ROOT, ".venv", "lib", f"python{sys.version_info[0]}.{sys.version_info[1]}",
                    "site-packages")
MERGES = 4096


def files(text):
    """{kind: {file name: bytes}}, made with this checkout's code (the formats are stable)."""
    sys.path.insert(0, ROOT)
    from bpe import RegexTokenizer
    from bpe.formats import gpt2
    tok = RegexTokenizer().train(text[:400_000], 256 + MERGES)
    vocab = dict(tok.vocab)
    encoder, merges = gpt2.gpt2_pair_text(vocab, [(vocab[a], vocab[b]) for a, b in tok.merges])
    made = {"minbpe .model": {"m.model": tok.model_text().encode()},
            "GPT-2 pair": {"encoder.json": encoder.encode(), "vocab.bpe": merges.encode()}}
    mistral = os.path.join(SITE, "mistral_common", "data", "tokenizer.model.v1")
    if os.path.exists(mistral):
        with open(mistral, "rb") as f:
            made["SentencePiece .model"] = {"mistral.model": f.read()}
    return made


def best(fn, rounds):
    times, result = [], None
    for _ in range(rounds):
        cpu = time.process_time()
        result = fn()
        times.append(time.process_time() - cpu)
    return min(times), result


def measure(checkout, made, text):
    sys.path.insert(0, checkout)
    from bpe.loading import load_files
    rows = {}
    for kind, given in made.items():
        given = {name: data.encode("latin-1") for name, data in given.items()}
        encode_s, ids = best(lambda: load_files(given).encode_ordinary(text), 3)
        tok = load_files(given)
        decode_s, _ = best(lambda: tok.decode(ids), 5)
        digest = hashlib.sha256(json.dumps(ids).encode()).hexdigest()[:12]
        rows[kind] = {"ids": len(ids), "cold_encode_s": round(encode_s, 3),
                      "decode_s": round(decode_s, 4), "ids_sha256": digest}
    return rows


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--checkout", default=ROOT)
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    with open(CORPUS, encoding="utf-8") as f:
        text = f.read()
    if args.child:  # the files arrive on stdin, made by this checkout's code
        made = json.loads(sys.stdin.read())
        print(json.dumps(measure(os.path.abspath(args.checkout), made, text)))
        return
    made = {kind: {name: data.decode("latin-1") for name, data in given.items()}
            for kind, given in files(text).items()}
    out = subprocess.run([sys.executable, __file__, "--child", "--checkout", args.checkout],
                         input=json.dumps(made), capture_output=True, text=True, check=True)
    name = os.path.basename(os.path.abspath(args.checkout).rstrip("/"))
    print("| checkout | file | ids | cold encode | decode | ids sha256 |")
    print("|---|---|---:|---:|---:|---|")
    for kind, row in json.loads(out.stdout).items():
        print(f"| {name} | {kind} | {row['ids']:,} | {row['cold_encode_s']} s | "
              f"{row['decode_s']} s | {row['ids_sha256']} |")


if __name__ == "__main__":
    main()
