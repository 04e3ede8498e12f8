"""Regex chunk overlay: a split pattern's chunks underlined beneath a tokenizer's tokens,
so one sees that no token crosses its own tokenizer's chunks (and which tokens cross an
edited pattern's). Thin: chunks, crossings and the table are viz.regex_chunks'."""
import streamlit as st

from lab.pages_guard import run_inside_frame

run_inside_frame()

from bpe.patterns import LABELS, PATTERNS
from lab import state, widgets
from lab.lessons import lesson_link
from lab.memory import remember
from viz.samples import DEFAULT_SAMPLE, SAMPLES
from viz import regex_chunks
from lab.safe import md
from lab.token_view import token_view
from viz.marks import tokens_row

OWN = "The tokenizer's own"
CUSTOM = "Custom"
MAX_CHARS = 20_000

st.title("Regex chunks")
lesson_link("pages/regex_chunks.py")
st.caption("Before BPE runs, a split pattern cuts the text into chunks, and merges never "
           "cross a chunk: letters, digits, punctuation and whitespace stay apart. Each "
           "token below is underlined in its chunk's color (chunks alternate dark and red); a "
           "token that crosses a chunk boundary is outlined in red.")

remember({"chunks_tokenizer": state.GPT4_NAME, "chunks_sample": DEFAULT_SAMPLE,
          "chunks_text": SAMPLES[DEFAULT_SAMPLE], "chunks_preset": None, "chunks_pattern": None})
name, tok = widgets.tokenizer_picker("chunks_tokenizer")

presets = {LABELS[name]: pattern for name, pattern in PATTERNS.items()}
if tok.pattern:
    presets = {OWN: tok.pattern, **presets}
choices = [*presets, CUSTOM]
if st.session_state.get("chunks_preset") not in choices:
    st.session_state["chunks_preset"] = choices[0]
    st.session_state["chunks_pattern"] = presets[choices[0]]
elif st.session_state.get("chunks_for") != name and st.session_state["chunks_preset"] == OWN:
    st.session_state["chunks_pattern"] = presets[OWN]  # another tokenizer, its own pattern
st.session_state["chunks_for"] = name


def load_preset():
    choice = st.session_state["chunks_preset"]
    if choice in presets:
        st.session_state["chunks_pattern"] = presets[choice]


def mark_custom():
    if st.session_state["chunks_pattern"] != presets.get(st.session_state["chunks_preset"]):
        st.session_state["chunks_preset"] = CUSTOM


# one row that wraps: on a narrow screen the pattern box goes under the preset picker
pattern_row = st.container(horizontal=True, gap="medium")
with pattern_row.container(width=200):
    st.selectbox("Pattern", choices, key="chunks_preset", on_change=load_preset)
with pattern_row.container(width="stretch"):
    pattern = st.text_area("Split pattern (a regex; edit it freely)", key="chunks_pattern",
                           height=90, on_change=mark_custom)
st.caption("Try GPT-4 with the GPT-2 pattern on the Python code sample: GPT-4's pattern "
           "lets punctuation take a letter or a newline along, so tokens such as “(ids” "
           "and “):↵” cross GPT-2's chunks.")
if not tok.pattern:
    st.caption(f"“{md(name)}” has no split pattern (a BasicTokenizer merges "
               "across everything), so its tokens may cross any pattern's chunks.")

text = widgets.sample_text("chunks", height=110, max_chars=MAX_CHARS)

try:
    found = regex_chunks.find_chunks(pattern, text)
except (ValueError, TypeError, TimeoutError) as e:  # the message may echo the pattern
    st.error(md(e))
    st.stop()

ids = tok.encode_ordinary(text)
row = tokens_row(tok, ids)
crossing = regex_chunks.crossing_spans(row, found)
skipped = [c for c in found if not c.matched]

widgets.figures(("Chunks", f"{len(found):,}"), ("Tokens", f"{len(ids):,}"),
                ("Tokens crossing a chunk", f"{len(crossing):,}"))
if crossing:
    st.warning(f"{len(crossing):,} of “{md(name)}”'s tokens cross a boundary "
               "of this pattern (outlined in red): the tokenizer was built with a different "
               "split, so its merges never saw these chunks.")
else:
    st.success("Every token lies inside one chunk.")
if skipped:
    st.warning(f"The pattern skips {len(skipped):,} piece{'s' if len(skipped) != 1 else ''} "
               "of the text (rows with matched = false): a RegexTokenizer with this pattern "
               r"would refuse this text. End the pattern with |\s+|. to match everything.")

row.update(chunk=regex_chunks.span_chunks(row, found), marks={"outline": crossing})
token_view([row], key="chunks_view")
st.dataframe(regex_chunks.chunk_frame(text, found, row), hide_index=True, height=300,
             column_config={"tokens": st.column_config.NumberColumn(
                 "tokens", help="Tokens that start in this chunk")})
