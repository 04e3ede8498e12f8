"""The sidebar loader in real Chromium: each kind of tokenizer file opens (known by its
content), and Tokenize's parity badge says "ids == <owner>" for it: tiktoken for ranks,
sentencepiece for a SentencePiece model, tokenizers for tokenizer.json and GPT-2's pair
(uploaded as two files at once). Screenshot: screenshots/loader_kinds.png."""
import gzip
import json
import urllib.parse

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeout
from helpers.app import screenshot, wait_rendered
from helpers.hostile_app import pick

from bpe import RegexTokenizer, reference
from bpe.formats import gpt2
from bpe.formats.hf.tokenizer_json import hf_json
from bpe.formats.ranks import tiktoken_text
from bpe.sentencepiece_bpe import SentencePieceBPE

CORPUS = "the year 2026 had 365 days, and the days had 24 hours. Tokens! " * 40
SIDEBAR = '[data-testid="stSidebar"]'


@pytest.fixture(scope="module")
def files(taylorswift):
    """label the file makes -> ([(file name, bytes)], the badge it must show or None)."""
    tok = RegexTokenizer("gpt2").train(CORPUS, 256 + 40)
    sp = SentencePieceBPE().train(taylorswift[:40_000], 400)
    merges = [(tok.vocab[a], tok.vocab[b]) for a, b in tok.merges]
    encoder, merges_text = gpt2.gpt2_pair_text(tok.vocab, merges)
    ranks = tiktoken_text(tok).encode()
    return {
        "mine (uploaded)": ([("mine.model", tok.model_text().encode())], None),
        "sp (uploaded)": ([("sp.model", sp.model_proto)], "ids == sentencepiece"),
        "ranks (uploaded)": ([("ranks.tiktoken", ranks)], "ids == tiktoken"),
        "zipped.tiktoken (uploaded)": ([("zipped.tiktoken.gz", gzip.compress(ranks))],
                                       "ids == tiktoken"),
        "tokenizer (uploaded)": ([("tokenizer.json", json.dumps(hf_json(tok)).encode())],
                                 "ids == tokenizers"),
        "vocab.json + merges.txt (uploaded)": ([("vocab.json", encoder.encode()),
                                                ("merges.txt", merges_text.encode())],
                                               "ids == tokenizers"),
    }


def upload(tab, named_files):
    tab.locator(SIDEBAR + " input[type=file]").set_input_files(files=[
        {"name": name, "mimeType": "application/octet-stream", "buffer": data}
        for name, data in named_files])


def choose_pattern(tab, label):
    """Pick label in the loader's pattern box. The expander may still be opening when the
    box is first clicked (then the list closes again), so the click is retried, and the
    label is typed so the list (virtualized: only some options are in the page) shows it."""
    wait_rendered(tab)
    box = tab.locator(SIDEBAR + ' [data-testid="stSelectbox"]',
                      has_text="Split pattern").get_by_role("combobox")
    option = tab.locator('[role="option"]', has_text=label).first
    for _ in range(5):
        box.click()
        box.press_sequentially(label[:6])
        try:
            option.wait_for(timeout=5_000)
            break
        except PlaywrightTimeout:
            tab.keyboard.press("Escape")
    option.click()
    wait_rendered(tab)


def badge(tab, expected, timeout=60_000):
    """The parity badge's text on Tokenize once it shows expected."""
    tab.locator('[data-testid="stMain"]').get_by_text(expected).first.wait_for(
        timeout=timeout)
    return expected


def test_each_kind_opens_and_its_owner_agrees(page, files):
    page.get_by_text("Load a tokenizer file").click()
    choose_pattern(page, "GPT-2's (gpt2)")  # the test's ranks file is unknown: say its pattern
    for label, (named_files, _) in files.items():
        upload(page, named_files)
        page.locator(SIDEBAR).get_by_text(f"as “{label}”").wait_for(timeout=60_000)
        wait_rendered(page)
    sidebar = page.locator(SIDEBAR).inner_text()
    assert "error" not in sidebar.lower(), sidebar
    for label, (_, expected) in files.items():
        pick(page, label)
        # the run that shows it has happened once the link names it (a fixed wait could
        # read the previous tokenizer's badge on a busy machine)
        page.wait_for_function("want => location.search.includes(want)",
                               arg=urllib.parse.quote_plus("session:" + label), timeout=60_000)
        wait_rendered(page)
        main = page.locator('[data-testid="stMain"]')
        if expected:
            assert badge(page, expected)
            assert "ids !=" not in main.inner_text()
        else:
            assert "ids ==" not in main.inner_text()  # minbpe's own library is not here
    page.set_viewport_size({"width": 1400, "height": 1600})
    wait_rendered(page)
    screenshot(page, "loader_kinds")


def test_unknown_ranks_use_the_pattern_asked_before_upload(page, files):
    page.get_by_text("Load a tokenizer file").click()
    upload(page, files["ranks (uploaded)"][0])
    sidebar = page.locator(SIDEBAR)
    sidebar.get_by_text("split by GPT-4's (gpt4)").wait_for(timeout=60_000)
    assert badge(page, "ids == tiktoken")  # tiktoken over the same ranks and pattern
    choose_pattern(page, "GPT-2's (gpt2)")  # picking another loads the same file again
    sidebar.get_by_text("split by GPT-2's (gpt2)").wait_for(timeout=60_000)
    wait_rendered(page)
    assert sidebar.inner_text().count("ranks (uploaded)") == 2  # the message and the list
    assert badge(page, "ids == tiktoken")


def test_llama3_tokenizer_model_opens_without_a_pattern(page):
    path = reference.locate(reference.REFERENCES["llama3"])
    with open(path, "rb") as f:
        data = f.read()
    page.get_by_text("Load a tokenizer file").click()
    upload(page, [("tokenizer.model", data)])
    page.locator(SIDEBAR).get_by_text("as “tokenizer (uploaded)”, with its owner's split "
                                      "pattern").wait_for(timeout=90_000)
    wait_rendered(page)
    main = page.locator('[data-testid="stMain"]')
    main.get_by_text("ids == ").first.wait_for(timeout=90_000)
    assert "ids ==" in main.inner_text() and "ids !=" not in main.inner_text()
