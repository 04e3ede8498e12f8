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


def test_the_hover_card_reads_each_tokens_own_bytes_when_they_are_not_the_texts():
    """A Metaspace tokenizer.json writes "▁" before the first word, so its tokens cover one
    byte more than the box holds: the card, which reads the row's text (else the box's) at
    the tokens' byte offsets, showed each token's right-hand neighbour ("e" for "t" in
    "Byte"). box_row gives such a row its own text; GPT-4's rows send nothing more."""
    pytest.importorskip("tokenizers")
    import bpe
    from helpers.hf_families import unigram_metaspace
    from viz.rows import box_row
    tok = bpe.load_bytes(unigram_metaspace().to_str().encode(), "tokenizer.json")
    text = "Byte pair encoding"
    ids = tok.encode(text)
    token_bytes = tok.decode_tokens_bytes(ids)
    row = box_row(token_bytes, ids, text)
    read = row.get("text", text).encode()  # what the card reads
    offsets = [sum(row["nb"][:k]) for k in range(len(ids) + 1)]
    assert [read[a:b] for a, b in zip(offsets, offsets[1:])] == token_bytes
    assert read != text.encode()  # the premise: the tokens' bytes are not the text's


def test_a_row_whose_tokens_are_the_text_sends_no_second_copy(gpt4):
    from viz.rows import box_row
    text = "Byte pair encoding"
    ids = gpt4.encode(text)
    assert "text" not in box_row(gpt4.decode_tokens_bytes(ids), ids, text)
