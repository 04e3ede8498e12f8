"""Merge tree given what a hostile visitor sends: ids in a link that are not ASCII digits
or are too long, and tokenizers whose trees are huge or thousands deep."""
import pytest

from bpe import BasicTokenizer


def dot_of(at):
    charts = at.get("graphviz_chart")
    assert len(charts) == 1
    return charts[0].proto.spec


@pytest.mark.parametrize("token", ["²", "①", "9" * 5000, "-1", "1e3"])
def test_a_link_whose_token_is_not_an_id_says_so(open_page, token):
    at = open_page()
    at.query_params["token"] = token
    at.switch_page("pages/merge_tree.py").run()
    assert not at.exception
    assert any("is not a token id" in w.value for w in at.warning)
    assert dot_of(at).startswith("digraph")


def test_a_link_past_the_last_id_is_brought_back(open_page):
    at = open_page()
    at.query_params["token"] = "99999999"
    at.switch_page("pages/merge_tree.py").run()
    assert not at.exception
    assert any("no id 99,999,999" in w.value for w in at.warning)


def with_tok(at, tok, idx):
    at.session_state["lab_tokenizers"] = {"deep": tok}
    at.run()
    at.selectbox(key="tree_tokenizer").select("deep").run()
    at.radio(key="tree_how").set_value("By id").run()
    at.number_input(key="tree_id").set_value(idx).run()
    assert not at.exception
    return at


def test_a_doubled_token_is_drawn_in_part_and_shows_more_on_a_click(open_page):
    tok = BasicTokenizer()  # token 256 + i is "a" * 2^(i + 1): the top one 2^18 bytes
    tok.merges = {(97, 97): 256, **{(256 + i, 256 + i): 257 + i for i in range(17)}}
    tok._reset()
    at = with_tok(open_page("pages/merge_tree.py"), tok, 256 + 17)
    first = dot_of(at)
    assert "boxes not drawn" in first and first.count("label=") <= 255
    assert any("Drawn from the top" in c.value for c in at.caption)
    at.button(key="tree_more").click().run()
    assert not at.exception
    assert dot_of(at).count("label=") > first.count("label=")


def test_a_chain_3000_deep_draws_without_recursion(open_page):
    tok = BasicTokenizer()
    tok.merges = {(97, 98): 256, **{(256 + i, 97): 257 + i for i in range(2999)}}
    tok._reset()
    at = with_tok(open_page("pages/merge_tree.py"), tok, 256 + 2999)
    assert "boxes not drawn" in dot_of(at) and not at.error
