"""The lab's frame: page config, navigation and the shared sidebar. No logic here.

An uploaded tokenizer is added before the page runs, so the page's picker offers it;
the list of names is drawn after, so a tokenizer trained on this run is listed too.
"""
import streamlit as st

from lab import session_training, state

st.set_page_config(page_title="Tokenizer lab", page_icon=":material/token:", layout="wide")

PAGES = {
    "See": [
        st.Page("pages/tokenize.py", title="Tokenize", icon=":material/text_fields:", default=True),
        st.Page("pages/compare.py", title="Compare", icon=":material/compare_arrows:"),
    ],
    "Learn by doing": [
        st.Page("pages/train.py", title="Train", icon=":material/model_training:"),
        st.Page("pages/replay.py", title="Merge replay", icon=":material/slow_motion_video:"),
        st.Page("pages/merge_tree.py", title="Merge tree", icon=":material/account_tree:"),
        st.Page("pages/vocabulary.py", title="Vocabulary", icon=":material/menu_book:"),
        st.Page("pages/chunks.py", title="Regex chunks", icon=":material/content_cut:"),
        st.Page("pages/specials.py", title="Special tokens", icon=":material/shield:"),
    ],
    "Tools": [
        st.Page("pages/chunker.py", title="Token-budget chunker", icon=":material/splitscreen:"),
    ],
}
st.set_option("client.showSidebarNavigation", True)  # off in config.toml: lab/frame.py
nav = st.navigation(PAGES)

with st.sidebar:
    with st.expander("Load a tokenizer file"):
        uploaded = st.file_uploader(
            "A .model (minbpe), .tiktoken (ranks) or tokenizer.json (Hugging Face) file",
            type=state.UPLOAD_TYPES, key="app_model_upload")
        pattern = st.selectbox(
            "Split pattern for .tiktoken files", list(state.TIKTOKEN_PATTERNS),
            key="app_upload_pattern",
            help="A .tiktoken file holds only the ranks, not the pattern that splits text first.")
        if uploaded is not None and st.session_state.get("app_loaded_upload") != uploaded.file_id:
            try:
                name = state.load_model_upload(uploaded, pattern=state.TIKTOKEN_PATTERNS[pattern])
            except ValueError as e:
                st.error(str(e))
            else:
                st.session_state["app_loaded_upload"] = uploaded.file_id
                st.success(f"Loaded as “{name}”; pick it in any tokenizer menu.")
        if state.unavailable_references():
            st.caption(state.references_help())

session_training.collect_finished()  # a training finished while on another page
nav.run()

with st.sidebar:
    st.caption("Tokenizers in this session")
    st.text("\n".join(state.tokenizer_names()))
