"""An uploaded tokenizer file is held once (issue 32: memory per visitor file). The session
keeps the file for the owner check and the parity badge (lab.state.FileSource), and
Streamlit's upload manager keeps its record while the uploader shows the file: they must be
the same bytes object, not a copy. st.file_uploader hands out UploadedFile, a BytesIO over
the record's bytes: getvalue() returns those very bytes unless the buffer was written to or
exported (getbuffer), and load_uploads must not copy them either."""
import pytest
import streamlit as st
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
