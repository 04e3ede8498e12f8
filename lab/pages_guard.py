"""The legacy-pages guard: keeping every page inside app.py's frame.

Streamlit still supports the old multipage layout, where each file in pages/ is a page
of its own. Until some run calls st.navigation, a server whose app has a pages/ folder
assumes that layout: if the very first visit to a fresh server is a deep link (say
/vocabulary), Streamlit runs pages/vocabulary.py by itself, with a file-list menu and
without app.py's navigation, sidebar and page config. Each page calls
`run_inside_frame()` first; in that one case it turns the old layout off and reruns, so
app.py runs and shows the same page in its frame.

Why it cannot go: Streamlit decides "old layout" from a folder literally named pages/
beside the entry script (PagesManager, on the server's first session), before any of
our code runs, and no config option turns that off; the design card names the folder
pages/. Checked in Chromium: with the call removed from a page, a fresh server's deep
link to it shows the page outside the frame (tests/browser/test_browser_frame.py). It leans on
Streamlit's private PagesManager.uses_pages_directory, so requirements.txt pins
streamlit's minor version.
"""
import streamlit as st
from streamlit.runtime.pages_manager import PagesManager


def run_inside_frame():
    """Call first in every page script: rerun through app.py if Streamlit ran this page
    on its own (the old pages/ layout)."""
    if PagesManager.uses_pages_directory:
        PagesManager.uses_pages_directory = False  # what st.navigation itself sets
        st.rerun()
