"""Tokenize on a visitor's tokenizer.json whose decoder Replace of the empty string is
stopped by the growth budget (issue 32): the round-trip badge says it was not checked and
why, where the page used to stop on "an unexpected error (ValueError)"; and a WordPiece
file whose long word kept the owner check running past 40 s."""
import hashlib
import json

from bpe import load_bytes
from helpers.hostile_parts import hostile_files
from lab import parity
from lab.state import FileSource


def tokenize_with(open_page, name, tok, text, files=None):
    """Tokenize run on text with tok as the session's newest tokenizer (files: its
    lab.state.FileSource, for the owner check); the page must end without an error."""
    at = open_page()
    at.session_state["lab_tokenizers"] = {name: tok}
    if files is not None:
        at.session_state["lab_tokenizer_files"] = {name: files}
    at.session_state["lab_newest_tokenizer"] = (1, name)
    at.session_state["tokenize_text"] = text
    at.switch_page("pages/tokenize.py")
    at.run()
    assert not at.exception
    assert not [e.value for e in at.error]
    return at


def test_a_decoder_over_its_budget_is_a_badge_not_a_page_error(open_page):
    data, file_name, text, _ = hostile_files()["decoder-replace-empty"]
    at = tokenize_with(open_page, "dec", load_bytes(data, file_name), text)
    assert any("decode(encode(text)) not checked: the decoder would make more than" in m.value
               for m in at.markdown)


def test_a_wordpiece_long_word_is_checked_on_a_bounded_start(open_page):
    """issue 32: one 20,001-character word of a WordPiece file whose
    max_input_chars_per_word is 10**9. tokenizers' WordPiece is cubic in a word's length
    (minutes here), so the owner check is asked for a start whose worst case is bounded by
    counted steps, and the badge says how much was compared."""
    data, file_name, text, _ = hostile_files()["wordpiece-long-word"]
    tok = load_bytes(data, file_name)
    limit = parity.check_limit(tok)
    assert limit < 3_000 and limit * min(tok.model.max_chars, limit) ** 2 \
        <= parity.WORDPIECE_OWNER_STEPS
    at = tokenize_with(open_page, "wp", tok, text, FileSource(
        "tokenizer.json", ((file_name, data),), hashlib.sha256(data).hexdigest()))
    badges = [m.value for m in at.markdown if "-badge[" in m.value]
    assert f":green-badge[:material/check: ids == tokenizers (first {limit:,} characters)]" \
        in badges, badges


def test_a_usual_wordpiece_is_checked_on_the_whole_limit():
    """The bound costs nothing to a BERT-like file (max_input_chars_per_word 100)."""
    data, file_name, _, _ = hostile_files()["wordpiece-long-word"]
    doc = json.loads(data)
    doc["model"]["max_input_chars_per_word"] = 100
    assert parity.check_limit(load_bytes(json.dumps(doc).encode(), file_name)) \
        == parity.CHECK_LIMIT
