"""What an uploaded tokenizer.json's Unigram model holds (issue 32: "memory of the app per
visitor file stays within a few times the file's size"): counted in bytes of Python
objects (tracemalloc) per piece, never by a clock or the process's RSS. The pieces' strings
are the parsed document's, shared; the model adds one piece -> id dict and a float array."""
import json
import tracemalloc

from bpe.formats.hf.models import Unigram
from helpers.hostile_parts import html_vocab

N = 100_000
# one dict entry (~37 bytes at this size), its id's int object (28) and an 8-byte score per
# piece: 75 bytes; the model that kept a second, identical dict and a float object per
# score held 113
BYTES_PER_PIECE = 88


def test_a_unigram_model_holds_one_dict_and_an_array():
    model = json.loads(html_vocab(N))["model"]
    tracemalloc.start()
    try:
        unigram = Unigram(model)
        held = tracemalloc.get_traced_memory()[0]
    finally:
        tracemalloc.stop()
    assert unigram.vocab is unigram.token_to_id
    assert held <= BYTES_PER_PIECE * N, f"{held / N:,.0f} bytes a piece"
    assert unigram.ids("<b>0</b>") == [1]  # the first piece after <unk>
