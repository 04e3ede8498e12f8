"""Compare's one aligned view: a Custom Components v2 component that draws the data of
viz.compare.aligned (the text once, A's tokens as a band above it, B's below, the cuts
that differ marked) and lights up, on hover, a token of one side and the tokens of the
other that overlap it. Its HTML/CSS/JS live in lab/compare_view/ (no build step); every
text reaches the page through textContent, so nothing in it can become markup.

It follows the token view's conventions (data-bytes="START-END" on each drawn segment)
but is its own component: the token view draws one tokenization, this one two in step.
"""
from pathlib import Path

import streamlit as st

_HERE = Path(__file__).parent / "compare_view"
_component = st.components.v2.component(
    "lab_compare_view", html='<div class="cmp"></div>',
    css=(_HERE / "compare.css").read_text(encoding="utf-8"),
    js=(_HERE / "compare.js").read_text(encoding="utf-8"))


def compare_view(view, *, label_a, label_b, key="compare_view"):
    """Draw viz.compare.aligned's view; label_a/label_b name the two tokenizers."""
    return _component(data={**view, "label_a": label_a, "label_b": label_b}, key=key)
