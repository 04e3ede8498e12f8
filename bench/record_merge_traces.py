"""Record (done, elapsed, count) merge-rate traces of real bpe trainings on the shared
corpora, as fixtures for the ETA tests (tests/test_training.py). Run from the checkout:
.venv/bin/python bench/record_merge_traces.py (about 30 s)."""
import json, sys
sys.path.insert(0, ".")
from bpe import BasicTokenizer, RegexTokenizer
runs = [("tinyshakespeare.txt", "regex", 30000), ("tinyshakespeare.txt", "basic", 8192),
        ("taylorswift.txt", "basic", 20000), ("tinyshakespeare.txt", "basic", 4096)]
for corpus, kind, vocab in runs:
    text = open(f"../shared/corpora/{corpus}", encoding="utf-8").read()
    points = []
    def cb(p):
        if not points or p.elapsed - points[-1][1] >= 0.01 or p.done == p.total:
            points.append((p.done, round(p.elapsed, 4), p.count))
    tok = (RegexTokenizer("gpt4") if kind == "regex" else BasicTokenizer())
    tok.train(text, vocab, progress=cb)
    if points[-1][0] != len(tok.merges):
        points.append((len(tok.merges), points[-1][1], points[-1][2]))
    name = f"tests/fixtures/merge_trace_{corpus.split('.')[0]}_{kind}_{vocab}.json"
    json.dump({"corpus": corpus, "kind": kind, "vocab_size": vocab, "total": vocab - 256,
               "merges": len(tok.merges), "stop_reason": tok.stop_reason,
               "points": points}, open(name, "w"))
    print(name, len(points), points[-1], tok.stop_reason, flush=True)
