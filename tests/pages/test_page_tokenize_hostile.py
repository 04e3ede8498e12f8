"""Tokenize on a visitor's tokenizer.json whose decoder Replace of the empty string is
stopped by the growth budget (issue 32): the round-trip badge says it was not checked and
why, where the page used to stop on "an unexpected error (ValueError)"."""
from bpe import load_bytes
from helpers.hostile_parts import hostile_files


def test_a_decoder_over_its_budget_is_a_badge_not_a_page_error(open_page):
    data, file_name, text, _ = hostile_files()["decoder-replace-empty"]
    at = open_page()
    at.session_state["lab_tokenizers"] = {"dec": load_bytes(data, file_name)}
    at.session_state["lab_newest_tokenizer"] = (1, "dec")
    at.session_state["tokenize_text"] = text
    at.switch_page("pages/tokenize.py")
    at.run()
    assert not at.exception
    assert not [e.value for e in at.error]
    assert any("decode(encode(text)) not checked: the decoder would make more than" in m.value
               for m in at.markdown)
