"""The fast trainer makes the textbook loop's merges, counts and tie-breaks, exactly."""
import random

import pytest

from bpe import BasicTokenizer, RegexTokenizer
from bpe.patterns import GPT4_SPLIT_PATTERN, PATTERNS
from bpe.tie_break import TIE_BREAKS
from bpe.train import train_merges
from helpers.textbook import textbook_train
from test_train_ties import textbook_rule_train

UNICODE_TEXT = (
    "Ｕｎｉｃｏｄｅ! 🅤🅝🅘🅒🅞🅓🅔‽ 🇺🇳🇮🇨🇴🇩🇪! a12a12a12a12a1212😄 안녕하세요 👋 (hello in Korean!) "
    "Ünïcödé çàñ ßë tricky: 👩🏽‍💻👨‍👩‍👧 café naïve Ελληνικά русский 日本語のテキスト "
) * 6


def assert_same(tok, text, vocab_size, pattern=None, min_frequency=1):
    tok.train(text, vocab_size, min_frequency=min_frequency)
    merges, counts = textbook_train(text, vocab_size, pattern, min_frequency)
    assert list(tok.merges.items()) == list(merges.items())
    assert tok.merge_counts == counts


@pytest.mark.parametrize("seed", range(40))
def test_random_small_alphabets(seed):
    # two or three letters make ties on nearly every merge
    rng = random.Random(seed)
    text = "".join(rng.choice("ab" if seed % 2 else "ab c") for _ in range(rng.randint(0, 300)))
    vocab_size = 256 + rng.randint(0, 60)
    assert_same(BasicTokenizer(), text, vocab_size)
    assert_same(RegexTokenizer(), text, vocab_size, GPT4_SPLIT_PATTERN)


@pytest.mark.slow  # the textbook loop on the whole corpus: ~12-25 s
def test_taylorswift_regex(taylorswift):
    # the whole corpus, full split; the reference loop makes this the slowest test
    assert_same(RegexTokenizer(), taylorswift, 256 + 48, GPT4_SPLIT_PATTERN)


def test_taylorswift_basic(taylorswift):
    assert_same(BasicTokenizer(), taylorswift[:20000], 256 + 64)


def test_shakespeare_gpt2_pattern(shakespeare):
    assert_same(RegexTokenizer("gpt2"), shakespeare[:60000], 256 + 64, PATTERNS["gpt2"])


def test_unicode_heavy():
    assert_same(RegexTokenizer(), UNICODE_TEXT, 256 + 80, GPT4_SPLIT_PATTERN)
    assert_same(BasicTokenizer(), UNICODE_TEXT, 256 + 80)


def test_min_frequency_stops_early(taylorswift):
    tok = RegexTokenizer().train(taylorswift[:5000], 2000, min_frequency=3)
    merges, counts = textbook_train(taylorswift[:5000], 2000, GPT4_SPLIT_PATTERN, 3)
    assert tok.merges == merges and tok.merge_counts == counts
    assert tok.stop_reason == "min_frequency" and min(counts.values()) >= 3


def test_stops_when_pairs_run_out():
    tok = BasicTokenizer().train("abcd", 10_000)
    assert len(tok.merges) == 3 and tok.stop_reason == "no_pairs"
    assert tok.encode("abcd") == [258]


def test_ties_are_common_on_a_real_corpus(taylorswift):
    # the issue quotes 67 ties among the first 256 merges: the tie rule really matters
    tok = RegexTokenizer().train(taylorswift, 512)
    counts = list(tok.merge_counts.values())
    ties = sum(1 for a, b in zip(counts, counts[1:]) if a == b)
    assert ties >= 60


def test_progress_callback_reports_every_merge():
    seen = []
    tok = RegexTokenizer().train("hello hello hello world world", 256 + 5, progress=seen.append)
    assert [p.done for p in seen] == list(range(1, len(tok.merges) + 1))
    last = seen[-1]
    assert last.total == 5 and last.idx == 255 + len(seen)
    assert tok.vocab[last.idx] == last.token and tok.merge_counts[last.idx] == last.count
    assert last.merges_per_s > 0 and last.pair in tok.merges


def test_verbose_prints_through_progress(capsys):
    RegexTokenizer().train("hello hello", 258, verbose=True)
    out = capsys.readouterr().out.splitlines()
    assert len(out) == 2 and out[0].startswith("merge 1/2:")


def test_basic_merges_count_one_pairs_to_the_end(shakespeare):
    # minbpe's loop keeps merging pairs seen once (each merge lengthens the first token)
    # until one token is left; the fast trainer does the same, merge for merge
    text = shakespeare[:1500]
    assert_same(BasicTokenizer(), text, 256 + 2000)
    tok = BasicTokenizer().train(text, 256 + 2000)
    assert tok.stop_reason == "no_pairs" and tok.vocab[max(tok.merges.values())] == text.encode()
    assert list(tok.merge_counts.values())[-400:] == [1] * 400


def test_vocab_bytes_budget_stops_before_the_merge_past_it(shakespeare):
    words = [(shakespeare[:1500].encode(), 1)]
    full = train_merges(words, 256 + 2000)
    lengths = BasicTokenizer.from_merges(full.merges).vocab
    budget = sum(map(len, lengths.values())) // 3
    cut = train_merges(words, 256 + 2000, max_vocab_bytes=budget)
    assert cut.stop_reason == "vocab_bytes"
    assert list(cut.merges.items()) == list(full.merges.items())[:len(cut.merges)]
    held = 256 + sum(len(lengths[idx]) for idx in cut.merges.values())
    next_token = lengths[256 + len(cut.merges)]
    assert held <= budget < held + len(next_token)
    assert train_merges(words, 256 + 2000, max_vocab_bytes=10**9) == full


@pytest.mark.parametrize("tie_break", TIE_BREAKS)
def test_every_tie_rule_exact_down_to_one_token(shakespeare, tie_break):
    # count-1 pairs, long tokens and tokens that are prefixes of others: where the
    # greatest_bytes key (the vocab's own bytes, compared backwards) has to be right
    text = shakespeare[3000:3600]
    merges, counts, _ = textbook_rule_train(text, 256 + 1000, None, tie_break)
    result = train_merges([(text.encode(), 1)], 256 + 1000, tie_break=tie_break)
    assert list(result.merges.items()) == list(merges.items())
    assert result.merge_counts == counts and result.stop_reason == "no_pairs"


@pytest.mark.parametrize("tie_break", TIE_BREAKS)
def test_large_ids_pack_as_small_ones(taylorswift, tie_break):
    # a pair is kept as id0 << bits | id1, bits the width of the largest id: the same
    # words spelt with ids near 2**20 (the width grows by one during training) must make
    # the same merges, shifted, with the same counts and records of ties
    rng = random.Random(3)
    chunks = RegexTokenizer().split(taylorswift[:30000])
    words = [(chunk.encode("utf-8"), rng.randint(1, 3)) for chunk in dict.fromkeys(chunks)]
    base = (1 << 20) - 300
    vocab = {base + i: bytes([i]) for i in range(256)}
    shifted_words = [([base + byte for byte in word], freq) for word, freq in words]
    plain = train_merges(words, 256 + 120, tie_break=tie_break, record_ties=True)
    shifted = train_merges(shifted_words, base + 256 + 120, tie_break=tie_break,
                           record_ties=True, vocab=vocab)
    assert base + 256 + 120 > 1 << 20
    assert list(shifted.merges.items()) == [((a + base, b + base), idx + base)
                                            for (a, b), idx in plain.merges.items()]
    assert list(shifted.merge_counts.values()) == list(plain.merge_counts.values())
    assert [[(a + base, b + base) for a, b in tied] for tied in plain.merge_ties.values()] \
        == list(shifted.merge_ties.values())
