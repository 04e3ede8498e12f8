"""bpe.evaluate's figures, checked against a plain recount with tiktoken's own ids."""
import regex
import pytest

from bpe import BasicTokenizer, evaluate
from bpe.reference import load_reference
from viz.arena import arena_samples

CJK = regex.compile(r"\p{Han}|\p{Hiragana}|\p{Katakana}|\p{Hangul}")


def words_by_hand(text):
    """The stated rule, restated as a loop: whitespace pieces; inside a piece each CJK
    character is a word and each run of other characters is one. (text, start, end) in
    byte offsets."""
    words, pos = [], 0
    for piece in text.split():
        pos = text.index(piece, pos)
        run = None
        for i, ch in enumerate(piece):
            if CJK.fullmatch(ch):
                if run is not None:
                    words.append(piece[run:i])
                    run = None
                words.append(ch)
            elif run is None:
                run = i
        if run is not None:
            words.append(piece[run:])
        pos += len(piece)
    return words


def test_word_rule_on_examples():
    assert evaluate.count_words("Hello, 世界!") == 4
    assert evaluate.count_words("한국어 문장") == 5
    assert evaluate.count_words("カタカナとひらがな ok") == 10
    assert evaluate.count_words(" \n\t ") == 0
    for text in arena_samples().values():
        assert evaluate.count_words(text) == len(words_by_hand(text))


def split_by_hand(text, token_bytes):
    """Words covered by two or more tokens, by overlap of byte ranges."""
    ends, end = [], 0
    for t in token_bytes:
        end += len(t)
        ends.append(end)
    starts = [e - len(t) for e, t in zip(ends, token_bytes)]
    spans = evaluate.word_spans(text)
    assert [text.encode()[a:b].decode() for a, b in spans] == words_by_hand(text)
    return sum(1 for a, b in spans
               if sum(1 for s, e in zip(starts, ends) if s < b and e > a) >= 2)


@pytest.mark.parametrize("name", ["r50k_base", "cl100k_base", "o200k_base"])
def test_figures_equal_a_recount_with_tiktoken(name):
    import tiktoken
    tok = load_reference(name)
    enc = tiktoken.Encoding(name + "_check", pat_str=tok.pattern, mergeable_ranks=tok.ranks,
                            special_tokens=tok.special_tokens)
    for label, text in arena_samples().items():
        ids = enc.encode(text, disallowed_special=())
        row = evaluate.measure(tok, text, tokenizer=name, file=label)
        n_bytes = len(text.encode("utf-8"))
        assert (row.bytes, row.tokens) == (n_bytes, len(ids))
        assert row.bytes_per_token == n_bytes / len(ids)
        assert row.words == len(words_by_hand(text))
        assert row.tokens_per_word == len(ids) / row.words
        token_bytes = [enc.decode_single_token_bytes(i) for i in ids]
        assert row.words_split == split_by_hand(text, token_bytes) / row.words
        assert row.unique_tokens == len(set(ids))


def test_total_and_relative_difference():
    gpt2, gpt4 = load_reference("r50k_base"), load_reference("cl100k_base")
    samples = arena_samples()
    rows = evaluate.evaluate({"gpt2": gpt2, "gpt4": gpt4}, samples)
    assert len(rows) == 2 * (len(samples) + 1) and rows[len(samples)].file == "total"
    total = rows[len(samples)]
    assert total.tokens == sum(len(gpt2.encode_ordinary(t)) for t in samples.values())
    assert total.unique_tokens == len({i for t in samples.values() for i in gpt2.encode_ordinary(t)})
    records = evaluate.report(rows, ["gpt2"])
    gpt4_korean = next(r for r in records if r["tokenizer"] == "gpt4" and r["file"] == "Korean")
    gpt2_korean = next(r for r in records if r["tokenizer"] == "gpt2" and r["file"] == "Korean")
    assert gpt4_korean["vs gpt2"] == round(
        100 * (gpt2_korean["tokens"] - gpt4_korean["tokens"]) / gpt2_korean["tokens"], 1)
    assert gpt4_korean["vs gpt2"] > 30 and gpt2_korean["vs gpt2"] is None
    table = evaluate.markdown_table(records)
    assert table.count("\n") == len(records) + 1 and "| gpt4 | Korean |" in table


def test_split_words_and_tokens_spanning_words():
    # GPT-4 reads " the" as one token: the space before a word does not split it
    gpt4 = load_reference("cl100k_base")
    row = evaluate.measure(gpt4, "the the the", tokenizer="gpt4", file="t")
    assert (row.tokens, row.words, row.split, row.unique_tokens) == (3, 3, 0, 2)
    row = evaluate.measure(BasicTokenizer(), "a bc", tokenizer="basic", file="t")
    assert (row.words, row.split) == (2, 1)


def test_script_shares_find_scripts():
    shares = evaluate.script_shares(load_reference("o200k_base"))
    assert abs(sum(shares.values()) - 1) < 1e-9
    assert next(iter(shares)) == "Latin"
    assert shares["Cyrillic"] > 0.02 and shares["Han"] > 0.01 and shares["Hangul"] > 0.001
    gpt2 = evaluate.script_shares(load_reference("r50k_base"))
    assert gpt2.get("Hangul", 0) < shares["Hangul"]


def test_throughput_and_pile_time():
    n_bytes, seconds = evaluate.throughput(BasicTokenizer(), "abc" * 100, repeat=2)
    assert n_bytes == 600 and seconds > 0
    assert evaluate.pile_time(825e6) == 1000
    with pytest.raises(ValueError, match="positive"):
        evaluate.pile_time(0)
    with pytest.raises(ValueError, match="repeat"):
        evaluate.throughput(BasicTokenizer(), "x", repeat=0)


def test_leftovers_agree_with_the_merge_trees(taylorswift):
    """The leftover share, recounted from the encoded ids and the merges applied to make
    them (bpe.replay), on a trained tokenizer; none for a tokenizer without merges."""
    from collections import Counter

    from bpe import RegexTokenizer, methods
    from bpe.methods.residue import LEFTOVER_R
    from bpe.replay import merge_applications, merge_parents
    tok = RegexTokenizer().train(taylorswift[:20_000], 256 + 200)
    texts = [taylorswift[20_000:30_000], taylorswift[30_000:40_000]]
    ids = [i for text in texts for i in tok.encode_ordinary(text)]
    final, applied = Counter(ids), merge_applications(ids, merge_parents(tok))
    low = sum(1 for idx, n in applied.items() if final[idx] / n < LEFTOVER_R)
    row = evaluate.leftovers(tok, texts, tokenizer="mine")
    assert (row["merged"], row["leftovers"]) == (len(applied), low) and low
    assert row["share"] == low / len(applied)
    pieces = evaluate.leftovers(methods.train("unigram", [taylorswift[:5000]], 400),
                                texts, tokenizer="u")
    assert pieces["share"] is None and "has no merges" in pieces["why"]


def test_leftovers_of_the_papers_tokenizers_on_the_arena():
    texts = list(arena_samples().values())
    for name in ("o200k_base", "llama3"):
        row = evaluate.leftovers(load_reference(name), texts, tokenizer=name)
        assert row["merged"] > 1000 and 0 < row["share"] < 1
