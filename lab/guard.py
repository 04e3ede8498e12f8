"""One visitor action, bounded, and the last resort: no traceback ever reaches a page.

Every check in bpe/ and lab/ turns bad input into a message that says what to do; this is
for what no check foresaw (a bug, or an input beyond every budget). `show_unexpected`
draws one short message and writes the traceback to the server's log; `guarded` wraps a
function (an st.fragment's body, whose errors Streamlit would otherwise draw as a
traceback in place) so its errors go the same way.

Some errors are BaseExceptions without being Exceptions: pyo3's PanicException (a Rust
library that panicked) is one, and uncaught it kills the script thread, so the session
shows "running" forever. `page_run` shows those too. It lets through only the
BaseExceptions that mean "stop" or "go elsewhere": Streamlit's own control flow (st.rerun,
st.stop: ScriptControlException), KeyboardInterrupt and SystemExit (the server is being
stopped: swallowing them would keep it alive against its operator's will) and
GeneratorExit (a generator being closed must close).
"""
import contextlib
import functools
import logging

import streamlit as st
from streamlit.runtime.scriptrunner_utils.exceptions import ScriptControlException

from bpe.patterns import safety
from lab.safe import md

log = logging.getLogger("lab")
PAGE_SECONDS = 10.0  # CPU seconds every limited match of one page run may take in total
# the BaseExceptions that must pass: Streamlit's st.rerun/st.stop, and a stopping process
PASS_THROUGH = (ScriptControlException, KeyboardInterrupt, SystemExit, GeneratorExit)


@contextlib.contextmanager
def page_run():
    """One visitor action: the page's run (or a fragment's) under one time budget for every
    visitor-controlled regex in it, and any exception shown by show_unexpected."""
    try:
        with safety.action(PAGE_SECONDS):
            yield
    except Exception as e:  # noqa: BLE001 — the last resort
        show_unexpected(e)
    except BaseException as e:  # e.g. pyo3's PanicException from a compiled library
        if isinstance(e, PASS_THROUGH):
            raise
        show_unexpected(e)


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
        with page_run():
            return fn(*args, **kwargs)
    return run

