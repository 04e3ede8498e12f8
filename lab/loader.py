"""The sidebar's tokenizer loader: tokenizer files join the session, selected in the pickers.

Whatever bpe.load opens, known by content: a minbpe .model, a SentencePiece .model, tiktoken
ranks (.tiktoken, .tiktoken.gz, Llama 3's tokenizer.model), a tokenizer.json, or GPT-2's
two files uploaded together. A ranks file holds no split pattern: a known one (by sha256)
brings its owner's; for any other the pattern picked above the uploader is used, and
without one the error asks for it. Changing the pattern loads the same files again
(replacing what they made). Files are loaded once; an error is shown on the page where
they were uploaded, not on every page after. Names and messages go through lab.safe.md.
"""
import streamlit as st

from lab import state
from lab.safe import md

UPLOAD = "app_model_upload"
PATTERN = "app_upload_pattern"
LOADED = "app_loaded_upload"   # (file ids, pattern label, names, error or None, page)


def tokenizer_loader(page):
    """Draw the loader (in the sidebar); page: the url path of the page shown now."""
    with st.expander("Load a tokenizer file", expanded=bool(st.session_state.get(UPLOAD))):
        pattern = st.selectbox(
            "Split pattern, for tiktoken ranks this lab does not know",
            list(state.TIKTOKEN_PATTERNS), key=PATTERN,
            help="A ranks file (.tiktoken) holds only the ranks, not the pattern that splits "
                 "text first. Known files (tiktoken's encodings, Llama 3 and 4) bring their "
                 "own; for others pick it here (changing it reloads the file).")
        # no type= filter: files are known by content, and Streamlit would print the
        # types in caps, cut off in the sidebar
        uploads = st.file_uploader(
            "A tokenizer file: .model (minbpe or SentencePiece), tiktoken ranks, "
            "tokenizer.json, or GPT-2's encoder.json + vocab.bpe together",
            key=UPLOAD, accept_multiple_files=True)
        if not uploads:
            return
        ids = tuple(u.file_id for u in uploads)
        loaded = st.session_state.get(LOADED)
        same = loaded is not None and loaded[0] == ids
        if not same or (loaded[1] != pattern and _pattern_matters(loaded)):
            if same:
                for name in loaded[2]:
                    state.remove_tokenizer(name)  # replaced by the reload
            results = state.load_uploads(uploads, pattern=state.TIKTOKEN_PATTERNS[pattern])
            names = [name for name, _ in results if name]
            error = "\n\n".join(error for _, error in results if error) or None
            loaded = (ids, pattern, names, error, page)
            st.session_state[LOADED] = loaded
        _, _, names, error, where = loaded
        if error and where == page:
            st.error(md(error), icon=":material/error:")
        for name in names:
            st.success(f"Loaded “{md(name)}”; selected in the tokenizer menus.",
                       icon=":material/check_circle:")
        if state.unavailable_references():
            st.caption(md(state.references_help()))


def _pattern_matters(loaded):
    """Whether a new pattern changes what loaded files made: a ranks file, or an error
    (perhaps the one asking for a pattern)."""
    _, _, names, error, _ = loaded
    return bool(error) or any(getattr(state.file_source(name), "kind", None) == "ranks"
                              for name in names)
