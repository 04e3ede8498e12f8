"""The teaching pages' side of a worker job (Tie rules, Extend, How much data): start it
with a clear message when the server is busy, show its live progress with Cancel, and
hand back its value once it has ended. The job itself is a lab.training.Training."""
import streamlit as st

from lab import training
from lab.safe import md
from lab.train_panels import progress_panel


def start(slot, kind, name, summary, args):
    """Start kind in slot (see lab.training.start); False, with the reason shown, if it
    cannot start now."""
    try:
        training.start(slot, training.Settings(kind=kind, name=name, summary=summary), args)
    except ValueError as e:  # lab.jobs.Busy, or a bad setting
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
