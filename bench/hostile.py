"""Replay every hostile attempt of issue 16 and print the issue's table.

    .venv/bin/python bench/hostile.py            # core, CLI and app
    .venv/bin/python bench/hostile.py --no-app   # core and CLI only

Core and CLI attempts come from tests/hostile_cases.py (each in a fresh capped process).
App attempts drive `streamlit run app.py` on 127.0.0.1 in headless Chromium, one fresh
session each; the browser's own request log counts fetches the page was tricked into,
and the server's resident memory is read before and after each attempt.

Columns: tried, passed, hangs (still running at the bound), tracebacks (an exception
that is not a clear ValueError/`bpe: error:` line, or Streamlit's exception box),
injected renders (visitor text rendered as Markdown/HTML or a fetch it caused), and
bytes retained (core: the attempt process's resident memory after gc, minus before;
app: the server's, after the tab closed).
"""
import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT / "tests"), str(ROOT)]

from helpers.app import CHROMIUM, CHROMIUM_ARGS, streamlit_server  # noqa: E402
from helpers.hostile_app import go as _go  # noqa: E402
from helpers.hostile_app import paste_live  # noqa: E402
from helpers.hostile_app import pick as _pick  # noqa: E402
from helpers.hostile_app import settle as _settle  # noqa: E402
from helpers.hostile_app import type_text as _type  # noqa: E402
from helpers.hostile_app import upload as _upload  # noqa: E402
from helpers.hostile_cases import CASES, _hf_doc, _model, run_case  # noqa: E402
from helpers.hostile_round2 import CASES2  # noqa: E402 (issue 24's families)
from helpers.hostile_tools import rss_mb  # noqa: E402

MARK = "hostile-probe"
SERVER_CAP = 6 << 30  # the server's address space: a bomb that works stops here
RETAINED_MB = 50      # more than this still held after the tab closed: not passed
QUIET_MS = 3000       # after an attempt settles, the page must send nothing this long
INJECT = f"**b** ![i]({MARK}-img) [l]({MARK}-link)"


# ------------------------------------------------------------------ app attempts
APP = [
    ("app-upload-name", "sidebar upload named like Markdown with an image",
     lambda tab: _upload(tab, f"{INJECT}.model", _model("", "0", "97 97"))),
    ("app-upload-pattern-bomb", "sidebar upload: .model whose pattern is c{10000000}|[\\s\\S]",
     lambda tab: _upload(tab, "bomb.model", _model(r"c{10000000}|[\s\S]", "0"))),
    ("app-upload-chained", "sidebar upload: chained .model, 20k lines",
     lambda tab: _upload(tab, "chain.model", _model("", "0", "97 97", *(
         f"{255 + i} 97" for i in range(1, 20_000))))),
    ("app-upload-hf-shape", "sidebar upload: tokenizer.json with \"pre_tokenizer\": [1]",
     lambda tab: _upload(tab, "t.json", _hf_doc(pre_tokenizer=[1]))),
    ("app-upload-special-name", "sidebar upload: special token named like Markdown",
     lambda tab: _upload(tab, "s.model", _model("", "1", f"{INJECT} 300"))),
    ("app-capture-tokenize", ".model with (\\w+)|(\\W+), then Tokenize",
     lambda tab: (_upload(tab, "capture.model", _model(r"(\w+)|(\W+)", "0", "97 97")),
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
    # last: it used to rerun every second for good (the box resent, each run encoded anew)
    ("app-slow-tokenize", ".model with (?:a|a)+$|., 40×a+b on Tokenize",
     lambda tab: (_upload(tab, "slow.model", _model(r"(?:a|a)+$|.", "0", "97 97")),
                  _settle(tab), _pick(tab, "slow"), paste_live(tab, "a" * 40 + "b"))),
]


def run_app(only=(), width=1400):
    from playwright.sync_api import sync_playwright
    rows = []
    with (streamlit_server(ROOT / "app.py", cap_bytes=SERVER_CAP) as (url, server),
          sync_playwright() as p):
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        for name, what, attack in APP:
            if only and name not in only:
                continue
            context = browser.new_context(viewport={"width": width, "height": 1000})
            tab = context.new_page()
            fetched, sent = [], []
            tab.on("request", lambda r: fetched.append(r.url) if MARK in r.url else None)
            tab.on("websocket", lambda ws: ws.on("framesent", lambda f: sent.append(f)))
            tab.goto(url)
            _settle(tab, 60_000)
            before = rss_mb(server.pid)
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
            shot = ROOT / "screenshots" / f"hostile_{name}.png"
            shot.parent.mkdir(exist_ok=True)
            tab.screenshot(path=str(shot))
            injected = tab.evaluate(f"""() => [...document.querySelectorAll('strong, img, a')]
                .filter(e => (e.innerText || '').trim() === 'b' && e.tagName === 'STRONG'
                    || (e.src || e.href || '').includes('{MARK}')).length""") + len(fetched)
            tracebacks = tab.locator('[data-testid="stException"]').count()
            errors = tab.locator('[data-testid="stAlertContentError"]').all_inner_texts()
            if tracebacks:
                status = "traceback"
                message = tab.locator('[data-testid="stException"]').first.inner_text()[:160]
            elif not done:
                status, message = "hang", message or "the page was still running after 40 s"
            elif loud:
                status, message = "hang", (f"the page kept rerunning: {loud} messages to the "
                                           f"server in the {QUIET_MS / 1000:g} s after it settled")
            elif injected:
                status, message = "injected", f"{injected} injected elements or fetches"
            elif rss_mb(server.pid) - before > RETAINED_MB:
                status, message = "retained", message or "the server kept the memory"
            elif errors:
                message = errors[0][:160]
            context.close()
            time.sleep(2)
            retained = max(0.0, rss_mb(server.pid) - before)
            rows.append(dict(name=name, what=what, kind="app", status=status, message=message,
                             seconds=seconds, retained_mb=retained, injected=injected))
            print(f"  {name:28} {status:9} {seconds:5.1f} s  +{retained:,.0f} MB  {message[:90]}",
                  file=sys.stderr, flush=True)
        browser.close()
    return rows


def run_core_cli(only=()):
    rows = []
    for case in CASES + CASES2:
        if only and case.name not in only:
            continue
        o = run_case(case)
        rows.append(dict(name=case.name, what=case.what, kind=case.kind, status=o.status,
                         message=o.message, seconds=o.seconds, retained_mb=o.retained_mb,
                         injected=0, peak_mb=o.peak_mb))
        print(f"  {case.name:28} {o.status:9} {o.seconds:5.1f} s  peak {o.peak_mb:,.0f} MB  "
              f"{o.message[:90]!r}", file=sys.stderr, flush=True)
    return rows


def table(rows):
    lines = ["| where | tried | passed | hangs | tracebacks | injected renders | bytes retained |",
             "|---|---:|---:|---:|---:|---:|---:|"]
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
            f"{sum(r['retained_mb'] for r in part):,.0f} MB |")
    return "\n".join(lines)


def details(rows):
    lines = ["| attempt | where | result | s | retained MB | message |", "|---|---|---|---:|---:|---|"]
    for r in rows:
        message = r["message"].replace("|", "\\|").replace("\n", " ")[:110]
        lines.append(f"| {r['name']} | {r['kind']} | {r['status']} | {r['seconds']:.1f} | "
                     f"{r['retained_mb']:,.0f} | {message} |")
    return "\n".join(lines)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--no-app", action="store_true", help="core and CLI attempts only")
    parser.add_argument("--only", nargs="*", default=(), metavar="NAME",
                        help="run only these attempts (app-… for the app)")
    args = parser.parse_args()
    rows = []
    if not args.only or any(not n.startswith("app-") for n in args.only):
        print("core and CLI attempts:", file=sys.stderr)
        rows += run_core_cli(args.only)
    if not args.no_app and (not args.only or any(n.startswith("app-") for n in args.only)):
        print("app attempts:", file=sys.stderr)
        rows += run_app(args.only)
    print(table(rows))
    print()
    print(details(rows))


if __name__ == "__main__":
    main()
