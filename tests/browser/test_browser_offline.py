"""No request leaves the machine: Chromium's network log over a load of every page
holds only the local server, data: and blob: URLs (the lab promises to work offline;
a :material/: page icon used to make every page load ask fonts.gstatic.com)."""
import ast
from pathlib import Path
from urllib.parse import urlparse

from helpers.app import ROOT, wait_rendered


def page_paths():
    """Every page's URL path, read from app.py's PAGES (the home page's is ""; another's is
    its file's name): the list a hand-kept copy let go stale ("chunks" and "chunker" named
    no page, so ten pages were never loaded here)."""
    tree = ast.parse((ROOT / "app.py").read_text())
    pages = next(node.value for node in tree.body if isinstance(node, ast.Assign)
                 and any(getattr(target, "id", None) == "PAGES" for target in node.targets))
    scripts = [entry[1] for entry in ast.literal_eval(pages)]
    return [""] + [Path(script).stem for script in scripts[1:]]


PAGES = page_paths()
LOCAL = {"127.0.0.1", "localhost"}


def test_every_page_load_stays_on_this_machine(browser, app_url):
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    tab = context.new_page()
    urls = []
    tab.on("request", lambda request: urls.append(request.url))
    titles = []
    for path in PAGES:
        tab.goto(f"{app_url}/{path}")
        wait_rendered(tab)
        tab.wait_for_timeout(500)  # late requests: favicon, fonts, images
        titles.append(tab.locator('[data-testid="stMainBlockContainer"] h1').first.inner_text())
    context.close()
    assert len(set(titles)) == len(PAGES), titles  # each path its own page, none the home
    assert len(urls) > len(PAGES)  # the log did record the page loads
    outside = sorted({url for url in urls if urlparse(url).scheme not in ("data", "blob")
                      and urlparse(url).hostname not in LOCAL})
    assert not outside, f"requests left the machine: {outside}"
