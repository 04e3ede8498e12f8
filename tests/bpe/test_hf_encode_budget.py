"""WordPiece's longest match and Unigram's lattice stay within a CPU budget on any file and
text (issue 32: tokens thousands of characters long made a few KB of text take 30-40 s):
such a file is named in a sentence within a fraction of a second, while files of long but
real tokens give `tokenizers`' ids unchanged (hypothesis). Decode of an id the file does
not have skips it, as `tokenizers` does; a value that is no id is a sentence (tokenizers
raises OverflowError); ranks tokenizers keep tiktoken's KeyError."""
import json
import random
import time

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from bpe import RegexTokenizer
from bpe.hf_tokenizer import tokenizer_from_hf
from bpe.formats.hf.models import WORK_PER_CHAR

tokenizers = pytest.importorskip("tokenizers")


def hostile_wordpiece(longest):
    """Continuations "##a...ab" of every length: from each position of a run of "a" every
    length is looked up before "##a" matches."""
    vocab = {"[UNK]": 0, "a": 1, "##a": 2}
    for k in range(1, longest):
        vocab["##" + "a" * k + "b"] = len(vocab)
    return {"model": {"type": "WordPiece", "vocab": vocab, "unk_token": "[UNK]",
                      "continuing_subword_prefix": "##", "max_input_chars_per_word": 10 ** 9},
            "pre_tokenizer": {"type": "WhitespaceSplit"}}


def hostile_unigram(longest):
    """Pieces "a" * k for every k: a run of "a" has every piece at every position."""
    return {"model": {"type": "Unigram", "unk_id": 0,
                      "vocab": [["<unk>", 0.0]] + [["a" * k, -float(k)]
                                                   for k in range(1, longest + 1)]},
            "pre_tokenizer": {"type": "WhitespaceSplit"}}


@pytest.mark.parametrize("make, kind", [(hostile_wordpiece, "WordPiece"),
                                        (hostile_unigram, "Unigram")])
def test_long_tokens_are_named_within_the_budget(make, kind):
    tok = tokenizer_from_hf(make(3000))
    start = time.process_time()
    with pytest.raises(ValueError, match=f"this {kind} file's tokens are up to 3,0.. "
                                         "characters long.*shorten the text's words"):
        tok.encode("a" * 8000)
    # before the budget: 6-9 s CPU for 4,000 characters, cubic in the run's length
    assert time.process_time() - start < 3


def test_the_budget_leaves_real_texts_alone():
    """Work per character of text on real-sized vocabularies is far below the budget."""
    for make in (hostile_unigram, hostile_wordpiece):
        tok = tokenizer_from_hf(make(16))  # a T5-sized longest piece, every length
        assert tok.encode("a" * 50_000)  # a 50,000-character word is encoded, not refused
    assert 16 * 17 // 2 < WORK_PER_CHAR


def long_wordpiece(seed=0):
    rng = random.Random(seed)
    vocab = {"[UNK]": 0}
    for prefix in ("", "##"):
        for _ in range(300):
            vocab.setdefault(prefix + "".join(rng.choice("ab") for _ in
                                              range(rng.randint(1, 60))), len(vocab))
    vocab.setdefault("##a", len(vocab))
    return {"version": "1.0", "normalizer": None, "pre_tokenizer": {"type": "WhitespaceSplit"},
            "post_processor": None, "decoder": {"type": "WordPiece", "prefix": "##",
                                                "cleanup": True},
            "added_tokens": [],
            "model": {"type": "WordPiece", "vocab": vocab, "unk_token": "[UNK]",
                      "continuing_subword_prefix": "##", "max_input_chars_per_word": 10_000}}


def long_unigram(seed=0):
    rng = random.Random(seed)
    pieces = {"".join(rng.choice("abc") for _ in range(rng.randint(1, 40))) for _ in range(400)}
    vocab = [["<unk>", 0.0], ["a", -3.0], ["b", -3.5]] + \
        [[p, -rng.uniform(1, 20)] for p in sorted(pieces - {"a", "b"})]
    return {"version": "1.0", "normalizer": None, "pre_tokenizer": {"type": "WhitespaceSplit"},
            "post_processor": None, "decoder": None, "added_tokens": [],
            "model": {"type": "Unigram", "unk_id": 0, "vocab": vocab}}


@pytest.fixture(scope="module")
def long_pairs():
    out = {}
    for name, doc in (("wordpiece", long_wordpiece()), ("unigram", long_unigram())):
        out[name] = (tokenizers.Tokenizer.from_str(json.dumps(doc)), tokenizer_from_hf(doc))
    return out


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=st.text(alphabet="abc ", max_size=600))
def test_long_real_tokens_give_tokenizers_ids(long_pairs, text):
    for theirs, ours in long_pairs.values():
        assert ours.encode(text, allowed_special="all") == theirs.encode(text).ids


def test_decode_skips_unknown_ids_as_tokenizers(long_pairs):
    for theirs, ours in long_pairs.values():
        ids = ours.encode("ab abc cab", allowed_special="all")
        mixed = ids[:1] + [10 ** 6, theirs.get_vocab_size() + 3] + ids[1:]
        assert ours.decode(mixed) == theirs.decode(mixed, skip_special_tokens=False)


@pytest.mark.parametrize("bad, error, words", [
    ([-1], ValueError, "token id -1 is not an id"),
    ([2 ** 40], ValueError, "token id 1099511627776 is not an id"),
    (["7"], TypeError, "token ids are integers; got '7'"),
    ([1.5], TypeError, "token ids are integers; got 1.5"),
])
def test_decode_of_no_id_is_a_sentence(long_pairs, bad, error, words):
    theirs, ours = long_pairs["wordpiece"]
    with pytest.raises((OverflowError, TypeError)):
        theirs.decode(bad)  # the owner's traceback
    with pytest.raises(error, match=words):
        ours.decode(bad)


def test_ranks_tokenizers_keep_tiktokens_key_error():
    with pytest.raises(KeyError, match="unknown token id 100000"):
        RegexTokenizer().decode([100_000])
