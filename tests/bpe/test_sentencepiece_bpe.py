"""SentencePieceBPE: trained by sentencepiece, our API, ids that decode to exactly the text."""
import subprocess
import sys

import pytest
import sentencepiece as spm

from bpe import RegexTokenizer
from bpe.sentencepiece_bpe import SentencePieceBPE
from helpers.app import ROOT
from viz.samples import SAMPLES
from viz.tokens import token_spans


@pytest.fixture(scope="module")
def sp_tok(taylorswift):
    return SentencePieceBPE().train(taylorswift, 1000)


def test_ids_decode_to_exactly_the_text(sp_tok):
    for text in [*SAMPLES.values(), "  two  spaces\t\ttabs\n\n", "", "🫠"]:
        ids = sp_tok.encode(text)
        assert sp_tok.decode_bytes(ids) == text.encode("utf-8")
        assert sp_tok.decode(ids) == text
        spans = token_spans(sp_tok, ids)
        assert "".join(s.text for s in spans) == text


def test_llama_style_pieces(sp_tok, taylorswift):
    assert sp_tok.n_vocab == 1000 and sp_tok.stop_reason == "vocab_size"
    # bytes 0x00-0xFF are ids 3-258; a newline is always a byte token (training is per line)
    assert sp_tok.decode_single_token_bytes(3 + 0x0A) == b"\n"
    assert sp_tok.encode("\n") == [3 + 0x0A]
    # a space starts the piece after it (▁the), digits stand alone
    ids = sp_tok.encode("Taylor Swift sang 1989")
    tokens = sp_tok.decode_tokens_bytes(ids)
    assert b" Swift" in tokens
    assert tokens[-4:] == [b"1", b"9", b"8", b"9"]
    # the same ids as sentencepiece's own processor over the same model
    own = spm.SentencePieceProcessor(model_proto=sp_tok.model_proto)
    text = taylorswift[:5000]
    assert sp_tok.encode(text) == own.encode(text)
    # and a different tokenization from our byte-level BPE on the same corpus
    ours = RegexTokenizer().train(taylorswift, 1000)
    assert sp_tok.encode(text) != ours.encode(text)


def test_small_text_stops_short():
    tok = SentencePieceBPE().train("hello hello world\n" * 20, 300)
    assert tok.n_vocab < 300 and tok.stop_reason == "no_pairs"
    assert tok.decode(tok.encode("hello world")) == "hello world"


@pytest.mark.parametrize("text, vocab_size, message", [
    ("abc\n", 259, "vocab_size must be an int of at least 260"),
    ("\n  \n", 300, "no non-empty lines"),
    ("".join(chr(0x4E00 + i) for i in range(600)), 300,
     "Vocabulary size is smaller than required_chars"),
])
def test_training_errors(text, vocab_size, message):
    with pytest.raises(ValueError, match=message):
        SentencePieceBPE().train(text, vocab_size, character_coverage=1.0)


def test_untrained_save_and_load_say_what_to_do(sp_tok):
    with pytest.raises(ValueError, match="not trained yet"):
        SentencePieceBPE().encode("hi")
    with pytest.raises(ValueError, match="model_proto"):
        sp_tok.save("x")
    with pytest.raises(ValueError, match="model_proto"):
        sp_tok.load_text("minbpe v1\n")
    again = SentencePieceBPE(model_proto=sp_tok.model_proto)
    assert again.encode("Taylor Swift") == sp_tok.encode("Taylor Swift")


def test_import_bpe_does_not_import_sentencepiece():
    code = "import sys, bpe, bpe.sentencepiece_bpe; print('sentencepiece' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True)
    assert out.stdout.strip() == "False", out.stderr
