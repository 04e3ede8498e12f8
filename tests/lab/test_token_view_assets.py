"""The token view's JS and CSS travel as files the browser fetches once, not inside every
rerun (lab/token_view/__init__.py, "serving the JS and CSS")."""
import urllib.request
from pathlib import Path

from helpers.app import ROOT, wait_rendered

ASSETS = ROOT / "lab" / "token_view"
# the view shows the Characters count of the text in its box (so the rerun it caused is in)
COUNT_SHOWN = """() => {
    for (const host of document.querySelectorAll('*')) {
        const area = host.shadowRoot && host.shadowRoot.querySelector('.tv-editor textarea');
        if (!area) continue;
        const fig = host.shadowRoot.querySelector('.fig[data-label="Characters"] .fig-value');
        return !!fig && fig.textContent.trim() === area.value.length.toLocaleString('en-US');
    }
    return false;
}"""


def test_the_view_names_its_files_instead_of_carrying_them(open_page):
    from lab.token_view import NAME
    at = open_page("pages/tokenize.py")
    assert not at.exception
    views = [e.proto for e in at.get("bidi_component") if e.proto.component_name == NAME]
    assert views
    for proto in views:
        assert (proto.js_source_path, proto.css_source_path) == ("token_view.js", "token_view.css")
        assert proto.js_content == "" and proto.css_content == ""


def test_a_new_appTest_runtime_serves_the_view_too(open_page):
    # every AppTest has its own runtime (and component manager): the second one must
    # learn the view's asset_dir as the first did, or mounting raises
    for _ in range(2):
        at = open_page("pages/tokenize.py")
        assert not at.exception


def test_the_server_serves_the_files_as_they_are_on_disk(page, app_url):
    # (the server knows the view once a run has drawn it: `page` opened Tokenize)
    from lab.token_view import NAME
    for name in ("token_view.js", "token_view.css"):
        with urllib.request.urlopen(f"{app_url}/_stcore/bidi-components/{NAME}/{name}") as r:
            assert r.read() == (ASSETS / name).read_bytes()
    # nothing outside the asset_dir
    try:
        # lab/state.py, beside the asset folder
        urllib.request.urlopen(f"{app_url}/_stcore/bidi-components/{NAME}/../state.py")
        served = True
    except OSError:
        served = False
    assert not served


def test_typing_fetches_the_js_once_and_reruns_do_not_carry_it(browser, app_url):
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    tab = context.new_page()
    fetched, frames = [], []
    tab.on("request", lambda request: fetched.append(Path(request.url).name))
    tab.on("websocket", lambda ws: ws.on("framereceived", lambda f: frames.append(f)))
    tab.goto(app_url)
    wait_rendered(tab)
    box = tab.locator(".tv-editor textarea").first
    box.click()
    tab.keyboard.press("End")
    for key in "abc":
        tab.keyboard.press(key)
        tab.wait_for_function(COUNT_SHOWN)
        wait_rendered(tab)
    shown = box.evaluate("area => area.value")
    context.close()
    assert shown.endswith("abc")
    # a line of the JS and of the CSS that no data holds: in no message of any rerun
    js_line = next(line for line in (ASSETS / "token_view.js").read_text().splitlines()
                   if "function" in line and len(line) > 30).strip().encode()
    css_line = next(line for line in (ASSETS / "token_view.css").read_text().splitlines()
                    if "{" in line and len(line) > 12).strip().encode()
    assert len(frames) > 20  # the log did record the reruns
    as_bytes = [f if isinstance(f, bytes) else f.encode() for f in frames]
    assert not any(js_line in f or css_line in f for f in as_bytes)
    assert fetched.count("token_view.js") == 1 and fetched.count("token_view.css") == 1


def test_the_joining_tables_are_unicodes():
    """lab/token_view/joining.js's code point tables are exactly the Joining_Type classes
    `regex` has (Unicode's ArabicShaping.txt) over the blocks it covers."""
    import re

    import regex
    source = (ASSETS / "joining.js").read_text()

    def table(name):
        body = re.search(rf"const {name} = \[(.*?)\];", source, re.S).group(1)
        return {cp for lo, hi in re.findall(r"\[0x([0-9a-f]+), 0x([0-9a-f]+)\]", body)
                for cp in range(int(lo, 16), int(hi, 16) + 1)}

    blocks = [cp for lo, hi in ((0x600, 0x6FF), (0x750, 0x77F), (0x8A0, 0x8FF))
              for cp in range(lo, hi + 1)]

    def having(pattern):
        return {cp for cp in blocks if regex.match(pattern, chr(cp))}

    assert table("DUAL") == having(r"[\p{jt=D}\p{jt=C}]")
    assert table("RIGHT") == having(r"\p{jt=R}")
    # U+061C (ALM) is drawn as a marker box of its own, never beside a letter
    assert table("TRANSPARENT") == having(r"\p{jt=T}") - {0x061C}
