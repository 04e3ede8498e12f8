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
    assert at.text_area(key="compare_text").value == text
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
    assert at.text_area(key="compare_text").value == SAMPLES[DEFAULT_SAMPLE]


def test_the_compare_page_writes_its_state_into_the_link(open_page):
    at = open_page("pages/compare.py")
    at.text_area(key="compare_text").input("written into the link").run()
    assert unpack_text(at.query_params["ztext"][0] if isinstance(at.query_params["ztext"], list)
                       else at.query_params["ztext"]) == "written into the link"
    assert at.query_params.get("a") in (GPT4, [GPT4])
