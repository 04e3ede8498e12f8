"""The browser's encoder (lab/token_view/encoder.js) against Python, in Chromium.

Each preset's JavaScript split pattern (lab/token_view/browser_vocab.py) must cut exactly as the
`regex` module cuts with the Python pattern: on every code point (0..0x10FFFF but the
surrogates, each in one CONTEXT string) and on 20,000 fuzz strings; and the ids of the whole
encoder must be Python's (the references' own ranks) on the corpora and fuzz.
No Streamlit here: a blank page that serves lab/token_view/ as files.

Why CONTEXT is enough: the browser's patterns spell every class out as code point ranges,
and a wrong range puts a code point in the wrong class. bench/split_contexts.py flips one
code point's membership of one class of one preset's pattern, for a code point of every
kind (each ASCII one, astral or not, and each combination that occurs of letter, number,
whitespace, the letter categories and the contraction letters' case-insensitive classes):
7,395 mutants. The 13-times-c context used before caught 4,500 of them; CONTEXT, found by
dropping what lost none, catches the same 4,500 with c 5 times in 29 characters instead of
13 in 44. Each c sits after a letter and before an upper-case one (a letter run, o200k's
case rules), between digits (numbers and their runs of three), after an apostrophe
(contractions) and before one, after two spaces (the whitespace lookahead) and after an
apostrophe before a tab. Structure (possessives, $, lookaheads) is the fuzz test's part.
"""
import random

import pytest
import regex
from helpers.app import (
    CORPORA,
    LYING_ENCODER_JS,
    ROOT,
    drawn_ids,
    until,
    view_engine,
)

from bpe.reference import load_reference
from lab.token_view import browser_vocab

ASSETS = ROOT / "lab" / "token_view"
BASE = "http://lab.test/"
PRESETS = {"gpt2": "r50k_base", "gpt4": "cl100k_base", "gpt4o": "o200k_base",
           "llama3": "llama3", "tekken": "tekken"}
# the context each code point c is tried in (Python and the browser build the same string):
# it catches every one-class mistake the older "{c}a{c}A{c}b {c} 1{c}2'{c}'s\n{c}\r\n{c}
# \n{c}{c}  {c}x'{c}\t{c}" caught (the module's docstring; bench/split_contexts.py)
CONTEXT = "a{c}Ab1{c}2'{c}'s\n  {c}x'{c}\t"
BATCH = 65536


@pytest.fixture(scope="module")
def tab(browser):
    context = browser.new_context()
    page = context.new_page()

    def serve(route):
        name = route.request.url[len(BASE):]
        path = ASSETS / name
        if name == "blank.html":
            route.fulfill(body="<!doctype html><meta charset=utf-8><title>t</title>",
                          content_type="text/html")
        elif path.is_file():
            route.fulfill(body=path.read_bytes(), content_type=(
                "text/javascript" if name.endswith(".js") else "application/octet-stream"))
        else:
            route.fulfill(status=404, body="")
    page.route(BASE + "**", serve)
    page.goto(BASE + "blank.html")
    yield page
    context.close()


def _load(tab, name):
    tok = load_reference(name)
    spec = browser_vocab.browser_spec(tok)
    assert "why" not in spec, spec
    tab.evaluate("""async ([spec, key]) => {
        const m = await import('/encoder.js');
        window.encoders = window.encoders || {};
        window.encoders[key] = await m.loadEncoder('http://lab.test/vocab/', spec);
    }""", [spec, name])
    return tok


# a split as a signature: one character per chunk (48 + its length in UTF-16 units), "|"
# after each text (the fuzz and its messages)
JS_SIGNATURE = """([key, texts]) => {
    const enc = window.encoders[key];
    let out = "";
    for (const t of texts) {
        for (const c of enc.split(t)) out += String.fromCharCode(48 + c.length);
        out += "|";
    }
    return out;
}"""
# the first code point in [start, end) (but the surrogates) whose chunks in CONTEXT are not,
# in number and length in code points, expected[its kind] (kinds: a character per code
# point, its kind + 32), as [code point, the browser's lengths]; null when there is none.
# Compared here: the lengths of 1.1M splits never cross to Python.
JS_CODE_POINTS = """([key, context, start, end, kinds, expected]) => {
    const enc = window.encoders[key];
    let i = 0;
    for (let cp = start; cp < end; cp++) {
        if (cp >= 0xd800 && cp <= 0xdfff) continue;
        const want = expected[kinds.charCodeAt(i++) - 32];
        const chunks = enc.split(context.replaceAll("{c}", String.fromCodePoint(cp)));
        let same = chunks.length === want.length;
        for (let j = 0; same && j < chunks.length; j++) {
            let n = chunks[j].length;
            if (cp > 0xffff) { n = 0; for (const _ of chunks[j]) n++; }
            same = n === want[j];
        }
        if (!same) return [cp, chunks.map((c) => [...c].length)];
    }
    return null;
}"""


def _py_signature(tok, texts):
    findall = tok.compiled_pattern.findall
    return "".join("".join(chr(48 + len(c.encode("utf-16-le")) // 2) for c in findall(t)) + "|"
                   for t in texts)


def _surrogates_before(cp):
    """How many surrogates come before cp: its index in browser_vocab.all_code_points()."""
    return min(max(cp - 0xD800, 0), 0x800)


# what `regex` is asked of each code point (code_point_kinds): the classes the presets'
# patterns are made of (browser_vocab spells out the same ones as ranges)
QUESTIONS = ([rf"\p{{{p}}}" for p in browser_vocab.PROPERTIES] + [r"\s"]
             + [f"(?i:{x})" for x in "abcdefghijklmnopqrstuvwxyz"])


@pytest.fixture(scope="module")
def code_point_kinds():
    r"""(the kind of each code point of browser_vocab.all_code_points() as a string, a
    character kind + 32 each, and the first code point of each kind): two code points are
    of one kind when `regex` gives them the same answer to every question any preset's
    pattern can ask of a character (each of PROPERTIES, \s, each ASCII letter
    case-insensitively; an ASCII code point is a kind of its own, as the patterns hold
    ASCII literals). The patterns ask nothing else (_asks_only_the_questions), and `regex`
    cannot tell apart characters with the same answers, so it splits CONTEXT with c the
    same way for every c of a kind: Python's split is computed once per kind (about 140,
    rather than 1.1M regex calls, 15-20 s a preset), and the browser still splits every
    code point."""
    every = browser_vocab.all_code_points()
    answers = [0] * len(every)
    for k, question in enumerate(QUESTIONS):
        for m in regex.finditer(question, every):
            answers[m.start()] |= 1 << k
    answers[:128] = [-1 - cp for cp in range(128)]  # ASCII: a kind each
    kind_of = {}
    kinds = [kind_of.setdefault(a, len(kind_of)) for a in answers]
    first = {}
    for i, kind in enumerate(kinds):
        first.setdefault(kind, every[i])
    return "".join(chr(32 + k) for k in kinds), [first[k] for k in range(len(first))]


def _asks_only_the_questions(pattern):
    r"""code_point_kinds' premise for pattern: it is ASCII, its only escapes are \p{X} of
    PROPERTIES, \s, \S, \r and \n (a \d, \w or \p{Nd} would ask more), and it ignores
    case only in (?i:...) groups of letters and apostrophes (a (?i:\p{Lu}) would too)."""
    insensitive = regex.findall(r"\(\?i:([^()]*)\)", pattern)
    return (pattern.isascii()
            and set(regex.findall(r"\\p\{(\w+)\}", pattern)) <= set(browser_vocab.PROPERTIES)
            and set(regex.findall(r"\\(.)", pattern)) <= set("psSrn")
            and pattern.count("(?i") == len(insensitive)
            and all(regex.fullmatch(r"[][A-Za-z'|]*", group) for group in insensitive))


def _context_split(tok, c):
    """The lengths of Python's chunks of CONTEXT with c put in."""
    return [len(chunk) for chunk in tok.compiled_pattern.findall(CONTEXT.replace("{c}", c))]


def _first_difference(texts, ours, theirs):
    for text, a, b in zip(texts, ours.split("|"), theirs.split("|")):
        if a != b:
            return (f"{text!r} splits into chunks of {[ord(x) - 48 for x in a]} in the "
                    f"browser, {[ord(x) - 48 for x in b]} in Python")
    return "the signatures differ in length"


@pytest.mark.parametrize("preset", list(PRESETS))
def test_the_split_is_pythons_on_every_code_point(tab, code_point_kinds, preset):
    name = PRESETS[preset]
    tok = _load(tab, name)
    assert _asks_only_the_questions(tok.pattern), f"{name}'s pattern asks more of a character"
    kinds, representatives = code_point_kinds
    expected = [_context_split(tok, c) for c in representatives]
    for start in range(0, 0x110000, BATCH):
        lo, hi = (cp - _surrogates_before(cp) for cp in (start, start + BATCH))
        found = tab.evaluate(JS_CODE_POINTS, [name, CONTEXT, start, start + BATCH,
                                              kinds[lo:hi], expected])
        if found is not None:
            cp, ours = found
            theirs = _context_split(tok, chr(cp))
            kind = ord(kinds[cp - _surrogates_before(cp)]) - 32
            premise = "" if theirs == expected[kind] else (
                f"; regex splits it unlike U+{ord(representatives[kind]):04X} of its kind "
                f"({expected[kind]}): code_point_kinds' premise is broken")
            pytest.fail(f"{preset}: {CONTEXT.replace('{c}', chr(cp))!r} splits into chunks "
                        f"of {ours} code points in the browser, {theirs} in Python" + premise)


def _fuzz(seed, n=20_000):
    rng = random.Random(seed)
    alphabet = (list("aAzZ019 '\n\r\t.,!?-_/") + ["'s", "'LL", "'Re", "\u00a0", "\u2028",
                "\u3000", "\x85", "\u017f", "\u212a", "é", "ß", "ǅ", "ʰ", "中", "文",
                "\u0301", "\u0308", "٣", "Ⅻ", "½", "👍", "🏽", "\u200d", "\ufe0f", "\U000e0041",
                "\x00", "\x1c", "\ufeff", "\ud800", "\U0010ffff", "  ", "\n\n", " \n "])
    return ["".join(rng.choice(alphabet) for _ in range(rng.randint(0, 40)))
            for _ in range(n)]


@pytest.mark.parametrize("preset", list(PRESETS))
def test_the_split_is_pythons_on_fuzz(tab, preset):
    name = PRESETS[preset]
    tok = _load(tab, name)
    texts = [t.encode("utf-16", "surrogatepass").decode("utf-16", "replace")
             for t in _fuzz(len(preset))]
    ours, theirs = tab.evaluate(JS_SIGNATURE, [name, texts]), _py_signature(tok, texts)
    assert ours == theirs, _first_difference(texts, ours, theirs)


def _corpus_text():
    samples = sorted(CORPORA.glob("*.txt"))
    assert samples, f"no corpora in {CORPORA}: set BPE_CORPORA to the folder"
    text = "".join(p.read_text(encoding="utf-8", errors="replace")[:20_000] for p in samples)
    from viz.samples import SAMPLES
    return text + "".join(SAMPLES.values())


@pytest.mark.parametrize("preset", list(PRESETS))
def test_the_ids_are_pythons(tab, preset):
    name = PRESETS[preset]
    tok = _load(tab, name)
    texts = [_corpus_text(), " 👍🏽", "a" * 3000, " " * 5000 + "x", "<|endoftext|>hi"]
    texts += _fuzz(7, 2000)
    ours = tab.evaluate("""([key, texts]) => texts.map(
        (t) => window.encoders[key].encode(t, false).ids)""", [name, texts])
    for text, ids in zip(texts, ours):
        assert ids == tok.encode(text, allowed_special="none"), text[:80]


def test_special_tokens_when_allowed(tab):
    tok = _load(tab, "cl100k_base")
    text = "a<|endoftext|>b<|fim_prefix|><|endoftext"
    ours = tab.evaluate("(t) => window.encoders['cl100k_base'].encode(t, true)", text)
    assert ours["ids"] == tok.encode(text, allowed_special="all")
    assert sum(ours["nb"]) == len(text.encode())


def test_a_custom_pattern_stays_on_the_server():
    from bpe import RegexTokenizer
    tok = RegexTokenizer(r"\w+|\W")
    assert "JavaScript" in browser_vocab.browser_spec(tok)["why"]


# --- the page: Tokenize encodes in the browser, checked against Python -----------------
# (Playwright's locators pierce the view's shadow root)



@pytest.fixture(scope="module")
def own_server():
    """An app server of this module's own: a test pauses it."""
    from helpers.app import streamlit_server
    with streamlit_server(ROOT / "app.py") as (url, proc):
        yield url, proc


def test_with_the_server_paused_typing_still_updates_gpt4s_ids(browser, own_server, cl100k):
    import os
    import signal

    from helpers.app import wait_rendered
    url, proc = own_server
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    tab = context.new_page()
    tab.goto(url)
    wait_rendered(tab)
    assert until(lambda: view_engine(tab)[0] == "ok")
    assert "browser ids == Python" in view_engine(tab)[1]
    area = tab.locator(".tv textarea").first
    area.fill("")
    os.kill(proc.pid, signal.SIGSTOP)
    try:
        text = "Paused server, live tokens: 👍🏽 안녕 1234567!"
        area.press_sequentially(text, delay=10)
        want = cl100k.encode_ordinary(text)
        assert until(lambda: drawn_ids(tab) == want, 30)
        figure = tab.locator('.tv .fig[data-label="Tokens"] .fig-value').first
        assert figure.text_content() == f"{len(want):,}"
        assert view_engine(tab)[0] == "browser"  # not yet checked: Python is paused
    finally:
        os.kill(proc.pid, signal.SIGCONT)
    assert until(lambda: view_engine(tab)[0] == "ok")  # Python answers and agrees
    assert drawn_ids(tab) == want
    context.close()


def test_a_difference_from_python_is_a_visible_error(browser, own_server):
    from helpers.app import wait_rendered
    url, _ = own_server
    context = browser.new_context()
    tab = context.new_page()
    tab.goto(url)
    wait_rendered(tab)
    assert until(lambda: view_engine(tab)[0] == "ok")
    tab.evaluate(LYING_ENCODER_JS)
    tab.locator(".tv textarea").first.press_sequentially(" x", delay=20)
    assert until(lambda: view_engine(tab)[0] == "bad")
    assert "browser ids != Python" in view_engine(tab)[1]
    context.close()


# --- the browser's rows (rows.js) on one long grapheme cluster (issue 24) ----------------

def _browser_row(tab, token_bytes):
    return tab.evaluate("""async (pieces) => {
        const m = await import('/rows.js');
        const enc = new TextEncoder();
        const parts = pieces.map((p) => Uint8Array.from(p));
        const bytes = new Uint8Array(parts.reduce((s, p) => s + p.length, 0));
        let at = 0;
        for (const p of parts) { bytes.set(p, at); at += p.length; }
        const text = new TextDecoder().decode(bytes);
        m.work.cluster = 0;
        const row = m.buildRow(text, bytes, parts.map((_, i) => i), parts.map((p) => p.length), null);
        return { n: row.n, nc: row.nc, work: m.work.cluster };
    }""", [list(t) for t in token_bytes])


@pytest.mark.parametrize("base, mark", [("e", "\u0301"), ("👨", "\u200d"), ("👨", "\u200d👨")])
def test_browser_rows_read_a_long_cluster_in_linear_work_and_box_it_as_python(tab, base, mark):
    from viz.rows import view_row
    work = []
    for n in (1_000, 2_000, 4_000):
        token_bytes = [base.encode()] + [mark.encode()] * n
        row = _browser_row(tab, token_bytes)
        python = view_row(token_bytes, list(range(len(token_bytes))))
        assert (row["n"], row["nc"]) == (python["n"], python["nc"])
        work.append(row["work"])
    assert work[1] <= 2.1 * work[0] and work[2] <= 2.1 * work[1], work
