"""The Token-budget chunker page in AppTest: the pieces, numbers and views match viz.token_budget."""
from bpe import RegexTokenizer
from helpers.component_data import token_rows
from viz.token_budget import chunk_text, summary

PAGE = "pages/token_budget.py"


def metrics(at):
    return {m.label: m.value for m in at.metric}


def shown_ids(at):
    (row,) = token_rows(at, "budget_view")
    return row["ids"]


def test_default_cuts_the_sample_with_gpt4(open_page, gpt4):
    at = open_page(PAGE)
    assert not at.exception
    text = at.text_area(key="budget_text").value
    pieces = chunk_text(gpt4, text, 256, prefer="sentences")
    numbers = summary(pieces)
    assert metrics(at) == {"Pieces": f"{numbers['pieces']:,}",
                           "Largest piece": f"{numbers['largest']:,} tokens",
                           "Tokens in all": f"{numbers['tokens']:,}"}
    frame = at.dataframe[0].value
    assert list(frame["tokens"]) == [p.n_tokens for p in pieces]
    assert list(frame["ends at"]) == [p.cut for p in pieces]
    assert shown_ids(at) == gpt4.encode(pieces[0].text)


def test_budget_preference_and_piece_viewer(open_page, gpt4):
    at = open_page(PAGE)
    at.number_input(key="budget_max_tokens").set_value(40)
    at.session_state["budget_prefer"] = "lines"
    at.run()
    assert not at.exception
    text = at.text_area(key="budget_text").value
    pieces = chunk_text(gpt4, text, 40, prefer="lines")
    frame = at.dataframe[0].value
    assert list(frame["tokens"]) == [p.n_tokens for p in pieces]
    assert max(frame["tokens"]) <= 40
    assert metrics(at)["Pieces"] == f"{len(pieces):,}"
    at.number_input(key="budget_show").set_value(3).run()
    assert shown_ids(at) == gpt4.encode(pieces[2].text)


def test_a_trained_tokenizer_and_typed_text(open_page):
    tok = RegexTokenizer().train("the cat sat on the mat. " * 50, 256 + 20)
    at = open_page(PAGE)
    at.session_state["lab_tokenizers"] = {"mine": tok}
    at.run()
    at.selectbox(key="budget_tokenizer").set_value("mine")
    at.text_area(key="budget_text").set_value("the cat sat on the mat. " * 30)
    at.number_input(key="budget_max_tokens").set_value(25)
    at.run()
    assert not at.exception
    pieces = chunk_text(tok, "the cat sat on the mat. " * 30, 25, prefer="sentences")
    assert list(at.dataframe[0].value["tokens"]) == [p.n_tokens for p in pieces]
    assert all(cut == "sentence" for cut in list(at.dataframe[0].value["ends at"])[:-1])


def test_impossible_budget_is_an_error_not_a_traceback(open_page):
    at = open_page(PAGE)
    at.text_area(key="budget_text").set_value("melting 🫠 face")
    at.number_input(key="budget_max_tokens").set_value(2)
    at.session_state["budget_prefer"] = "tokens"
    at.run()
    assert not at.exception
    assert "raise the budget" in at.error[0].value
    assert not at.metric


def test_empty_text_shows_a_hint(open_page):
    at = open_page(PAGE)
    at.text_area(key="budget_text").set_value("").run()
    assert not at.exception
    assert "Type or upload a text" in at.info[0].value
