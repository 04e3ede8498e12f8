"""Encode speed of an HFTokenizer with added tokens: this tree against another checkout
(the baseline, e.g. main) in the same run, on tinyshakespeare.

    .venv/bin/python bench/hf_added.py ../other-checkout

Each round runs both trees in fresh processes, in turn, and prints per-tree medians and
the ratio this/baseline. The file: a ByteLevel BPE trained by `tokenizers` on
taylorswift.txt (vocab 2,000) with plain special tokens (the baseline refuses flags);
the flagged file (<mask> lstrip, <sep> rstrip, a single_word token) is timed in this
tree only.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CORPORA = os.environ.get("BPE_CORPORA", os.path.join(HERE, "..", "shared", "corpora"))
ROUNDS = 3

CHILD = r"""
import json, sys, time
from bpe import load_bytes
doc, path = sys.argv[1], sys.argv[2]
text = open(path, encoding="utf-8").read()
tok = load_bytes(open(doc, "rb").read(), "tokenizer.json")
out = {}
for policy in ("all", "none_raise"):
    t = time.perf_counter()
    try:
        tok.encode(text, allowed_special=policy)
    except ValueError:
        pass  # the text holds a special token: the check itself is what is timed
    out[policy] = time.perf_counter() - t
print(json.dumps(out))
"""


def make_files(tmp):
    from tokenizers import AddedToken, Tokenizer, decoders, models, pre_tokenizers, trainers
    hf = Tokenizer(models.BPE())
    hf.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    hf.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(vocab_size=2000, show_progress=False,
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet())
    with open(os.path.join(CORPORA, "taylorswift.txt"), encoding="utf-8") as f:
        hf.train_from_iterator([f.read()], trainer)
    hf.add_special_tokens([AddedToken("<s>"), AddedToken("</s>")])
    plain = hf.to_str()
    hf.add_special_tokens([AddedToken("<mask>", lstrip=True), AddedToken("<sep>", rstrip=True),
                           AddedToken("thee", single_word=True)])
    paths = {}
    for name, doc in (("plain", plain), ("flags", hf.to_str())):
        paths[name] = os.path.join(tmp, f"{name}.json")
        with open(paths[name], "w", encoding="utf-8") as f:
            f.write(doc)
    return paths


def run(root, doc, text_path):
    env = {**os.environ, "PYTHONPATH": root}
    out = subprocess.run([sys.executable, "-c", CHILD, doc, text_path], env=env,
                         capture_output=True, text=True, check=True).stdout
    return json.loads(out)


def main(argv=None):
    import tempfile
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("baseline", help="another checkout to compare with, e.g. ../other-checkout")
    parser.add_argument("--corpora", default=CORPORA, help="the folder of tinyshakespeare.txt")
    args = parser.parse_args(argv)
    baseline = args.baseline
    text_path = os.path.join(args.corpora, "tinyshakespeare.txt")
    with tempfile.TemporaryDirectory() as tmp:
        paths = make_files(tmp)
        times = {("this", "plain"): [], ("baseline", "plain"): [], ("this", "flags"): []}
        for _ in range(ROUNDS):
            times["this", "plain"].append(run(HERE, paths["plain"], text_path))
            times["baseline", "plain"].append(run(baseline, paths["plain"], text_path))
            times["this", "flags"].append(run(HERE, paths["flags"], text_path))
        with open(paths["flags"], "rb") as f:
            from tokenizers import Tokenizer
            hf = Tokenizer.from_str(f.read().decode())
        with open(text_path, encoding="utf-8") as f:
            text = f.read()
        t = time.perf_counter()
        hf.encode(text, add_special_tokens=False)
        rust = time.perf_counter() - t
    for policy in ("all", "none_raise"):
        med = {key: statistics.median(r[policy] for r in runs) for key, runs in times.items()}
        ratio = med["this", "plain"] / med["baseline", "plain"]
        print(f"allowed_special={policy!r}: this {med['this', 'plain']:.2f} s, baseline "
              f"{med['baseline', 'plain']:.2f} s, ratio {ratio:.2f}; "
              f"flagged file {med['this', 'flags']:.2f} s")
    print(f"tokenizers (Rust) on the flagged file, allowed all: {rust:.2f} s")


if __name__ == "__main__":
    main()
