"""A session's training job, seen from Streamlit: where it is kept, and how its result
joins the session's tokenizers.

app.py calls `collect_finished()` before every page runs, so a training that finishes
while the user is on another page is added to the pickers right away, not on the next
visit to Train. The job itself (worker process, progress, cancel) is lab/jobs.py's.
"""
import streamlit as st

from lab import state
from viz import training as vt

JOB = "train_job"          # the running job and the settings it was started with
RESULT = "train_result"    # the last finished (or failed, or cancelled) training


def polled_run():
    """The session's training run (the job and its settings), its job just polled for
    progress; None when no training is running."""
    run = st.session_state.get(JOB)
    if run is not None:
        run["job"].poll()
    return run


def collect_finished():
    """Move a finished job's outcome into RESULT, adding the tokenizer to the session."""
    run = polled_run()
    if run is None:
        return
    job = run["job"]
    if not job.done:
        return
    del st.session_state[JOB]
    outcome = dict(run, job=None, error=job.error, cancelled=job.cancelled,
                   elapsed=job.elapsed, progress=job.progress)
    if job.error is None and not job.cancelled:
        tok = job.result()
        outcome["tok"] = tok
        outcome["name"] = state.add_tokenizer(run["name"], tok)
        outcome["table"] = vt.merge_table(tok)
        if job.held_out_counts:
            outcome["compression"] = vt.compression_frame(job.held_out_counts)
    st.session_state[RESULT] = outcome


def session_connected():
    """A thread-safe check that this session's browser tab is still connected, for
    job.keep_polling: the job then survives a visit to another page but not a closed
    tab. None without a Streamlit server (AppTest), where tests poll the job directly."""
    from streamlit import runtime
    from streamlit.runtime.scriptrunner import get_script_run_ctx
    ctx = get_script_run_ctx()
    if ctx is None or not runtime.exists():
        return None
    server, session_id = runtime.get_instance(), ctx.session_id
    return lambda: server.is_active_session(session_id)


def cancel():
    run = st.session_state.get(JOB)
    if run is not None:
        run["job"].cancel()
