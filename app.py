"""The lab's frame: page config, navigation and the shared sidebar. No logic here.

Before every page runs, trainings that ended are collected (their tokenizers join the
session, a toast says so on whatever page is shown) and an uploaded tokenizer is
added, so the page's pickers offer it; the list of names is drawn after the page, so a
tokenizer trained on this run is listed too. Nothing here reaches outside the machine:
the page icon is a local file (a :material/: page icon makes the browser fetch it).
"""
from pathlib import Path

import streamlit as st

from lab import loader, state, training
from lab.train_panels import sidebar_status

st.set_page_config(page_title="Tokenizer lab", layout="wide",
                   page_icon=str(Path(__file__).parent / "lab" / "static" / "icon.png"))

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
st.set_option("client.showSidebarNavigation", True)  # off in config.toml: lab/pages_guard.py
nav = st.navigation(PAGES)

for ended in training.collect_finished():  # a training ended, on this page or another
    training.toast(ended)

with st.sidebar:
    loader.tokenizer_loader(nav.url_path)
    sidebar_status()

nav.run()

with st.sidebar:
    st.caption("Tokenizers in this session")
    st.text("\n".join(state.tokenizer_names()))
