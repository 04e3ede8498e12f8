"""lab/share.py: page state in links. Texts travel compressed up to 100,000 characters;
what a link held that did not come is said, never silently replaced by the default."""
import pytest

from lab.share import MAX_TEXT, SESSION_MARK, pack_text, unpack_text
from viz.samples import DEFAULT_SAMPLE, SAMPLES

GPT4 = "GPT-4 (cl100k_base)"
GPT4O = "GPT-4o (o200k_base)"


def test_a_64_kb_text_goes_into_a_link_and_back():
    text = "".join(SAMPLES.values()) * 40
    text = text[:65_536]
    packed = pack_text(text)
    assert set(packed) <= set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
    assert unpack_text(packed) == text


@pytest.mark.parametrize("value", ["@@@", pack_text("x")[:-3] + "AAA", "eJw"])
def test_a_damaged_text_is_refused(value):
    with pytest.raises(ValueError):
        unpack_text(value)


def test_a_link_that_unpacks_to_too_much_is_refused():
    with pytest.raises(ValueError, match="more than a link"):
        unpack_text(pack_text("a" * (4 * MAX_TEXT + 10)))


def page_with_link(page, **params):
    """AppTest of the whole app opened on page with a link's params (a list: repeated)."""
    from helpers.app import ROOT
    from streamlit.testing.v1 import AppTest
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
    for k, v in params.items():
        at.query_params[k] = v
    at.switch_page(page)
    at.run()
    assert not at.exception
    return at


def compare_page(open_page, **params):
    from helpers.app import ROOT
    from streamlit.testing.v1 import AppTest
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
    for k, v in params.items():
        at.query_params[k] = v
    at.switch_page("pages/compare.py")  # the link opens Compare itself
    at.run()
    assert not at.exception
    return at


def test_compares_text_and_picks_come_from_its_link(open_page):
    text = "Shared by link: 👍🏽 " * 500  # 10,000 characters
    at = compare_page(open_page, ztext=pack_text(text), a=GPT4O, b=GPT4)
    assert at.session_state["compare_text"] == text
    assert at.selectbox(key="compare_a").value == GPT4O
    assert at.selectbox(key="compare_b").value == GPT4
    assert not at.warning


def test_a_tokenizer_trained_elsewhere_is_named_not_replaced_silently(open_page):
    at = compare_page(open_page, a=SESSION_MARK + "my shakespeare", b="No Such Tokenizer")
    said = " ".join(w.value for w in at.warning)
    assert "my shakespeare" in said and "sender's own session" in said
    assert "No Such Tokenizer" in said and "no tokenizer this lab has" in said


def test_a_damaged_text_is_named_and_the_default_shown(open_page):
    at = compare_page(open_page, ztext="@@@")
    assert "the text did not come" in " ".join(w.value for w in at.warning)
    assert at.session_state["compare_text"] == SAMPLES[DEFAULT_SAMPLE]


def test_the_compare_page_writes_its_state_into_the_link(open_page):
    at = open_page("pages/compare.py")
    at.session_state["compare_text"] = "written into the link"  # what the live box sends
    at.run()
    assert unpack_text(at.query_params["ztext"][0] if isinstance(at.query_params["ztext"], list)
                       else at.query_params["ztext"]) == "written into the link"
    assert at.query_params.get("a") in (GPT4, [GPT4])


def _param(at, name):
    value = at.query_params.get(name)
    return value[0] if isinstance(value, list) and len(value) == 1 else value


def test_arenas_picks_text_and_chat_travel_in_its_link():
    at = page_with_link("pages/arena.py", picks=[GPT4O, "Llama 3"],
                        ztext=pack_text("arena by link"), n="2", r2="assistant",
                        zm2=pack_text("linked answer"))
    assert at.multiselect(key="arena_picks").value == [GPT4O, "Llama 3"]
    assert at.session_state["arena_text"] == "arena by link"
    assert at.session_state["arena_chat_n"] == 2
    assert at.session_state["arena_role_1"] == "assistant"
    assert at.session_state["arena_content_1"] == "linked answer"
    assert not at.warning
    # and the page writes what it shows back into its URL
    assert at.query_params["picks"] == [GPT4O, "Llama 3"]
    assert unpack_text(_param(at, "ztext")) == "arena by link"


def test_arenas_link_says_what_did_not_come():
    at = page_with_link("pages/arena.py", picks=[GPT4, "Nope", SESSION_MARK + "mine"],
                        n="99", r1="wizard", sample="No such sample")
    said = " ".join(w.value for w in at.warning)
    assert "Nope" in said and "mine" in said and "sender's own session" in said
    assert "99" in said and "wizard" in said and "No such sample" in said
    assert at.multiselect(key="arena_picks").value == [GPT4]


def test_vocabularys_search_and_token_travel_in_its_link():
    at = page_with_link("pages/vocabulary.py", tokenizer=GPT4O, q="ing", mode="regex",
                        sort="length", desc="1", partial="1", id="1000")
    assert at.selectbox(key="vocab_tokenizer").value == GPT4O
    assert at.text_input(key="vocab_query").value == "ing"
    assert at.radio(key="vocab_mode").value == "regex"
    assert at.selectbox(key="vocab_sort").value == "length"
    assert at.toggle(key="vocab_desc").value is True
    assert at.checkbox(key="vocab_partial").value is True
    assert at.number_input(key="vocab_id").value == 1000
    assert not at.warning


def test_vocabularys_link_refuses_what_it_cannot_take_and_says_so():
    at = page_with_link("pages/vocabulary.py", mode="glob", sort="color", id="²",
                        tokenizer="Nope")
    said = " ".join(w.value for w in at.warning)
    assert "glob" in said and "color" in said and "Nope" in said and "²" in said
    assert at.radio(key="vocab_mode").value == "substring"
    at2 = page_with_link("pages/vocabulary.py", id="999999999")
    assert "999,999,999" in " ".join(w.value for w in at2.warning)
    assert not at2.exception
