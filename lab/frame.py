"""Keeping every page inside app.py's frame.

Streamlit still supports the old multipage layout, where each file in pages/ is a page
of its own. Until some run calls st.navigation, a server whose app has a pages/ folder
assumes that layout: if the very first visit to a fresh server is a deep link (say
/vocabulary), Streamlit runs pages/vocabulary.py by itself, with a file-list menu and
without app.py's navigation, sidebar and page config. Each page calls
`run_inside_frame()` first; in that one case it turns the old layout off and reruns, so
app.py runs and shows the same page in its frame.
"""
import streamlit as st
from streamlit.runtime.pages_manager import PagesManager


def run_inside_frame():
    """Call first in every page script: rerun through app.py if Streamlit ran this page
    on its own (the old pages/ layout)."""
    if PagesManager.uses_pages_directory:
        PagesManager.uses_pages_directory = False  # what st.navigation itself sets
        st.rerun()
