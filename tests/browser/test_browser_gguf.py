"""A GGUF file in real Chromium: uploaded in the sidebar, it opens; the load message and
Tokenize's caption name llama.cpp's tokenizer family and pre-tokenizer; the parity badge
says it was checked against llama.cpp's own test ids (the file is llama.cpp's
ggml-vocab-gpt-2.gguf, from the llama-cpp-python sdist: skipped, saying so, without it).
Screenshots: screenshots/gguf_{light,dark}_{1400,800}.png and gguf_sidebar.png (the
load message)."""
import urllib.parse

import pytest
from helpers.app import screenshot, wait_rendered

from tests.lab.test_gguf_uploads import llama_cpp_file

SIDEBAR = '[data-testid="stSidebar"]'
MAIN = '[data-testid="stMain"]'
NAME = "ggml-vocab-gpt-2.gguf"
LABEL = "ggml-vocab-gpt-2 (uploaded)"
SUMMARY = "GGUF (llama.cpp): tokenizer family gpt2, pre-tokenizer gpt-2"


@pytest.mark.slow
def test_a_gguf_upload_shows_family_pre_and_llama_cpps_badge(browser, app_url):
    data = llama_cpp_file(NAME)  # skips when the sdist is not here
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    tab = context.new_page()
    try:
        tab.goto(app_url)
        wait_rendered(tab)
        tab.get_by_text("Load a tokenizer file").click()
        tab.locator(SIDEBAR + " input[type=file]").set_input_files(files=[
            {"name": NAME, "mimeType": "application/octet-stream", "buffer": data}])
        sidebar = tab.locator(SIDEBAR)
        sidebar.get_by_text(f"as “{LABEL}”").wait_for(timeout=90_000)
        tab.wait_for_function("want => location.search.includes(want)",
                              arg=urllib.parse.quote_plus("session:" + LABEL), timeout=60_000)
        wait_rendered(tab)
        assert SUMMARY in " ".join(sidebar.inner_text().split())
        main = tab.locator(MAIN)
        main.get_by_text("ids == llama.cpp's test ids (46 texts)").first.wait_for(timeout=90_000)
        wait_rendered(tab)
        shown = " ".join(main.inner_text().split())
        assert f"Loaded from {NAME}: {SUMMARY}" in shown, shown
        assert "ids !=" not in shown and "no parity check" not in shown
        assert shown.count("llama.cpp's test ids") == 1, shown
        for scheme in ("light", "dark"):
            tab.emulate_media(color_scheme=scheme)
            for width in (1400, 800):
                tab.set_viewport_size({"width": width, "height": 1100})
                wait_rendered(tab)
                screenshot(tab, f"gguf_{scheme}_{width}")
        sidebar.get_by_text(f"as “{LABEL}”").scroll_into_view_if_needed()
        screenshot(tab, "gguf_sidebar")
    finally:
        context.close()
