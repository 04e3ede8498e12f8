"""bpe.hf_tokenizer keeps a tokenizer.json as its JSON text (HFTokenizer.document_json),
not as the parsed dict (issue 32: 18 MB of Python objects for a 3.6 MB file): `document`
parses it again on each read, pickling carries the text, and export writes the same bytes
as when the dict itself was kept."""
import json
import pickle
import sys

from hypothesis import given, settings
from hypothesis import strategies as st

from bpe.formats.hf.tokenizer_json import save_hf
from bpe.formats.hf.document_text import document_bytes, document_from_bytes
from bpe.loading import load_bytes
from helpers.hostile_parts import html_vocab

WORDPIECE = {"version": "1.0", "truncation": None, "padding": None,
             "added_tokens": [{"id": 0, "content": "[UNK]", "single_word": False,
                               "lstrip": False, "rstrip": False, "normalized": False,
                               "special": True}],
             "normalizer": {"type": "Lowercase"}, "pre_tokenizer": {"type": "Whitespace"},
             "post_processor": None, "decoder": {"type": "WordPiece", "prefix": "##"},
             "model": {"type": "WordPiece", "unk_token": "[UNK]",
                       "continuing_subword_prefix": "##", "max_input_chars_per_word": 100,
                       "vocab": {"[UNK]": 0, "hug": 1, "##s": 2, "é": 3, "中": 4}}}
TEXT = "Hugs é 中 hug"


def test_the_document_is_kept_as_text_and_parsed_fresh_on_each_read():
    tok = load_bytes(json.dumps(WORDPIECE).encode(), "wp.json")
    assert isinstance(tok.document_json, bytes)
    assert "document" not in vars(tok)  # no parsed dict stays on the tokenizer
    first, second = tok.document, tok.document
    assert first == second == WORDPIECE and first is not second
    first["model"]["vocab"]["changed"] = 9  # a caller's copy: the tokenizer is not touched
    assert "changed" not in tok.document["model"]["vocab"]


def test_pickle_round_trip_is_equal():
    tok = load_bytes(json.dumps(WORDPIECE).encode(), "wp.json")
    tok.register_special_tokens({"[UNK]": 0, "<new>": 5})
    back = pickle.loads(pickle.dumps(tok))
    assert back.document_json == tok.document_json and back.document == tok.document
    assert back.vocab == tok.vocab and back.special_tokens == tok.special_tokens
    assert back.encode(TEXT + " <new>", allowed_special="all") == \
        tok.encode(TEXT + " <new>", allowed_special="all")
    assert back.decode(tok.encode(TEXT)) == tok.decode(tok.encode(TEXT))


def test_export_writes_what_the_kept_dict_wrote(tmp_path):
    # before: hf_json copied the parsed dict and save_hf wrote json.dumps(doc,
    # ensure_ascii=False); the same bytes now, from the kept text
    data = html_vocab(2000)
    tok = load_bytes(data, "html.json")
    save_hf(tok, tmp_path / "out.json")
    expected = json.dumps(json.loads(data), ensure_ascii=False)
    assert (tmp_path / "out.json").read_text(encoding="utf-8") == expected
    assert tok.document_json.decode("utf-8") == expected  # what Train's download sends


def test_the_kept_text_is_about_the_file_not_its_objects():
    data = html_vocab(100_000)
    tok = load_bytes(data, "html.json")
    assert len(tok.document_json) <= len(data)  # the old dict: 18 MB of objects for 3.6 MB
    assert sys.getsizeof(tok.document_json) < 2 * len(data)


# JSON values a tokenizer.json may hold, lone surrogates ("\ud800") among the strings
values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) |
    st.text(st.characters(codec=None, exclude_categories=())),
    lambda inner: st.lists(inner, max_size=4) |
    st.dictionaries(st.text(max_size=5), inner, max_size=4), max_leaves=12)


@settings(max_examples=200, deadline=None)
@given(values)
def test_document_bytes_round_trip_on_fuzz(document):
    data = document_bytes(document)
    assert document_from_bytes(data) == document
    assert document_bytes(document_from_bytes(data)) == data
