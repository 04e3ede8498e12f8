"""Every page, walked in AppTest with a Markdown-shaped tokenizer name in the session (the
newest one, so every picker that follows new tokenizers picks it): no element's Markdown
or tooltip (body, help, label, caption...) holds the name's image, link or bold unescaped.
The regression: Evaluate's column help drew the name as an image the browser fetched.
The same walk with a vocabulary whose pieces are that Markdown, and the uploads that take a
file named so (Evaluate, Token budget, Train; a text file and one that is refused)."""
import json
import re
from pathlib import Path

import pytest

from bpe import RegexTokenizer
from viz.samples import DEFAULT_SAMPLE

ROOT = Path(__file__).resolve().parents[2]
NAME = "![x](http://127.0.0.1:9/x.png) **b** [l](http://127.0.0.1:9/l)"
# the name's Markdown, unescaped: an image, a link, bold
RAW = re.compile(r"(?<!\\)!(?<!\\)\[x\]|(?<!\\)\[l\]\(|(?<!\\)\*\*b")
# proto fields that hold data, not Markdown (widget values, options, ids, arrow bytes)
DATA_FIELDS = {"value", "default", "options", "id", "form_id", "key", "data", "url",
               "raw_values", "formatted_value", "arrow_data", "spec", "json_args",
               "query_string", "page_script_hash", "pandas_data", "component_name", "raw_value"}
# elements that show their text as it is, never as Markdown
PLAIN = {"Text", "Code", "Json", "TextArea", "TextInput"}
# inline code (lab.safe.code) shows its text literally: not Markdown
CODE_SPAN = re.compile(r"(?<!`)(`+)(?!`).*?(?<!`)\1(?!`)", re.DOTALL)
# a page that shows the name in more places when it is picked somewhere else too: Evaluate
# names each reference in its columns' help (where the image was fetched)
EXTRA = {"evaluate.py": {"evaluate_refs": [NAME]}}
PAGES = sorted(p.name for p in (ROOT / "pages").glob("*.py"))


def strings(message, path=""):
    """(field path, text) for every str field of a protobuf message, data fields left out."""
    for field, value in message.ListFields():
        if field.name in DATA_FIELDS:
            continue
        values = value if isinstance(value, (list, tuple)) or hasattr(value, "extend") \
            else [value]
        for v in values:
            if isinstance(v, str) and field.name == "columns":  # a dataframe's column config
                # (JSON): a column's label is plain text, its help a Markdown tooltip
                for column, config in json.loads(v or "{}").items():
                    yield f"{path}.columns[{column[:20]}].help", (config or {}).get("help") or ""
            elif isinstance(v, str):
                yield f"{path}.{field.name}", v
            elif hasattr(v, "ListFields"):
                yield from strings(v, f"{path}.{field.name}")


def tree_strings(node):
    proto = getattr(node, "proto", None)
    if type(node).__name__ in PLAIN:
        proto = None
    if proto is not None and hasattr(proto, "ListFields"):
        yield from strings(proto, type(node).__name__)
    for child in getattr(node, "children", {}).values():
        yield from tree_strings(child)


@pytest.fixture(scope="module")
def tok():
    return RegexTokenizer("gpt4").train("the days had 24 hours. Tokens! " * 40, 256 + 20)


@pytest.mark.slow
@pytest.mark.parametrize("page", PAGES)
def test_no_page_draws_a_name_as_markdown(page, tok, open_page):
    at = open_page()
    at.session_state["lab_tokenizers"] = {NAME: tok}
    if page in EXTRA:
        for key, value in EXTRA[page].items():
            at.session_state[key] = value
    else:
        at.session_state["lab_newest_tokenizer"] = (1, NAME)
    at.switch_page(f"pages/{page}")
    at.run()
    found = [(where, text[:200]) for root in (at.main, at.sidebar)
             for where, text in tree_strings(root)
             if RAW.search(CODE_SPAN.sub("", text))]
    assert not found, found


def option_strings(node):
    """The options of pills, segmented controls and radios, which Streamlit draws as
    Markdown (a selectbox's are plain text)."""
    proto = getattr(node, "proto", None)
    if type(node).__name__ in ("ButtonGroup", "Radio"):
        for option in proto.options:
            yield f"{type(node).__name__}.options", getattr(option, "content", option)
    for child in getattr(node, "children", {}).values():
        yield from option_strings(child)


def found_raw(at):
    """(element field, text) of every string on the page that holds the name's Markdown,
    options drawn as Markdown included."""
    return [(where, text[:200]) for root in (at.main, at.sidebar)
            for where, text in (*tree_strings(root), *option_strings(root))
            if RAW.search(CODE_SPAN.sub("", text))]


# ---------------------------------------------------------------- a piece shaped like Markdown
# no split pattern, so a whole "![x](…) **b** [l](…)" becomes one token, and the pages'
# texts are made of it: every token, pair, merge and chunk a page shows is a piece of it
PIECE_TEXT = NAME + " "
TEXT_KEYS = ("vocab", "replay", "chunks")  # the pages with a sample text box (widgets.sample_text)


@pytest.fixture(scope="module")
def piece_tok():
    from bpe import BasicTokenizer
    tok = BasicTokenizer().train(PIECE_TEXT * 60, 256 + 120)
    assert any(RAW.search(piece.decode("utf-8", "replace")) for piece in tok.vocab.values())
    return tok


@pytest.mark.slow
@pytest.mark.parametrize("page", PAGES)
def test_no_page_draws_a_piece_as_markdown(page, piece_tok, open_page):
    at = open_page()
    at.session_state["lab_tokenizers"] = {"pieces": piece_tok}
    at.session_state["lab_newest_tokenizer"] = (1, "pieces")
    for prefix in TEXT_KEYS:
        at.session_state[f"{prefix}_text_sample"] = DEFAULT_SAMPLE
        at.session_state[f"{prefix}_text"] = PIECE_TEXT * 3
    at.session_state["vocab_id"] = max(piece_tok.vocab)  # the longest piece, in detail
    at.session_state["tree_sample"] = PIECE_TEXT  # Merge tree: its tokens as pills
    at.switch_page(f"pages/{page}")
    at.run()
    assert not at.exception
    assert not found_raw(at), found_raw(at)


# ---------------------------------------------------------------- a file name shaped like Markdown
# (page, first byte of the file) where a message or caption names the file; elsewhere it
# is a row label of a table (data, not Markdown) or not shown
ECHOED = {("token_budget.py", b"h"), ("token_budget.py", b"\xff"), ("evaluate.py", b"\xff"),
          ("train.py", b"\xff")}
UPLOADS = {"evaluate.py": "evaluate_files", "token_budget.py": "budget_file",
           "train.py": "train_uploads"}


@pytest.mark.slow
@pytest.mark.parametrize("data", [b"hello world, a text file. " * 20, b"\xff\xfe not UTF-8"],
                         ids=["text", "not-utf8"])
@pytest.mark.parametrize("page", sorted(UPLOADS))
def test_no_page_draws_an_uploaded_file_name_as_markdown(page, data, open_page):
    at = open_page(f"pages/{page}")
    if page == "train.py":
        at.radio(key="train_source").set_value("Upload text files").run()
    at.file_uploader(key=UPLOADS[page]).set_value([(f"{NAME}.txt", data, "text/plain")])
    at.run()
    assert not at.exception
    shown = [s for root in (at.main, at.sidebar) for _, s in tree_strings(root)]
    # where the page names the file in its text, the name did reach it (as text)
    if (page, data[:1]) in ECHOED:
        assert any("x.png" in s.replace("\\", "") for s in shown), "the name is not shown"
    assert not found_raw(at), found_raw(at)
