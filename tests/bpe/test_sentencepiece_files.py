"""SentencePiece .model files (protobuf), opened by content: ids and decode equal to the
`sentencepiece` library's, for models it trains here (BPE and Unigram, with and without byte
fallback) and for Mistral's real models shipped by mistral-common."""
import io

import pytest
import sentencepiece as spm
from hypothesis import given, settings
from hypothesis import strategies as st

import bpe
from bpe import reference
from bpe.formats.kinds import detect
from bpe.formats.sentencepiece import model_info
from bpe.sentencepiece_bpe import SentencePieceTokenizer

TEXTS = ["Hello world!", "  two  spaces\t\ttabs\n\nnew", "1234567 don't we'll", "🫠 über naïve",
         "ＡＢＣ ｶﾀｶﾅ ﬁ", "", " ", "<s> and </s> are text here", "Ω≈ç√∫˜µ≤≥÷ 中文"]
SETTINGS = {  # name -> sentencepiece training options
    "bpe": {"model_type": "bpe"},  # defaults: NFKC, dummy prefix, unknown characters <unk>
    "bpe_llama": {"model_type": "bpe", "byte_fallback": True, "split_digits": True,
                  "normalization_rule_name": "identity", "remove_extra_whitespaces": False,
                  "allow_whitespace_only_pieces": True},
    "unigram": {"model_type": "unigram"},  # T5's kind
    "unigram_bytes": {"model_type": "unigram", "byte_fallback": True, "add_dummy_prefix": False},
}


@pytest.fixture(scope="module")
def models(taylorswift, tmp_path_factory):
    """name -> (path of the trained .model, sentencepiece's processor over it)."""
    folder = tmp_path_factory.mktemp("sp")
    lines = [line for line in taylorswift.splitlines() if line.strip()]
    out = {}
    for name, options in SETTINGS.items():
        model = io.BytesIO()
        spm.SentencePieceTrainer.train(sentence_iterator=iter(lines), model_writer=model,
                                       vocab_size=800, minloglevel=2, num_threads=1, **options)
        path = folder / f"{name}.model"
        path.write_bytes(model.getvalue())
        out[name] = path, spm.SentencePieceProcessor(model_file=str(path))
    return out


@pytest.mark.parametrize("name", SETTINGS)
def test_ids_and_decode_equal_sentencepiece(models, name, taylorswift):
    path, sp = models[name]
    tok = bpe.load(path)
    assert isinstance(tok, SentencePieceTokenizer) and tok.name == path.name
    assert tok.model_type == SETTINGS[name]["model_type"]
    for text in [*TEXTS, taylorswift[:20_000]]:
        ids = tok.encode_ordinary(text)
        assert ids == sp.encode(text), text[:40]
        assert tok.decode(ids) == sp.decode(ids), text[:40]


@pytest.mark.parametrize("name", SETTINGS)
@settings(max_examples=100, deadline=None)
@given(text=st.text(max_size=40))
def test_fuzz_ids_equal_sentencepiece(models, name, text):
    path, sp = models[name]
    tok = _loaded(path)
    ids = tok.encode_ordinary(text)
    assert ids == sp.encode(text)
    assert tok.decode(ids) == sp.decode(ids)


_LOADED = {}


def _loaded(path):
    if path not in _LOADED:
        _LOADED[path] = bpe.load(path)
    return _LOADED[path]


def test_token_bytes_are_honest(models):
    """A byte piece is its byte, ▁ a space, the model's dummy space dropped from the first."""
    path, sp = models["bpe_llama"]
    tok = _loaded(path)
    ids = tok.encode("Hi 🫠")
    tokens = tok.decode_tokens_bytes(ids)
    assert b"".join(tokens) == "Hi 🫠".encode()
    assert [sp.id_to_piece(i) for i in ids][-4:] == ["<0xF0>", "<0x9F>", "<0xAB>", "<0xA0>"]
    assert tokens[-4:] == [bytes([b]) for b in "🫠".encode()]
    assert not tokens[0].startswith(b" ")  # "▁Hi": the dummy prefix is not the text's
    unknown = _loaded(models["bpe"][0])
    assert unknown.decode_single_token_bytes(sp.unk_id()) == " \u2047 ".encode()


def test_controls_are_special_tokens(models):
    tok = _loaded(models["unigram"][0])
    assert tok.special_tokens == {"<s>": 1, "</s>": 2}
    assert tok.encode("a</s>", allowed_special="all")[-1] == 2


def test_known_by_content_under_any_name(models, tmp_path):
    path, sp = models["unigram"]
    odd = tmp_path / "weights.json"
    odd.write_bytes(path.read_bytes())
    assert detect(odd.read_bytes()) == "sentencepiece"
    assert bpe.load(odd).encode_ordinary("Taylor Swift") == sp.encode("Taylor Swift")
    info = model_info(path.read_bytes())
    assert (info.pieces, info.model_type, info.dummy_prefix) == (800, "unigram", True)


def test_broken_model_is_refused_with_its_name(models):
    data = models["bpe"][0].read_bytes()
    with pytest.raises(ValueError, match=r"cut.model .*(SentencePiece|not a tokenizer file)"):
        bpe.load_bytes(data[: len(data) // 2], "cut.model")


@pytest.mark.parametrize("name", ["mistral_v1", "mistral_v3"])
def test_real_mistral_model_equals_sentencepiece(name, taylorswift, shakespeare):
    """A real SentencePiece model from a registry package (mistral-common), opened by bpe.load."""
    path = reference.locate(reference.REFERENCES[name])
    tok = bpe.load(path)
    sp = spm.SentencePieceProcessor(model_file=path)
    assert isinstance(tok, SentencePieceTokenizer) and tok.model_type == "bpe"
    for text in [*TEXTS, taylorswift[:30_000], shakespeare[:30_000]]:
        ids = tok.encode_ordinary(text)
        assert ids == sp.encode(text)
        assert tok.decode(ids) == sp.decode(ids)
