"""Merge replay and Merge tree with a tokenizer of every method, in AppTest: the methods
with merges replay and draw (Picky's removed tokens, SuperBPE's cross-chunk merges, HF's
own id layout), and a method without merges (Unigram, WordPiece) says so and lists its
pieces and scores instead; never a traceback."""
import pytest

from bpe import methods
from bpe.methods import unigram
from helpers.app import ROOT
from helpers.apptest import plain

SAMPLE = (ROOT / "samples" / "shakespeare_100k.txt").read_text(encoding="utf-8")[:30_000]
MERGING = ["bpe", "hf-bpe", "superbpe", "boundless", "picky", "parity"]
OPTIONS = {"picky": {"tau": 0.6}, "superbpe": {"transition": 330}}


def trained(method, vocab_size=400, **options):
    texts = {"english": SAMPLE} if method == "parity" else [SAMPLE]
    return methods.train(method, texts, vocab_size, **{**OPTIONS.get(method, {}), **options})


_cache = {}


def tok_of(method):
    if method not in _cache:
        _cache[method] = trained(method)
    return _cache[method]


def with_tok(at, key, name, tok):
    at.session_state["lab_tokenizers"] = {name: tok}
    at.run()
    at.selectbox(key=key).select(name).run()
    assert not at.exception, at.exception
    return at


@pytest.mark.parametrize("method", MERGING)
def test_replay_steps_through_every_method_with_merges(open_page, method):
    tok = tok_of(method)
    at = with_tok(open_page("pages/replay.py"), "replay_tokenizer", method, tok)
    assert not at.error, [e.value for e in at.error]
    text = at.session_state["replay_text"]
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["With all merges"] == f"{len(tok.encode_ordinary(text)):,}"
    for k in (1, 50, len(tok.merges) // 2):
        at.number_input(key="replay_k_num").set_value(k).run()
        assert not at.exception, at.exception
        assert not at.error, [e.value for e in at.error]


@pytest.mark.parametrize("method", MERGING)
def test_merge_tree_draws_the_longest_token_of_every_method(open_page, method):
    tok = tok_of(method)
    at = with_tok(open_page("pages/merge_tree.py"), "tree_tokenizer", method, tok)
    assert not at.error, [e.value for e in at.error]
    charts = at.get("graphviz_chart")
    assert len(charts) == 1 and charts[0].proto.spec.startswith("digraph")


@pytest.mark.parametrize("page,key", [("pages/replay.py", "replay_tokenizer"),
                                      ("pages/merge_tree.py", "tree_tokenizer")])
@pytest.mark.parametrize("method", ["unigram", "wordpiece"])
def test_a_method_without_merges_says_so_and_lists_its_pieces(open_page, page, key, method):
    tok = tok_of(method)
    at = with_tok(open_page(page), key, method, tok)
    assert not at.error, [e.value for e in at.error]
    assert any("has no merges" in i.value for i in at.info)
    pieces = at.dataframe[0].value
    assert len(pieces) > 100
    if method == "unigram":  # learned pieces, best first, with their log probabilities
        scores = unigram.piece_scores(tok)
        assert pieces["score"].tolist() == sorted(pieces["score"], reverse=True)
        assert pieces["score"].iloc[0] == round(max(scores.values()), 4)
    else:
        assert "score" not in pieces and pieces["piece"].iloc[0] == "[UNK]"
    assert not at.get("graphviz_chart") and not at.metric


def test_picky_dropped_tokens_are_drawn_and_marked(open_page):
    tok = tok_of("picky")
    assert tok.removed
    dropped = min(tok.removed)
    above = next(idx for (p0, p1), idx in tok.merges.items()
                 if dropped in (p0, p1) and idx in tok.vocab)
    at = with_tok(open_page("pages/merge_tree.py"), "tree_tokenizer", "picky", tok)
    at.radio(key="tree_how").set_value("By id").run()
    at.number_input(key="tree_id").set_value(above).run()
    assert not at.exception and not at.error
    assert "(dropped)" in at.get("graphviz_chart")[0].proto.spec
    at.number_input(key="tree_id").set_value(dropped).run()  # the dropped token itself
    assert not at.exception
    assert any("was dropped by this tokenizer's training" in plain(e) for e in at.error)
    # the replay, at the step that made the dropped token
    at = with_tok(open_page("pages/replay.py"), "replay_tokenizer", "picky", tok)
    assert any("dropped" in c.value for c in at.caption)
    at.number_input(key="replay_k_num").set_value(dropped - 255).run()
    assert not at.exception and not at.error
    assert any("(dropped)" in c.value for c in at.code)


def test_health_lists_leftover_tokens_lowest_r_first(open_page):
    tok = tok_of("bpe")
    at = with_tok(open_page("pages/health.py"), "health_tokenizer", "bpe", tok)
    corpus = next(o for o in at.selectbox(key="health_corpus").options if "Shakespeare" in o)
    at.selectbox(key="health_corpus").select(corpus).run()
    at.button(key="health_run").click().run()
    assert not at.exception
    (label,) = [e.label for e in at.expander if "are leftovers (R < 0.1)" in plain(e.label)]
    assert "merged tokens the corpus makes" in plain(label)
    tables = [d.value for d in at.dataframe if "R" in d.value.columns]
    assert tables and tables[0]["R"].is_monotonic_increasing


def test_evaluate_shows_the_leftover_share_of_gpt4o_llama3_and_yours(open_page):
    at = with_tok(open_page("pages/evaluate.py"), "evaluate_tokenizer", "superbpe",
                  tok_of("superbpe"))
    assert not at.error
    table = next(d.value for d in at.dataframe if "leftovers" in d.value.columns)
    shares = dict(zip(table["tokenizer"], table["share"]))
    assert {"superbpe", "GPT-4o (o200k_base)", "Llama 3"} <= set(shares)
    assert all(s.endswith("%") for s in shares.values())
    assert any("this lab's own choice" in c.value for c in at.caption)


@pytest.mark.parametrize("page,key,value", [
    ("pages/train.py", "train_method", "unigram"),
    ("pages/methods.py", "methods_pick", ["bpe", "unigram"])])
def test_unigram_says_where_it_differs_from_sentencepiece(open_page, page, key, value):
    at = open_page(page)
    widget = at.selectbox(key=key) if page.endswith("train.py") else at.multiselect(key=key)
    widget.set_value(value).run()
    assert not at.exception
    (expander,) = [e for e in at.expander if "differs from sentencepiece" in e.label]
    shown = plain(expander.markdown[0])
    assert all(plain(line)[:40] in shown for line in unigram.DIFFERENCES)


def test_train_says_it_makes_every_method_and_links_methods(open_page):
    at = open_page("pages/train.py")
    assert any("Unigram, SuperBPE" in c.value for c in at.caption)
    assert "methods" in [link.proto.page for link in at.get("page_link")]
