"""An uploaded tokenizer file is held once (issue 32: memory per visitor file). The session
keeps the file for the owner check and the parity badge (lab.state.FileSource), and
Streamlit's upload manager keeps its record while the uploader shows the file: they must be
the same bytes object, not a copy. st.file_uploader makes an UploadedFile, a BytesIO over
the record's bytes (getvalue() returns those very bytes unless the buffer was written to or
exported), but the script gets a deep copy of it, so lab.state.upload_bytes asks the
manager for the record."""
import copy
from types import SimpleNamespace

import pytest
import streamlit as st
from streamlit.runtime.memory_uploaded_file_manager import MemoryUploadedFileManager
from streamlit.runtime.uploaded_file_manager import UploadedFile, UploadedFileRec

from helpers.hostile_parts import html_vocab
from lab import state


@pytest.fixture
def session():
    """A bare session (no server): st.session_state is a dict here."""
    yield
    for key in (state.SESSION_KEY, state.FILES_KEY, state.NEWEST):
        st.session_state.pop(key, None)


def test_the_session_keeps_the_uploads_own_bytes(session):
    data = html_vocab(2000)
    record = UploadedFileRec(file_id="f1", name="html.json", type="application/json",
                             data=data)
    upload = UploadedFile(record, None)
    upload.read(100)  # a widget or a page reading it first does not unshare the buffer
    (label, error), = state.load_uploads([upload])
    assert error is None, error
    source = state.file_source(label)
    assert source.data() is record.data, "the session holds a second copy of the upload"
    assert state.held_upload_bytes() >= len(data)


def test_the_session_keeps_the_managers_record_not_the_widgets_deep_copy(session,
                                                                        monkeypatch):
    """In a server the script never sees the manager's UploadedFile itself: Streamlit's
    register_widget deep-copies the uploader's value, and a deep-copied BytesIO holds its
    bytes in a buffer of its own. load_uploads takes the record's bytes from the upload
    manager of the script run, so the file is held once (a 3.6 MB tokenizer.json cost 3.5 MB
    more per session before)."""
    data = html_vocab(2000)
    record = UploadedFileRec(file_id="f2", name="html.json", type="application/json",
                             data=data)
    manager = MemoryUploadedFileManager("/_stcore/upload_file")
    manager.add_file("session-1", record)
    monkeypatch.setattr(state, "get_script_run_ctx", lambda: SimpleNamespace(
        session_id="session-1", uploaded_file_mgr=manager))
    upload = copy.deepcopy(UploadedFile(record, None))  # as register_widget hands it out
    assert upload.getvalue() is not data, "the premise: the deep copy's bytes are a copy"
    (label, error), = state.load_uploads([upload])
    assert error is None, error
    assert state.file_source(label).data() is record.data, \
        "the session holds a second copy of the upload"


def test_without_the_managers_record_the_uploads_own_bytes_are_kept(session, monkeypatch):
    """A file the manager no longer has (removed from the uploader meanwhile) still loads,
    from the UploadedFile's own bytes: the same content."""
    data = html_vocab(200)
    record = UploadedFileRec(file_id="f3", name="html.json", type="application/json",
                             data=data)
    monkeypatch.setattr(state, "get_script_run_ctx", lambda: SimpleNamespace(
        session_id="session-1", uploaded_file_mgr=MemoryUploadedFileManager("/u")))
    (label, error), = state.load_uploads([copy.deepcopy(UploadedFile(record, None))])
    assert error is None, error
    assert state.file_source(label).data() == data
