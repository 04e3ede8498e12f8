"""The frame's last-resort guard (issue 24): an exception no check foresaw becomes one short
message on the page and a log line, never a traceback (st.exception)."""
import logging


def test_an_unexpected_error_in_a_page_is_a_message_not_a_traceback(open_page, monkeypatch, caplog):
    from lab import token_view

    def broken(*args, **kwargs):
        raise RuntimeError("boom <b>not html</b>")
    at = open_page()
    monkeypatch.setattr(token_view, "token_view", broken)
    with caplog.at_level(logging.ERROR, logger="lab"):
        at.run()
    assert not at.exception
    errors = [e.value for e in at.error]
    assert any("unexpected error (RuntimeError)" in e and "boom" in e for e in errors), errors
    assert "a page stopped on an unexpected error" in caplog.text


def test_a_memory_error_says_out_of_memory(open_page, monkeypatch):
    from lab import token_view

    def broken(*args, **kwargs):
        raise MemoryError()
    at = open_page()
    monkeypatch.setattr(token_view, "token_view", broken)
    at.run()
    assert not at.exception
    assert any("out of memory" in e.value for e in at.error)
