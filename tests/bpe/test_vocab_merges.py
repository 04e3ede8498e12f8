"""from_vocab_merges: an exact tokenizer from vocab + merges in any id layout, as `tokenizers`
and CS336 define it (the earliest listed pair merged first, byte-level)."""
import json

import pytest
import tokenizers
from hypothesis import given, settings
from hypothesis import strategies as st
from tokenizers import decoders, models, pre_tokenizers, trainers

from bpe import RegexTokenizer, methods
from bpe.formats.gpt2 import CHAR_TO_BYTE, token_text
from bpe.vocab_merges import from_vocab_merges

TEXTS = ["Hello world!", "  two  spaces\t\ttabs\n\n", "1234567 don't we'll", "🫠 über naïve",
         "a" * 300, "", " ", "<|endoftext|> is text here"]


def as_bytes(text_token):
    return bytes(CHAR_TO_BYTE[ch] for ch in text_token)


def hf_byte_level(vocab, merges):
    """A `tokenizers` BPE with ByteLevel over the same vocab (id -> bytes) and merges."""
    model = models.BPE(vocab={token_text(t): i for i, t in vocab.items()},
                       merges=[(token_text(a), token_text(b)) for a, b in merges])
    hf = tokenizers.Tokenizer(model)
    hf.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    hf.decoder = decoders.ByteLevel()
    return hf


@pytest.fixture(scope="module")
def hf_trained(taylorswift):
    """A byte-level BPE trained by `tokenizers` itself: its ids are in its own layout (the
    alphabet in its order, not byte order), and <|endoftext|> is id 0."""
    hf = tokenizers.Tokenizer(models.BPE())
    hf.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    hf.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(vocab_size=1200, special_tokens=["<|endoftext|>"],
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
                                  show_progress=False)
    hf.train_from_iterator([taylorswift], trainer)
    model = json.loads(hf.to_str())["model"]
    vocab = {i: as_bytes(t) for t, i in model["vocab"].items()}
    merges = [tuple(m.split(" ")) if isinstance(m, str) else tuple(m) for m in model["merges"]]
    merges = [(as_bytes(a), as_bytes(b)) for a, b in merges]
    return hf, vocab, merges


def test_equals_tokenizers_on_its_own_layout(hf_trained, taylorswift):
    hf, vocab, merges = hf_trained
    assert vocab[1] != b"\x00"  # not the byte layout: the ids really are another's
    tok = from_vocab_merges(vocab, merges, special_tokens=["<|endoftext|>"])
    assert tok.special_tokens == {"<|endoftext|>": 0}
    for text in [*TEXTS, taylorswift[:20_000]]:
        ids = tok.encode(text, allowed_special="all")
        assert ids == hf.encode(text).ids, text[:40]
        assert tok.decode(ids) == text


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("aeiou tsrnl\n\t'0123,.!é🫠<|>")),
               max_size=80))
def test_fuzz_equals_tokenizers(hf_trained, text):
    hf, vocab, merges = hf_trained
    tok = _cached(vocab, merges)
    assert tok.encode(text, allowed_special="all") == hf.encode(text).ids


_TOKS = {}


def _cached(vocab, merges):
    key = id(vocab)
    if key not in _TOKS:
        _TOKS[key] = from_vocab_merges(vocab, merges, special_tokens=["<|endoftext|>"])
    return _TOKS[key]


def test_cs336_layout_special_first(taylorswift):
    """CS336's train_bpe layout: the special token id 0, byte b id b + 1, merge k id 257 + k."""
    ours = RegexTokenizer("gpt2").train(taylorswift[:50_000], 256 + 200)
    shift = {b: b + 1 for b in range(256)}
    vocab = {0: b"<|endoftext|>"} | {b + 1: bytes([b]) for b in range(256)}
    merges = []
    for (p0, p1), idx in ours.merges.items():
        shift[idx] = len(vocab)
        vocab[len(vocab)] = ours.vocab[idx]
        merges.append((ours.vocab[p0], ours.vocab[p1]))
    tok = from_vocab_merges(vocab, merges, special_tokens=["<|endoftext|>"])
    assert tok.special_tokens == {"<|endoftext|>": 0}
    text = taylorswift[50_000:60_000] + "<|endoftext|>" + "tail"
    ids = tok.encode(text, allowed_special="all")
    assert ids == [0 if i is None else shift[i] for i in _ours_with_special(ours, text)]
    assert tok.decode(ids) == text
    hf = hf_byte_level(vocab, merges)
    plain = taylorswift[60_000:70_000]
    assert tok.encode_ordinary(plain) == hf.encode(plain).ids


def _ours_with_special(ours, text):
    head, _, tail = text.partition("<|endoftext|>")
    return [*ours.encode_ordinary(head), None, *ours.encode_ordinary(tail)]


def test_merge_order_decides_not_ids():
    """Two merges can make "abc"; the listed order decides, whatever the ids say."""
    vocab = {i: bytes([i]) for i in range(256)} | {900: b"ab", 800: b"bc", 700: b"abc"}
    first_bc = from_vocab_merges(vocab, [(b"b", b"c"), (b"a", b"b"), (b"a", b"bc")])
    assert first_bc.encode_ordinary("abc") == [700]
    assert first_bc.encode_ordinary("abd") == [900, 100]
    first_ab = from_vocab_merges(vocab, [(b"a", b"b"), (b"b", b"c"), (b"a", b"bc")])
    assert first_ab.encode_ordinary("abc") == [900, 99]  # (ab) c: no merge (ab, c)
    hf = hf_byte_level(vocab, [(b"a", b"b"), (b"b", b"c"), (b"a", b"bc")])
    assert hf.encode("abc").ids == [900, 99]


def test_special_tokens_in_vocab_keep_their_id_others_come_after():
    vocab = {i + 10: bytes([i]) for i in range(256)} | {5: b"<s>"}
    tok = from_vocab_merges(vocab, [], special_tokens=["<s>", "</s>"])
    assert tok.special_tokens == {"<s>": 5, "</s>": 266}
    assert tok.encode("a<s></s>", allowed_special="all") == [10 + 97, 5, 266]
    assert tok.name == "vocab+merges" and tok.n_vocab == 267


@pytest.mark.parametrize("vocab, merges, error, message", [
    ({i: bytes([i]) for i in range(255)}, [], ValueError, "no token for byte 255"),
    ({i: bytes([i]) for i in range(256)}, [(b"a", b"b")], ValueError,
     r"merge 0 \(b'a', b'b'\) uses or makes b'ab', which is not in the vocab"),
    ({i: bytes([i]) for i in range(256)} | {256: b"ab"}, [(b"a", b"b"), (b"a", b"b")],
     ValueError, "listed twice"),
    ({0: "a"}, [], TypeError, r"vocab\[0\] must be bytes"),
    ([b"a"], [], TypeError, "vocab must be a dict"),
    ({i: bytes([i]) for i in range(256)}, [b"ab"], TypeError, "merges must be a list of"),
])
def test_errors_say_what_to_fix(vocab, merges, error, message):
    with pytest.raises(error, match=message):
        from_vocab_merges(vocab, merges)


def test_special_tokens_must_be_a_list():
    with pytest.raises(TypeError, match="list of str"):
        from_vocab_merges({i: bytes([i]) for i in range(256)}, [], special_tokens="<s>")


def test_pretrained_refuses_train_and_model_save(tmp_path):
    tok = from_vocab_merges({i: bytes([i]) for i in range(256)}, [])
    with pytest.raises(ValueError, match="cannot be trained"):
        tok.train("abc", 300)
    with pytest.raises(ValueError, match="tokenizer.json"):
        tok.save(str(tmp_path / "x"))


def test_a_tokenizer_json_vocab_is_taken_as_it_is(taylorswift):
    """A loaded tokenizer.json's vocab (a read-only mapping, not a dict) gives the same
    tokenizer as the dict of its items."""
    trained = methods.train("hf-bpe", [taylorswift[:20_000]], 400)
    assert not isinstance(trained.vocab, dict)
    merges = [(trained.vocab[a], trained.vocab[b]) for a, b in trained.merges]
    text = taylorswift[20_000:24_000]
    packed = from_vocab_merges(trained.vocab, merges)
    plain = from_vocab_merges(dict(trained.vocab.items()), merges)
    assert packed.encode_ordinary(text) == plain.encode_ordinary(text)
    assert packed.vocab == plain.vocab
