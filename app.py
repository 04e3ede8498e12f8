"""The lab's frame: page config, navigation and the shared sidebar. No logic here.

Before every page runs, trainings that ended are collected (their tokenizers join the
session, a toast says so on whatever page is shown) and an uploaded tokenizer is
added, so the page's pickers offer it; the list of names is drawn after the page, so a
tokenizer trained on this run is listed too. Nothing here reaches outside the machine:
the page icon is a local file (a :material/: page icon makes the browser fetch it).

The frame runs only as Streamlit's script (__name__ == "__main__"): a process that
imports this file (multiprocessing's workers used to) must not draw a page and load
GPT-4 first.
"""
from pathlib import Path

import streamlit as st

from lab.safe import md

try:  # lab.jobs reads the server's settings (LAB_*) as it is imported
    from lab import jobs, loader, state
    from lab.train import training
except ValueError as e:  # a bad setting: the operator's to fix, said once, no traceback
    st.error(f"This server is misconfigured: {md(e)}", icon=":material/settings_alert:")
    st.stop()
from lab.guard import page_run
from lab.sessions import release_dropped_sessions
from lab.train.panels import sidebar_status

PAGES = [  # (section, script, title, icon); the first is the home page; url = file name
    ("See", "pages/tokenize.py", "Tokenize", ":material/text_fields:"),
    ("See", "pages/compare.py", "Compare", ":material/compare_arrows:"),
    ("See", "pages/arena.py", "Arena", ":material/leaderboard:"),
    ("Learn by doing", "pages/train.py", "Train", ":material/model_training:"),
    ("Learn by doing", "pages/methods.py", "Methods", ":material/science:"),
    ("Learn by doing", "pages/replay.py", "Merge replay", ":material/slow_motion_video:"),
    ("Learn by doing", "pages/merge_tree.py", "Merge tree", ":material/account_tree:"),
    ("Learn by doing", "pages/vocabulary.py", "Vocabulary", ":material/menu_book:"),
    ("Learn by doing", "pages/regex_chunks.py", "Regex chunks", ":material/content_cut:"),
    ("Learn by doing", "pages/specials.py", "Special tokens", ":material/shield:"),
    ("Learn by doing", "pages/ties.py", "Tie rules", ":material/balance:"),
    ("Learn by doing", "pages/extend.py", "Extend a vocabulary", ":material/add_circle:"),
    ("Learn by doing", "pages/health.py", "Vocabulary health", ":material/health_and_safety:"),
    ("Learn by doing", "pages/data_size.py", "How much data", ":material/stacked_line_chart:"),
    ("Tools", "pages/token_budget.py", "Token-budget chunker", ":material/splitscreen:"),
    ("Lessons", "pages/why.py", "Why tokenization?", ":material/help:"),
    ("Lessons", "pages/rebuild_gpt4.py", "Rebuild GPT-4", ":material/construction:"),
    ("Lessons", "pages/evaluate.py", "Evaluate", ":material/grading:"),
]
ICON = Path(__file__).parent / "lab" / "static" / "icon.png"


def main():
    st.set_page_config(page_title="Tokenizer lab", page_icon=str(ICON), layout="wide")
    sections = {}
    for n, (section, script, title, icon) in enumerate(PAGES):
        sections.setdefault(section, []).append(
            st.Page(script, title=title, icon=icon, default=n == 0))
    st.set_option("client.showSidebarNavigation", True)  # off in config.toml: lab/pages_guard.py
    nav = st.navigation(sections, expanded=True)  # every page listed, no "View more"
    jobs.warm_up()  # the first training then starts at once
    release_dropped_sessions()  # a closed tab's uploads leave with its session

    for ended in training.collect_finished():  # a training ended, on this page or another
        training.toast(ended)

    with st.sidebar:
        loader.tokenizer_loader(nav.url_path)
        if training.running():  # its timer reruns only while there is something to watch
            sidebar_status()
        listed = st.empty()
        list_tokenizers(listed)  # now, so a page that stops early (st.stop) has it too

    with page_run():  # one time budget for the page's regexes; no traceback reaches it
        nav.run()
    list_tokenizers(listed)  # again: the page may have added one


def list_tokenizers(place):
    """The session's tokenizers, in the sidebar's place (drawn over what it held)."""
    with place.container():
        st.caption("Tokenizers in this session")
        st.text("\n".join(state.tokenizer_names()))


if __name__ == "__main__":
    main()
