"""The Tokenize page in AppTest: the data it hands the token view (counts, ids, display
text), toggles, samples, special-token text, a 1 MB text, the size cap, and the state in
the URL. What the browser does with that data is in test_browser_tokenize.py."""
import json
import re

import pytest
from streamlit.testing.v1 import AppTest

from bpe import RegexTokenizer
from helpers.app import ROOT
from lab.token_view import unpack
from viz.samples import DEFAULT_SAMPLE, SAMPLES

PAGE = "pages/tokenize.py"
GPT4_NAME = "GPT-4 (cl100k_base)"


def view(at, key="tokenize_view"):
    """The data the page handed the token view with this key."""
    for element in at.get("bidi_component"):
        if element.proto.id.endswith("-" + key):
            return unpack(element.proto.bytes)
    raise AssertionError(f"no token view {key!r} on the page")


def figure(at, label):
    return next(f[1] for f in view(at)["summary"] if f[0] == label)


def view_ids(at, key="tokenize_view"):
    return [i for row in view(at, key)["rows"] for i in row["ids"]]


def shown(markdown):
    """What Markdown shows for text escaped with lab.safe.md."""
    return re.sub(r"\\(.)", r"\1", markdown)


def badges(at):
    return [m.value for m in at.markdown if "-badge[" in m.value]


def type_text(at, text):
    """What the view's text box does (debounced): its callback stores the text, then a
    run. Here the stored text is set directly; the browser tests type for real."""
    at.session_state["tokenize_text"] = text
    at.run()
    assert not at.exception


def test_default_view_is_the_sample_with_gpt4(open_page, gpt4):
    at = open_page(PAGE)
    assert not at.exception
    text = SAMPLES[DEFAULT_SAMPLE]
    data = view(at)
    assert data["editor"]["text"] == text
    assert at.selectbox(key="tokenize_tokenizer").value == GPT4_NAME
    ids = gpt4.encode(text)
    assert figure(at, "Tokens") == f"{len(ids):,}"
    assert figure(at, "Characters") == f"{len(text):,}"
    assert figure(at, "Bytes") == f"{len(text.encode()):,}"
    assert view_ids(at) == ids and data["lists"] is True
    assert "".join(data["rows"][0]["show"]) == text
    assert any("decode(encode(text)) == text" in b and "green" in b for b in badges(at))
    assert any("ids == tiktoken" in b and "green" in b for b in badges(at))


@pytest.mark.parametrize("text", [
    "Hello, tokenizer! 12345 tokens",
    "שלום עולם, مرحبا — RTL text",
    "zero\u200dwidth joiner 👨\u200d👩\u200d👧 and 🫠",
])
def test_counts_and_ids_match_gpt4_for_typed_text(open_page, gpt4, text):
    at = open_page(PAGE)
    type_text(at, text)
    ids = gpt4.encode(text)
    assert figure(at, "Tokens") == f"{len(ids):,}"
    assert view_ids(at) == ids
    assert view(at)["editor"]["text"] == text
    assert at.download_button(key="tokenize_download_ids")


def test_switching_tokenizer(open_page):
    at = open_page(PAGE)
    mine = RegexTokenizer().train("low lower lowest newer newest " * 30, 256 + 20)
    at.session_state["lab_tokenizers"] = {"mine": mine}
    at.run()
    at.selectbox(key="tokenize_tokenizer").set_value("mine").run()
    assert not at.exception
    text = SAMPLES[DEFAULT_SAMPLE]
    assert figure(at, "Tokens") == f"{len(mine.encode(text)):,}"
    assert view_ids(at) == mine.encode(text)
    assert not any("tiktoken" in b for b in badges(at))  # that badge is GPT-4's only
    # a session's tokenizer cannot travel in a link: the page says so and what to do
    assert any("only in this session" in c.value and "download" in c.value for c in at.caption)


def test_toggles_change_the_view(open_page):
    at = open_page(PAGE)
    type_text(at, "cat cat cat\tdog\n")
    shown = "".join(view(at)["rows"][0]["show"])
    assert "·" not in shown and shown == "cat cat cat\tdog\n"
    at.toggle(key="tokenize_markers").set_value(True).run()
    assert "".join(view(at)["rows"][0]["show"]) == "cat·cat·cat→dog↵\n"
    at.toggle(key="tokenize_gpt2").set_value(True).run()
    assert "".join(view(at)["rows"][0]["show"]) == "catĠcatĠcatĉdogĊ"
    assert view(at)["rows"][0]["color_by"] == "position"
    at.toggle(key="tokenize_by_id").set_value(True).run()
    assert view(at)["rows"][0]["color_by"] == "id"
    assert not at.exception


def test_picking_a_sample_loads_it_into_the_box(open_page, gpt4):
    at = open_page(PAGE)
    version = view(at)["editor"]["version"]
    at.pills(key="tokenize_sample").set_value("Korean").run()
    assert not at.exception
    editor = view(at)["editor"]
    assert editor["text"] == SAMPLES["Korean"] and editor["version"] > version
    assert figure(at, "Tokens") == f"{len(gpt4.encode(SAMPLES['Korean'])):,}"


def test_special_token_text_is_ordinary_unless_allowed(open_page):
    at = open_page(PAGE)
    type_text(at, "end of text: <|endoftext|>")
    assert any("endoftext" in i.value and "ordinary text" in i.value for i in at.info)
    assert 100257 not in view_ids(at)
    at.toggle(key="tokenize_specials").set_value(True).run()
    assert not at.exception
    assert 100257 in view_ids(at)
    assert any("ids == tiktoken" in b and "green" in b for b in badges(at))


def test_one_megabyte_counts_exactly_and_every_token_is_handed_over(open_page, gpt4):
    at = open_page(PAGE)
    text = ("Tokenizers cut text; 토큰 😉 2026-11-23.\n" * 40_000)[:1_000_000]
    type_text(at, text)
    ids = gpt4.encode(text)
    assert figure(at, "Tokens") == f"{len(ids):,}"
    assert figure(at, "Characters") == "1,000,000"
    assert view_ids(at) == ids  # the browser windows the drawing, not Python


def test_text_over_the_cap_points_to_the_cli(open_page, monkeypatch):
    at = open_page(PAGE)
    type_text(at, "x" * 5_000_001)
    assert any("python -m bpe encode" in e.value for e in at.error)
    assert view(at)["rows"] == []


def test_empty_text_shows_a_hint(open_page):
    at = open_page(PAGE)
    type_text(at, "")
    assert "Type or paste" in view(at)["editor"]["status"]
    assert view(at)["summary"] is None


def test_state_goes_into_the_url_and_back():
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
    at.query_params["text"] = "shared <link>"
    at.query_params["markers"] = "1"
    at.run()
    assert not at.exception
    assert view(at)["editor"]["text"] == "shared <link>"
    assert at.toggle(key="tokenize_markers").value is True
    assert at.toggle(key="tokenize_by_id").value is False
    at.toggle(key="tokenize_by_id").set_value(True).run()
    assert at.query_params.get("by_id") in ("1", ["1"])
    type_text(at, "x" * 100_001)
    assert "ztext" not in at.query_params  # too long for a link; the rest still is there
    assert "text" not in at.query_params
    assert at.query_params.get("markers") in ("1", ["1"])
    assert any("100,001 characters" in c.value and "pastes the text" in c.value
               for c in at.caption)  # and the page says so


def test_text_and_toggles_survive_a_visit_to_another_page(open_page):
    at = open_page(PAGE)
    type_text(at, "kept across pages")
    at.toggle(key="tokenize_markers").set_value(True).run()
    at.switch_page("pages/compare.py").run()
    at.switch_page(PAGE).run()
    assert not at.exception
    assert view(at)["editor"]["text"] == "kept across pages"
    assert at.toggle(key="tokenize_markers").value is True


def test_decode_ids(open_page, gpt4):
    at = open_page(PAGE)
    ids = gpt4.encode("hello <b>world</b> 👋")
    at.text_area(key="tokenize_decode").input(json.dumps(ids[:-1])).run()
    assert not at.exception and not at.error
    row = view(at, "tokenize_decoded")["rows"][0]
    assert row["ids"] == ids[:-1]
    assert row["show"][-1] == " \x01f0 9f 91\x02"  # 👋 cut short: its bytes in hex, no "�"
    assert bytes.fromhex(row["hex"]) == b"".join(gpt4.decode_tokens_bytes(ids[:-1]))
    at.text_area(key="tokenize_decode").input("15339 hello").run()
    assert "'hello' (item 2) is not a token id" in shown(at.error[0].value)
    at.text_area(key="tokenize_decode").input("15339 999999").run()
    assert not at.exception and "unknown token id 999999" in shown(at.error[0].value)


def test_a_text_of_too_many_tokens_is_counted_but_not_laid_out(open_page, monkeypatch, gpt4):
    """Issue 24: an NFKC tokenizer on 1M x U+FDFA made 18M characters of rows (gigabytes).
    Past VIEW_TOKEN_LIMIT tokens the page draws no row, says why, and still counts."""
    import viz.rows
    monkeypatch.setattr(viz.rows, "VIEW_TOKEN_LIMIT", 10)
    at = open_page(PAGE)
    type_text(at, "one two three four five six seven eight nine ten eleven twelve")
    data = view(at)
    assert data["rows"] == []
    assert "the view draws texts of up to 10 tokens" in data["note"]
    assert figure(at, "Tokens") == f"{len(gpt4.encode('one two three four five six seven eight nine ten eleven twelve')):,}"


def test_a_wordpiece_tokenizer_json_marks_its_unknown_tokens(open_page):
    """A BERT-style tokenizer.json (WordPiece, built by tokenizers' own trainer) shows its
    [UNK] tokens outlined with a note, and its ids are tokenizers' ids."""
    tokenizers = pytest.importorskip("tokenizers")
    from tokenizers import models, normalizers, pre_tokenizers, trainers

    import bpe
    from helpers.component_data import marked_ids, token_rows
    hf = tokenizers.Tokenizer(models.WordPiece(unk_token="[UNK]"))
    hf.normalizer = normalizers.BertNormalizer()
    hf.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    hf.train_from_iterator(["the cat sat on the mat, the cat ran"] * 30,
                           trainers.WordPieceTrainer(vocab_size=60, special_tokens=["[UNK]"]))
    tok = bpe.load_bytes(hf.to_str().encode(), "bert.json")
    at = open_page(PAGE)
    at.session_state["lab_tokenizers"] = {"bert": tok}
    at.run()
    at.selectbox(key="tokenize_tokenizer").set_value("bert").run()
    text = "the cat sat on a zebra"  # z is in no piece: [UNK]
    at.session_state["tokenize_text"] = text
    at.run()
    assert not at.exception
    unk = hf.token_to_id("[UNK]")
    assert view_ids(at) == hf.encode(text).ids and unk in view_ids(at)
    row = token_rows(at, "tokenize_view")[0]
    assert marked_ids(row, "outline") and all(unk in ids for ids in marked_ids(row, "outline"))
    assert any("unknown token" in note for note in row["notes"].values())


def typed(open_page, text, *, drawn):
    """Tokenize run as the box's typing of text, which the browser drew itself or not."""
    at = open_page(PAGE)
    at.session_state["tokenize_text"] = text
    at.session_state["tokenize_text_typed"] = True
    at.session_state["tokenize_text_drawn"] = drawn
    return at.run()


def test_typing_the_browser_drew_gets_pythons_ids_only(open_page, gpt4):
    """The box said the browser drew the typed text itself: the page sends Python's ids to
    check, and no row (the server's share of a key press); a run the box did not start
    (here a toggle) sends the full row again."""
    text = "The browser drew these tokens; Python checks them."
    at = typed(open_page, text, drawn=True)
    assert not at.exception
    data = view(at)
    assert data["rows"] == [{"ids": gpt4.encode(text), "ids_only": True}]
    assert data["editor"]["text"] is None  # the box holds the text
    at.toggle(key="tokenize_markers").set_value(True).run()
    row = view(at)["rows"][0]
    assert "ids_only" not in row and row["ids"] == gpt4.encode(text) and row["show"]


def test_typing_the_browser_did_not_draw_gets_the_row(open_page, gpt4):
    text = "The browser could not draw these."
    at = typed(open_page, text, drawn=False)
    row = view(at)["rows"][0]
    assert "ids_only" not in row and row["ids"] == gpt4.encode(text) and row["show"]


def test_the_hover_card_gets_a_wordpiece_vocabularys_own_strings(open_page, gpt4):
    """A WordPiece tokenizer.json's row carries each token as its vocabulary writes it
    ("##t" where the box shows "t"); GPT-4's ranks write tokens as bytes: no pieces."""
    tokenizers = pytest.importorskip("tokenizers")
    from tokenizers import models, pre_tokenizers, trainers

    import bpe
    from helpers.component_data import token_rows
    hf = tokenizers.Tokenizer(models.WordPiece(unk_token="[UNK]"))
    hf.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    hf.train_from_iterator(["the cat sat on the mat, the cat ran"] * 30,
                           trainers.WordPieceTrainer(vocab_size=60, special_tokens=["[UNK]"]))
    at = open_page(PAGE)
    at.session_state["tokenize_text"] = "the rat sat"
    at.run()
    assert "pieces" not in token_rows(at, "tokenize_view")[0]
    at.session_state["lab_tokenizers"] = {"bert": bpe.load_bytes(hf.to_str().encode(), "b.json")}
    at.run()
    at.selectbox(key="tokenize_tokenizer").set_value("bert").run()
    assert not at.exception
    row = token_rows(at, "tokenize_view")[0]
    want = hf.encode("the rat sat")
    assert row["ids"] == want.ids
    assert row["pieces"] == want.tokens and any(p.startswith("##") for p in row["pieces"])


def test_the_roundtrip_badge_leaves_a_post_processors_ids_out(open_page):
    """A Llama 2 style tokenizer.json puts <s> before the text's ids (its post-processor);
    <s> stands for no text of the box, so decode(encode(text)) is checked without it and
    the badge says so. It was red on every such file (and every Llama GGUF)."""
    pytest.importorskip("tokenizers")
    import bpe
    from helpers.hf_families import bpe_byte_fallback
    tok = bpe.load_bytes(bpe_byte_fallback().to_str().encode(), "llama2-like.json")
    text = "the cat sat on the mat"
    assert tok.encode(text)[0] == 1 and tok.decode(tok.encode(text)) != text
    at = open_page(PAGE)
    at.session_state["lab_tokenizers"] = {"llama2-like": tok}
    at.run()
    at.selectbox(key="tokenize_tokenizer").set_value("llama2-like").run()
    type_text(at, text)
    roundtrip = [b for b in badges(at) if "decode(encode(text))" in b]
    assert roundtrip and "decode(encode(text)) == text (the post-processor's <s> left out)" \
        in shown(roundtrip[0]), roundtrip
