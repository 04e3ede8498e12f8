"""Bytes per piece of a loaded tokenizer.json (issue 32: a visitor's 3.6 MB file of 100,000
HTML-shaped Unigram pieces), in a plain process: what the tokenizer keeps alive after
bpe.loading.load_hf_bytes, the load's peak of live objects (tracemalloc), the load's CPU,
the RSS, and decode's CPU on a 100,000-token text. Also WordPiece, BPE and byte-level
files of the same pieces (and the Unigram one with T5's Metaspace decoder), which must
not get worse.

    .venv/bin/python bench/piece_memory.py                 # all kinds, 100,000 pieces
    .venv/bin/python bench/piece_memory.py --kinds unigram --pieces 20000
    .venv/bin/python bench/piece_memory.py --checkout /work/main   # main's bpe, to compare

    .venv/bin/python bench/piece_memory.py --encode        # encode CPU, trained files
    .venv/bin/python bench/piece_memory.py --encode --checkout /work/main

--encode times encode (CPU, best of 3; cold: each time a freshly loaded tokenizer) of
tinyshakespeare's first --chars characters with a T5-like Unigram (8,000 pieces,
Metaspace), a BERT-like WordPiece (30,000), a Llama-2-like BPE (30,000: Metaspace, byte
fallback) and a GPT-2-like byte-level BPE (30,000) that
`tokenizers` trains on the whole corpus (kept in --files, so every checkout reads the same
files). Each kind runs in its own child process (so one's leftovers cannot count in another's
numbers). Prints one table row per kind. It measures; it asserts nothing (the counted
bounds are tests/bpe/test_hf_load_memory.py's)."""
import argparse
import json
import os
import re
import resource
import subprocess
import sys
import time
import tracemalloc

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# --checkout DIR measures another checkout's bpe (e.g. main, side by side): its path goes
# first, before the project is imported
_at = sys.argv.index("--checkout") + 1 if "--checkout" in sys.argv else None
CHECKOUT = os.path.abspath(sys.argv[_at]) if _at and _at < len(sys.argv) else ROOT
sys.path[:0] = [CHECKOUT, os.path.join(ROOT, "tests")]  # this checkout's file builders

from bpe import loading  # noqa: E402
from bpe.formats.hf.bytelevel import bytes_to_unicode  # noqa: E402
from helpers.hostile_parts import bpe_merges, html_vocab  # noqa: E402

CORPORA = "/work/shared/corpora"
KINDS = ("unigram", "metaspace", "wordpiece", "wordlevel", "bpe", "bytelevel", "bpe_merges",
         "bytelevel_merges")


def document(kind, n):
    """A tokenizer.json (bytes) of n pieces of the kind, the HTML-shaped pieces of
    html_vocab (unigram as it is; the others' vocabs made of the same strings); the *_merges
    kinds are BPE files of n merges as GPT-2's are shaped (hostile_parts.bpe_merges: a
    token and a merge line each, ~35 B a token)."""
    if kind.endswith("_merges"):
        return bpe_merges(n, byte_level=kind.startswith("bytelevel"))
    doc = json.loads(html_vocab(n))
    pieces = [p for p, _ in doc["model"]["vocab"]]
    if kind == "unigram":
        return json.dumps(doc).encode()
    if kind == "metaspace":  # the same, with T5's Metaspace pre-tokenizer and decoder
        metaspace = {"type": "Metaspace", "replacement": "\u2581", "prepend_scheme": "always",
                     "split": True}
        doc["pre_tokenizer"], doc["decoder"] = metaspace, dict(metaspace)
        return json.dumps(doc).encode()
    if kind == "wordpiece":
        doc["model"] = {"type": "WordPiece", "unk_token": "<unk>",
                        "continuing_subword_prefix": "##",
                        "max_input_chars_per_word": 100,
                        "vocab": {p: i for i, p in enumerate(pieces)}}
        doc["pre_tokenizer"] = {"type": "Whitespace"}
        return json.dumps(doc).encode()
    if kind == "wordlevel":
        doc["model"] = {"type": "WordLevel", "unk_token": "<unk>",
                        "vocab": {p: i for i, p in enumerate(pieces)}}
        doc["pre_tokenizer"] = {"type": "Whitespace"}
        return json.dumps(doc).encode()
    # BPE: every character of the pieces a token, no merges (the pieces are its vocab)
    chars = sorted({ch for p in pieces for ch in p} - set(pieces))
    vocab = {p: i for i, p in enumerate(pieces + chars)}
    if kind == "bpe":
        doc["model"] = {"type": "BPE", "unk_token": "<unk>", "vocab": vocab, "merges": []}
        return json.dumps(doc).encode()
    # byte-level: the 256 byte characters, then the pieces as byte-level strings
    chars = bytes_to_unicode()
    byte_chars = [chars[b] for b in range(256)]
    level = [p for p in ("".join(chars[b] for b in p.encode()) for p in pieces)
             if p not in set(byte_chars)]
    doc["model"] = {"type": "BPE", "vocab": {p: i for i, p in enumerate(byte_chars + level)},
                    "merges": []}
    doc["pre_tokenizer"] = {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True,
                            "use_regex": True}
    doc["decoder"] = {"type": "ByteLevel", "add_prefix_space": True, "trim_offsets": True,
                      "use_regex": True}
    return json.dumps(doc).encode()


def measure(kind, n):
    data = document(kind, n)
    cpu = time.process_time()
    loading.load_hf_bytes(data, f"{kind}.json")  # the load's CPU without tracemalloc's cost
    untraced = time.process_time() - cpu
    tracemalloc.start()
    start = tracemalloc.get_traced_memory()[0]
    cpu = time.process_time()
    tok = loading.load_hf_bytes(data, f"{kind}.json")
    cpu = time.process_time() - cpu
    live, peak = tracemalloc.get_traced_memory()
    tok.decode(range(min(1000, n)))  # what a first decode keeps (a decoder's token strings)
    used = tracemalloc.get_traced_memory()[0]
    tracemalloc.stop()
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    ids = [idx for idx in range(tok.n_vocab) if idx in tok.vocab][:n]
    ids = (ids * (100_000 // max(1, len(ids)) + 1))[:100_000]
    best = []
    for _ in range(3):
        t = time.process_time()
        tok.decode(ids)
        best.append(time.process_time() - t)
    t = time.process_time()
    tok.decode_tokens_bytes(ids)
    tokens_cpu = time.process_time() - t
    return {"kind": kind, "pieces": n, "file_bytes": len(data), "load_cpu_s": round(untraced, 3),
            "load_cpu_traced_s": round(cpu, 3),
            "live_B_per_piece": round((live - start) / n),
            "peak_B_per_piece": round((peak - start) / n),
            "live_after_a_decode_B_per_piece": round((used - start) / n),
            "maxrss_MB": round(rss / 2**20, 1), "decode_100k_cpu_ms": round(min(best) * 1000, 1),
            "decode_tokens_bytes_100k_cpu_ms": round(tokens_cpu * 1000, 1)}


ENCODE_KINDS = ("unigram_t5like", "wordpiece_bertlike", "bpe_llamalike", "bytelevel_gpt2like")


def trained(kind, folder):
    """The path of a tokenizer.json `tokenizers` trained on tinyshakespeare (made once)."""
    path = os.path.join(folder, f"{kind}.json")
    if os.path.exists(path):
        return path
    from tokenizers import Tokenizer, decoders, models, normalizers, pre_tokenizers, trainers
    with open(os.path.join(CORPORA, "tinyshakespeare.txt"), encoding="utf-8") as f:
        lines = f.read().splitlines()
    if kind == "unigram_t5like":
        tok = Tokenizer(models.Unigram())
        tok.normalizer = normalizers.NFKC()
        tok.pre_tokenizer = pre_tokenizers.Metaspace()
        trainer = trainers.UnigramTrainer(vocab_size=8000, special_tokens=["<unk>"],
                                          unk_token="<unk>", show_progress=False)
    elif kind == "bpe_llamalike":  # SentencePiece-style BPE: Metaspace, byte fallback
        tok = Tokenizer(models.BPE(unk_token="<unk>", byte_fallback=True, fuse_unk=True))
        tok.pre_tokenizer = pre_tokenizers.Metaspace()
        tok.decoder = decoders.Metaspace()
        trainer = trainers.BpeTrainer(
            vocab_size=30000, show_progress=False,
            special_tokens=["<unk>"] + [f"<0x{b:02X}>" for b in range(256)])
    elif kind == "bytelevel_gpt2like":
        tok = Tokenizer(models.BPE())
        tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
        tok.decoder = decoders.ByteLevel()
        trainer = trainers.BpeTrainer(vocab_size=30000, show_progress=False,
                                      initial_alphabet=pre_tokenizers.ByteLevel.alphabet())
    else:
        tok = Tokenizer(models.WordPiece(unk_token="[UNK]"))
        tok.normalizer = normalizers.BertNormalizer()
        tok.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
        trainer = trainers.WordPieceTrainer(vocab_size=30000, special_tokens=["[UNK]"],
                                            show_progress=False)
    tok.train_from_iterator(lines, trainer)
    os.makedirs(folder, exist_ok=True)
    tok.save(path)
    return path


def measure_encode(kind, folder, chars):
    with open(os.path.join(CORPORA, "tinyshakespeare.txt"), encoding="utf-8") as f:
        text = f.read()[:chars]
    with open(trained(kind, folder), "rb") as f:
        data = f.read()
    best, cold, ids = [], [], None
    for _ in range(3):  # cold: a freshly loaded tokenizer, its word cache empty
        tok = loading.load_hf_bytes(data, f"{kind}.json")
        t = time.process_time()
        ids = tok.encode(text)
        cold.append(time.process_time() - t)
    for _ in range(3):  # warm: the same tokenizer again, its words cached
        t = time.process_time()
        ids = tok.encode(text)
        best.append(time.process_time() - t)
    # the model alone on every distinct word (encode caches words, so its time is mostly
    # the pipeline's): the lookups this change touches
    words = sorted(set(re.findall(r"\w+|[^\w\s]", text)))
    if kind in ("unigram_t5like", "bpe_llamalike"):
        words = ["\u2581" + w for w in words]
    model = []
    for _ in range(3):
        t = time.process_time()
        for word in words:
            tok.model.tokens(word)
        model.append(time.process_time() - t)
    return {"kind": kind, "chars": chars, "tokens": len(ids), "pieces": len(tok.model.vocab),
            "cold_encode_cpu_s": round(min(cold), 3),
            "encode_cpu_s": round(min(best), 3), "distinct_words": len(words),
            "model_tokens_cpu_s": round(min(model), 3)}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--kinds", nargs="+", default=list(KINDS), choices=KINDS)
    parser.add_argument("--pieces", type=int, default=100_000)
    parser.add_argument("--checkout", default=ROOT, help="the checkout whose bpe is measured "
                        "(default: this one)")
    parser.add_argument("--encode", action="store_true", help="time encode on trained "
                        "Unigram and WordPiece files instead")
    parser.add_argument("--chars", type=int, default=2_000_000)
    parser.add_argument("--files", default="/tmp/piece_memory_files",
                        help="where --encode keeps its trained files")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        row = measure_encode(args.child, args.files, args.chars) if args.encode else \
            measure(args.child, args.pieces)
        print(json.dumps(row))
        return
    extra = ["--encode", "--chars", str(args.chars), "--files", args.files] if args.encode else []
    for kind in ENCODE_KINDS if args.encode else args.kinds:
        out = subprocess.run([sys.executable, __file__, "--child", kind, "--pieces",
                              str(args.pieces), "--checkout", args.checkout, *extra],
                             capture_output=True, text=True, check=False)
        if out.returncode:
            sys.exit(f"the {kind} child failed:\n{out.stderr}")
        row = json.loads(out.stdout)
        print(json.dumps({"checkout": os.path.basename(args.checkout.rstrip("/")), **row}),
              flush=True)


if __name__ == "__main__":
    main()
