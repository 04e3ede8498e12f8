"""bpe.formats.hf.document_text.compress_document writes a tokenizer.json's text a slice at a time
(json_chunks) and zlib-compresses it: the text it keeps is exactly document_bytes' (what a
download writes), on hypothesis fuzz with slices of every size, NaN and infinities, lone
surrogates and non-str keys included; and a loaded file's kept text is the file's."""
import json
import math
import zlib

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bpe.formats.hf.document_text import compress_document, document_bytes, json_chunks
from bpe.loading import load_hf_bytes
from helpers.hostile_parts import html_vocab
from tests.bpe.test_hf_document_kept import values

keyed = st.dictionaries(st.integers(-3, 3) | st.booleans() | st.none(), st.integers(), max_size=3)
odd = st.sampled_from([math.nan, math.inf, -math.inf, -0.0, 1e300, "\ud800", "\u2581\U0001F600"])


@settings(max_examples=300, deadline=None)
@given(document=st.one_of(values, st.lists(values | odd, max_size=8),
                          st.dictionaries(st.text(max_size=3), values | odd | keyed, max_size=6)),
       slice_items=st.integers(1, 5))
def test_the_chunks_are_json_dumps_exactly(document, slice_items):
    want = json.dumps(document, ensure_ascii=False)
    assert "".join(json_chunks(document, slice_items)) == want
    assert zlib.decompress(compress_document(document, slice_items)) == document_bytes(document)


def test_a_loaded_files_kept_text_is_the_file():
    data = html_vocab(25_000)  # more pieces than a slice: written in three slices
    doc = json.loads(data)
    doc["decoder"] = {"type": "Metaspace", "replacement": "\u2581", "prepend_scheme": "always",
                      "split": True}
    tok = load_hf_bytes(json.dumps(doc).encode(), "m.json")
    assert tok.document_json == json.dumps(doc, ensure_ascii=False).encode()
    assert len(tok.document_zlib) < len(tok.document_json) / 3


def test_a_value_json_cannot_write_is_refused_as_json_refuses_it():
    with pytest.raises(TypeError):
        compress_document({"model": {"vocab": [[b"bytes", 1.0]]}})
