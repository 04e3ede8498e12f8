"""The chunker page and the sidebar's tokenizer upload in real Chromium.
Screenshots: screenshots/chunker_page.png, chunker_uploaded.png."""
import json

import pytest
from bpe import RegexTokenizer
from bpe.formats.hf.tokenizer_json import hf_json
from helpers.app import metrics, screenshot, wait_rendered
from viz.token_budget import chunk_text, summary

CORPUS = "the cat sat on the mat, and the dog sat on the log. " * 40



@pytest.fixture
def chunker(start_on):
    """A fresh tab straight on the chunker page, its figures drawn."""
    tab = start_on("token_budget")
    tab.locator('[data-testid="stMetric"]').first.wait_for(timeout=60_000)
    wait_rendered(tab)
    return tab


def test_chunker_page_shows_the_pieces(chunker, gpt4):
    page = chunker
    text = page.locator('[data-testid="stTextArea"] textarea').first.input_value()
    expected = summary(chunk_text(gpt4, text, 256, prefer="sentences"))
    assert metrics(page)["Pieces"] == f"{expected['pieces']:,}"
    assert page.get_by_role("button", name="Download the pieces (.zip of .txt)").is_visible()
    page.set_viewport_size({"width": 1400, "height": 1600})
    wait_rendered(page)
    screenshot(page, "budget_page")


def test_upload_a_tokenizer_json_in_the_sidebar(page, tmp_path):
    tok = RegexTokenizer().train(CORPUS, 256 + 30)
    path = tmp_path / "tokenizer.json"
    path.write_text(json.dumps(hf_json(tok)), encoding="utf-8")
    page.get_by_text("Load a tokenizer file").click()
    page.locator('[data-testid="stSidebar"] input[type="file"]').set_input_files(str(path))
    page.get_by_text("as “tokenizer (uploaded)”").wait_for(timeout=60_000)
    wait_rendered(page)
    sidebar = page.locator('[data-testid="stSidebar"]').inner_text()
    assert "GPT-2 (r50k_base)" in sidebar  # every reference is listed beside it
    assert "tokenizer (uploaded)" in sidebar
    screenshot(page, "budget_uploaded")
