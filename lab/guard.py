"""The last resort: no traceback ever reaches a page.

Every check in bpe/ and lab/ turns bad input into a message that says what to do; this is
for what no check foresaw (a bug, or an input beyond every budget). `show_unexpected`
draws one short message and writes the traceback to the server's log; `guarded` wraps a
function (an st.fragment's body, whose errors Streamlit would otherwise draw as a
traceback in place) so its errors go the same way. Streamlit's own control flow
(st.rerun, st.stop) is a BaseException and passes through untouched.
"""
import functools
import logging

import streamlit as st

from lab.safe import md

log = logging.getLogger("lab")


def show_unexpected(error):
    """One message on the page, the traceback in the log."""
    log.exception("a page stopped on an unexpected error", exc_info=error)
    kind = "out of memory" if isinstance(error, MemoryError) else type(error).__name__
    st.error(f"This page stopped on an unexpected error ({md(kind)}): "
             f"{md(' '.join(str(error).split())[:300])}. Nothing you had is lost; try a "
             "smaller input or another setting. The details are in the server's log.",
             icon=":material/error:")


def guarded(fn):
    """fn with its exceptions shown by show_unexpected (put it under @st.fragment)."""
    @functools.wraps(fn)
    def run(*args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except Exception as e:  # noqa: BLE001 — the last resort
            show_unexpected(e)
    return run
