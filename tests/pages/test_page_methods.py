"""The Methods page, and the Train page's method choice, in AppTest: two or more methods trained side by side in the worker,
then the report card, the aligned view of any two and the blame table whose charges add
up to the token difference; bad settings get sentences, never a traceback.

AppTest cannot wait for the page's polling fragment, so a test waits on the job
(helpers.apptest.finish), then reruns the page, as the fragment's timer would.
"""
from bpe import methods
from bpe.methods.blame import blame
from helpers.app import ROOT
from helpers.apptest import finish, plain, train, training
from lab.jobs.corpus_text import split_held_out
from viz import methods as vm

PAGE = "pages/methods.py"
TRAIN_PAGE = "pages/train.py"  # its method choice is tested here too
SAMPLE = (ROOT / "samples" / "shakespeare_100k.txt").read_text(encoding="utf-8")


def train_side_by_side(at, picked, vocab_size=400):
    at.multiselect(key="methods_pick").set_value(picked).run()
    at.number_input(key="methods_vocab_size").set_value(vocab_size).run()
    at.button(key="methods_train").click().run()
    assert not at.exception, at.exception
    assert training(at, "methods") is not None, [e.value for e in at.error]
    return finish(at, "methods", ok=True)


def test_two_methods_side_by_side(open_page):
    at = open_page(PAGE)
    assert not at.exception
    assert any("Pick two or more methods" in i.value for i in at.info)
    train_side_by_side(at, ["bpe", "picky"])
    t = training(at, "methods")
    # both joined the session under the names the page says
    assert t.outcome.added == ["bpe 400 (Shakespeare)", "picky 400 (Shakespeare)"]
    toks = at.session_state["lab_tokenizers"]
    assert set(t.outcome.added) <= set(toks)
    # the report card: one row per method, the card's columns and the training time
    card = at.dataframe[0].value
    assert card["method"].tolist() == ["bpe", "picky"]
    assert set(vm.CARD_COLUMNS) <= set(card.columns) and "training (CPU s)" in card
    assert (card["bytes/token"] > 1).all()
    # the aligned view's numbers and the blame table, for the default pair (bpe, picky)
    text = at.session_state["methods_text"]
    result = blame(toks[t.outcome.added[0]], toks[t.outcome.added[1]], text)
    sums = [s.value for s in at.success if "charges add up" in s.value]
    assert sums == [f"The charges add up to {result.difference:+,}; the token difference "
                    f"is {result.difference:+,}: they agree exactly."]
    if result.charges:
        blame_table = at.dataframe[1].value
        assert blame_table["charged"].sum() == result.difference


def test_one_method_is_not_enough(open_page):
    at = open_page(PAGE)
    at.multiselect(key="methods_pick").set_value(["bpe"]).run()
    assert at.button(key="methods_train").disabled
    assert not at.exception


def test_bad_options_get_a_sentence(open_page):
    at = open_page(PAGE)
    at.multiselect(key="methods_pick").set_value(["bpe", "superbpe"]).run()
    at.number_input(key="methods_vocab_size").set_value(300).run()
    at.number_input(key="methods_transition").set_value(512).run()  # above the vocab size
    at.button(key="methods_train").click().run()
    assert not at.exception
    assert training(at, "methods") is None
    (error,) = at.error
    assert "transition must be an int from 256 to vocab_size (300)" in plain(error)


# ------------------------------------------------------------ Train's method choice
def test_each_method_shows_its_line_and_options(open_page):
    at = open_page(TRAIN_PAGE)
    assert at.selectbox(key="train_method").value == "bpe"
    assert at.radio(key="train_kind")  # the lab's own trainer keeps its form
    for method, line in methods.METHODS.items():
        at.selectbox(key="train_method").set_value(method).run()
        assert not at.exception
        assert any(plain(c) == line for c in at.caption), method
        keys = {w.key for w in at.number_input}
        assert ("train_tau" in keys) == (method == "picky")
        assert ("train_transition" in keys) == (method == "superbpe")


def test_picky_trains_in_the_worker_and_joins_the_session(open_page):
    at = open_page(TRAIN_PAGE)
    at.selectbox(key="train_method").set_value("picky").run()
    at.number_input(key="train_vocab_size").set_value(400).run()
    at.number_input(key="train_tau").set_value(0.8).run()
    train(at)
    t = training(at)
    assert t.outcome.ok and t.settings.kind == "method"
    name = t.outcome.added[0]
    tok = at.session_state["lab_tokenizers"][name]
    train_text, _ = split_held_out(SAMPLE)
    ref = methods.train("picky", [train_text], 400, tau=0.8, min_frequency=2)
    assert tok.merges == ref.merges and tok.removed == ref.removed
    assert any("Trained **picky**" in plain(s) for s in at.success)
    table = at.dataframe[0].value
    assert len(table) == len(ref.merges)
    assert (table["token"].str.endswith("(dropped)")).sum() == len(ref.removed)


def test_wordpiece_shows_pieces_instead_of_merges(open_page):
    at = open_page(TRAIN_PAGE)
    at.selectbox(key="train_method").set_value("wordpiece").run()
    at.number_input(key="train_vocab_size").set_value(400).run()
    train(at)
    assert training(at).outcome.ok
    assert any("has no merges" in plain(c) for c in at.caption)
    pieces = at.dataframe[0].value
    assert list(pieces.columns[:2]) == ["id", "piece"] and len(pieces) == 400
    assert {b.label for b in at.download_button} == {"Download tokenizer.json"}


def test_impossible_transition_gets_a_sentence(open_page):
    at = open_page(TRAIN_PAGE)
    at.selectbox(key="train_method").set_value("superbpe").run()
    at.number_input(key="train_vocab_size").set_value(512).run()
    at.number_input(key="train_transition").set_value(2048).run()
    at.button(key="train_submit").click().run()
    assert not at.exception and training(at) is None
    assert any("transition must be an int from 256 to vocab_size (512)" in plain(e)
               for e in at.error)
