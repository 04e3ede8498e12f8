"""lab/safe.py in a real browser: visitor text through md() and code() renders as typed in
every Streamlit Markdown surface, and makes the browser fetch nothing.

A tiny Streamlit script shows the same hostile strings in each surface twice over: once
raw (the control: it proves the payloads do inject and the fetch counter works) and
once through md()/code(). A local HTTP server on 127.0.0.1 counts what the browser asks
of it: zero requests are expected from the safe half.
"""
import textwrap

import pytest

from helpers.app import ROOT, screenshot, streamlit_server, wait_rendered

SCRIPT = textwrap.dedent('''
    import sys
    sys.path.insert(0, {root!r})
    import streamlit as st
    from lab.safe import md, code

    PORT = {port}
    mode = st.query_params.get("mode", "safe")
    esc = md if mode == "safe" else (lambda s: s)
    wrap = code if mode == "safe" else (lambda s: "`" + s + "`")
    payloads = {{
        "img": f"**b** ![i](http://127.0.0.1:{{PORT}}/img-{{mode}})",
        "link": f"[link](http://127.0.0.1:{{PORT}}/link-{{mode}}) <http://127.0.0.1:{{PORT}}/auto-{{mode}}>",
        "html": f'<img src="http://127.0.0.1:{{PORT}}/html-{{mode}}" onerror="alert(1)">',
        "directives": ":red[x] :material/home: :smile: $x^2$ ~~s~~",
        "lines": "one\\n# heading\\n| a | b |\\n- item",
    }}
    for key, text in payloads.items():
        st.markdown(esc(text))
        st.caption(esc(text))
        st.error(esc(text)); st.success(esc(text)); st.warning(esc(text)); st.info(esc(text))
        st.checkbox(esc(text), key="check-" + key, help=esc(text))
        st.text_input(esc(text), key="input-" + key)
        st.radio("pick", [text], format_func=esc, key="radio-" + key)
        with st.expander(esc(text)):
            st.write("inside")
    breakout = f"a` ![i](http://127.0.0.1:{{PORT}}/code-{{mode}}) `b"
    st.markdown("token " + wrap(breakout))
    st.toast(esc(payloads["img"]))
''')


@pytest.fixture(scope="module")
def counted(fetch_counter):
    """(url of the Streamlit script, list of paths the counter server was asked for)"""
    base, hits = fetch_counter
    script = ROOT / "screenshots" / "safe_probe.py"
    script.parent.mkdir(exist_ok=True)
    script.write_text(SCRIPT.format(root=str(ROOT), port=base.rsplit(":", 1)[1]))
    with streamlit_server(script) as (url, _):
        yield url, hits


def _visit(browser, url, mode, width=1400, scheme="light"):
    context = browser.new_context(viewport={"width": width, "height": 1000},
                                  color_scheme=scheme)
    tab = context.new_page()
    tab.goto(f"{url}/?mode={mode}")
    wait_rendered(tab)
    for expander in tab.query_selector_all('[data-testid="stExpander"] summary'):
        expander.click()  # an opened expander renders its label's markdown too
    tab.wait_for_timeout(1500)  # let any image or link prefetch happen
    return context, tab


def test_raw_payloads_inject_so_the_probe_can_see_it(browser, counted):
    url, hits = counted
    context, tab = _visit(browser, url, "raw")
    try:
        assert any(path.startswith(("/img-raw", "/code-raw")) for path in hits), hits
        assert tab.locator("strong", has_text="b").count() > 0
    finally:
        context.close()


@pytest.mark.parametrize("width, scheme", [(1400, "light"), (800, "dark")])
def test_md_and_code_render_as_typed_and_fetch_nothing(browser, counted, width, scheme):
    url, hits = counted
    context, tab = _visit(browser, url, "safe", width, scheme)
    try:
        screenshot(tab, f"safe_probe_{width}_{scheme}")
        assert [p for p in hits if "-safe" in p] == []
        port = url.rsplit(":", 1)[1]
        dom = tab.evaluate("""() => ({
            imgs: [...document.querySelectorAll('img')].map(i => i.src),
            links: [...document.querySelectorAll('a')].map(a => a.href),
            strong: document.querySelectorAll('[data-testid="stMain"] strong').length,
            del: document.querySelectorAll('[data-testid="stMain"] del').length,
            katex: document.querySelectorAll('.katex').length,
            headings: document.querySelectorAll('[data-testid="stMain"] h1').length,
            tables: document.querySelectorAll('[data-testid="stMain"] table').length,
            text: document.body.innerText})""")
        assert not [s for s in dom["imgs"] if "-safe" in s or port in s]
        assert not [h for h in dom["links"] if "-safe" in h]
        assert (dom["strong"], dom["del"], dom["katex"], dom["headings"], dom["tables"]) \
            == (0, 0, 0, 0, 0)
        text = dom["text"].replace("\u200b", "")  # md() hides links behind U+200B
        for literal in ("**b** ![i](http://127.0.0.1:", ":red[x] :material/home: :smile: $x^2$",
                        '<img src="http://127.0.0.1:', "a` ![i](http://127.0.0.1:"):
            assert literal in text, literal
    finally:
        context.close()
