"""The Methods page in AppTest: two or more methods trained side by side in the worker,
then the report card, the aligned view of any two and the blame table whose charges add
up to the token difference; bad settings get sentences, never a traceback.

AppTest cannot wait for the page's polling fragment, so a test waits on the job
(helpers.apptest.finish), then reruns the page, as the fragment's timer would.
"""
from bpe.methods.blame import blame
from helpers.apptest import finish, plain, training
from viz import methods as vm

PAGE = "pages/methods.py"


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
