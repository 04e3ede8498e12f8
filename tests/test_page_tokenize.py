"""The Tokenize page in AppTest: counts, ids, colored view, toggles, samples, escaping,
special-token text, a 1 MB text, and the state in the URL."""
import html
import json
import re

import pytest
from streamlit.testing.v1 import AppTest

from bpe import RegexTokenizer
from conftest import ROOT
from viz.samples import DEFAULT_SAMPLE, SAMPLES

PAGE = "pages/tokenize.py"
GPT4_NAME = "GPT-4 (cl100k_base)"


def metric(at, label):
    return next(m.value for m in at.metric if m.label == label)


def view_html(at):
    """The colored view: the st.html element that carries the token spans."""
    return next(h.value for h in at.html if 'class="tokens"' in h.value)


def view_ids(at):
    return [int(i) for ids in re.findall(r'data-ids="([^"]*)"', view_html(at)) for i in ids.split()]


def badges(at):
    return [m.value for m in at.markdown if "-badge[" in m.value]


def type_text(at, text):
    at.text_area(key="tokenize_text").input(text).run()
    assert not at.exception


def test_default_view_is_the_sample_with_gpt4(open_page, gpt4):
    at = open_page(PAGE)
    assert not at.exception
    text = SAMPLES[DEFAULT_SAMPLE]
    assert at.text_area(key="tokenize_text").value == text
    assert at.selectbox(key="tokenize_tokenizer").value == GPT4_NAME
    ids = gpt4.encode(text)
    assert metric(at, "Tokens") == f"{len(ids):,}"
    assert metric(at, "Characters") == f"{len(text):,}"
    assert metric(at, "Bytes") == f"{len(text.encode()):,}"
    assert view_ids(at) == ids
    assert any("decode(encode(text)) == text" in b and "green" in b for b in badges(at))
    assert any("ids == tiktoken's" in b and "green" in b for b in badges(at))


@pytest.mark.parametrize("text", [
    "Hello, tokenizer! 12345 tokens",
    "שלום עולם, مرحبا — RTL text",
    "zero\u200dwidth joiner 👨\u200d👩\u200d👧 and 🫠",
])
def test_tokens_metric_and_ids_match_gpt4_for_typed_text(open_page, gpt4, text):
    at = open_page(PAGE)
    type_text(at, text)
    ids = gpt4.encode(text)
    assert metric(at, "Tokens") == f"{len(ids):,}"
    assert view_ids(at) == ids
    assert json.loads(at.code[0].value) == ids
    table = at.dataframe[0].value
    assert list(table["id"]) == ids


def test_html_in_the_text_is_escaped(open_page):
    at = open_page(PAGE)
    type_text(at, '<script>alert(1)</script><b onclick="x">bold</b>')
    body = view_html(at)
    assert "<script" not in body and "<b " not in body and "<b>" not in body
    pieces = re.findall(r'<span class="tok"[^>]*>([^<]*)</span>', body)
    assert "&lt;" in "".join(pieces)
    assert html.unescape("".join(pieces)) == '<script>alert(1)</script><b onclick="x">bold</b>'


def test_switching_tokenizer(open_page):
    at = open_page(PAGE)
    mine = RegexTokenizer().train("low lower lowest newer newest " * 30, 256 + 20)
    at.session_state["lab_tokenizers"] = {"mine": mine}
    at.run()
    at.selectbox(key="tokenize_tokenizer").set_value("mine").run()
    assert not at.exception
    text = SAMPLES[DEFAULT_SAMPLE]
    assert metric(at, "Tokens") == f"{len(mine.encode(text)):,}"
    assert view_ids(at) == mine.encode(text)
    assert not any("tiktoken" in b for b in badges(at))  # that badge is GPT-4's only


def test_toggles_change_the_view(open_page):
    at = open_page(PAGE)
    type_text(at, "cat cat cat\tdog\n")
    assert "·" not in view_html(at)
    at.toggle(key="tokenize_markers").set_value(True).run()
    assert '<span class="ws">·</span>' in view_html(at) and "→" in view_html(at)
    at.toggle(key="tokenize_gpt2").set_value(True).run()
    assert "Ġ" in view_html(at) and "·" not in view_html(at)
    at.toggle(key="tokenize_by_id").set_value(True).run()
    colors = re.findall(r'data-ids="(\d+)"[^>]*style="background:(#[0-9a-f]+)', view_html(at))
    by_ids = {}
    for ids, color in colors:
        assert by_ids.setdefault(ids, color) == color  # same token, same color
    assert not at.exception


def test_picking_a_sample_loads_it(open_page, gpt4):
    at = open_page(PAGE)
    at.pills(key="tokenize_sample").set_value("Korean").run()
    assert not at.exception
    assert at.text_area(key="tokenize_text").value == SAMPLES["Korean"]
    assert metric(at, "Tokens") == f"{len(gpt4.encode(SAMPLES['Korean'])):,}"


def test_special_token_text_is_ordinary_unless_allowed(open_page):
    at = open_page(PAGE)
    type_text(at, "end of text: <|endoftext|>")
    assert any("<|endoftext|>" in i.value for i in at.info)
    assert 100257 not in json.loads(at.code[0].value)
    at.toggle(key="tokenize_specials").set_value(True).run()
    assert not at.exception
    assert 100257 in json.loads(at.code[0].value)
    assert any("ids == tiktoken's" in b and "green" in b for b in badges(at))


def test_one_megabyte_counts_exactly_and_caps_the_view(open_page, gpt4):
    at = open_page(PAGE)
    text = ("Tokenizers cut text; 토큰 😉 2026-11-23.\n" * 40_000)[:1_000_000]
    type_text(at, text)
    assert metric(at, "Tokens") == f"{len(gpt4.encode(text)):,}"
    assert metric(at, "Characters") == "1,000,000"
    assert any(w.value.startswith("Showing the first") for w in at.warning)
    assert len(re.findall(r'class="tok"', view_html(at))) < 10_000
    assert any("first 5,000 of" in c.value for c in at.caption)  # the table says it is capped


def test_empty_text_shows_a_hint(open_page):
    at = open_page(PAGE)
    type_text(at, "")
    assert any("Type or paste" in i.value for i in at.info)
    assert not at.metric


def test_state_goes_into_the_url_and_back():
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
    at.query_params["text"] = "shared <link>"
    at.query_params["markers"] = "1"
    at.run()
    assert not at.exception
    assert at.text_area(key="tokenize_text").value == "shared <link>"
    assert at.toggle(key="tokenize_markers").value is True
    assert at.toggle(key="tokenize_by_id").value is False
    at.toggle(key="tokenize_by_id").set_value(True).run()
    assert at.query_params.get("by_id") in ("1", ["1"])
    at.text_area(key="tokenize_text").input("x" * 1001).run()
    assert "text" not in at.query_params  # too long for a link; the rest still is there
    assert at.query_params.get("markers") in ("1", ["1"])


def test_text_and_toggles_survive_a_visit_to_another_page(open_page):
    at = open_page(PAGE)
    type_text(at, "kept across pages")
    at.toggle(key="tokenize_markers").set_value(True).run()
    at.switch_page("pages/compare.py").run()
    at.switch_page(PAGE).run()
    assert not at.exception
    assert at.text_area(key="tokenize_text").value == "kept across pages"
    assert at.toggle(key="tokenize_markers").value is True


def test_decode_ids_tab(open_page, gpt4):
    at = open_page(PAGE)
    ids = gpt4.encode("hello <b>world</b>")
    at.text_area(key="tokenize_decode").input(json.dumps(ids)).run()
    assert not at.exception and not at.error
    shown = [int(i) for h in at.get("html") for group in re.findall(r'data-ids="([^"]*)"',
                                                                    h.proto.body)
             for i in group.split()]
    assert shown[-len(ids):] == ids  # the decode view is the last colored view
    assert "<b>world" not in at.get("html")[-1].proto.body  # escaped
    at.text_area(key="tokenize_decode").input("15339 hello").run()
    assert "'hello' (item 2) is not a token id" in at.error[0].value
    at.text_area(key="tokenize_decode").input("15339 999999").run()
    assert not at.exception and "unknown token id 999999" in at.error[0].value
