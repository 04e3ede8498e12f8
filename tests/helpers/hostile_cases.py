"""Every hostile attempt on the core and the CLI (issue 16), and one runner for them.

Each attempt runs in a fresh Python process with a CPU-time bound, an address-space cap
and a generous wall-clock guard, so a bomb that works today ends as a measured failure (a
hang, a MemoryError) instead of taking the machine with it. An attempt is judged by the
CPU time its process tree used, never by wall time: on a busy machine (load 10-20) wall
time stretches several times while CPU time does not. The wall guard (HANG_FACTOR times the
bound, at least HANG_MIN_S) only ends what waits without computing (a blocked open, a
socket nobody answers). tests/bpe/test_hostile_attempts.py asserts each one;
bench/hostile.py counts them into the issue's table.

An attempt passes when it ends in the expected outcome within its bounds: for "error",
a ValueError/TypeError (core) or one `bpe: error: ...` line and a non-zero exit (CLI)
whose message matches `match`; for "ok", the code's own assertions hold; for "either"
(a budget), one or the other.
"""
import contextlib
import json
import os
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from helpers.hostile_tools import capped, fill, mount_full, status_mb

ROOT = Path(__file__).resolve().parents[2]
CAP_BYTES = 1 << 30  # address-space cap per attempt: a bomb fails fast instead of swapping
HANG_FACTOR = 6     # the wall-clock guard: this many times an attempt's CPU bound ...
HANG_MIN_S = 60     # ... and at least this long, so load alone never ends an attempt
TICK_S = 1 / os.sysconf("SC_CLK_TCK")  # /proc/PID/stat counts CPU time in these


@dataclass
class Case:
    name: str
    what: str
    kind: str                 # "core" (code runs in a fresh process) or "cli"
    match: str = ""           # regex the error message must match (expect="error")
    expect: str = "error"     # "error", "ok", or "either" (a budget met either way: the work
                              # done within the bounds, or a clear error matching `match`)
    code: str = ""            # core: Python to run; `setup` helpers are in scope
    argv: tuple = ()          # cli: arguments after `python -m bpe`
    files: dict = field(default_factory=dict)  # cli: name -> bytes, in the working folder
    stdin: object = b""       # cli: bytes, or None for a closed standard input
    before: str = ""          # cli: Python run in the folder first (mount_full, fill, bpe)
    after: str = ""           # cli: Python run in the folder afterwards; must not raise
    seconds: float = 8.0      # CPU-time bound (user + system, the process and its children)
    mb: int = 300             # peak resident memory bound
    needs_mount: bool = False
    serve: object = None      # cli: a context manager factory yielding an address that
                              # lives during the attempt; "{addr}" in argv becomes it


@dataclass
class Outcome:
    case: Case
    status: str               # passed, failed, hang, traceback, skipped
    message: str = ""
    seconds: float = 0.0
    peak_mb: float = 0.0
    retained_mb: float = 0.0  # core: resident memory still held after the attempt
    cpu_s: float = 0.0        # CPU seconds (user + system) the attempt process used


# ------------------------------------------------------------------ the attempts
def model_text(*lines):
    return ("\n".join(("minbpe v1",) + lines) + "\n").encode("utf-8")


def hf_doc(**changes):
    """A small valid tokenizer.json with some keys replaced, as bytes."""
    from bpe import RegexTokenizer
    from bpe.formats.hf.tokenizer_json import hf_json
    doc = hf_json(RegexTokenizer().train("aaab " * 20, 258))
    return json.dumps({**doc, **changes}).encode("utf-8")


# core attempts are Python source run in a fresh process; these write the usual ones
def _regex(pattern, *then):
    """RegexTokenizer(pattern) as `tok`, then the lines in then."""
    return "\n".join(("from bpe import RegexTokenizer", f"tok = RegexTokenizer({pattern!r})")
                     + then)


def load_code(data, name="x.model", *then):
    """bpe.load_bytes(data, name) (a file a visitor hands over) as `tok`, then the lines in then."""
    return "\n".join(("from bpe import load_bytes", f"tok = load_bytes({data!r}, {name!r})")
                     + then)


def _roundtrip(text):
    """Lines asserting that tok gives text back."""
    return (f"text = {text!r}",
            "assert tok.decode(tok.encode_ordinary(text)) == text, tok.encode_ordinary(text)")


CHAINED = model_text("", "0", "97 97", *(f"{255 + i} 97" for i in range(1, 40_000)))
RANKS_OK = b"".join(b"%s %d\n" % (__import__("base64").b64encode(bytes([b])), b)
                    for b in range(256))
_BOMB = r"c{10000000}|[\s\S]"
SLOW_PATTERN = r"(?:a|a)+$|."
SLOW_TEXT = "a" * 40 + "b"
NL = b"\n"
TIME = r"(?i)took (longer|more) than|time ?out|timed out|too long|seconds"
SLOW_BOUND = 12.0  # a pattern's limit is 1 s of CPU time; start-up and the rest are CPU too
BIG = r"(?i)repeat|too (large|big|long)|budget|limit|exceed"
TWICE = r"(?i)both|already|same id|twice|collid"
DIGITS = r"(?i)ascii|digit"
HUGE_ID = r"(?i)large|range|limit"


def _slow(name, what, kind="core", **how):
    """An attempt that must be stopped by the pattern's CPU-time limit."""
    return Case(name, what, kind, TIME, seconds=SLOW_BOUND, **how)


def _encode(name, what, match, model, data, **how):
    """A CLI attempt: `python -m bpe encode --model MODEL`, the file holding data."""
    return Case(name, what, "cli", match, argv=("encode", "--model", model),
                files={model: data}, **how)


CASES = [
    # -- split patterns, straight into the core
    Case("pattern-bomb", "RegexTokenizer('c{10000000}|[\\s\\S]')", "core", BIG,
         code=_regex(_BOMB)),
    Case("pattern-bomb-a", "RegexTokenizer('a{10000000}')", "core", BIG,
         code=_regex("a{10000000}")),
    Case("pattern-slow-compile", "RegexTokenizer('a{1000000000}') (ran past 60 s)", "core",
         BIG, code=_regex("a{1000000000}")),
    Case("pattern-nested-repeat", "(?:(?:a{100}){100}){100}: 10^6 by nesting", "core", BIG,
         code=_regex("(?:(?:a{100}){100}){100}")),
    Case("pattern-compile-module", "bpe.compile_pattern on the bomb", "core", BIG,
         code=f"from bpe import compile_pattern\ncompile_pattern({_BOMB!r})"),
    _slow("pattern-backtracking", "encode 40×a+b with (?:a|a)+$|. (100% CPU forever)",
          code=_regex(SLOW_PATTERN, f"tok.encode_ordinary({SLOW_TEXT!r})")),
    _slow("pattern-backtracking-thread", "the same on a worker thread (Streamlit's)", code=f"""
import threading
from bpe import RegexTokenizer
box = {{}}
def run():
    try:
        RegexTokenizer({SLOW_PATTERN!r}).encode_ordinary({SLOW_TEXT!r})
    except Exception as e:
        box['e'] = e
t = threading.Thread(target=run, daemon=True); t.start(); t.join(50)  # a hang guard only
assert not t.is_alive(), 'the thread is still matching'
if 'e' in box: raise box['e']
"""),
    _slow("pattern-backtracking-train", "train on 40×a+b with (?:a|a)+$|.",
          code=_regex(SLOW_PATTERN, f"tok.train({SLOW_TEXT!r}, 257)")),
    Case("pattern-capture-groups", "(\\w+)|(\\W+) encodes (AttributeError today)", "core",
         expect="ok", code=_regex(r"(\w+)|(\W+)", "tok.train('hi you, hi me ' * 5, 260)",
                                  *_roundtrip("hi you!"))),
    Case("pattern-capture-core", "RegexTokenizer(r'(a|a)+$|.').encode('aab')", "core",
         expect="ok", code=_regex(r"(a|a)+$|.", *_roundtrip("aab"))),
    Case("pattern-backreference", "(a)\\1|. is refused (exponential matching)", "core",
         r"(?i)backreference|reference", code=_regex(r"(a)\1|.")),
    Case("pattern-huge", "a 1 MB pattern", "core", r"(?i)long|limit|characters",
         code="from bpe import RegexTokenizer\nRegexTokenizer('a|' * 500_000 + '.')"),
    # -- .model files
    Case("model-pattern-bomb", ".model whose line 2 is the bomb", "core", BIG,
         code=load_code(model_text(_BOMB, "0"))),
    _slow("model-slow-pattern", ".model with (?:a|a)+$|., encode 40×a+b",
          code=load_code(model_text(SLOW_PATTERN, "0", "97 97"), "x.model",
                     f"tok.encode_ordinary({SLOW_TEXT!r})")),
    Case("model-capture-groups", ".model with (\\w+)|(\\W+) encodes", "core", expect="ok",
         code=load_code(model_text(r"(\w+)|(\W+)", "0", "97 97"), "x.model", *_roundtrip("aa b"))),
    Case("model-chained", "40k-line chained .model (token i = token i-1 + 'a'; +1.5 GB)",
         "core", r"(?i)bytes|long|limit|memory", mb=200, code=load_code(CHAINED)),
    Case("model-duplicate-merge", "a merge line twice (drops id 256 today)", "core",
         r"(?i)twice|once|duplicate|again", code=load_code(model_text("", "0", "97 97", "97 97"))),
    Case("model-arabic-digits", "merge ids in Arabic-Indic digits", "core", DIGITS,
         code=load_code(model_text("", "0", "٩٧ ٩٧"))),
    Case("model-arabic-special", "special-token id in Arabic-Indic digits", "core", DIGITS,
         code=load_code(model_text("", "1", "<s> ٣٠٠"))),
    Case("model-special-collision", "two special tokens with id 300", "core", TWICE,
         code=load_code(model_text("", "2", "<a> 300", "<b> 300"))),
    Case("model-special-huge", "special-token id 10^30", "core", HUGE_ID,
         code=load_code(model_text("", "1", "<s> 1" + "0" * 30))),
    Case("special-collision", "register_special_tokens({'<a>': 300, '<b>': 300})", "core",
         TWICE, code="from bpe import BasicTokenizer\n"
                     "BasicTokenizer().register_special_tokens({'<a>': 300, '<b>': 300})"),
    # -- .tiktoken ranks
    Case("ranks-huge", ".tiktoken with a rank of 10^30", "core", HUGE_ID,
         code=load_code(RANKS_OK + b"YWE= 1" + b"0" * 30 + NL, "x.tiktoken")),
    Case("ranks-negative", ".tiktoken with a negative rank", "core",
         r"(?i)negative|ascii|digit|range", code=load_code(RANKS_OK + b"YWE= -5" + NL, "x.tiktoken")),
    Case("ranks-arabic", ".tiktoken rank in Arabic-Indic digits", "core",
         r"(?i)ascii|digit|expected .*rank",
         code=load_code(RANKS_OK + "YWE= ٣٠٠".encode() + NL, "x.tiktoken")),
    # -- tokenizer.json shapes
    Case("hf-pre-tokenizer-list", '"pre_tokenizer": [1]', "core", r"(?i)pre.?tokenizer|expected",
         code=load_code(hf_doc(pre_tokenizer=[1]), "t.json")),
    Case("hf-split-string", 'Split "pattern": "x"', "core", r"(?i)pattern|regex|expected",
         code=load_code(hf_doc(pre_tokenizer={"type": "Split", "pattern": "x"}), "t.json")),
    Case("hf-added-tokens-int", '"added_tokens": 5', "core", r"(?i)added.?tokens|expected|list",
         code=load_code(hf_doc(added_tokens=5), "t.json")),
    Case("hf-nested", "100,000 nested '['", "core", r"(?i)nest|deep|json",
         code=load_code(b"[" * 100_000, "t.json")),
    Case("hf-split-bomb", "tokenizer.json whose Split regex is the bomb", "core", BIG,
         code=load_code(hf_doc(pre_tokenizer={"type": "Split", "behavior": "Isolated",
                                           "pattern": {"Regex": _BOMB}}), "t.json")),
    Case("hf-special-collision", "added_tokens with one id twice", "core", TWICE,
         code=load_code(hf_doc(added_tokens=[{"id": 300, "content": "<a>"},
                                           {"id": 300, "content": "<b>"}]), "t.json")),
    # -- saving
    Case("save-empty-prefix", "save('') (writes a hidden ./.model today)", "core",
         r"(?i)name|prefix|empty",
         code="import os\nfrom bpe import BasicTokenizer\nBasicTokenizer().save('')"),
    Case("save-full-disk", "save on a full disk keeps the old files and names the file",
         "core", r"(?i)full/m\.model|full/m\.vocab", needs_mount=True, code="""
import os
from bpe import BasicTokenizer, load
mount_full('full')
old = BasicTokenizer().train('hello world ' * 50, 260)
old.save('full/m')
fill('full')
new = BasicTokenizer().train(" ".join(map(str, range(5000))), 600)
try:
    new.save('full/m')
finally:
    # whatever happened, the old pair must still load and agree
    assert load('full/m.model').merges == old.merges, 'the old .model was lost'
    assert open('full/m.vocab').read() == old.vocab_text(), 'the .vocab no longer matches'
"""),
    # -- the command line
    _encode("cli-stdin-closed", "encode with standard input closed (<&-)",
            r"(?i)standard input|stdin", "m.model", model_text("", "0"), stdin=None),
    Case("cli-empty-output", "train -o '' (writes ./.model today)", "cli",
         r"(?i)name|prefix|empty", argv=("train", "c.txt", "--vocab-size", "260", "-o", ""),
         files={"c.txt": b"hello world " * 50},
         after="assert not os.path.exists('.model'), 'wrote a hidden .model'"),
    Case("cli-pattern-bomb", "train --pattern 'c{10000000}|[\\s\\S]'", "cli", BIG,
         argv=("train", "c.txt", "--vocab-size", "260", "--pattern", _BOMB, "-o", "m"),
         files={"c.txt": b"hello world " * 50}),
    _encode("cli-slow-model", "encode 40×a+b with a backtracking .model", TIME, "m.model",
            model_text(SLOW_PATTERN, "0"), stdin=SLOW_TEXT.encode(), seconds=SLOW_BOUND),
    _encode("cli-hf-pre-tokenizer", "encode --model with \"pre_tokenizer\": [1]",
            r"(?i)pre.?tokenizer|expected", "t.json", hf_doc(pre_tokenizer=[1])),
    _encode("cli-hf-nested", "encode --model with 100,000 nested '['", r"(?i)nest|deep|json",
            "t.json", b"[" * 100_000),
    _encode("cli-hf-added-tokens", "encode --model with \"added_tokens\": 5",
            r"(?i)added.?tokens|expected|list", "t.json", hf_doc(added_tokens=5)),
    Case("cli-full-disk", "train -o on a full disk: the message names the file", "cli",
         r"full/m\.(model|vocab).*No space left", needs_mount=True,
         argv=("train", "c.txt", "--kind", "basic", "--vocab-size", "600", "-o", "full/m"),
         files={"c.txt": " ".join(map(str, range(5000))).encode()},
         before="mount_full('full')\nfrom bpe import BasicTokenizer\n"
                "BasicTokenizer().train('hello world ' * 50, 260).save('full/m')\nfill('full')",
         after="from bpe import BasicTokenizer, load\n"
               "assert load('full/m.model').merges == "
               "BasicTokenizer().train('hello world ' * 50, 260).merges, 'the old .model was lost'"),
]


# ------------------------------------------------------------------ the runner
_PRELUDE = r'''
import gc, json, traceback
from helpers.hostile_tools import fill, mount_full, rss_mb
import bpe  # imported before the baseline, so its own memory does not count as retained
gc.collect()
before = rss_mb()
try:
    with open(".attempt.py", encoding="utf-8") as f:
        attempt = f.read()
    exec(compile(attempt, "<attempt>", "exec"), {"mount_full": mount_full, "fill": fill})
    result = {"raised": None, "message": ""}
except BaseException as e:
    # a clean end: the error a caller is told to expect, with a message for people
    clean = isinstance(e, (ValueError, TypeError, OSError, AssertionError)) or (
        # tiktoken's meaning, kept on purpose: decode of an unknown id is a KeyError that
        # names the id and the range (README, "Which error each API follows")
        isinstance(e, KeyError) and str(e).startswith("'unknown token id "))
    result = {"raised": type(e).__name__, "message": str(e)[:400], "clean": clean,
              "assertion": isinstance(e, AssertionError)}
    if not clean:
        result["traceback"] = traceback.format_exc(limit=-3)[-600:]
e = None
gc.collect()
result["retained_mb"] = max(0.0, rss_mb() - before)
print("HOSTILE-RESULT " + json.dumps(result))
'''


def cpu_s(pid):
    """CPU seconds (user + system) a live process has used, with its reaped children's;
    0 if it is gone."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return sum(map(int, fields[11:15])) * TICK_S  # utime stime cutime cstime


def _run_process(cmd, cwd, env, stdin, seconds):
    """(returncode or None if stopped, stdout, stderr, wall s, peak MB, CPU s) of cmd: it is
    stopped once it has used `seconds` of CPU time (a loop), or after the wall guard
    (something that waits: a blocked read, a socket nobody answers)."""
    out, err = (open(os.path.join(cwd, f".{n}"), "w+b") for n in ("out", "err"))
    stdin_file = None
    if stdin:
        stdin_file = open(os.path.join(cwd, ".in"), "w+b")
        stdin_file.write(stdin)
        stdin_file.seek(0)
    start = time.monotonic()
    proc = subprocess.Popen(cmd, cwd=cwd, env=env, stdout=out, stderr=err,
                            stdin=stdin_file if stdin is not None else None,
                            preexec_fn=capped(CAP_BYTES, stdin is None))
    status = rusage = None
    guard = max(HANG_MIN_S, HANG_FACTOR * seconds)
    # subtle: the peak is the child's VmHWM, polled: ru_maxrss would carry over the RSS
    # of the forking parent (a long pytest run's 200+ MB) across exec
    peak = 0.0
    while time.monotonic() - start < guard and cpu_s(proc.pid) <= seconds:
        peak = max(peak, status_mb("VmHWM", proc.pid))
        pid, status, rusage = os.wait4(proc.pid, os.WNOHANG)
        if pid:
            break
        time.sleep(0.02)
    else:
        proc.kill()
        _, _, rusage = os.wait4(proc.pid, 0)
        status = None
    proc.returncode = 0  # reaped by wait4; keep Popen from waiting again
    elapsed = time.monotonic() - start
    out.seek(0), err.seek(0)
    stdout, stderr = out.read().decode("utf-8", "replace"), err.read().decode("utf-8", "replace")
    for f in (out, err, stdin_file):
        if f:
            f.close()
    code = None if status is None else os.waitstatus_to_exitcode(status)
    return (code, stdout, stderr, elapsed, peak or rusage.ru_maxrss / 1024,
            rusage.ru_utime + rusage.ru_stime)


def run_case(case):
    """Run one attempt in a fresh process in a fresh folder; an Outcome."""
    import re
    if case.needs_mount and os.geteuid() != 0:
        return Outcome(case, "skipped", "needs root to mount a small tmpfs")
    with tempfile.TemporaryDirectory(prefix="hostile-") as cwd:
        # the attempt process imports tests/helpers/hostile_tools.py too
        env = {**os.environ, "PYTHONPATH": os.pathsep.join((str(ROOT), str(ROOT / "tests")))}
        Path(cwd, ".attempt.py").write_text(case.code, encoding="utf-8")
        for name, data in case.files.items():
            Path(cwd, name).write_bytes(data)
        try:
            if case.before:
                _in_folder(cwd, case.before)
            if case.kind == "core":
                code, out, err, secs, peak, cpu = _run_process(
                    [sys.executable, "-c", _PRELUDE], cwd, env, b"", case.seconds)
            else:
                with case.serve() if case.serve else contextlib.nullcontext("") as addr:
                    argv = [a.replace("{addr}", addr) for a in case.argv]
                    code, out, err, secs, peak, cpu = _run_process(
                        [sys.executable, "-m", "bpe", *argv], cwd, env, case.stdin, case.seconds)
            outcome = _judge(case, code, out, err, secs, peak, cpu, re)
            if outcome.status == "passed" and case.after:
                try:
                    _in_folder(cwd, case.after)
                except AssertionError as e:
                    outcome.status, outcome.message = "failed", f"afterwards: {e}"
            return outcome
        finally:
            full = os.path.join(cwd, "full")
            if os.path.ismount(full):
                subprocess.run(["umount", "-l", full], check=False)


def _in_folder(cwd, code):
    here = os.getcwd()
    os.chdir(cwd)
    try:
        exec(code, {"os": os, "mount_full": mount_full, "fill": fill})
    finally:
        os.chdir(here)


def _judge(case, code, out, err, secs, peak, cpu, re):
    o = Outcome(case, "failed", seconds=secs, peak_mb=peak, cpu_s=cpu)
    if code is None:
        o.status, o.message = "hang", (
            f"stopped at {case.seconds:g} s of CPU, still running" if cpu > case.seconds else
            f"stopped by the {secs:.0f} s wall guard, still waiting ({cpu:.1f} s of CPU)")
        return o
    if case.kind == "core":
        line = next((ln for ln in out.splitlines() if ln.startswith("HOSTILE-RESULT ")), None)
        if line is None:
            o.status, o.message = "traceback", (err or out).strip()[-300:] or f"exit {code}"
            return o
        result = json.loads(line.split(" ", 1)[1])
        o.retained_mb = result["retained_mb"]
        raised, o.message = result["raised"], result["message"]
        if raised and not result["clean"]:
            o.status, o.message = "traceback", f"{raised}: {o.message}"[:300]
            return o
        if result.get("assertion"):
            o.message = "assertion failed: " + o.message
            return o
        ok = (raised is None) if case.expect == "ok" else bool(
            raised and re.search(case.match, o.message)) or (
            case.expect == "either" and raised is None)
        if raised is None and case.expect == "error":
            o.message = "accepted without an error"
    else:
        if "Traceback" in err:
            o.status, o.message = "traceback", err.strip()[-300:]
            return o
        o.message = err.strip()
        ok = (code == 0) if case.expect == "ok" else bool(
            code != 0 and err.startswith("bpe: error: ") and re.search(case.match, err)
            and len(err.strip().splitlines()) == 1) or (case.expect == "either" and code == 0)
        if code == 0 and case.expect == "error":
            o.message = "accepted without an error: " + o.message
    if ok and peak > case.mb:
        o.message = f"peak {peak:.0f} MB > {case.mb} MB; " + o.message
        ok = False
    if ok and cpu > case.seconds:
        o.message = f"CPU {cpu:.1f} s > {case.seconds:g} s; " + o.message
        ok = False
    o.status = "passed" if ok else "failed"
    return o
