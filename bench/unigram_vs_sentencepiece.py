"""Our Unigram LM (bpe.methods.unigram) beside sentencepiece's Unigram trainer, and the
three trainers of bpe.methods that must cost at most 3x our BPE.

    .venv/bin/python bench/unigram_vs_sentencepiece.py --vocab 2000
    .venv/bin/python bench/unigram_vs_sentencepiece.py --corpus taylorswift.txt --vocab 1000
    .venv/bin/python bench/unigram_vs_sentencepiece.py --corpus arena --vocab 800 --no-cost

Compression: both train on the first --train-fraction of the corpus's lines (each line a
sentence: sentencepiece's unit) at one vocab size (both count <unk>, <s>, </s> and the 256
byte pieces in it) and encode the held-out lines; sentencepiece runs with byte_fallback,
identity normalization and its spaces kept, so both see the same text. Cost: CPU seconds of
each training against bpe.RegexTokenizer().train on the same text, run A B B A
(bench/results/methods_hf.md has the numbers).
"""
import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from bpe import RegexTokenizer  # noqa: E402
from bpe.methods import hf_bpe, unigram, wordpiece  # noqa: E402

try:
    import sentencepiece as spm
except ImportError:  # optional: the comparison needs it
    sys.exit("this benchmark needs sentencepiece: pip install sentencepiece")

CORPORA = Path(os.environ.get("BPE_CORPORA", ROOT.parent / "shared" / "corpora"))
ARENA = ROOT / "samples" / "arena"


def corpus_text(name):
    """A file in the corpora, or "arena": the samples/arena/*.txt end to end, by name."""
    if name == "arena":
        return "\n".join(path.read_text(encoding="utf-8") for path in sorted(ARENA.glob("*.txt")))
    return (CORPORA / name).read_text(encoding="utf-8")


def cpu(fn, *args, **kwargs):
    start = time.process_time()
    out = fn(*args, **kwargs)
    return out, time.process_time() - start


def sentencepiece_unigram(lines, vocab_size):
    with tempfile.TemporaryDirectory() as tmp:
        prefix = os.path.join(tmp, "sp")
        spm.SentencePieceTrainer.train(
            sentence_iterator=iter(lines), model_prefix=prefix, model_type="unigram",
            vocab_size=vocab_size, byte_fallback=True, normalization_rule_name="identity",
            remove_extra_whitespaces=False, minloglevel=2, num_threads=1)
        return spm.SentencePieceProcessor(model_file=prefix + ".model")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", default="tinyshakespeare.txt",
                        help='a file in the corpora, or "arena" (samples/arena/*.txt)')
    parser.add_argument("--vocab", type=int, default=2000)
    parser.add_argument("--train-fraction", type=float, default=0.9)
    parser.add_argument("--no-cost", action="store_true", help="skip the A B B A timings")
    parser.add_argument("--rounds", type=int, default=1,
                        help="repeat the A B B A timings this many times (a loaded machine)")
    args = parser.parse_args(argv)
    lines = [line for line in corpus_text(args.corpus).splitlines() if line.strip()]
    cut = int(len(lines) * args.train_fraction)
    train, held_out = lines[:cut], lines[cut:]
    sp, sp_s = cpu(sentencepiece_unigram, train, args.vocab)
    ours, ours_s = cpu(unigram.train, train, args.vocab, special_tokens=["<s>", "</s>"])
    assert sp.get_piece_size() == len(ours.vocab) == args.vocab, (sp.get_piece_size(), len(ours.vocab))
    sp_tokens = sum(len(sp.encode(line)) for line in held_out)
    our_tokens = sum(len(ours.encode(line)) for line in held_out)
    assert all(ours.decode(ours.encode(line)) == line for line in held_out)
    print(f"{args.corpus}: {len(train)} training lines, {len(held_out)} held out "
          f"({sum(map(len, held_out))} chars), vocab {args.vocab}")
    print(f"  sentencepiece unigram: {sp_tokens} tokens  ({sp_s:.2f} s CPU, C++)")
    print(f"  ours:                  {our_tokens} tokens  ({ours_s:.2f} s CPU)  "
          f"{100 * (our_tokens / sp_tokens - 1):+.2f}% vs sentencepiece")
    if args.no_cost:
        return
    text = "\n".join(train)
    docs = text.split("\n\n") if "\n\n" in text else train
    runs = {"bpe": lambda: RegexTokenizer().train(text, args.vocab),
            "unigram": lambda: unigram.train(train, args.vocab),
            "hf-bpe": lambda: hf_bpe.train(docs, max(args.vocab, 257)),
            "wordpiece": lambda: wordpiece.train(docs, args.vocab)}
    seconds = {name: [] for name in runs}
    for name in ["bpe", "unigram", "hf-bpe", "wordpiece", "wordpiece", "hf-bpe", "unigram",
                 "bpe"] * args.rounds:
        seconds[name].append(cpu(runs[name])[1])
    base = sum(seconds["bpe"])
    load = os.getloadavg()[0]
    print(f"training cost, CPU s (A B B A, load {load:.1f}): "
          + ", ".join(f"{name} {sum(s) / len(s):.2f} s ({sum(s) / base:.2f}x bpe)"
                      for name, s in seconds.items()))


if __name__ == "__main__":
    main()
