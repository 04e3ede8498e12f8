"""The Train page in real Chromium: upload a corpus, train, see the live progress, the
merge table and both charts; a binary upload gets a message, a too big one is refused;
an upload is remembered across pages; every download loads back in the sidebar; a counts
file trains. The training worker's watchdog is test_browser_train_jobs.py's.
Screenshots: screenshots/train_*.png."""
import subprocess
import sys
from pathlib import Path

import pytest
from helpers.app import (
    CORPORA,
    WAIT,
    metrics,
    open_train,
    screenshot,
    switch_scheme,
    wait_rendered,
)
from helpers.app import upload_corpus as upload
from playwright.sync_api import expect

from bpe.patterns import TRIAL_CHARS as PATTERN_TRIAL_CHARS

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = (ROOT / "samples" / "shakespeare_100k.txt").read_text(encoding="utf-8")
# The Train page tries a custom pattern on the corpus's first PATTERN_TRIAL_CHARS and
# refuses a runaway one: harmless text goes there, then the run of a's, then enough text
# that the a's fall in the nine tenths trained on, not in the held-out tenth.
RUNAWAY_CORPUS = (b"b " * (PATTERN_TRIAL_CHARS // 2 + 1) + b"a" * 60
                  + b" c" * (PATTERN_TRIAL_CHARS // 10))  # no b after the a's: no match, backtracking


@pytest.fixture
def page(browser, app_url):
    """A fresh tab (its own Streamlit session) straight on the Train page, as open_train
    leaves it: conftest's page would first load and run the home page, which these tests
    only leave (its sidebar, the one some use, is on every page)."""
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    tab = context.new_page()
    open_train(tab, app_url)
    yield tab
    context.close()


def test_upload_train_and_see_the_results(page):
    upload(page, ("bard.txt", SAMPLE.encode()))
    assert metrics(page)["Characters"] == f"{len(SAMPLE):,}"
    assert "held out" in page.locator('[data-testid="stMain"]').inner_text()
    page.locator(".st-key-train_vocab_size input").fill("700")
    page.locator(".st-key-train_name input").fill("browser bard")
    page.locator(".st-key-train_submit button").click()
    page.get_by_text("Added to this session as").wait_for(timeout=WAIT)
    wait_rendered(page)
    main = page.locator('[data-testid="stMain"]')
    assert "Reached the vocab size: 444 merges, 700 tokens." in main.inner_text()
    assert metrics(page)["Merges"] == "444"
    # the merge table: a data grid with the rank, id, pair, from, token, count columns
    grid = main.locator('[data-testid="stDataFrame"]')
    grid.wait_for(timeout=WAIT)
    assert grid.is_visible()
    screenshot(page, "train_table")
    # the merge-frequency chart, drawn by Vega in its tab
    main.get_by_role("tab", name="Merge frequency").click()
    chart = main.locator('[data-testid="stVegaLiteChart"]').first
    chart.locator("canvas, svg").first.wait_for(timeout=WAIT)
    wait_rendered(page)
    assert chart.is_visible()
    screenshot(page, "train_frequency")
    main.get_by_role("tab", name="Compression").click()
    main.get_by_text("Measured on the last").wait_for(timeout=WAIT)
    wait_rendered(page)
    screenshot(page, "train_compression")
    # the other pages can pick it: the sidebar lists the session's tokenizers
    assert "browser bard" in page.locator('[data-testid="stSidebar"]').inner_text()


def test_live_progress_while_merging(page):
    """Basic training on 1 MB takes seconds of merging: the page shows it as it goes."""
    corpus = (CORPORA / "tinyshakespeare.txt").read_bytes()
    upload(page, ("tinyshakespeare.txt", corpus))
    page.locator(".st-key-train_kind").get_by_text("Basic").click()
    page.locator(".st-key-train_vocab_size input").fill("3000")
    page.locator(".st-key-train_submit button").click()
    page.get_by_text("Merges done").wait_for(timeout=WAIT)
    page.get_by_text("The latest merges, newest first").wait_for(timeout=WAIT)
    page.locator(".st-key-train_cancel button").wait_for(timeout=WAIT)
    screenshot(page, "train_progress")
    page.get_by_text("Added to this session as").wait_for(timeout=300_000)
    wait_rendered(page)
    assert metrics(page)["Merges"] == "2,744"


def test_binary_upload_gets_a_message_and_the_other_file_is_kept(page):
    upload(page, ("photo.png", b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(256))),
           ("a.txt", RUNAWAY_CORPUS), shows="photo.png is not UTF-8 text")
    main = page.locator('[data-testid="stMain"]')
    assert "photo.png is not UTF-8 text" in main.inner_text()
    assert metrics(page)["Files"] == "1"  # a.txt is kept
    screenshot(page, "train_binary")
    # Cancel in the worker is tested in test_jobs: a runaway pattern no longer runs long
    # enough to click it here (the core stops it after 1 s of CPU), so racing it was flaky


def test_an_upload_above_the_limit_is_refused_before_any_work(page, tmp_path):
    """.streamlit/config.toml sets maxUploadSize = 200 (MB): the browser refuses a bigger
    file itself, so the server never reads it. A sparse file costs no disk."""
    big = tmp_path / "huge.txt"
    with open(big, "wb") as f:
        f.truncate(201 * 1024 * 1024)
    page.locator(".st-key-train_source").get_by_text("Upload text files").click()
    wait_rendered(page)
    page.locator(".st-key-train_uploads input[type=file]").set_input_files(str(big))
    page.locator(".st-key-train_uploads").get_by_text("or smaller").wait_for(timeout=WAIT)
    wait_rendered(page)
    screenshot(page, "train_too_big")
    main = page.locator('[data-testid="stMain"]').inner_text()
    assert "Upload one or more text files" in main  # the page never got a corpus
    assert "a file shown in red was refused" in main
    assert page.get_by_role("button", name="Train").first.is_disabled()


def sidebar_upload(tab, name, data):
    """Load a tokenizer file through the sidebar's loader; returns the loader's text."""
    loader = tab.locator('[data-testid="stSidebar"]')
    if not loader.locator(".st-key-app_model_upload").is_visible():
        loader.get_by_text("Load a tokenizer file").click()
    loader.locator(".st-key-app_model_upload input[type=file]").set_input_files(
        {"name": name, "mimeType": "application/octet-stream", "buffer": data})
    loader.get_by_text(f"Loaded {name} as").or_(
        loader.locator('[data-testid="stAlertContentError"]').get_by_text(name)) \
        .first.wait_for(timeout=WAIT)
    wait_rendered(tab)
    return loader.inner_text()


def test_upload_is_remembered_across_pages_then_sentencepiece_and_a_toast(page):
    """Train with an upload, leave for another page while it trains, come back: the
    corpus is still the upload, the form as left, the result under it; the end of the
    training was announced by a toast on the other page."""
    corpus = (CORPORA / "tinyshakespeare.txt").read_bytes()  # seconds of merging
    upload(page, ("bard.txt", corpus))
    page.locator(".st-key-train_kind").get_by_text("Basic").click()
    page.locator(".st-key-train_vocab_size input").fill("2000")
    page.locator(".st-key-train_submit button").click()
    page.locator(".st-key-train_progress").wait_for(timeout=WAIT)
    page.get_by_role("link", name="Vocabulary", exact=True).click()
    toast = page.locator('[data-testid="stToast"]')
    toast.wait_for(timeout=WAIT)
    assert "Training done" in toast.inner_text() and "bard basic 2000" in toast.inner_text()
    assert "Vocabulary" in page.locator('[data-testid="stMain"] h1').first.inner_text()
    screenshot(page, "train_toast_elsewhere")
    page.get_by_role("link", name="Train", exact=True).click()
    page.get_by_text("Using the files uploaded before").wait_for(timeout=WAIT)
    wait_rendered(page)
    assert metrics(page)["Characters"] == f"{len(corpus.decode()):,}"
    assert page.locator(".st-key-train_kind label:has(input:checked)").inner_text() == "Basic"
    main = page.locator('[data-testid="stMain"]')
    assert "Added to this session as bard basic 2000" in main.inner_text()
    assert "not on the corpus picked above" not in main.inner_text()
    page.locator(".st-key-train_sentencepiece button").click()
    page.get_by_text("Trained and added as").wait_for(timeout=WAIT)
    assert "bard basic 2000 · SentencePiece" in main.inner_text()


def test_every_download_loads_back_in_the_sidebar_with_the_same_ids(page):
    from bpe import RegexTokenizer, load_bytes
    from lab.jobs.corpus_text import split_held_out
    page.locator(".st-key-train_vocab_size input").fill("400")
    page.locator(".st-key-train_name input").fill("dl")
    page.locator(".st-key-train_submit button").click()
    page.get_by_text("Added to this session as").wait_for(timeout=WAIT)
    wait_rendered(page)
    files = {}
    for label in (".model", ".tiktoken", "tokenizer.json", ".vocab"):
        with page.expect_download() as download:
            page.get_by_role("button", name=f"Download {label}").click()
        d = download.value
        files[d.suggested_filename] = Path(d.path()).read_bytes()
    assert set(files) == {"dl.model", "dl.tiktoken", "dl.json", "dl.vocab"}
    # what the server trained: the first 90% of the sample, Regex gpt4, minimum frequency 2
    ref = RegexTokenizer("gpt4").train(split_held_out(SAMPLE)[0], 400, min_frequency=2)
    text = SAMPLE[-3000:] + " naïve 🤖 tokens\n\n  end"
    for name in ("dl.model", "dl.tiktoken", "dl.json"):
        # the function the sidebar loads with, then the sidebar itself
        # a .tiktoken file has no pattern in it: say which one it was trained with
        pattern = "gpt4" if name.endswith(".tiktoken") else None
        loaded = load_bytes(files[name], name, pattern=pattern)
        assert loaded.encode_ordinary(text) == ref.encode_ordinary(text)
        shown = sidebar_upload(page, name, files[name])
        assert f"Loaded {name} as “dl (uploaded)" in shown, shown
    assert "dl (uploaded) (3)" in page.locator('[data-testid="stSidebar"]').inner_text()
    screenshot(page, "sidebar_loaded")


def test_the_tiktoken_pattern_applies_when_changed_after_upload(page):
    from bpe import RegexTokenizer
    from bpe.formats.ranks import tiktoken_text
    tok = RegexTokenizer("gpt4").train(SAMPLE[:20_000], 300)
    shown = sidebar_upload(page, "r.tiktoken", tiktoken_text(tok).encode())
    assert "split by GPT-4's (gpt4)" in shown
    sidebar = page.locator('[data-testid="stSidebar"]')
    sidebar.locator(".st-key-app_upload_pattern").click()
    page.get_by_role("option", name="None: the whole text (a Basic tokenizer)").click()
    sidebar.get_by_text("split by None").wait_for(timeout=WAIT)
    wait_rendered(page)
    names = sidebar.inner_text()
    assert names.count("r (uploaded)") == 2  # the loader's message and the list: replaced
    # a bad file: its error shows here, and not again on the next page
    shown = sidebar_upload(page, "bad.model", b"not a model")
    assert "bad.model line 1" in shown.replace("\\", "")
    page.get_by_role("link", name="Compare", exact=True).click()
    wait_rendered(page)
    assert "bad.model line 1" not in sidebar.inner_text().replace("\\", "")


def screenshots_in_both_schemes(tab, name):
    """screenshots/NAME.png with {scheme} as light, then as dark, back to light after: the
    page follows the OS scheme live (helpers.app.switch_scheme), so no second training."""
    screenshot(tab, name.format(scheme="light"))
    switch_scheme(tab, "dark")
    screenshot(tab, name.format(scheme="dark"))
    switch_scheme(tab, "light")


def test_a_counts_file_trains_and_the_merge_table_marks_ties(browser, app_url, tmp_path):
    """A counts file made by the CLI as the corpus (Regex by its own pattern, no
    compression curve); then a text corpus whose merge table marks tied merges. Trained
    once, its screenshots in both schemes."""
    corpus, out = tmp_path / "bard.txt", tmp_path / "bard.counts"
    corpus.write_text(SAMPLE, encoding="utf-8")
    subprocess.run([sys.executable, "-m", "bpe", "count", str(corpus), "-o", str(out)],
                   check=True, cwd=ROOT, capture_output=True)
    context = browser.new_context(viewport={"width": 1400, "height": 1000},
                                  color_scheme="light")
    tab = context.new_page()
    try:
        open_train(tab, app_url)
        tab.locator(".st-key-train_source").get_by_text("Counts file (.counts)").click()
        tab.locator(".st-key-train_counts_upload input[type=file]").wait_for(
            state="attached", timeout=WAIT)
        wait_rendered(tab)
        tab.locator(".st-key-train_counts_upload input[type=file]").set_input_files(
            [{"name": "bard.counts", "mimeType": "application/octet-stream",
              "buffer": out.read_bytes()}])
        tab.get_by_text("Counts file (bytes)").wait_for(timeout=WAIT)
        wait_rendered(tab)
        main = tab.locator('[data-testid="stMain"]')
        assert "split by the counts file's pattern" in main.inner_text()
        tab.locator(".st-key-train_vocab_size input").fill("600")
        tab.locator(".st-key-train_submit button").click()
        tab.get_by_text("Added to this session as").wait_for(timeout=WAIT)
        wait_rendered(tab)
        assert "Reached the vocab size: 344 merges" in main.inner_text()
        tab.get_by_role("tab", name="Compression").click()
        tab.get_by_text("holds chunk counts, not text").wait_for(timeout=WAIT)
        screenshots_in_both_schemes(tab, "train_counts_{scheme}")
        # back to a text corpus: ties recorded (vocab size <= 4,096) and marked
        tab.locator(".st-key-train_source").get_by_text("Sample corpus").click()
        wait_rendered(tab)
        tab.locator(".st-key-train_name input").fill("tied bard")
        tab.locator(".st-key-train_submit button").click()
        tab.get_by_text("Added to this session as").wait_for(timeout=WAIT)
        wait_rendered(tab)
        tab.get_by_text("won a tie").first.wait_for(timeout=WAIT)
        # exactly one link once the rerun has settled (a rerun briefly shows the old one too)
        expect(main.get_by_role("link", name="Tie rules: train one corpus")).to_have_count(
            1, timeout=WAIT)
        wait_rendered(tab)
        # hover() re-finds the grid if a late rerun replaces it (scroll_into_view_if_needed
        # holds the first element it found and failed once in CI when it was detached)
        main.locator('[data-testid="stDataFrame"]').first.hover()
        tab.mouse.wheel(0, 3000)  # down the table, to rows that won a tie
        for width in (1400, 800):
            tab.set_viewport_size({"width": width, "height": 2600})
            wait_rendered(tab)
            screenshots_in_both_schemes(tab, "train_ties_{scheme}_" + str(width))
    finally:
        context.close()
