"""No request leaves the machine: Chromium's network log over a load of every page
holds only the local server, data: and blob: URLs (the lab promises to work offline;
a :material/: page icon used to make every page load ask fonts.gstatic.com)."""
from urllib.parse import urlparse

from helpers.app import wait_rendered

PAGES = ["", "compare", "train", "replay", "merge_tree", "vocabulary", "chunks", "specials",
         "chunker"]
LOCAL = {"127.0.0.1", "localhost"}


def test_every_page_load_stays_on_this_machine(browser, app_url):
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    tab = context.new_page()
    urls = []
    tab.on("request", lambda request: urls.append(request.url))
    for path in PAGES:
        tab.goto(f"{app_url}/{path}")
        wait_rendered(tab)
        tab.wait_for_timeout(500)  # late requests: favicon, fonts, images
    context.close()
    assert len(urls) > len(PAGES)  # the log did record the page loads
    outside = sorted({url for url in urls if urlparse(url).scheme not in ("data", "blob")
                      and urlparse(url).hostname not in LOCAL})
    assert not outside, f"requests left the machine: {outside}"
