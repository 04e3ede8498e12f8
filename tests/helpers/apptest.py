"""Driving pages in AppTest (tests/pages): find a training in the session, wait for it
to end and rerun as the page's polling fragment would, pick a selectbox option, read
Markdown without lab.safe.md's escapes, and the Train page's uploads and counts files.

Imported as `from helpers.apptest import ...`; the open_page fixture (the whole app on
one page) is tests/conftest.py's.
"""
import re
import subprocess
import sys

from helpers.app import ROOT

TRAIN_PAGE = "pages/train.py"


def training(at, slot="train"):
    """The session's lab.train.training.Training in slot, or None."""
    trainings = at.session_state["lab_trainings"] if "lab_trainings" in at.session_state \
        else {}
    return trainings.get(slot)


def finish(at, slot="train", timeout=180, *, ok=False):
    """Wait for the training in slot to end (a condition: job.wait), then rerun the page,
    as the progress fragment's timer would. ok: also assert it ended well."""
    t = training(at, slot)
    if t is not None and t.running:  # else it ended within the run that started it
        assert t.job.wait(timeout)
        at.run()
        assert not at.exception, at.exception
    t = training(at, slot)
    assert not t.running
    if ok:
        assert t.outcome.ok, t.outcome
    return at


def pick(at, key, contains):
    """Select the first option of the selectbox `key` whose text contains `contains`."""
    box = at.selectbox(key=key)
    box.select(next(o for o in box.options if contains in o))


def plain(element):
    """An element's Markdown text with lab.safe.md's backslash escapes taken out."""
    text = element if isinstance(element, str) else element.value
    return re.sub(r"\\([!-/:-@\[-`{-~])", r"\1", text)


def train(at, timeout=120):
    """Click the Train page's Train, wait for the worker, rerun: the page after training."""
    at.button(key="train_submit").click()
    at.run()
    assert not at.exception, at.exception
    return finish(at, "train", timeout)


def upload(at, *files):
    """Upload text files [(name, bytes, mime)] on the Train page."""
    at.radio(key="train_source").set_value("Upload text files")
    at.run()
    at.file_uploader(key="train_uploads").set_value(list(files))
    at.run()
    assert not at.exception, at.exception
    return at


def counts_file(tmp_path, text, *args):
    """A counts file of text, made by the CLI as a user would: (name, bytes, mime)."""
    corpus, out = tmp_path / "bard.txt", tmp_path / "bard.counts"
    corpus.write_text(text, encoding="utf-8")
    subprocess.run([sys.executable, "-m", "bpe", "count", str(corpus), "-o", str(out), *args],
                   check=True, cwd=ROOT, capture_output=True)
    return ("bard.counts", out.read_bytes(), "application/octet-stream")


def upload_counts(at, file):
    """Upload a counts file (counts_file's) on the Train page."""
    at.radio(key="train_source").set_value("Counts file (.counts)")
    at.run()
    at.file_uploader(key="train_counts_upload").set_value([file])
    at.run()
    assert not at.exception, at.exception
    return at
