"""Token-budget chunker: a long text cut into pieces of at most N tokens, to download.

Thin: reads the widgets, calls viz.token_budget (cuts, counts, zip and JSONL) and renders.
The pieces are kept in session_state for the inputs that made them, so moving through
them does not cut the text again.
"""
import pandas as pd
import streamlit as st

from lab.pages_guard import run_inside_frame

run_inside_frame()

from lab import state, widgets
from lab.memory import remember
from viz import token_budget
from lab.train.corpora import SHIPPED_SHAKESPEARE
from lab.safe import md
from lab.token_view import token_view
from viz.marks import tokens_row

DEFAULT_TEXT_CHARS = 6_000  # of the shipped Shakespeare, as the first text
PREVIEW_CHARS = 80

st.title("Token-budget chunker")
st.caption("Cut a long text into pieces of at most N tokens for the tokenizer you pick, on "
           "token boundaries and never inside a character, e.g. to fit a model's context. "
           "Each piece is counted on its own, as it will be encoded; joined, the pieces give "
           "back the text exactly. Special-token text counts as ordinary text.")

remember({"budget_tokenizer": state.GPT4_NAME, "budget_max_tokens": 256,
          "budget_prefer": "sentences", "budget_text": None, "budget_show": 1})
if st.session_state["budget_text"] is None:  # the first visit: read the sample once
    st.session_state["budget_text"] = SHIPPED_SHAKESPEARE.read_text(
        encoding="utf-8")[:DEFAULT_TEXT_CHARS]
name, tok = widgets.tokenizer_picker("budget_tokenizer")

# one row that wraps: on a narrow screen the cut choice goes under the budget whole
settings = st.container(horizontal=True, gap="medium", vertical_alignment="bottom")
with settings.container(width=220):
    max_tokens = st.number_input("Tokens per piece, at most", min_value=1,
                                 max_value=1_000_000, step=64, key="budget_max_tokens")
with settings.container(width="content"):
    prefer = st.segmented_control(
        "Cut", list(token_budget.PREFER), format_func=token_budget.PREFER.get,
        key="budget_prefer", help="A line or sentence end is taken when one falls in the "
                                  "second half of the budget; else the piece fills it.")
uploaded = st.file_uploader("A text file (UTF-8), or type below", type=["txt", "md", "csv",
                            "json", "jsonl", "py"], key="budget_file")
if uploaded is not None:
    try:
        text = uploaded.getvalue().decode("utf-8")
    except UnicodeDecodeError:
        st.error(f"{md(uploaded.name)} is not UTF-8 text; save it as UTF-8 and upload it "
                 "again.")
        st.stop()
    st.caption(f"Chunking {md(uploaded.name)} ({len(text):,} characters); remove it to type "
               "instead.")
else:
    text = st.text_area("Text", key="budget_text", height=180)

if not text:
    st.info("Type or upload a text to cut it into pieces.", icon=":material/content_cut:")
    st.stop()

made_for = (name, id(tok), hash(text), max_tokens, prefer or "tokens")
if st.session_state.get("budget_made_for") != made_for:
    try:
        with st.spinner("Cutting…"):
            pieces = token_budget.chunk_text(tok, text, int(max_tokens), prefer=prefer or "tokens")
    except ValueError as e:
        st.error(md(e))  # it may quote a bit of the text
        st.stop()
    st.session_state["budget_pieces"] = pieces
    st.session_state["budget_made_for"] = made_for
pieces = st.session_state["budget_pieces"]

numbers = token_budget.summary(pieces)
widgets.figures(("Pieces", f"{numbers['pieces']:,}"),
                ("Largest piece", f"{numbers['largest']:,} tokens"),
                ("Tokens in all", f"{numbers['tokens']:,}"))

with st.container(horizontal=True):
    st.download_button("Download the pieces (.zip of .txt)", token_budget.to_zip(pieces),
                       "pieces.zip", mime="application/zip", icon=":material/folder_zip:",
                       key="budget_zip")
    st.download_button("Download the pieces (.jsonl)", token_budget.to_jsonl(pieces),
                       "pieces.jsonl", mime="application/jsonl", icon=":material/download:",
                       key="budget_jsonl")

frame = pd.DataFrame({
    "piece": [p.index for p in pieces],
    "tokens": [p.n_tokens for p in pieces],
    "characters": [len(p.text) for p in pieces],
    "ends at": [p.cut for p in pieces],
    "starts with": [p.text[:PREVIEW_CHARS] for p in pieces],
}).set_index("piece")
st.dataframe(frame, width="stretch", height=min(400, 40 + 35 * len(pieces)))

st.subheader("One piece, tokenized")
if st.session_state.get("budget_show", 1) > len(pieces):
    st.session_state["budget_show"] = 1
shown = st.number_input("Piece", min_value=1, max_value=len(pieces), key="budget_show")
piece = pieces[int(shown) - 1]
token_view([tokens_row(tok, tok.encode(piece.text, allowed_special="none"))],
           key="budget_view")
