"""The teaching pages' side of a worker job (Tie rules, Extend, How much data): start it
with a clear message when the server is busy, show its live progress with Cancel, and
hand back its value once it has ended. The job itself is a lab.train.training.Training, asked
by a lab.jobs.requests request."""
import streamlit as st

from lab.safe import md
from lab.train import training
from lab.train.panels import progress_panel


def start(slot, name, summary, request_type, fields, **data):
    """Make the request request_type(**fields) (a lab.jobs.requests type, which checks
    itself) and start it in slot (see lab.train.training.start) with data (text...); False,
    with the reason shown, if the request is refused or it cannot start now."""
    try:
        asked = request_type(**fields)
        if hasattr(asked, "check_text") and "text" in data:
            asked.check_text(data["text"])
        training.start(slot, training.Settings(asked, name=name, summary=summary), **data)
    except ValueError as e:  # a bad setting, or lab.jobs.Busy
        st.error(md(e))
        return False
    return True


def finished(slot, hint):
    """The ended Training in slot, or None after showing why there is none yet: hint
    before any run, the live progress while it runs, the error or cancellation after."""
    t = training.get(slot)
    if t is None:
        st.info(hint)
        return None
    if t.running:
        progress_panel(slot)
        return None
    if t.outcome.cancelled:
        st.warning("Cancelled. Start again when you like.", icon=":material/cancel:")
        return None
    if t.outcome.error:
        st.error(md(t.outcome.error))
        return None
    return t
