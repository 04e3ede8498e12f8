"""Documents stay apart: train(text, ..., special_tokens=[...]) and train_from_iterator
learn exactly the merges of the textbook loop run on each document's chunks, with every
tie rule, and no merge crosses from one document into the next (bpe/documents.py)."""
import pytest
import regex
from hypothesis import given, settings, strategies as st

from bpe import BasicTokenizer, RegexTokenizer
from bpe.patterns import PATTERNS
from bpe.tie_break import TIE_BREAKS
from tests.helpers.textbook import get_stats, merge


def textbook_documents(documents, vocab_size, pattern=None, tie_break="first"):
    """The textbook loop over the chunks of each document, split on its own, with the
    tie rule written out plainly: -> merges."""
    chunks = [c for doc in documents for c in (regex.findall(pattern, doc) if pattern else [doc])]
    ids = [list(c.encode("utf-8")) for c in chunks]
    vocab = {i: bytes([i]) for i in range(256)}
    merges = {}
    for idx in range(256, vocab_size):
        stats = {}
        for chunk_ids in ids:
            get_stats(chunk_ids, stats)
        if not stats:
            break
        top = max(stats.values())
        tied = [pair for pair, count in stats.items() if count == top]
        if tie_break == "first":
            pair = tied[0]  # stats is in order of first occurrence: max()'s choice
        elif tie_break == "smallest_ids":
            pair = min(tied)
        else:
            pair = max(tied, key=lambda p: (vocab[p[0]], vocab[p[1]]))
        ids = [merge(chunk_ids, pair, idx) for chunk_ids in ids]
        merges[pair] = idx
        vocab[idx] = vocab[pair[0]] + vocab[pair[1]]
    return merges


def test_items_are_documents_not_one_stream():
    tok = RegexTokenizer().train_from_iterator(["ab", "ab", "ab"], 258)
    assert b"abab" not in tok.vocab.values() and tok.merges == {(97, 98): 256}
    basic = BasicTokenizer().train_from_iterator(["ab", "ab", "ab"], 260)
    assert basic.merges == {(97, 98): 256}  # each item its own sequence: (98, 97) never occurs
    assert basic.stop_reason == "no_pairs"
    # one text is one stream still: the same items joined learn "abab"
    assert b"abab" in BasicTokenizer().train("ababab", 258).vocab.values()


@pytest.mark.parametrize("rule", TIE_BREAKS)
@pytest.mark.parametrize("pattern", [None, "gpt2", "gpt4", "gpt4o"])
def test_iterator_equals_textbook_on_documents(pattern, rule, taylorswift):
    text = taylorswift[:6000]
    documents = [text[i:i + 411] for i in range(0, len(text), 411)]
    tok = (RegexTokenizer(pattern) if pattern else BasicTokenizer()).train_from_iterator(
        iter(documents), 300, tie_break=rule)
    assert tok.merges == textbook_documents(documents, 300, PATTERNS.get(pattern), rule)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.text(alphabet=st.sampled_from(list("ab c1'\n")), max_size=30), max_size=6),
       st.sampled_from(TIE_BREAKS), st.sampled_from([None, "gpt2", "gpt4"]))
def test_fuzz_documents_equal_the_textbook(documents, rule, pattern):
    make = (lambda: RegexTokenizer(pattern)) if pattern else BasicTokenizer
    want = textbook_documents([d for d in documents if d], 275, PATTERNS.get(pattern), rule)
    assert make().train_from_iterator(documents, 275, tie_break=rule).merges == want
    joined = "<|sep|>".join(documents)
    by_train = make().train(joined, 276, special_tokens=["<|sep|>"], tie_break=rule)
    assert by_train.merges == want
    assert by_train.special_tokens == {"<|sep|>": 256 + len(want)}


def test_iterator_takes_special_tokens_too():
    tok = RegexTokenizer().train_from_iterator(["ab<|e|>ab", "ab"], 258, special_tokens=["<|e|>"])
    assert tok.merges == {(97, 98): 256} and tok.special_tokens == {"<|e|>": 257}
    with pytest.raises(TypeError, match="str items"):
        RegexTokenizer().train_from_iterator([b"ab"], 258)
