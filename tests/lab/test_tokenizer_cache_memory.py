"""lab.tokenizer_cache keeps what it derives beside the tokenizer, weakly: a session's
tokenizer and everything derived from it leave together once the session drops it (issue
24: nothing a visitor made may stay in the server). A value that held its tokenizer (a
bound method, a closure) would keep both for good; these count what is left."""
import gc
import weakref

from bpe import RegexTokenizer
from lab import tokenizer_cache


def test_derived_values_leave_with_their_tokenizer():
    tok = RegexTokenizer().train("hello world, the lab " * 40, 270)
    kept = weakref.ref(tok)
    tokenizer_cache.vocab_table(tok)
    tokenizer_cache.parents(tok)
    for n in range(tokenizer_cache.TEXTS_KEPT + 3):
        tokenizer_cache.counts_by_merge(tok, f"hello there {n}")
    before = len(tokenizer_cache._derived)
    del tok
    gc.collect()
    assert kept() is None, "something derived still holds the tokenizer"
    assert len(tokenizer_cache._derived) == before - 1


def test_curves_kept_per_tokenizer_are_bounded():
    tok = RegexTokenizer().train("hello world, the lab " * 40, 270)
    for n in range(tokenizer_cache.TEXTS_KEPT * 3):
        tokenizer_cache.counts_by_merge(tok, f"text number {n}")
    curves = [v for k, v in tokenizer_cache._derived[tok].items() if k[0] == "counts"]
    assert len(curves) == 1 and len(curves[0]) == tokenizer_cache.TEXTS_KEPT
