"""The sidebar's tokenizer loader: a .model (minbpe), .tiktoken (ranks) or
tokenizer.json (Hugging Face) file joins the session, selected in the pickers.

The split pattern a .tiktoken file cannot hold is asked first, and changing it later
loads the same file again with the new pattern (replacing the tokenizer it made). A
file is loaded once; its error is shown on the page where it was uploaded, not on
every page after. Names and messages go through lab.safe.md.
"""
import streamlit as st

from lab import state
from lab.safe import md

UPLOAD = "app_model_upload"
PATTERN = "app_upload_pattern"
LOADED = "app_loaded_upload"   # (file_id, pattern label, name or None, error or None, page)


def tokenizer_loader(page):
    """Draw the loader (in the sidebar); page: the url path of the page shown now."""
    with st.expander("Load a tokenizer file", expanded=bool(st.session_state.get(UPLOAD))):
        pattern = st.selectbox(
            "Split pattern, for .tiktoken files", list(state.TIKTOKEN_PATTERNS), key=PATTERN,
            help="A .tiktoken file holds only the ranks, not the pattern that splits text "
                 "first: pick it here (changing it reloads the file).")
        # no type= filter: Streamlit would print the types in caps, cut off in the
        # sidebar; the loader checks the file's ending itself and says what it takes
        uploaded = st.file_uploader(
            "A tokenizer file: .model (minbpe), .tiktoken (tiktoken's ranks) or "
            "tokenizer.json (Hugging Face)", key=UPLOAD)
        if uploaded is None:
            return
        loaded = st.session_state.get(LOADED)
        tiktoken = uploaded.name.lower().endswith(".tiktoken")
        same = loaded is not None and loaded[0] == uploaded.file_id
        if not same or (tiktoken and loaded[1] != pattern):
            if same and loaded[2]:
                state.session_tokenizers().pop(loaded[2], None)  # replaced by the reload
            try:
                name, error = state.load_model_upload(
                    uploaded, pattern=state.TIKTOKEN_PATTERNS[pattern]), None
            except ValueError as e:
                name, error = None, str(e)
            loaded = (uploaded.file_id, pattern, name, error, page)
            st.session_state[LOADED] = loaded
        _, _, name, error, where = loaded
        if error and where == page:
            st.error(md(error), icon=":material/error:")
        elif name:
            st.success(f"Loaded {md(uploaded.name)} as “{md(name)}”"
                       + (f", split by {md(pattern)}" if tiktoken else "")
                       + "; selected in the tokenizer menus.", icon=":material/check_circle:")
        if state.unavailable_references():
            st.caption(md(state.references_help()))
