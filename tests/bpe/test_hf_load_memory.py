"""Memory of reading a big tokenizer.json (issue 32: a visitor's file of 100,000 HTML-shaped
Unigram pieces): counted bounds by tracemalloc, in bytes per piece, never time. Also that
the cheaper paths build the same vocab: the pieces' bytes packed once and shared as special
tokens change, and consume=True lets go of the parse's lists."""
import json

import pytest

from bpe import budgets
from bpe.hf_tokenizer import tokenizer_from_hf
from bpe.loading import load_hf_bytes
from helpers.hostile_parts import bpe_merges, html_vocab, html_wordpiece
from helpers.hf_documents import metaspace_unigram
from helpers.memory import traced

PIECES = 20_000  # enough for consume's difference to show
BIG = 100_000    # the file (3.6 MB, 36 bytes a piece), for the bounds
# Measured over the parse and the build of the 100,000-piece file (bench/piece_memory.py,
# bench/results/piecemem.md, eighth round): 83 B/piece live after the load (the model's
# PieceIds ~36: the packed text, a 4-byte offset, its hash table and filter; a score 8, the
# packed bytes and offset ~26, the kept JSON text zlib'd ~8); 250 at the peak with
# consume=True, the parse's own lists and strs. main before (8302e71, a dict with a str and
# an int per piece): 179 live, 284 at the peak, which both bounds refuse.
LIVE_PER_PIECE = 100
PEAK_PER_PIECE = 275
# From the file's bytes, as the app loads it (bpe.loading.load_hf_bytes; ninth round): the
# vocab read from its text a slice at a time (bpe.formats.hf.document_parse) and no set of
# every id when the special tokens are checked: 112 B/piece at the peak, 3.1 x the file's 36.
# Before (99cb572, json.loads of the whole file, then the model): 250, which this refuses.
BYTES_PEAK_PER_PIECE = 140


def _traced(load, pieces):
    """(live, peak) bytes over load() (which returns a tokenizer of pieces pieces)."""
    tok, live, peak = traced(load)
    assert len(tok.vocab) == pieces
    return live, peak


def _measured(data, consume, pieces=PIECES):
    """(live, peak) bytes over a parse of data and a tokenizer_from_hf on it (after a small
    file's load, so what a first load imports or compiles is not counted)."""
    tokenizer_from_hf(json.loads(html_vocab(100)), source="warm.json")

    def load():
        parsed = budgets.parse_json(data.decode("utf-8"), "html.json")
        return tokenizer_from_hf(parsed, source="html.json", consume=consume)
    return _traced(load, pieces)


def test_a_big_unigram_file_costs_a_bounded_number_of_bytes_per_piece():
    data = html_vocab(BIG)
    live, peak = _measured(data, consume=True, pieces=BIG)
    assert live <= LIVE_PER_PIECE * BIG, f"{live / BIG:.0f} B/piece live after the load"
    assert peak <= PEAK_PER_PIECE * BIG, f"{peak / BIG:.0f} B/piece at the load's peak"


@pytest.mark.parametrize("kind", ["Unigram", "WordPiece"])
def test_a_big_file_loads_from_its_bytes_within_a_few_times_its_size(kind):
    # WordPiece, 29 B a piece in its file: 111 B/piece at the peak, 221 on 99cb572
    make = html_wordpiece if kind == "WordPiece" else html_vocab
    data = make(BIG)
    load_hf_bytes(make(100), "warm.json")
    live, peak = _traced(lambda: load_hf_bytes(data, "html.json"), BIG)
    assert live <= LIVE_PER_PIECE * BIG, f"{live / BIG:.0f} B/piece live"
    assert peak <= BYTES_PEAK_PER_PIECE * BIG, f"{peak / BIG:.0f} B/piece peak"


# A BPE file of 100,000 merges as GPT-2's are shaped (hostile_parts.bpe_merges: a vocab entry
# and a merge line a token, 34-36 B in the file): 106-107 B a token live, about 3 x the file,
# with the merges packed in a MergeTable and the vocab in a PieceIds (tenth round). Before
# (124e902: a dict with a tuple key and ints per merge, a dict of strs for the vocab): 364-381
# B live, which this refuses.
BPE_LIVE_PER_TOKEN = 130
# Its load's peak, the vocab and the merges read from the file's text a slice at a time
# (document_parse's MergesText): 126-128 B a token, 3.6-3.8 x the file. Before: 432 (BPE) and
# 883 (byte-level) B, json.loads' strs and lists beside the dicts built from them.
BPE_PEAK_PER_TOKEN = 160


@pytest.mark.parametrize("byte_level", [False, True], ids=["sentencepiece", "byte-level"])
def test_a_bpe_file_with_merges_keeps_a_few_times_its_size(byte_level):
    data = bpe_merges(BIG, byte_level=byte_level)
    load_hf_bytes(bpe_merges(100, byte_level=byte_level), "warm.json")
    tokens = len(json.loads(data)["model"]["vocab"])
    live, peak = _traced(lambda: load_hf_bytes(data, "bpe.json"), tokens)
    assert live <= BPE_LIVE_PER_TOKEN * tokens, f"{live / tokens:.0f} B/token live"
    assert peak <= BPE_PEAK_PER_TOKEN * tokens, f"{peak / tokens:.0f} B/token at the peak"


def test_a_bpe_files_digest_builds_no_dict_of_its_merges():
    """lab.derived.content_digest reads the packed merges: tok.merges, a dict of every merge,
    cost 18 MB (5 x the file) and 0.6 s of CPU for 100,000 merges."""
    from lab.derived import content_digest
    data = bpe_merges(BIG, byte_level=True)
    tok = load_hf_bytes(data, "bpe.json")
    before = content_digest(tok)
    digest, _, peak = traced(content_digest, tok)
    assert digest == before
    assert peak <= len(data) // 2, f"{peak / len(data):.2f} x the file"
    # and the digest still tells merges apart: one merge fewer is another tokenizer
    document = json.loads(data)
    document["model"]["merges"].pop()
    other = load_hf_bytes(json.dumps(document, ensure_ascii=False).encode(), "bpe.json")
    assert content_digest(other) != before


def test_consume_lowers_the_peak_and_only_when_asked_empties_the_parse():
    data = html_vocab(PIECES)
    kept, let_go = _measured(data, consume=False)[1], _measured(data, consume=True)[1]
    # the parse's [piece, score] lists and floats let go: 44 B a piece measured here (80
    # before the special tokens' check stopped building a set of every id, a peak of its own
    # while the kept parse was alive)
    assert let_go < kept - 25 * PIECES, (kept / PIECES, let_go / PIECES)
    parsed = json.loads(data)
    tokenizer_from_hf(parsed, source="html.json")
    assert parsed == json.loads(data)  # a caller's dict is left as it was by default
    tok = tokenizer_from_hf(parsed, source="html.json", consume=True)
    assert "vocab" not in parsed["model"]
    assert json.loads(tok.document_json) == json.loads(data)  # the kept text is whole


@pytest.mark.parametrize("consume", [False, True])
def test_the_vocab_is_the_pieces_bytes_through_special_token_changes(consume):
    pieces = ["<unk>", "\u2581a", "b", "\u2581ab", "<s>", "</s>"]
    document = metaspace_unigram(pieces, [(4, "<s>"), (5, "</s>")])
    tok = tokenizer_from_hf(document, consume=consume)
    # computed here from the pieces, not by the tokenizer's own build
    plain = {i: p.replace("\u2581", " ").encode() for i, p in enumerate(pieces[:4])}
    specials = {"<s>": 4, "</s>": 5}
    assert tok.special_tokens == specials
    assert tok.vocab == {**plain, 4: b"<s>", 5: b"</s>"}
    tok.unregister_special_tokens({"</s>"})  # fewer specials: built again from the model
    assert tok.vocab == {**plain, 4: b"<s>"}
    tok.register_special_tokens({"</s>": 5, "<x>": 9})  # more: the vocab copied, then added
    assert tok.vocab == {**plain, 4: b"<s>", 5: b"</s>", 9: b"<x>"}
    twin = tok.with_special_tokens({"<y>": 10})
    assert twin.vocab == {**tok.vocab, 10: b"<y>"} and 10 not in tok.vocab
    assert tok.decode(tok.encode("ab ab", allowed_special="all")) == "ab ab"
