"""Each tie rule of the fast trainer equals a plain textbook loop with that rule, and
record_ties lists exactly the pairs that shared the top count at every step."""
import random
from collections import Counter

import pytest
import regex
from hypothesis import given, settings, strategies as st

from bpe.patterns import GPT4_SPLIT_PATTERN, PATTERNS
from bpe.tie_break import TIE_BREAKS
from bpe.train import train_merges


def textbook_rule_train(text, vocab_size, pattern, tie_break):
    """The textbook loop, with the tie rule written out plainly.
    -> (merges, counts, ties) where ties[idx] is the set of pairs that had the top count."""
    chunks = regex.findall(pattern, text) if pattern else [text]
    ids = [list(chunk.encode("utf-8")) for chunk in chunks]
    vocab = {i: bytes([i]) for i in range(256)}
    merges, counts, ties = {}, {}, {}
    for idx in range(256, vocab_size):
        stats = {}
        for chunk_ids in ids:
            for pair in zip(chunk_ids, chunk_ids[1:]):
                stats[pair] = stats.get(pair, 0) + 1
        if not stats:
            break
        top = max(stats.values())
        if tie_break == "first":  # minbpe: max() keeps the first pair it met
            pair = max(stats, key=stats.get)
        elif tie_break == "smallest_ids":  # rustbpe
            pair = min(p for p in stats if stats[p] == top)
        else:  # CS336: the lexicographically greater (bytes, bytes)
            pair = max((p for p in stats if stats[p] == top),
                       key=lambda p: (vocab[p[0]], vocab[p[1]]))
        new_ids = []
        for chunk_ids in ids:
            out, i = [], 0
            while i < len(chunk_ids):
                if i + 1 < len(chunk_ids) and (chunk_ids[i], chunk_ids[i + 1]) == pair:
                    out.append(idx)
                    i += 2
                else:
                    out.append(chunk_ids[i])
                    i += 1
            new_ids.append(out)
        ids = new_ids
        merges[pair] = idx
        counts[idx] = top
        ties[idx] = {p for p in stats if stats[p] == top}
        vocab[idx] = vocab[pair[0]] + vocab[pair[1]]
    return merges, counts, ties


def fast_train(text, vocab_size, pattern, tie_break, **kwargs):
    """The fast trainer on the chunks of text, as Tokenizer.train feeds it."""
    chunks = regex.findall(pattern, text) if pattern else [text]
    words = [(chunk.encode("utf-8"), freq) for chunk, freq in Counter(chunks).items()]
    return train_merges(words, vocab_size, tie_break=tie_break, **kwargs)


def assert_same(text, vocab_size, pattern, tie_break):
    result = fast_train(text, vocab_size, pattern, tie_break, record_ties=True, max_ties=10**6)
    merges, counts, ties = textbook_rule_train(text, vocab_size, pattern, tie_break)
    assert list(result.merges.items()) == list(merges.items())
    assert result.merge_counts == counts
    assert {idx: set(pairs) for idx, pairs in result.merge_ties.items()} == ties
    for idx, pairs in result.merge_ties.items():
        assert list(result.merges)[idx - 256] == pairs[0]  # the winner comes first
        assert len(pairs) == len(set(pairs))


@pytest.mark.parametrize("tie_break", TIE_BREAKS)
@pytest.mark.parametrize("seed", range(12))
def test_random_tie_heavy_strings(seed, tie_break):
    rng = random.Random(seed)
    text = "".join(rng.choice("ab" if seed % 2 else "ab cé") for _ in range(rng.randint(0, 300)))
    vocab_size = 256 + rng.randint(0, 50)
    assert_same(text, vocab_size, None, tie_break)
    assert_same(text, vocab_size, GPT4_SPLIT_PATTERN, tie_break)


@settings(max_examples=60, deadline=None)
@given(text=st.text(alphabet="abc d\n", max_size=120), extra=st.integers(0, 40),
       tie_break=st.sampled_from(TIE_BREAKS))
def test_hypothesis_tie_heavy(text, extra, tie_break):
    assert_same(text, 256 + extra, PATTERNS["gpt2"], tie_break)


@pytest.mark.parametrize("tie_break", TIE_BREAKS)
def test_real_text(tie_break, taylorswift):
    assert_same(taylorswift[:30000], 256 + 60, GPT4_SPLIT_PATTERN, tie_break)


def test_the_rules_really_differ(taylorswift):
    runs = {rule: fast_train(taylorswift, 512, GPT4_SPLIT_PATTERN, rule).merges
            for rule in TIE_BREAKS}
    assert runs["first"] != runs["smallest_ids"] != runs["greatest_bytes"] != runs["first"]


def test_smallest_ids_equals_rustbpe(taylorswift):
    rustbpe = pytest.importorskip("rustbpe")  # requirements-dev installs it; bench's pin
    theirs = rustbpe.Tokenizer()
    theirs.train_from_iterator(iter([taylorswift]), 512, pattern=GPT4_SPLIT_PATTERN)
    their_vocab = {rank: bytes(token) for token, rank in theirs.get_mergeable_ranks()}
    ours = fast_train(taylorswift, 512, GPT4_SPLIT_PATTERN, "smallest_ids")
    vocab = {i: bytes([i]) for i in range(256)}
    for (a, b), idx in ours.merges.items():
        vocab[idx] = vocab[a] + vocab[b]
    assert vocab == their_vocab
    first = fast_train(taylorswift, 512, GPT4_SPLIT_PATTERN, "first")
    assert first.merges != ours.merges  # so the comparison above could have failed


def test_greatest_bytes_prefers_longer_on_shared_prefix():
    # (b"a", b"b") vs (b"ab", ...) style prefixes: b"ab" > b"a" lexicographically
    result = train_merges([(b"ab", 1), (b"cd", 1)], 258, tie_break="greatest_bytes")
    assert list(result.merges) == [(99, 100), (97, 98)]


def test_id_sequences_with_a_vocab():
    vocab = {0: b"x", 5: b"yy", 9: b"z"}
    result = train_merges([([0, 5, 9, 0, 5], 3), ([9, 9], 1)], 12, vocab=vocab, record_ties=True)
    assert result.merges == {(0, 5): 10, (10, 9): 11}
    assert result.merge_counts == {10: 6, 11: 3}
    assert result.merge_ties[11] == [(10, 9), (9, 10)]


def test_unknown_rule_is_a_clear_error():
    with pytest.raises(ValueError, match="tie_break must be one of"):
        train_merges([(b"ab", 1)], 257, tie_break="random")


def test_ties_kept_are_capped(taylorswift):
    # late merges tie with thousands of pairs; only max_ties are kept, the winner first
    full = fast_train(taylorswift, 1500, GPT4_SPLIT_PATTERN, "first", record_ties=True,
                      max_ties=10**6)
    capped = fast_train(taylorswift, 1500, GPT4_SPLIT_PATTERN, "first", record_ties=True,
                        max_ties=5)
    assert capped.merges == full.merges
    assert max(map(len, full.merge_ties.values())) > 5
    for idx, pairs in capped.merge_ties.items():
        assert len(pairs) <= 5 and pairs[0] == full.merge_ties[idx][0]
        assert set(pairs) <= set(full.merge_ties[idx])


@pytest.mark.parametrize("tie_break", TIE_BREAKS)
def test_tokenizer_train_passes_the_rule_and_records_ties(tie_break, taylorswift):
    """tok.train(tie_break=..., record_ties=True) is the trainer's rule, on a tokenizer."""
    from bpe import RegexTokenizer
    text = taylorswift[:30000]
    tok = RegexTokenizer().train(text, 256 + 60, tie_break=tie_break, record_ties=True)
    merges, counts, ties = textbook_rule_train(text, 256 + 60, GPT4_SPLIT_PATTERN, tie_break)
    assert tok.merges == merges and tok.merge_counts == counts
    assert set(tok.merge_ties) == set(tok.merges.values())
    for pair, idx in tok.merges.items():
        assert tok.merge_ties[idx][0] == pair and set(tok.merge_ties[idx]) <= ties[idx]
    assert RegexTokenizer().train(text, 300).merge_ties == {}
