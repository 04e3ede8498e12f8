"""What the Vocabulary page's table costs per token of a visitor's vocabulary (issue 32:
"memory of the app per visitor file stays within a few times the file's size"), counted in
bytes of live Python objects (tracemalloc) on a generated 20,000-piece HTML-shaped file,
never by RSS or a clock.

- the shared table (lab.derived keeps it while the tokenizer lives): narrow columns;
- the page's steps on it (the rows shown for each sort, one token's detail, a text's
  tokens): no sorted copy of the whole table per run, and nothing left on the shared table
  afterwards (pandas builds a hash table on an index the first time `.loc` or `in` looks an
  id up, 2 MB for 100k ids, kept for as long as the table).
Main before this change: 82 B/piece for the table, a peak of 80 B/piece over the steps and
27 B/piece left behind."""
import gc
import tracemalloc

import pytest

from bpe import load_bytes
from helpers.hostile_parts import html_vocab
from viz import vocab
from viz.samples import DEFAULT_SAMPLE, SAMPLES

N = 20_000
TABLE_ROWS = 1000           # pages/vocabulary.py's rows sent at once
TABLE_BYTES_PER_PIECE = 36  # 28 at 20k pieces (20 at 100k): nine columns of 1-8 bytes, the
#                             four a file without merges leaves empty kept as one value
STEPS_PEAK_PER_PIECE = 40   # 26: an argsort of one column, no copy of the table
STEPS_LEFT_PER_PIECE = 5    # 1.7: nothing kept on the table


@pytest.fixture(scope="module")
def html_tok():
    return load_bytes(html_vocab(N), "html.json")


def traced(fn):
    """(fn's result, peak bytes of live Python objects while it ran over what was live
    before, bytes still live afterwards over the same)."""
    gc.collect()
    tracemalloc.start()
    try:
        start = tracemalloc.get_traced_memory()[0]
        result = fn()
        gc.collect()
        now, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return result, peak - start, now - start


def test_the_table_is_narrow(html_tok):
    frame, _, held = traced(lambda: vocab.vocab_numbers(html_tok))
    assert len(frame) == N
    assert held <= TABLE_BYTES_PER_PIECE * N, f"{held / N:.1f} bytes a piece"


def test_the_page_steps_copy_only_the_rows_they_show(html_tok):
    frame = vocab.vocab_numbers(html_tok)

    def steps():
        # results dropped as they come: what is measured is the work, and what stays
        for by in vocab.SORTS:
            for descending in (False, True):
                assert len(vocab.sort_tokens(frame, by, descending, limit=TABLE_ROWS)) == TABLE_ROWS
        assert vocab.token_detail(frame, 3, html_tok)["id"] == 3
        assert vocab.has_token(frame, N - 1) and not vocab.has_token(frame, N)
        used, _ = vocab.text_usage(html_tok, frame, SAMPLES[DEFAULT_SAMPLE])
        assert len(used)

    _, peak, left = traced(steps)
    assert peak <= STEPS_PEAK_PER_PIECE * N, f"a peak of {peak / N:.1f} bytes a piece"
    assert left <= STEPS_LEFT_PER_PIECE * N, f"{left / N:.1f} bytes a piece left behind"


# A BPE file of 100,000 merges (hostile_parts.bpe_merges, ~36 B a token in the file): the
# table's merge columns come from the model's packed merges (HFTokenizer.merge_columns); its
# peak was 5.7-6.1 x the file when they came from a dict of every merge and a tuple per
# merge (124e902), 3.7-3.9 x now (bench/RESULTS.md, tenth round)
BPE_TABLE_PEAK_PER_FILE_BYTE = 4.5


@pytest.mark.parametrize("byte_level", [False, True], ids=["sentencepiece", "byte-level"])
def test_a_bpe_files_table_reads_its_merges_without_a_dict(byte_level):
    from helpers.hostile_parts import bpe_merges
    data = bpe_merges(100_000, byte_level=byte_level)
    tok = load_bytes(data, "bpe.json")
    vocab.vocab_numbers(load_bytes(bpe_merges(100, byte_level=byte_level), "warm.json"))
    frame, peak, _ = traced(lambda: vocab.vocab_numbers(tok))
    assert frame["left"].notna().sum() == 100_000
    assert peak <= BPE_TABLE_PEAK_PER_FILE_BYTE * len(data), f"{peak / len(data):.2f} x"
