"""Replaying merges: the first k merges from one encode, checked against encoding with
a tokenizer that only ever had k merges."""
import pytest

from bpe import BasicTokenizer, RegexTokenizer
from bpe.encode import apply_merges
from bpe.replay import encode_with_first_merges, merge_parents, token_counts_by_merge

TEXT = ("The cat sat on the mat; the mat sat on the cat. 12345 + 678 = 13023!\n"
        "Ünïcödé, 안녕하세요, and emoji 👍🏽 — all in one   place.\n")


@pytest.mark.parametrize("cls", [BasicTokenizer, RegexTokenizer])
def test_first_k_merges_equal_a_smaller_training(cls, taylorswift):
    corpus = taylorswift[:30000]
    full = cls().train(corpus, 256 + 200)
    text = taylorswift[30000:34000] + TEXT
    counts = token_counts_by_merge(full, text)
    assert len(counts) == 201
    assert counts[0] == len(text.encode("utf-8")) and counts[-1] == len(full.encode(text))
    for k in (0, 1, 7, 50, 133, 200):
        smaller = cls().train(corpus, 256 + k)
        expected = smaller.encode_ordinary(text)
        assert encode_with_first_merges(full, text, k) == expected
        assert counts[k] == len(expected)


def test_gpt4_first_k_merges_equal_capped_ranks(gpt4):
    parents = merge_parents(gpt4)
    counts = token_counts_by_merge(gpt4, TEXT)
    for k in (0, 10, 300, 5000, 100_000):
        limit = 256 + k
        expected = []
        for chunk in gpt4.split(TEXT):
            text_bytes = chunk.encode("utf-8")
            expected += apply_merges(
                [gpt4.ranks[text_bytes[i:i + 1]] for i in range(len(text_bytes))],
                lambda a, b: (lambda r: r if r is not None and r < limit else None)(
                    gpt4.ranks.get(gpt4.vocab[a] + gpt4.vocab[b])))
        assert encode_with_first_merges(gpt4, TEXT, k, parents) == expected
        assert counts[k] == len(expected)
    assert counts[-1] == len(gpt4.encode(TEXT))


def test_counts_never_increase(gpt4):
    counts = token_counts_by_merge(gpt4, TEXT * 3)
    assert all(a >= b for a, b in zip(counts, counts[1:]))
    assert counts[0] > counts[-1]


def test_replay_refuses_an_id_layout_it_would_misread():
    import pytest
    from bpe.replay import check_replayable
    check_replayable({256: (97, 98), 257: (256, 99)})
    with pytest.raises(ValueError, match="in order"):
        check_replayable({256: (97, 257), 257: (97, 98)})
