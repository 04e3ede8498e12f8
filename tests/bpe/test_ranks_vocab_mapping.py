"""RanksVocab (bpe.ranks_vocab) reads exactly as the dict it replaced did, the ranks inverted
then the special tokens set (`dict(zip(ranks.values(), ranks.keys()))`, then
`vocab[idx] = special.encode()` in special_tokens' order): equal both ways, the same order
of keys, values and items (reversed too), [] / get / in / len, the ranks' own bytes and int
objects, missing ids, pickle and copies; dense ranks, gaps, a hostile spread of ids up to
budgets.MAX_ID and ranks in any order. GPT-4's decode stays tiktoken's on real text and on
random ids (specials and unknown ids among them)."""
import copy
import pickle
import tracemalloc

import pytest
from hypothesis import given, settings, strategies as st

from bpe import budgets
from bpe.ranks_tokenizer import RanksTokenizer
from bpe.ranks_vocab import RanksVocab

MISSING = [-1, -2 ** 63, 2 ** 63, 2 ** 64, 10 ** 20, "1", None, b"a", 1.5, (1,)]


def old_vocab(ranks, special_tokens):
    """The vocab as RanksTokenizer built it before RanksVocab."""
    vocab = dict(zip(ranks.values(), ranks.keys()))
    for special, idx in special_tokens.items():
        vocab[idx] = special.encode("utf-8")
    return vocab


def specials_bytes(special_tokens):
    return {idx: special.encode("utf-8") for special, idx in special_tokens.items()}


def check_reads_as(vocab, old):
    assert vocab == old and old == vocab and not vocab != old
    assert len(vocab) == len(old)
    assert list(vocab) == list(old) and list(vocab.keys()) == list(old.keys())
    assert list(vocab.values()) == list(old.values())
    if len(old) < 1000:  # a ValuesView's `in` reads every value, as a dict's does
        assert all(token in vocab.values() for token in old.values())
    assert list(vocab.items()) == list(old.items())
    assert list(reversed(vocab.items())) == list(reversed(old.items()))
    for idx, token in old.items():
        assert vocab[idx] == token and vocab.get(idx) == token and idx in vocab
        assert (idx, token) in vocab.items()
    # subtle: the ranks' own bytes and int objects, no copies (viz.vocab sorts the keys)
    assert all(vocab[idx] is token for token, idx in vocab.ranks.items())
    assert all(a is b for a, b in zip(vocab, vocab.ranks.values()))
    top = max(old, default=-1) + 1
    # the gaps: every id below 1,000 and beside a token's that no token has
    near = {k + d for k in old if isinstance(k, int) for d in (-1, 1)} | set(range(1000))
    gaps = sorted(k for k in near if 0 <= k and k not in old)
    for idx in [*MISSING, top, top + 1, *gaps]:
        assert idx not in vocab and vocab.get(idx) is None and vocab.get(idx, 7) == 7
        with pytest.raises(KeyError):
            vocab[idx]
    if 1 in old:
        assert vocab[True] == old[True]  # a bool is an int, to a dict and to the list alike
    ids = list(old)
    assert vocab.tokens_bytes(ids) in ([old[idx] for idx in ids], None)
    for bad in [-1, top, "1", 1.5]:
        assert vocab.tokens_bytes([*ids, bad]) is None


@st.composite
def ranks_and_specials(draw):
    tokens = draw(st.lists(st.binary(max_size=4), unique=True, max_size=60))
    near = st.integers(0, 3 * len(tokens) + 300)
    far = st.integers(0, budgets.MAX_ID)
    ids = draw(st.lists(st.one_of(near, near, far), unique=True, min_size=len(tokens) + 4,
                        max_size=len(tokens) + 4))
    rank_ids, special_ids = ids[:len(tokens)], ids[len(tokens):]
    if draw(st.booleans()):  # ranks 0..n-1 in order, as every real file
        rank_ids = range(len(tokens))
        special_ids = [idx for idx in ids if idx >= len(tokens)]
    ranks = dict(zip(tokens, rank_ids))
    names = draw(st.lists(st.text(min_size=1, max_size=5), unique=True, max_size=4))
    special_tokens = dict(zip(names, special_ids))
    return ranks, special_tokens


@settings(max_examples=300, deadline=None)
@given(ranks_and_specials())
def test_it_reads_as_the_dict_it_replaced(case):
    ranks, special_tokens = case
    vocab = RanksVocab(ranks, specials_bytes(special_tokens))
    old = old_vocab(ranks, special_tokens)
    check_reads_as(vocab, old)
    for twin in [pickle.loads(pickle.dumps(vocab)), copy.copy(vocab), copy.deepcopy(vocab)]:
        assert type(twin) is RanksVocab
        check_reads_as(twin, old)
    # a vocab made from an earlier one (the special tokens changed) is the same, and the
    # earlier one is left as it was
    plain = RanksVocab(ranks)
    again = RanksVocab(ranks, specials_bytes(special_tokens), like=plain)
    check_reads_as(again, old)
    check_reads_as(plain, old_vocab(ranks, {}))
    check_reads_as(RanksVocab(ranks, like=again), old_vocab(ranks, {}))
    check_reads_as(again, old)


def test_the_tokenizer_vocab_follows_its_specials_in_order():
    ranks = {bytes([b]): b for b in range(256)} | {b"ab": 256, b"abc": 258}  # a gap at 257
    tok = RanksTokenizer(ranks, special_tokens={"<a>": 300})
    assert isinstance(tok.vocab, RanksVocab)
    check_reads_as(tok.vocab, old_vocab(ranks, tok.special_tokens))
    before = tok.vocab
    tok.register_special_tokens({"<b>": 257, "<c>": 10 ** 6})  # in the gap, and far off
    check_reads_as(tok.vocab, old_vocab(ranks, tok.special_tokens))
    check_reads_as(before, old_vocab(ranks, {"<a>": 300}))  # never changed in place
    twin = tok.with_special_tokens({"<d>": 301})
    tok.unregister_special_tokens({"<b>"})
    check_reads_as(tok.vocab, old_vocab(ranks, {"<a>": 300, "<c>": 10 ** 6}))
    check_reads_as(twin.vocab, old_vocab(ranks, twin.special_tokens))
    assert tok.decode_tokens_bytes([97, 300, 10 ** 6, 258]) == [b"a", b"<a>", b"<c>", b"abc"]
    with pytest.raises(KeyError):
        tok.decode([257])  # unregistered: a gap again
    again = pickle.loads(pickle.dumps(twin))
    check_reads_as(again.vocab, old_vocab(ranks, twin.special_tokens))
    assert again.encode("abc<d>", allowed_special="all") == [258, 301]
    assert tok.encode_single_token(b"abc") == 258 and tok.encode_single_token("<a>") == 300


def test_two_tokens_of_one_id_are_refused():
    with pytest.raises(ValueError, match="same rank"):
        RanksVocab({b"a": 0, b"b": 0})
    with pytest.raises(ValueError, match="same id"):
        RanksVocab({b"a": 0, b"b": 9_000_000, b"c": 9_000_000})
    with pytest.raises(ValueError, match="already b'a'"):
        RanksVocab({b"a": 0, b"b": 1}, {0: b"<s>"})
    with pytest.raises(ValueError, match="non-negative"):
        RanksVocab({b"a": 0, b"b": -1})


def test_a_hostile_spread_of_ids_keeps_the_list_bounded():
    """300 tokens with ids up to budgets.MAX_ID: a list by id would be 80 MB; the list covers
    SLOTS_PER_TOKEN slots a token and the rest are sorted (counted, not timed)."""
    ranks = {bytes([b]): b for b in range(256)}
    ranks |= {b"%d" % k + b"xyz": budgets.MAX_ID - 1000 * k for k in range(1, 45)}
    tracemalloc.start()
    try:
        vocab = RanksVocab(ranks, {budgets.MAX_ID: b"<end>"})
        size = tracemalloc.get_traced_memory()[0]
    finally:
        tracemalloc.stop()
    assert size < 20_000, size
    check_reads_as(vocab, old_vocab(ranks, {"<end>": budgets.MAX_ID}))


def test_gpt4_vocab_and_decode_of_real_text(gpt4, cl100k, shakespeare):
    assert isinstance(gpt4.vocab, RanksVocab)
    check_reads_as(gpt4.vocab, old_vocab(gpt4.ranks, gpt4.special_tokens))
    ids = cl100k.encode(shakespeare[:200_000])
    ids[100:100] = [100257, 100276, 100258]
    assert gpt4.decode_bytes(ids) == cl100k.decode_bytes(ids)
    assert gpt4.decode_tokens_bytes(ids) == cl100k.decode_tokens_bytes(ids)
    assert gpt4.decode(ids) == cl100k.decode(ids)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.one_of(st.integers(0, 100_300), st.integers(-3, 2 ** 33),
                          st.sampled_from([100256, 100257, 100276, -1, 2 ** 32])), max_size=30))
def test_gpt4_decode_of_random_ids_is_tiktokens(gpt4, cl100k, ids):
    try:
        theirs = cl100k.decode_bytes(ids)
    except Exception as e:  # noqa: BLE001 (their error type is what ours must be)
        with pytest.raises(type(e)):
            gpt4.decode_bytes(ids)
        with pytest.raises(type(e)):
            gpt4.decode_tokens_bytes(ids)
    else:
        assert gpt4.decode_bytes(ids) == theirs
        assert gpt4.decode_tokens_bytes(ids) == cl100k.decode_tokens_bytes(ids)
