"""AppTest helpers for the teaching pages (Tie rules, Extend, How much data, Health).

Until the lead adds these pages to app.py, tests run each in a small frame that does
what app.py does around a page: st.navigation, then collect_finished before it runs."""
from pathlib import Path

from streamlit.testing.v1 import AppTest

ROOT = Path(__file__).resolve().parent.parent
FRAME = '''
import sys
sys.path.insert(0, {root!r})
import streamlit as st
from lab import training
nav = st.navigation([st.Page({page!r})])
for ended in training.collect_finished():
    training.toast(ended)
nav.run()
'''


def open_teaching_page(tmp_path, name, tokenizers=None, timeout=180):
    app = tmp_path / f"frame_{name}"
    app.write_text(FRAME.format(root=str(ROOT), page=str(ROOT / "pages" / name)))
    at = AppTest.from_file(str(app), default_timeout=timeout)
    if tokenizers:
        at.session_state["lab_tokenizers"] = tokenizers
    at.run()
    assert not at.exception, at.exception
    return at


def finish(at, slot, timeout=180):
    """Wait for the training in slot to end, then rerun, as the progress fragment would."""
    t = at.session_state["lab_trainings"][slot]
    if t.running:
        assert t.job.wait(timeout)
        at.run()
        assert not at.exception, at.exception
    t = at.session_state["lab_trainings"][slot]
    assert not t.running and t.outcome.ok, t.outcome
    return at
