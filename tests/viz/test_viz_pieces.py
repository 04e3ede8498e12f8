"""viz.rows.piece_strings: each token as its vocabulary writes it, for the hover card."""
import pytest

from viz.rows import piece_strings


def test_a_sentencepiece_model_gives_its_pieces_with_the_space_mark():
    from bpe import reference
    tok = reference.load_reference("mistral_v1")
    ids = tok.encode_ordinary("Hello tokenizing world")
    import sentencepiece as spm
    sp = spm.SentencePieceProcessor(model_proto=tok.model_proto)
    assert piece_strings(tok, ids) == [sp.id_to_piece(i) for i in ids]
    assert piece_strings(tok, ids)[-1] == "\u2581world"  # the box shows " world"
    assert tok.decode_tokens_bytes(ids)[-1] == b" world"


def test_a_metaspace_tokenizer_json_gives_its_own_strings():
    pytest.importorskip("tokenizers")
    import bpe
    from helpers.hf_families import unigram_metaspace
    hf = unigram_metaspace()
    tok = bpe.load_bytes(hf.to_str().encode(), "tokenizer.json")
    text = "the quick brown fox"
    ids = tok.encode(text)
    assert ids == hf.encode(text).ids
    assert piece_strings(tok, ids) == hf.encode(text).tokens
    assert any(p.startswith("\u2581") for p in piece_strings(tok, ids))


def test_vocabularies_of_bytes_have_no_pieces(gpt4):
    from bpe import BasicTokenizer
    assert piece_strings(gpt4, gpt4.encode("hello")) is None
    assert piece_strings(BasicTokenizer(), [104]) is None


def test_the_wire_separator_never_reaches_the_view():
    class Odd:
        vocab = {}

        def token_strings_of(self, ids):
            return [{0: "a\x03b"}.get(idx) for idx in ids]

    assert piece_strings(Odd(), [0, 1]) == ["a\u2403b", ""]
