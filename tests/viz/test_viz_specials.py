"""Special-token sandbox: parsing the list, the copy leaves the original alone, one
outcome per policy (none_raise's ValueError kept as its outcome)."""
import pytest

from bpe import RegexTokenizer
from viz.specials import encode_policies, parse_specials, with_specials

TEXT = "hi<|endoftext|>there<|im_start|>"


def test_parse_ids_explicit_automatic_and_kept():
    parsed = parse_specials("<|a|>\n<|b|> 301\n\n  <|c|>  \n<|endoftext|>",
                            {"<|endoftext|>": 7}, 300)
    assert parsed == {"<|a|>": 300, "<|b|>": 301, "<|c|>": 302, "<|endoftext|>": 7}
    # an explicit id wins over the registered one
    assert parse_specials("<|endoftext|> 500", {"<|endoftext|>": 7}, 300) == {"<|endoftext|>": 500}
    # automatic ids skip the registered ones
    assert parse_specials("<|z|>", {"<|y|>": 300}, 300) == {"<|z|>": 301}
    assert parse_specials("", {}, 300) == {}


@pytest.mark.parametrize("text, message", [
    ("<|a|> x1", "line 1: .*non-negative integer id"),
    ("<|a|>\n<|a|> 5", "line 2: '<\\|a\\|>' is listed twice"),
])
def test_parse_errors_name_the_line(text, message):
    with pytest.raises(ValueError, match=message):
        parse_specials(text, {}, 300)


def test_copy_leaves_the_shared_gpt4_untouched(gpt4):
    before = dict(gpt4.special_tokens)
    vocab, cache, n_vocab = gpt4.vocab, gpt4._cache, len(gpt4.vocab)
    twin = with_specials(gpt4, {"<|im_start|>": 100264})
    assert twin.encode(TEXT, allowed_special="all")[-1] == 100264
    assert twin.special_tokens["<|endoftext|>"] == 100257
    assert gpt4.special_tokens == before and "<|im_start|>" not in gpt4.special_tokens
    assert gpt4.vocab is vocab and len(gpt4.vocab) == n_vocab and gpt4._cache is cache
    assert twin.vocab is not vocab and twin._cache is not cache
    # the copy's encodes fill its own chunk cache, never the shared one
    chunk = " zqxjvwk"
    twin.encode(chunk)
    assert chunk in twin._cache and chunk not in gpt4._cache
    assert gpt4.encode(TEXT, allowed_special="all") == twin.encode(
        TEXT, allowed_special={"<|endoftext|>"}, disallowed_special=())


def test_taken_ids_are_refused(gpt4):
    with pytest.raises(ValueError, match="already an ordinary token"):
        with_specials(gpt4, {"<|x|>": 500})
    with pytest.raises(ValueError, match="already taken by special token"):
        with_specials(gpt4, {"<|x|>": 100257})


def test_one_outcome_per_policy(gpt4):
    twin = with_specials(gpt4, {"<|im_start|>": 100264})
    outcomes = encode_policies(twin, TEXT, {"<|im_start|>"})
    by_policy = {o.policy: o for o in outcomes}
    assert list(by_policy) == ["'all'", "'none'", "'none_raise'",
                               "{'<|im_start|>'}, disallowed_special=()"]
    assert by_policy["'all'"].ids == twin.encode(TEXT, allowed_special="all")
    assert by_policy["'all'"].specials == 2
    assert by_policy["'none'"].specials == 0
    assert twin.decode(by_policy["'none'"].ids) == TEXT
    raised = by_policy["'none_raise'"]
    assert raised.ids is None and "allowed_special" in raised.error
    # with disallowed_special=(), tiktoken's way to read other special text as ordinary
    chosen = by_policy["{'<|im_start|>'}, disallowed_special=()"]
    assert chosen.specials == 1 and chosen.ids[-1] == 100264
    assert 100257 not in chosen.ids
    # a set alone (tiktoken's default disallowed_special="all") refuses the others
    with pytest.raises(ValueError, match="'<\\|endoftext\\|>'"):
        twin.encode(TEXT, allowed_special={"<|im_start|>"})


def test_none_raise_passes_text_without_specials():
    tok = with_specials(RegexTokenizer().train("hello there " * 10, 260), {"<|x|>": 300})
    outcomes = encode_policies(tok, "hello there", ())
    assert all(o.error is None for o in outcomes)
    assert len({tuple(o.ids) for o in outcomes}) == 1
    assert outcomes[-1].policy == "set(), disallowed_special=()"
