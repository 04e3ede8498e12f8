"""The lessons and the pages they use: the one table of which page belongs to which lesson,
and the links both ways.

A lesson page calls `lesson_pages(its script)` to link the lab pages it draws on; any
other page calls `lesson_link(its script)` to link back to the lessons that use it:

    from lab.lessons import lesson_link
    lesson_link("pages/specials.py")

Links take their titles and icons from app.py's navigation (st.page_link with no label),
so a page's title has one home. A page run outside the app's navigation (an AppTest of
the page alone) gets no links rather than an error. No lesson content lives here: the
/why questions are viz/why.py's.
"""
import streamlit as st
from streamlit.errors import StreamlitAPIException

# lesson script -> the lab pages it uses, in the order the lesson meets them
LESSONS = {
    "pages/why.py": ("pages/tokenize.py", "pages/arena.py", "pages/regex_chunks.py",
                     "pages/compare.py", "pages/specials.py", "pages/health.py"),
    "pages/rebuild_gpt4.py": ("pages/merge_tree.py", "pages/vocabulary.py",
                              "pages/tokenize.py"),
    "pages/evaluate.py": ("pages/arena.py", "pages/train.py", "pages/methods.py",
                          "pages/data_size.py", "pages/compare.py"),
}


def lessons_of(page_script):
    """The lesson scripts that use page_script, in LESSONS order.

    >>> lessons_of("pages/arena.py")
    ['pages/why.py', 'pages/evaluate.py']
    """
    return [lesson for lesson, pages in LESSONS.items() if page_script in pages]


def page_link(script, *, label=None, icon=None, where=st):
    """st.page_link to script (its navigation title when label is None); False, and
    nothing drawn, when the app's navigation does not know it (the page alone)."""
    try:
        where.page_link(script, label=label, icon=icon)
        return True
    except StreamlitAPIException:
        return False


def _links(scripts, icon=None):
    """A page link for each script that the app's navigation knows, in one row that
    wraps; returns how many were drawn."""
    row = st.container(horizontal=True, gap="small")
    return sum(page_link(script, icon=icon, where=row) for script in scripts)


def lesson_link(page_script):
    """On a lab page: a line linking the lessons that use it (nothing if none do)."""
    lessons = lessons_of(page_script)
    if lessons:
        with st.container(horizontal=True, gap="small", vertical_alignment="center"):
            st.caption("In the lessons:", width="content")
            _links(lessons, icon=":material/school:")


def lesson_pages(lesson_script):
    """On a lesson page: a line linking the lab pages the lesson uses."""
    with st.container(horizontal=True, gap="small", vertical_alignment="center"):
        st.caption("This lesson uses:", width="content")
        _links(LESSONS[lesson_script])
