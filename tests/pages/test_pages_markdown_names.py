"""Every page, walked in AppTest with a Markdown-shaped tokenizer name in the session (the
newest one, so every picker that follows new tokenizers picks it): no element's Markdown
or tooltip (body, help, label, caption...) holds the name's image, link or bold unescaped.
The regression: Evaluate's column help drew the name as an image the browser fetched."""
import json
import re
from pathlib import Path

import pytest

from bpe import RegexTokenizer

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
