"""The Compare page in AppTest: the empty state and its one-click pair, two tokenizers
compared on typed text and on a sample, the numbers, the views and the domain table."""
import pytest

from bpe import BasicTokenizer, RegexTokenizer
from helpers.component_data import token_view_data
from lab.safe import md
from viz.compare import compare
from viz.samples import DEFAULT_SAMPLE, SAMPLES

PAGE = "pages/compare.py"
GPT4_NAME = "GPT-4 (cl100k_base)"
CORPUS = "the year 2026 had 365 days, and the days had 24 hours. " * 40


@pytest.fixture(scope="module")
def pair():
    return {"regex": RegexTokenizer().train(CORPUS, 256 + 60),
            "basic": BasicTokenizer().train(CORPUS, 256 + 60)}


def metric(at, label):
    return next(m.value for m in at.metric if m.label == label)


def views(at):
    """The ids of A's tokens and of B's tokens, as the aligned view draws them."""
    pair = token_view_data(at, "compare_view")["pair"]
    return [pair["a"]["ids"], pair["b"]["ids"]]


def with_pair(open_page, pair):
    at = open_page(PAGE)
    at.session_state["lab_tokenizers"] = dict(pair)
    at.run()
    return at


def test_only_gpt4_shows_the_empty_state(open_page, monkeypatch):
    from lab import state
    monkeypatch.setattr(state, "reference_names", lambda: [GPT4_NAME])  # no GPT-4o here
    at = open_page(PAGE)
    assert not at.exception
    assert any("second tokenizer" in i.value and "Train" in i.value for i in at.info)
    assert at.button(key="compare_quick_train")
    assert not at.metric


def test_without_own_tokenizers_the_references_are_compared(open_page):
    from lab import state
    at = open_page(PAGE)
    assert not at.exception
    assert at.button(key="compare_quick_train")  # the one-click pair is offered
    names = state.reference_names()
    assert "GPT-4o (o200k_base)" in names  # make test installs every vocabulary package
    assert at.selectbox(key="compare_b").value == "GPT-4o (o200k_base)"  # GPT-4 against 4o
    assert metric(at, "Tokens A") == f"{len(state.gpt4().encode(SAMPLES[DEFAULT_SAMPLE])):,}"


def test_one_click_trains_regex_and_basic_and_compares_them(open_page):
    at = open_page(PAGE)
    at.button(key="compare_quick_train").click().run()
    assert not at.exception
    # the pair trains in the worker: its progress panel (with Cancel) replaces the button
    pair_training = at.session_state["lab_trainings"]["compare_quick_pair"]
    if pair_training.running:
        keys = [b.key for b in at.button]
        assert "compare_quick_pair_cancel" in keys and "compare_quick_train" not in keys
        assert pair_training.job.wait(120)
        at.run()  # as the panel's timer would: app.py collects the pair and picks it
        assert not at.exception, at.exception
    assert not pair_training.running and pair_training.outcome.ok
    a, b = at.selectbox(key="compare_a").value, at.selectbox(key="compare_b").value
    assert a.startswith("Regex 512") and b.startswith("Basic 512")
    tok_a, tok_b = at.session_state["lab_tokenizers"][a], at.session_state["lab_tokenizers"][b]
    assert isinstance(tok_a, RegexTokenizer) and type(tok_b) is BasicTokenizer
    assert len(tok_a.merges) == len(tok_b.merges) == 512 - 256
    expected = compare(tok_a, tok_b, SAMPLES[DEFAULT_SAMPLE]).stats
    assert metric(at, "Tokens A") == f"{expected['tokens_a']:,}"
    assert metric(at, "Tokens B") == f"{expected['tokens_b']:,}"
    # the regex split keeps categories apart; Basic's merges cross them
    assert metric(at, "Cross a category (B)") != "0"


def test_compare_two_tokenizers_on_typed_text(open_page, pair):
    at = with_pair(open_page, pair)
    at.selectbox(key="compare_a").set_value("regex")
    at.selectbox(key="compare_b").set_value("basic")
    text = "In 2026 the days had 24 hours; the year had 365 days."
    at.session_state["compare_text"] = text  # what the live box sends
    at.run()
    assert not at.exception
    expected = compare(pair["regex"], pair["basic"], text).stats
    assert metric(at, "Tokens A") == f"{expected['tokens_a']:,}"
    assert metric(at, "Tokens B") == f"{expected['tokens_b']:,}"
    assert metric(at, "Boundaries shared") == f"{expected['shared_pct']:.1f}%"
    assert metric(at, "Cross a category (A)") == f"{expected['cross_a']:,}"
    assert metric(at, "Cross a category (B)") == f"{expected['cross_b']:,}"
    assert expected["cross_a"] == 0 < expected["cross_b"]
    assert views(at) == [pair["regex"].encode(text), pair["basic"].encode(text)]
    # one aligned view: the text once, in pieces, each knowing its span of A and of B
    pieces = token_view_data(at, "compare_view")["pair"]["pieces"]
    assert "".join(pieces["show"]) == text.replace(" ", "·")
    assert pieces["sa"][-1] + 1 <= expected["tokens_a"] and max(pieces["sb"]) > 0
    assert expected["only_a"] + expected["only_b"] > 0

def test_default_is_gpt4_against_the_latest_and_the_domain_table(open_page, pair, gpt4):
    at = with_pair(open_page, pair)
    assert at.selectbox(key="compare_a").value == GPT4_NAME
    assert at.selectbox(key="compare_b").value == "basic"  # the most recently added
    at.pills(key="compare_sample").set_value("Python code").run()
    assert not at.exception
    code = SAMPLES["Python code"]
    assert views(at) == [gpt4.encode(code), pair["basic"].encode(code)]
    table = at.dataframe[0].value
    assert list(table.columns) == [GPT4_NAME, "basic"]
    assert "prose" in table.index and "Korean" in table.index
    assert all("▼" in cell for cell in table["basic"])  # 60 merges lose to GPT-4 everywhere


def test_same_tokenizer_twice_says_so(open_page, pair):
    at = with_pair(open_page, pair)
    at.selectbox(key="compare_b").set_value(GPT4_NAME).run()
    assert not at.exception
    assert any("same tokenizer" in i.value for i in at.info)
    assert metric(at, "Boundaries shared") == "100.0%"


def test_special_token_text_is_compared_as_plain_text(open_page, pair, gpt4):
    at = with_pair(open_page, pair)
    text = "before <|endoftext|> after"
    at.session_state["compare_text"] = text  # what the live box sends
    at.run()
    assert not at.exception
    assert any(md("<|endoftext|>") in c.value for c in at.caption)  # escaped, shown as typed
    assert views(at)[0] == gpt4.encode(text, allowed_special="none")


def test_a_hostile_tokenizer_name_is_shown_as_inert_code(open_page, pair):
    from lab.safe import code
    hostile = "**b** ![i](http://127.0.0.1:1/x)"
    at = open_page(PAGE)
    at.session_state["lab_tokenizers"] = {hostile: pair["regex"]}
    at.run()
    assert not at.exception
    assert at.selectbox(key="compare_b").value == hostile
    (line,) = [m.value for m in at.markdown if m.value.startswith("**A**")]
    assert code(hostile) in line and line.count("![") == 1  # only inside the code span
