"""Every page shows inside app.py's frame, even as a fresh server's very first visit.

With a pages/ folder, Streamlit runs a deep-linked page file on its own (old multipage
layout, file-list menu) until something calls st.navigation; lab/pages_guard.py and the
config keep that from ever reaching the screen.
"""
import pytest

from helpers.app import app_server

# file names only the legacy menu lists: none of them is also a page title of the frame
LEGACY_ENTRIES = {"app", "specials", "token budget", "ties", "health", "extend", "data size"}


@pytest.mark.parametrize("path", ["vocabulary", "merge_tree"])
def test_deep_link_on_a_fresh_server_shows_the_frame(browser, path):
    with app_server() as url:  # a new server: this visit is its first
        context = browser.new_context()
        tab = context.new_page()
        tab.goto(f"{url}/{path}")
        menus = []
        for _ in range(30):  # sample the sidebar menu while the page loads
            tab.wait_for_timeout(100)
            menus.append(tab.locator('[data-testid="stSidebarNav"]').all_inner_texts())
        tab.get_by_text("Learn by doing").wait_for(timeout=30_000)
        tab.get_by_text("Load a tokenizer file").wait_for(timeout=30_000)
        shown = {line.strip().lower() for menu in menus for text in menu
                 for line in text.splitlines()}
        assert not shown & LEGACY_ENTRIES, f"old file-list menu shown: {shown}"
        assert tab.locator('[data-testid="stMain"] h1').first.inner_text()
        context.close()
