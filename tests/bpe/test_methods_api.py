"""bpe.methods as a whole: every method trains through the one entry point, comes back
with the lab's API, pickles (the app's worker sends it to the page), round-trips text;
bad arguments get a sentence before any work starts."""
import pickle
from collections.abc import Mapping

import pytest

from bpe import methods

TEXT = "Hello, world! The quick brown fox jumps over the lazy dog 1234 times. " * 20


def options(method):
    return {"special_tokens": ["[UNK]"]} if method == "wordpiece" else {}


@pytest.mark.parametrize("method", list(methods.METHODS))
def test_every_method_trains_pickles_and_round_trips(method):
    texts = {"en": TEXT, "fr": "Bonjour le monde, encore et encore. " * 20} \
        if method == "parity" else [TEXT]
    tok = methods.train(method, texts, 400, **options(method))
    # a mapping id -> bytes: a dict, or for the tokenizer.json kinds a read-only PackedVocab
    # (issue 32: one buffer, not a bytes object per piece) that reads as one
    assert tok.name and isinstance(tok.vocab, Mapping) and len(tok.vocab) <= 400 + 1
    assert all(isinstance(idx, int) and isinstance(token, bytes)
               for idx, token in tok.vocab.items())
    twin = pickle.loads(pickle.dumps(tok))
    sample = "the lazy fox, 1234 times"
    assert twin.encode(sample) == tok.encode(sample)
    if method in ("wordpiece", "hf-bpe"):  # the owner's decode lowercases / adds a space
        return
    assert tok.decode(tok.encode(sample)) == sample
    if method != "unigram":
        assert tok.merges  # every method but Unigram (pieces) and WordPiece has merges


@pytest.mark.parametrize("method, texts, size, opts, says", [
    ("bpe-2", [TEXT], 300, {}, "unknown method 'bpe-2'; choose one of: bpe,"),
    ("picky", [TEXT], 300, {"tau": 1.5}, "tau must be a number in (0, 1]"),
    ("picky", [TEXT], 300, {"tau": 0}, "tau must be a number in (0, 1]"),
    ("superbpe", [TEXT], 300, {"transition": 400}, "transition must be an int from 256 to vocab_size (300)"),
    ("parity", [TEXT], 300, {}, "parity trains on a dict of language -> text"),
    ("parity", {"en": ""}, 300, {}, "every language's text is empty"),
    ("bpe", [], 300, {}, "the corpus is empty"),
    ("bpe", ["", ""], 300, {}, "the corpus is empty"),
    ("bpe", TEXT, 300, {}, "wrap one text in a list"),
    ("unigram", [TEXT], 300, {"tau": 0.5}, "unigram takes no option tau"),
    ("bpe", [TEXT], 300, {"min_frequency": 0}, "min_frequency must be an int of at least 1"),
])
def test_bad_arguments_get_a_sentence_first(method, texts, size, opts, says):
    with pytest.raises((ValueError, TypeError)) as e:
        methods.train(method, texts, size, **opts)
    assert says in str(e.value)


def test_every_method_has_a_one_line_description():
    assert set(methods.METHODS) == {"bpe", "hf-bpe", "wordpiece", "unigram", "superbpe",
                                    "boundless", "picky", "parity"}
    assert all(line and "\n" not in line for line in methods.METHODS.values())
    assert set(methods.OPTIONS) == set(methods.METHODS)


def test_residue_of_hf_bpe_walks_its_merges_and_dropout_says_what_to_do():
    """hf-bpe's ids are its pipeline's, not GPT-4 chunks' bytes: residue counts its tokens
    as bpe's are counted (about as many seen, a similar leftover share), and dropout says
    it cannot replay the pipeline instead of giving ids of the wrong layout."""
    from bpe.methods.residue import leftover_share
    bpe_tok = methods.train("bpe", [TEXT * 5], 320)
    hf_tok = methods.train("hf-bpe", [TEXT * 5], 320)
    ours, theirs = methods.residue(bpe_tok, [TEXT]), methods.residue(hf_tok, [TEXT])
    assert len(theirs) > 0.5 * len(ours)
    assert abs(leftover_share(theirs) - leftover_share(ours)) < 0.2
    assert all(final + made_more > 0 for final, made_more, _ in theirs.values())
    with pytest.raises(ValueError, match="Hugging Face pipeline"):
        methods.dropout_encode(hf_tok, "the lazy dog", 0.1, seed=1)
    unigram = methods.train("unigram", [TEXT * 5], 400)
    with pytest.raises(ValueError, match="has no merges"):
        methods.residue(unigram, [TEXT])
