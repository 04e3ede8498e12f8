"""The Train page bounds its uploads in all (lab.train.uploads.TOTAL_MB): files past the
total are left out, unread, each with a message that says what to do, and the files
that fit still make the corpus. The bound is lowered to 1 MB here, so the test uploads
little."""
from helpers.apptest import plain, upload
from lab.train import uploads as train_corpus

PAGE = "pages/train.py"
MB = train_corpus.MB


def test_files_past_the_total_are_left_out_with_a_message(open_page, monkeypatch):
    monkeypatch.setattr(train_corpus, "TOTAL_MB", 1)
    line = b"the cat sat on the mat.\n"
    a, b, c = (line * (int(mb * MB) // len(line)) for mb in (0.6, 0.5, 0.3))
    at = upload(open_page(PAGE), ("a.txt", a, "text/plain"), ("b.txt", b, "text/plain"),
                ("c.txt", c, "text/plain"))
    (error,) = at.error
    assert "b.txt (0.5 MB) is left out, unread" in plain(error)
    assert "at most 1 MB of text files in all" in plain(error)
    assert "Remove a file" in plain(error)
    figures = {m.label: m.value for m in at.metric}
    assert figures["Files"] == "2"  # a.txt and c.txt, which fit
    assert figures["Bytes (UTF-8)"] == f"{len(a) + len(c):,}"  # each ends in a newline: none added
    assert any("1 MB in all" in plain(caption) for caption in at.caption)
    assert not at.button(key="train_submit").disabled


def test_files_within_the_total_are_all_read(open_page):
    at = upload(open_page(PAGE), ("a.txt", b"one two\n" * 100, "text/plain"),
                ("b.txt", b"three four\n" * 100, "text/plain"))
    assert not at.error
    assert {m.label: m.value for m in at.metric}["Files"] == "2"
