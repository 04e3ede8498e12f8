"""Replay every hostile attempt of issues 16, 24 and 32 and print the issue's tables.

    .venv/bin/python bench/hostile.py            # core, CLI and app
    .venv/bin/python bench/hostile.py --no-app   # core and CLI only
    .venv/bin/python bench/hostile.py --cli-only # the command line's attempts only
    .venv/bin/python bench/hostile.py --app-only --app-checkout main   # main's app

Core and CLI attempts come from tests/helpers/hostile_cases.py, hostile_round2.py and
hostile_round3.py, each in a fresh capped process, judged by its CPU time (a wall clock only
guards against waits) (the `--scheduler` ones with their server living during the
attempt only). App attempts drive `streamlit run app.py` on 127.0.0.1 in headless
Chromium, one fresh session each; among them every issue-32 tokenizer file of
tests/helpers/hostile_parts.py (normalizers, decoders, a post-processor template,
charsmaps, a Unigram lattice, WordPiece, SentencePiece controls) uploaded with its text
pasted on Tokenize, a view row of 200,000 combining marks, and 100,000 HTML-shaped pieces
on Vocabulary. The browser's own request log counts fetches the page
was tricked into. During each app attempt a thread asks /_stcore/health every 0.1 s and
samples the server's process tree's memory. Once the tab is closed, the server (started
with a 2 s disconnected-session TTL) drops its session and its memory is read until it
holds still.

Columns: tried, passed, hangs (still running at the bound), tracebacks (an exception
that is not a clear ValueError/`bpe: error:` line, Streamlit's exception box, or
lab.guard's "stopped on an unexpected error"),
injected renders (visitor text rendered as Markdown/HTML or a fetch it caused), bytes
retained, and goals missed (issue 24: CPU ≤ 10 s, peak ≤ 512 MB over the server's
baseline, ≤ 50 MB left behind, health p95 ≤ 1 s). Per attempt:
- CPU s: the attempt process's CPU, or the app server's process tree's CPU from the
  attack until the page has been quiet for 3 s.
- peak MB: the server's tree over its baseline (app), or the process's own peak.
- left-behind MB: the server's memory once the session is dropped, minus before (app),
  or the attempt process's resident memory after gc, minus before.
- health p95.
"""
import argparse
import os
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT / "tests"), str(ROOT), str(ROOT / "bench")]

from helpers.app import CHROMIUM, CHROMIUM_ARGS, streamlit_server  # noqa: E402
from helpers.hostile_app import go as _go  # noqa: E402
from helpers.hostile_app import paste_live  # noqa: E402
from helpers.hostile_app import pick as _pick  # noqa: E402
from helpers.hostile_app import settle as _settle  # noqa: E402
from helpers.hostile_app import type_text as _type  # noqa: E402
from helpers.hostile_app import upload as _upload  # noqa: E402
from helpers.hostile_cases import CASES, hf_doc, model_text, run_case  # noqa: E402
from helpers.hostile_round2 import CASES2, GZIP_ZEROS, REPLACE_BOMB, doubling_ranks  # noqa: E402
from helpers.hostile_parts import hostile_files, html_vocab  # noqa: E402
from helpers.hostile_round3 import CASES3, PRECOMPILED_BOMB, spm_model  # noqa: E402
from keystroke import checkout_dir  # noqa: E402
from load import tree_cpu_s, tree_pss_kib, tree_rss_kib  # noqa: E402

MARK = "hostile-probe"
SERVER_CAP = 6 << 30  # the server's address space: a bomb that works stops here
RETAINED_MB = 50      # more than this still held once the session is dropped: not passed
SESSION_TTL = 2       # the bench's server drops a closed tab's session after this (s)
SETTLE_S = 20         # at most this long for the server's memory to hold still after
HEALTH_EVERY = 0.1    # /_stcore/health asked this often during an attempt (s)
HEALTH_TIMEOUT = 10   # an unanswered health check counts this long
GOALS = dict(cpu_s=10, peak_mb=512, retained_mb=50, health_p95=1.0)  # issue 24's
QUIET_MS = 3000       # after an attempt settles, the page must send nothing this long
INJECT = f"**b** ![i]({MARK}-img) [l]({MARK}-link)"


# ------------------------------------------------------------------ app attempts
APP = [
    ("app-upload-name", "sidebar upload named like Markdown with an image",
     lambda tab: _upload(tab, f"{INJECT}.model", model_text("", "0", "97 97"))),
    ("app-upload-pattern-bomb", "sidebar upload: .model whose pattern is c{10000000}|[\\s\\S]",
     lambda tab: _upload(tab, "bomb.model", model_text(r"c{10000000}|[\s\S]", "0"))),
    ("app-upload-chained", "sidebar upload: chained .model, 20k lines",
     lambda tab: _upload(tab, "chain.model", model_text("", "0", "97 97", *(
         f"{255 + i} 97" for i in range(1, 20_000))))),
    ("app-upload-hf-shape", "sidebar upload: tokenizer.json with \"pre_tokenizer\": [1]",
     lambda tab: _upload(tab, "t.json", hf_doc(pre_tokenizer=[1]))),
    ("app-upload-special-name", "sidebar upload: special token named like Markdown",
     lambda tab: _upload(tab, "s.model", model_text("", "1", f"{INJECT} 300"))),
    ("app-capture-tokenize", ".model with (\\w+)|(\\W+), then Tokenize",
     lambda tab: (_upload(tab, "capture.model", model_text(r"(\w+)|(\W+)", "0", "97 97")),
                  _settle(tab), _pick(tab, "capture"))),
    # not the upload's bomb: the regex module would answer that one from its cache
    ("app-chunks-bomb", "Regex chunks: pattern d{10000000}|[\\s\\S]",
     lambda tab: (_go(tab, "Regex chunks"), _settle(tab),
                  _type(tab, "Split pattern (a regex; edit it freely)", r"d{10000000}|[\s\S]"))),
    ("app-specials-defs", "Special tokens: a definition written as Markdown",
     lambda tab: (_go(tab, "Special tokens"), _settle(tab),
                  _type(tab, "Special tokens, one a line (an id after a space is optional)",
                        INJECT))),
    ("app-train-name", "Train: Name written as Markdown with an image",
     lambda tab: (_go(tab, "Train"), _settle(tab), _type(tab, "Name", INJECT),
                  tab.get_by_role("button", name="Train").first.click(),
                  _settle(tab, 120_000))),
    # issue 24's families in the app
    ("app-upload-gzip-zeros", "sidebar upload: .tiktoken.gz of 512 MB of zeros (3.3 GB and "
     "a MemoryError traceback before)",
     lambda tab: _upload(tab, "zeros.tiktoken.gz", GZIP_ZEROS)),
    ("app-upload-replace-bomb", "tokenizer.json: Replace('', a*1000) then Replace('a', a*1000) "
     "twice, then Tokenize (3.3 GB and a traceback before)",
     lambda tab: (_upload(tab, "bomb.json", hf_doc(normalizer=REPLACE_BOMB)), _settle(tab),
                  paste_live(tab, "hello world"))),
    ("app-upload-doubling-ranks", "sidebar upload: ranks doubling to 2^16 bytes, on Tokenize "
     "(never settled before: 241 s)",
     lambda tab: _upload(tab, "double.tiktoken", doubling_ranks(16))),
    ("app-merge-tree-superscript", "/merge_tree?token=² (a ValueError traceback before)",
     lambda tab: tab.goto(tab.url.split("?")[0].rstrip("/") + "/merge_tree?token=%C2%B2")),
    ("app-upload-45mb", "sidebar upload: 45 MB that is no tokenizer (is it all freed once "
     "the session is dropped?)",
     lambda tab: _upload(tab, "junk.model", b"minbpe v1\n" + b"x" * (45 << 20))),
    # issue 32's families in the app
    ("app-evaluate-markdown-name", "upload named like Markdown with an image, then Evaluate "
     "(its column help rendered the image before)",
     lambda tab: (_upload(tab, f"{INJECT}.model", model_text("", "0", "97 97")), _settle(tab),
                  _go(tab, "Evaluate"))),
    ("app-upload-precompiled-bomb", "tokenizer.json: Precompiled a -> b*100,000, then 30,000 "
     "a's on Tokenize (3 GB before)",
     lambda tab: (_upload(tab, "pre.json", hf_doc(normalizer=PRECOMPILED_BOMB)),
                  _settle(tab), paste_live(tab, "a" * 30_000))),
    ("app-upload-spm-unk-surface", "SentencePiece .model with an 8 MB unk_surface, then "
     "unknown text on Tokenize (1-2.8 GB a run before)",
     lambda tab: (_upload(tab, "unk.model", spm_model(unk_surface="U" * (8 << 20))),
                  _settle(tab), paste_live(tab, "zzz qqq " * 50))),
    ("app-decode-300k-ids", "Decode ids: 300,000 ids (+989 MB before)",
     lambda tab: (tab.get_by_text("Decode ids").first.click(),
                  _type(tab, "Token ids to decode with this tokenizer",
                        " ".join(["15339"] * 300_000)))),
    # the same kind of file, 100 pieces, first: the page's one-time growth on a first visit
    # (its modules, tables, arenas) measured apart, so the next attempt's peak is the big
    # file's own share (run both: --only app-vocabulary-html-100 app-vocabulary-html-pieces)
    ("app-vocabulary-html-100", "tokenizer.json of 100 HTML/Markdown-shaped pieces, then "
     "Vocabulary (a small file of the kind below: the page's first-visit cost)",
     lambda tab: (_upload(tab, "html100.json", html_vocab(100)), _settle(tab, 60_000),
                  _go(tab, "Vocabulary"))),
    ("app-vocabulary-html-pieces", "tokenizer.json of 100,000 HTML/Markdown-shaped pieces, "
     "then Vocabulary (12 s of CPU and +518 MB before)",
     lambda tab: (_upload(tab, "html.json", html_vocab()), _settle(tab, 60_000),
                  _go(tab, "Vocabulary"))),
    ("app-tokenize-combining-cluster", "Tokenize (GPT-4): one letter and 200,000 combining "
     "marks (not drawn within 20 s before)",
     lambda tab: paste_live(tab, "a" + "\u0301" * 200_000)),
    # every hostile tokenizer file of issue 32 (helpers.hostile_parts), uploaded, then its
    # text pasted on Tokenize: the file's own encoder and the owner library's parity badge
    *[(f"app-file-{family}", f"upload {file_name} ({family}), then {len(text):,} "
       "characters on Tokenize",
       lambda tab, data=data, file_name=file_name, text=text: (
           _upload(tab, file_name, data), _settle(tab, 60_000), paste_live(tab, text)))
      for family, (data, file_name, text, _) in hostile_files().items()
      if family != "precompiled-bomb"],  # app-upload-precompiled-bomb above is that one
    # last: it used to rerun every second for good (the box resent, each run encoded anew)
    ("app-slow-tokenize", ".model with (?:a|a)+$|., 40×a+b on Tokenize",
     lambda tab: (_upload(tab, "slow.model", model_text(r"(?:a|a)+$|.", "0", "97 97")),
                  _settle(tab), _pick(tab, "slow"), paste_live(tab, "a" * 40 + "b"))),
]


class Watch(threading.Thread):
    """During one attempt: the server's /_stcore/health asked every HEALTH_EVERY s (each
    answer's time; one that fails or times out counts the time it took), and the peak
    resident memory of the server's process tree (RSS, and PSS: a page shared with a forked
    worker counted once), sampled as often."""

    def __init__(self, url, pid):
        super().__init__(daemon=True)
        self.url, self.pid, self.answers, self.peak_kib, self.peak_pss_kib = url, pid, [], 0, 0
        self.stop = threading.Event()

    def run(self):
        while not self.stop.is_set():
            self.peak_kib = max(self.peak_kib, tree_rss_kib(self.pid))
            self.peak_pss_kib = max(self.peak_pss_kib, tree_pss_kib(self.pid))
            start = time.monotonic()
            try:
                urllib.request.urlopen(self.url + "/_stcore/health", timeout=HEALTH_TIMEOUT).read()
            except OSError:
                pass
            self.answers.append(time.monotonic() - start)
            self.stop.wait(HEALTH_EVERY)

    def finish(self):
        self.stop.set()
        self.join()
        return (p95(self.answers) if self.answers else float("nan"), self.peak_kib / 1024,
                self.peak_pss_kib / 1024)


def p95(values):
    return sorted(values)[max(0, round(0.95 * len(values)) - 1)]


def visit(browser, url, width):
    """A fresh session: a new browser context on the home page, settled."""
    context = browser.new_context(viewport={"width": width, "height": 1000})
    tab = context.new_page()
    tab.goto(url, timeout=120_000)
    _settle(tab, 60_000)
    return context, tab


def left_behind(browser, url, pid, width):
    """The server's memory once it has dropped the sessions closed so far, in MB: after the
    disconnected-session TTL, a probe visit's own disconnect makes Streamlit evict the
    expired ones (its storage only expires entries when one is saved); then the resident
    memory is read until it holds still (5 readings within 2 MB) or for SETTLE_S."""
    deadline = time.monotonic() + SESSION_TTL + 0.5
    while time.monotonic() < deadline:  # the server's own clock: nothing to poll
        time.sleep(0.1)
    context, _ = visit(browser, url, width)
    context.close()
    readings, deadline = [], time.monotonic() + SETTLE_S
    while time.monotonic() < deadline:
        readings = (readings + [tree_rss_kib(pid) / 1024])[-5:]
        if len(readings) == 5 and max(readings) - min(readings) <= 2:
            break
        time.sleep(0.3)
    return readings[-1]


def run_app(only=(), width=1400, checkout=ROOT, repeat=1):
    from playwright.sync_api import sync_playwright
    rows = []
    env = {"STREAMLIT_SERVER_DISCONNECTED_SESSION_TTL": str(SESSION_TTL)}
    with (streamlit_server(Path(checkout) / "app.py", cap_bytes=SERVER_CAP, env=env,
                           cwd=checkout) as (url, server),
          sync_playwright() as p):
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        visit(browser, url, width)[0].close()  # GPT-4 and the view's files built once
        for name, what, attack in [a for a in APP for _ in range(repeat)]:
            if only and name not in only:
                continue
            base = left_behind(browser, url, server.pid, width)  # no session of before
            base_pss = tree_pss_kib(server.pid) / 1024
            context, tab = visit(browser, url, width)
            fetched, sent = [], []
            tab.on("request", lambda r: fetched.append(r.url) if MARK in r.url else None)
            tab.on("websocket", lambda ws: ws.on("framesent", lambda f: sent.append(f)))
            watch = Watch(url, server.pid)
            cpu_before = tree_cpu_s(server.pid)
            watch.start()
            start = time.monotonic()
            status, message = "passed", ""
            try:
                attack(tab)
                done = _settle(tab, 40_000)
            except Exception as e:  # a widget never appeared: the page is stuck or broken
                done, message = False, f"{type(e).__name__}: {str(e).splitlines()[0][:120]}"
            seconds = time.monotonic() - start
            # settled for good? a rerun loop has quiet moments the settle can land on
            quiet_from = len(sent)
            tab.wait_for_timeout(QUIET_MS)
            loud = len(sent) - quiet_from
            cpu = tree_cpu_s(server.pid) - cpu_before
            health, peak, peak_pss = watch.finish()
            shot = ROOT / "screenshots" / f"hostile_{name}.png"
            shot.parent.mkdir(exist_ok=True)
            try:  # a tab whose renderer is stuck (200,000 combining marks) cannot be shot
                tab.screenshot(path=str(shot), timeout=10_000)
            except Exception as e:
                message = message or f"no screenshot: {type(e).__name__}"
            # the attribute as written, not as resolved: an in-page anchor (#stMain)
            # resolves against the page's URL, which holds the tokenizer's name
            injected = tab.evaluate(f"""() => [...document.querySelectorAll('strong, img, a')]
                .filter(e => (e.innerText || '').trim() === 'b' && e.tagName === 'STRONG'
                    || (e.getAttribute('src') || e.getAttribute('href') || '')
                        .includes('{MARK}')).length""") + len(fetched)
            tracebacks = tab.locator('[data-testid="stException"]').count()
            errors = tab.locator('[data-testid="stAlertContentError"]').all_inner_texts()
            if tracebacks:
                errors = [tab.locator('[data-testid="stException"]').first.inner_text()]
            context.close()
            left = max(0.0, left_behind(browser, url, server.pid, width) - base)
            # lab.guard's catch-all is a traceback the visitor does not see: a bug all the same
            guarded = [e for e in errors if "stopped on an unexpected error" in e]
            if tracebacks or guarded:
                status, message = "traceback", (guarded or errors)[0][:160]
            elif not done:
                status, message = "hang", message or "the page was still running after 40 s"
            elif loud:
                status, message = "hang", (f"the page kept rerunning: {loud} messages to the "
                                           f"server in the {QUIET_MS / 1000:g} s after it settled")
            elif injected:
                status, message = "injected", f"{injected} injected elements or fetches"
            elif left > RETAINED_MB:
                status, message = "retained", message or "the server kept the memory"
            elif errors:  # the icon's name comes first in the text: "error"
                message = " ".join(errors[0].split()).removeprefix("error ")[:160]
            rows.append(dict(name=name, what=what, kind="app", status=status, message=message,
                             seconds=seconds, retained_mb=left, injected=injected, cpu_s=cpu,
                             peak_mb=peak - base, peak_pss_mb=peak_pss - base_pss,
                             health_p95=health))
            print(f"  {name:28} {status:9} {seconds:5.1f} s  CPU {cpu:4.1f} s  peak "
                  f"+{peak - base:,.0f} MB (PSS +{peak_pss - base_pss:,.0f})  left +{left:,.0f} MB  health p95 {health:.2f} s  "
                  f"{message[:70]}", file=sys.stderr, flush=True)
        browser.close()
    return rows


def run_core_cli(only=(), kinds=("core", "cli")):
    rows = []
    for case in CASES + CASES2 + CASES3:
        if (only and case.name not in only) or case.kind not in kinds:
            continue
        o = run_case(case)
        rows.append(dict(name=case.name, what=case.what, kind=case.kind, status=o.status,
                         message=o.message, seconds=o.seconds, retained_mb=o.retained_mb,
                         injected=0, peak_mb=o.peak_mb, cpu_s=o.cpu_s, health_p95=None))
        print(f"  {case.name:28} {o.status:9} {o.seconds:5.1f} s  CPU {o.cpu_s:4.1f} s  "
              f"peak {o.peak_mb:,.0f} MB  {o.message[:80]!r}", file=sys.stderr, flush=True)
    return rows


def missed(row):
    """The issue's goals this attempt missed, as short phrases."""
    out = [f"{what} {row[key]:,.1f} > {GOALS[key]:g}" for key, what in (
        ("cpu_s", "CPU s"), ("retained_mb", "left MB"), ("health_p95", "health p95 s"))
        if row.get(key) is not None and row[key] > GOALS[key]]
    if row["kind"] == "app" and row["peak_mb"] > GOALS["peak_mb"]:
        out.append(f"peak +{row['peak_mb']:,.0f} MB > {GOALS['peak_mb']}")
    return out


def table(rows):
    lines = ["| where | tried | passed | hangs | tracebacks | injected renders | bytes retained "
             "| goals missed |", "|---|---:|---:|---:|---:|---:|---:|---:|"]
    for kind in ("core", "cli", "app", "all"):
        part = [r for r in rows if kind in (r["kind"], "all")]
        if not part:
            continue
        skipped = sum(r["status"] == "skipped" for r in part)
        lines.append(
            f"| {kind} | {len(part) - skipped} | {sum(r['status'] == 'passed' for r in part)} | "
            f"{sum(r['status'] == 'hang' for r in part)} | "
            f"{sum(r['status'] == 'traceback' for r in part)} | "
            f"{sum(r['injected'] > 0 for r in part)} | "
            f"{sum(r['retained_mb'] for r in part):,.0f} MB | "
            f"{sum(bool(missed(r)) for r in part)} |")
    return "\n".join(lines)


def details(rows):
    """One line per attempt. Peak: the app server's process tree over its resident memory
    before the attempt (and over its proportional memory, PSS); a core or CLI attempt's own
    process peak (no baseline)."""
    lines = ["| attempt | where | CPU s | peak MB | left-behind MB | health p95 | result | "
             "message |", "|---|---|---:|---:|---:|---:|---|---|"]
    for r in rows:
        message = r["message"].replace("|", "\\|").replace("\n", " ")[:100]
        peak = (f"+{r['peak_mb']:,.0f} (PSS +{r['peak_pss_mb']:,.0f})" if r["kind"] == "app"
                else f"{r['peak_mb']:,.0f}")
        health = "–" if r["health_p95"] is None else f"{r['health_p95']:.2f} s"
        result = "; ".join([r["status"], *missed(r)])
        lines.append(f"| {r['name']} | {r['kind']} | {r['cpu_s']:.1f} | {peak} | "
                     f"{r['retained_mb']:,.0f} | {health} | {result} | {message} |")
    return "\n".join(lines)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--no-app", action="store_true", help="core and CLI attempts only")
    parser.add_argument("--app-only", action="store_true", help="app attempts only")
    parser.add_argument("--cli-only", action="store_true",
                        help="the command line's attempts only (python -m bpe ...)")
    parser.add_argument("--only", nargs="*", default=(), metavar="NAME",
                        help="run only these attempts (app-… for the app)")
    parser.add_argument("--app-checkout", default=str(ROOT), metavar="DIR_OR_REV",
                        help="the app the app attempts drive: a checkout, or a git revision "
                             "of this repository (e.g. main), exported to a temporary folder")
    parser.add_argument("--repeat", type=int, default=1, metavar="N",
                        help="run each app attempt N times in a row (memory that grows with "
                             "each is kept; memory that stays is the allocator's)")
    args = parser.parse_args()
    rows = []
    load_start = os.getloadavg()[0]
    if not args.app_only and (not args.only or any(not n.startswith("app-") for n in args.only)):
        print("core and CLI attempts:", file=sys.stderr)
        rows += run_core_cli(args.only, ("cli",) if args.cli_only else ("core", "cli"))
    if not args.no_app and not args.cli_only and (not args.only or any(n.startswith("app-") for n in args.only)):
        print("app attempts:", file=sys.stderr)
        with tempfile.TemporaryDirectory() as scratch:
            rows += run_app(args.only, checkout=checkout_dir(args.app_checkout, scratch),
                            repeat=args.repeat)
    print(table(rows))
    print()
    print(details(rows))
    print(f"\nApp: {args.app_checkout}. Load average (1 min) at the start: {load_start:.1f}, at "
          f"the end: {os.getloadavg()[0]:.1f}, on {os.cpu_count()} cores.")


if __name__ == "__main__":
    main()
