"""Tokenize with a tokenizer whose unk_token is 2 MB (a visitor's tokenizer.json): 200
unknown words once cost 17 s of CPU and 2.7 GB per page run (every token's text drawn
whole, and decoded whole for the round-trip badge). The view now carries each such token
cut, and the round trip is not checked, saying so."""
import json

from bpe.loading import load_bytes

BIG = "U" * 2_000_000


def wordpiece():
    return load_bytes(json.dumps({
        "version": "1.0", "truncation": None, "padding": None, "added_tokens": [],
        "normalizer": None, "pre_tokenizer": {"type": "Whitespace"}, "post_processor": None,
        "decoder": None,
        "model": {"type": "WordPiece", "unk_token": BIG, "continuing_subword_prefix": "##",
                  "max_input_chars_per_word": 100,
                  "vocab": {BIG: 0, "a": 1, "##a": 2, "b": 3}}}).encode(), "tokenizer.json")


def test_a_huge_unk_token_costs_what_is_shown(open_page):
    at = open_page("pages/tokenize.py")
    at.session_state["lab_tokenizers"] = {"big": wordpiece()}
    at.session_state["lab_newest_tokenizer"] = (1, "big")
    at.session_state["tokenize_text"] = "c d e f " * 50
    at.run()
    assert not at.exception
    payload = [len(e.proto.bytes) for e in at.get("bidi_component")
               if e.proto.id.endswith("-tokenize_view")]
    assert payload and payload[0] < 2_000_000, payload  # 200 tokens of 2 MB were 400 MB
    assert any("not checked" in m.value for m in at.markdown), [m.value for m in at.markdown]
