"""The Vocabulary page on a visitor's vocabulary of 100,000 HTML/Markdown-shaped pieces
(issue 32): the page escapes a token for display (viz.vocab.visible, the one renderer) only
for the rows it sends, never for the whole vocabulary on every run. Judged by a counted
bound (visible() calls per run), not by a clock. And the rows it sends are the tokens as
they are: "<script>" is text in a table cell, not markup. What the page holds for it is
counted in bytes of Python objects: the shared table (numbers, no text per token) and one
run's peak, within a few times the file's size."""
import tracemalloc

import pytest

import viz.vocab
from bpe import load_bytes
from helpers.hostile_parts import html_vocab
from lab import derived

N = 100_000
TABLE_ROWS = 1000  # pages/vocabulary.py's rows sent at once
# what one run may escape: the table's rows and the halves of their pairs, the token shown
# in detail with its pair, the tokens built on it and the sample text's tokens, each at
# most TABLE_ROWS; the old page escaped all N tokens (and again for every pair half)
BOUND = 4 * TABLE_ROWS + 10


@pytest.fixture(scope="module")
def html_tok():
    return load_bytes(html_vocab(N), "html.json")


@pytest.fixture
def counted(monkeypatch):
    """The number of viz.vocab.visible calls since the fixture started, as a list of one."""
    calls = [0]
    real = viz.vocab.visible

    def visible(token):
        calls[0] += 1
        return real(token)
    monkeypatch.setattr(viz.vocab, "visible", visible)
    return calls


def open_vocabulary(open_page, tok):
    at = open_page()
    at.session_state["lab_tokenizers"] = {"html": tok}
    at.session_state["lab_newest_tokenizer"] = (1, "html")
    at.switch_page("pages/vocabulary.py")
    return at


@pytest.mark.slow
def test_the_page_escapes_only_the_rows_it_sends(open_page, html_tok, counted):
    at = open_vocabulary(open_page, html_tok)
    at.run()
    assert not at.exception
    assert counted[0] <= BOUND, f"{counted[0]:,} tokens escaped in one run of {N:,}"
    assert next(m.value for m in at.metric if m.label == "Tokens") == f"{N:,}"
    table = at.dataframe[0].value
    assert len(table) == TABLE_ROWS
    # the pieces as they are, spaces as the lab marks them: text, never markup
    assert table["token"].tolist()[:4] == [
        viz.vocab.visible(html_tok.vocab[idx]) for idx in range(4)]
    assert table["token"].iloc[1] == "<b>0</b>"

    # a search over all 100k texts still escapes only what it shows
    counted[0] = 0
    at.text_input(key="vocab_query").input("script").run()
    assert not at.exception
    assert counted[0] <= BOUND, f"{counted[0]:,} tokens escaped by one search"
    found = at.dataframe[0].value
    assert len(found) == TABLE_ROWS and all("script" in t for t in found["token"])
    assert any(f"{sum(b'script' in t for t in html_tok.vocab.values()):,} matching" in c.value
               for c in at.caption)

    # one token in detail: its hex is its bytes
    counted[0] = 0
    at.number_input(key="vocab_id").set_value(3).run()
    assert counted[0] <= BOUND
    assert any(f"hex `{html_tok.vocab[3].hex(' ')}`" in m.value for m in at.markdown)


# issue 32: "memory of the app per visitor file stays within a few times the file's size".
# Counted in bytes of Python objects (tracemalloc), never by the process's RSS or a clock:
# what the allocator keeps after the objects are freed is not the page's to bound.
TABLE_BYTES_PER_TOKEN = 48  # the shared table: nine narrow numeric columns, no text per
#                             token: 42 now (70 with 64-bit columns)
PAGE_PEAK_FILE_TIMES = 2    # one page run at its peak, in file sizes: 1.6 now (3.4 when it
#                             sorted a copy of the table and built a Styler for every row
#                             sent; 4.6 when the digest pickled all at once; 14 with text
#                             on every row)


def test_the_shared_table_holds_numbers_not_text(html_tok):
    """lab.derived keeps the Vocabulary page's table for as long as the tokenizer lives:
    numbers only (about 42 bytes a token). With each token's display text in it (the old
    vocab_frame, ~500 bytes a token), or 64-bit columns (70), it would not fit."""
    table = derived.vocab_table(html_tok)
    assert not [c for c in table.columns if table[c].dtype == object]
    held = int(table.memory_usage(deep=True).sum())
    assert held <= TABLE_BYTES_PER_TOKEN * N, f"{held:,} bytes for {N:,} tokens"


@pytest.mark.slow
def test_one_page_run_holds_a_few_times_the_file(open_page):
    """The Vocabulary page's first run on the 100k-piece upload (the table built, 1,000
    rows escaped and sent, a sample text's tokens): its peak of live Python objects over
    what was there before stays within a few times the file's size."""
    data = html_vocab(N)
    tok = load_bytes(data, "html.json")
    tok.name = "html, first visit"  # its own lab.derived entries: built by this run
    at = open_vocabulary(open_page, tok)
    tracemalloc.start()
    try:
        start = tracemalloc.get_traced_memory()[0]
        at.run()
        peak = tracemalloc.get_traced_memory()[1] - start
    finally:
        tracemalloc.stop()
    assert not at.exception
    assert peak <= PAGE_PEAK_FILE_TIMES * len(data), (
        f"the run held {peak / 2**20:,.1f} MB at its peak for a {len(data) / 2**20:,.1f} MB file")
