"""extend_vocabulary keeps every base id and special token, continues BPE exactly, and
encodes untouched text as the base does; its exports read back to the same ids."""
import json

import pytest
from hypothesis import given, settings, strategies as st

from bpe import RegexTokenizer
from bpe import load_bytes
from bpe.formats.hf.tokenizer_json import hf_json
from bpe.formats.ranks import tiktoken_text
from bpe.extend import ExtendedTokenizer, extend_vocabulary


@pytest.fixture(scope="module")
def gpt4_ext(gpt4, shakespeare):
    return extend_vocabulary(gpt4, shakespeare[:200000], 150)


def test_gpt4_ids_and_specials_keep_their_meaning(gpt4, gpt4_ext):
    for idx, token in gpt4.vocab.items():
        assert gpt4_ext.vocab[idx] == token
    assert gpt4_ext.special_tokens == gpt4.special_tokens
    new_ids = list(gpt4_ext.new_merges.values())
    assert new_ids == list(range(100277, 100277 + 150))  # after <|endofprompt|> = 100276
    assert gpt4_ext.n_vocab == 100277 + 150


def test_gpt4_extension_shortens_domain_text_only(gpt4, gpt4_ext, shakespeare, taylorswift):
    domain = shakespeare[-50000:]  # held out from the 200 KB the merges were learned on
    assert len(gpt4_ext.encode_ordinary(domain)) < len(gpt4.encode_ordinary(domain))
    assert gpt4_ext.encode("<|endoftext|>", allowed_special="all") == [100257]


@settings(max_examples=80, deadline=None)
@given(st.text(alphabet=st.sampled_from("ABCDEFGHIJKLMNOPQRSTU abcdefg\n:,.'éü日🙂"), max_size=80)
       | st.text(max_size=40))
def test_undoing_new_merges_gives_the_base_ids(gpt4, gpt4_ext, text):
    ids = gpt4_ext.encode_ordinary(text)
    base_ids = gpt4.encode_ordinary(text)
    assert gpt4_ext.undo_new_merges(ids) == base_ids
    if not set(ids) & set(gpt4_ext.new_merges.values()):
        assert ids == base_ids  # no new merge touched it: exactly the base's encoding
    assert gpt4_ext.decode(ids) == gpt4.decode(base_ids)


def test_untouched_real_text_encodes_as_base(gpt4, gpt4_ext, taylorswift):
    text = taylorswift[:30000]
    ids = gpt4_ext.encode_ordinary(text)
    assert gpt4_ext.undo_new_merges(ids) == gpt4.encode_ordinary(text)


@pytest.mark.parametrize("tie_break", ["first", "smallest_ids", "greatest_bytes"])
def test_extending_equals_training_further(taylorswift, tie_break):
    # BPE continued on the base's encodings is BPE with more merges on the same text
    from bpe.train import train_merges
    from collections import Counter
    text = taylorswift[:40000]
    tok = RegexTokenizer()
    words = [(c.encode(), f) for c, f in Counter(tok.split(text)).items()]
    longer = train_merges(words, 256 + 90, tie_break=tie_break).merges
    base = RegexTokenizer()
    base.merges = dict(list(longer.items())[:50])
    base._reset()
    ext = extend_vocabulary(base, text, 40, min_frequency=1, tie_break=tie_break)
    assert list(ext.merges.items()) == list(longer.items())


def test_min_frequency_and_zero_merges(gpt4):
    ext = extend_vocabulary(gpt4, "zqxj zqxj", 10, min_frequency=3)
    assert ext.new_merges == {} and ext.stop_reason == "min_frequency"
    assert extend_vocabulary(gpt4, "abc abc", 0).new_merges == {}


def test_bad_arguments_are_clear(gpt4):
    with pytest.raises(ValueError, match="num_merges"):
        extend_vocabulary(gpt4, "x", -1)
    with pytest.raises(TypeError, match="base must be a tokenizer"):
        extend_vocabulary("gpt4", "x", 1)
    with pytest.raises(ValueError, match="min_frequency"):
        extend_vocabulary(gpt4, "x", 1, min_frequency=0)


def test_gpt4_extension_exports_as_tiktoken(gpt4_ext, shakespeare):
    tiktoken = pytest.importorskip("tiktoken")
    from bpe.formats.ranks import parse_ranks
    ranks = parse_ranks(tiktoken_text(gpt4_ext).encode())
    enc = tiktoken.Encoding("ext", pat_str=gpt4_ext.pattern, mergeable_ranks=ranks,
                            special_tokens=gpt4_ext.special_tokens)
    sample = shakespeare[-20000:]
    assert enc.encode_ordinary(sample) == gpt4_ext.encode_ordinary(sample)
    with pytest.raises(ValueError, match="cannot express"):
        gpt4_ext.model_text()


def test_trained_extension_exports_model_and_json(taylorswift, shakespeare):
    base = RegexTokenizer().train(taylorswift[:50000], 256 + 100)
    ext = extend_vocabulary(base, shakespeare[:50000], 60)
    sample = shakespeare[60000:70000]
    again = load_bytes(ext.model_text().encode(), "ext.model")
    assert again.encode_ordinary(sample) == ext.encode_ordinary(sample)
    tokenizers = pytest.importorskip("tokenizers")
    hf = tokenizers.Tokenizer.from_str(json.dumps(hf_json(ext)))
    assert hf.encode(sample).ids == ext.encode_ordinary(sample)


def test_specials_keep_ids_and_model_refuses_the_gap(taylorswift):
    base = RegexTokenizer().train(taylorswift[:20000], 256 + 30)
    base.register_special_tokens({"<|end|>": 300})
    ext = extend_vocabulary(base, taylorswift[20000:40000], 5)
    assert ext.special_tokens == {"<|end|>": 300}
    assert list(ext.new_merges.values()) == [301, 302, 303, 304, 305]
    assert ext.encode("<|end|>", allowed_special="all") == [300]
    with pytest.raises(ValueError, match="after the special tokens"):
        ext.model_text()
    assert isinstance(ext, ExtendedTokenizer)
    with pytest.raises(ValueError, match="extend"):
        ext.train("abc", 400)


def test_gpt4_extension_exports_as_tokenizer_json(gpt4_ext, shakespeare):
    tokenizers = pytest.importorskip("tokenizers")
    hf = tokenizers.Tokenizer.from_str(json.dumps(hf_json(gpt4_ext)))
    sample = shakespeare[-20000:] + " Ünïcödé 日本語 🙂 1234567"
    assert hf.encode(sample).ids == gpt4_ext.encode_ordinary(sample)
