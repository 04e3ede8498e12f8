"""lab.derived: the one cache of what the lab derives from a tokenizer, and its one
staleness rule (an entry belongs to the tokenizer's content digest and name). A trained
tokenizer, a renamed one and an uploaded one each get fresh entries; equal ones share; an
entry leaves with the last tokenizer that has its key."""
import gc
import subprocess
import sys
import weakref

import pytest

from bpe import RanksTokenizer, RegexTokenizer, evaluate, load, methods, reference
from bpe.formats.ranks import mergeable_ranks
from bpe.replay import merge_parents
from helpers.app import ROOT
from lab import derived
from lab.token_view import browser_vocab
from lab.train import panels
from viz.rows import piece_strings, vocab_pieces

TEXT = "the cat sat on the mat, the lab " * 20


def trained(text=TEXT, size=256 + 10):
    return RegexTokenizer().train(text, size)


def test_equal_tokenizers_with_one_name_share_one_entry():
    one, two = trained(), trained()  # equal, not the same object
    assert derived.content_digest(one) == derived.content_digest(two)
    table = derived.vocab_table(one)
    assert derived.vocab_table(one) is table
    assert derived.vocab_table(two) is table
    assert derived.parents(one) == merge_parents(one)
    shares = derived.script_shares(one)
    assert shares == evaluate.script_shares(one) and derived.script_shares(two) is shares


def test_a_trained_tokenizer_gets_fresh_entries():
    tok = trained()
    table = derived.vocab_table(tok)
    other = trained("a different corpus altogether, with other pairs " * 20)
    assert derived.key(other) != derived.key(tok)
    assert derived.vocab_table(other) is not table
    tok.train("yet another text to train on, in place " * 20, 256 + 10)  # the same object
    again = derived.vocab_table(tok)
    assert again is not table and list(again.index) == sorted(tok.vocab)


def test_a_renamed_tokenizer_gets_fresh_entries():
    tok = trained()
    table = derived.vocab_table(tok)
    tok.name = "my renamed tokenizer"
    assert derived.key(tok)[1] == "my renamed tokenizer"
    assert derived.vocab_table(tok) is not table


def test_an_uploaded_tokenizer_gets_fresh_entries(tmp_path):
    tok = trained()
    table = derived.vocab_table(tok)
    tok.save(str(tmp_path / "mine"))
    uploaded = load(str(tmp_path / "mine.model"))
    # the same content, under the name the session gives an upload: its own entries
    assert derived.content_digest(uploaded) == derived.content_digest(tok)
    uploaded.name = "mine.model"
    assert derived.vocab_table(uploaded) is not table
    # the same ranks split by another pattern are another tokenizer, even under one name
    ranks = mergeable_ranks(tok)
    gpt4, gpt2 = RanksTokenizer(ranks, pattern="gpt4"), RanksTokenizer(ranks, pattern="gpt2")
    gpt4.name = gpt2.name = "ranks.tiktoken"
    assert derived.key(gpt4) != derived.key(gpt2)


def test_a_change_in_place_is_noticed_without_hashing_on_every_call(monkeypatch):
    tok = trained()
    table = derived.vocab_table(tok)
    hashed = []
    digest = derived.content_digest
    monkeypatch.setattr(derived, "content_digest", lambda t: hashed.append(t) or digest(t))
    for _ in range(5):  # reruns of a page: the digest is remembered
        assert derived.vocab_table(tok) is table
    assert hashed == []
    tok.register_special_tokens({"<|x|>": 400})  # bpe builds a new vocab dict
    assert derived.vocab_table(tok) is not table and 400 in derived.vocab_table(tok).index
    assert len(hashed) == 1


def test_entries_leave_with_their_tokenizer():
    tok = trained("hello world, the lab " * 40, 270)
    kept = weakref.ref(tok)
    derived.vocab_table(tok)
    derived.parents(tok)
    panels.downloads(tok, "mine")
    for n in range(derived.TEXTS_KEPT + 3):
        derived.counts_by_merge(tok, f"hello there {n}")
    key = derived.key(tok)
    assert derived.entries()[key] == ["counts by merge", "exports", "parents", "vocab table"]
    del tok
    gc.collect()
    assert kept() is None, "something derived still holds the tokenizer"
    assert key not in derived.entries()


def test_an_entry_stays_while_an_equal_tokenizer_lives():
    one, two = trained(), trained()
    table = derived.vocab_table(one)
    derived.vocab_table(two)
    key = derived.key(one)
    del one
    gc.collect()
    assert derived.entries()[key] == ["vocab table"]
    assert derived.vocab_table(two) is table


def test_curves_kept_per_tokenizer_are_bounded():
    tok = trained()
    for n in range(derived.TEXTS_KEPT * 3):
        counts = derived.counts_by_merge(tok, f"text number {n}")
        assert counts[-1] == len(tok.encode(f"text number {n}"))
    curves = derived.remember(tok, "counts by merge", lambda: pytest.fail("built again"))
    assert len(curves) == derived.TEXTS_KEPT


def test_the_browser_spec_follows_the_same_rule(monkeypatch, tmp_path):
    monkeypatch.setattr(browser_vocab, "VOCAB_DIR", tmp_path)
    built = []
    build = browser_vocab._build_spec
    monkeypatch.setattr(browser_vocab, "_build_spec", lambda t: built.append(t.name) or build(t))
    tok = RegexTokenizer("gpt4").train(TEXT, 256 + 10)
    tok.name = "spec test"
    spec = browser_vocab.browser_spec(tok)
    assert "ranks" in spec, spec  # a trained Regex tokenizer is encoded in the browser
    assert browser_vocab.browser_spec(tok) is spec and built == ["spec test"]
    tok.name = "spec test, renamed"
    browser_vocab.browser_spec(tok)
    assert built == ["spec test", "spec test, renamed"]


def test_the_cache_imports_no_streamlit():
    code = "import sys, lab.derived; print('streamlit' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                         text=True, check=True).stdout
    assert out.strip() == "False"


def test_a_ranks_tokenizer_is_keyed_without_recovering_its_merges():
    # Llama 3's ranks cannot be rebuilt by merges (a ValueError from its `merges`): the
    # digest must not ask for them, its vocab (the ranks) says what it is
    tok = RanksTokenizer({bytes([b]): b for b in range(256)} | {b".:.:": 256}, pattern="gpt4")
    with pytest.raises(ValueError):
        tok.merges
    assert derived.key(tok)[0] == derived.content_digest(tok)


def test_the_hover_cards_pieces_follow_the_same_rule():
    """A SentencePiece model's vocabulary strings (viz.rows.vocab_pieces) live in the one
    cache too, built once. A tokenizer.json keeps no such dict: its hover strings are read
    by id from its own packed table (issue 32), and minbpe writes its tokens as bytes."""
    assert derived.pieces(trained()) is None
    wordpiece = methods.train("wordpiece", [TEXT], 60)
    assert derived.pieces(wordpiece) is None
    ids = wordpiece.encode("the matt")  # mat ##t
    shown = piece_strings(wordpiece, ids, derived.pieces(wordpiece))
    assert shown == [wordpiece.token_strings()[idx] for idx in ids]
    assert any(piece.startswith("##") for piece in shown)
    mistral = reference.load_reference("mistral_v1")
    pieces = derived.pieces(mistral)
    assert pieces == vocab_pieces(mistral) and derived.pieces(mistral) is pieces
    assert pieces[mistral.encode_ordinary(" world")[-1]] == "\u2581world"
