"""bpe.methods' BPE variants: Picky (tau = 1 is bpe exactly), Parity (one language is
bpe exactly), SuperBPE and BoundlessBPE (round trips, fewer held-out tokens), on slices
of the real corpora; BoundlessBPE's fast layout gives the textbook loop's merges."""
from pathlib import Path

import pytest
from hypothesis import given, settings, strategies as st

from bpe import methods
from bpe.methods.boundless import BoundlessTokenizer, layout, lines
from bpe.methods.merging import STAND_IN
from bpe.methods.superbpe import stage2_counts, stage2_words, train_stage2
from bpe.regex import RegexTokenizer
from bpe.train import train_merges
from bpe.methods.parity import gini
from bpe.text import clean_text
from bpe.tie_break import TIE_BREAKS
from tests.helpers.app import read_corpus

ARENA = Path(__file__).resolve().parents[2] / "samples" / "arena"


@pytest.fixture(scope="module")
def swift():
    text = read_corpus("taylorswift.txt")
    return text[:40_000].split("\n\n"), text[40_000:50_000]


@pytest.mark.parametrize("tie_break", TIE_BREAKS)
def test_picky_tau_one_is_bpe(swift, tie_break):
    docs, held = swift
    bpe = methods.train("bpe", docs, 500, tie_break=tie_break)
    picky = methods.train("picky", docs, 500, tau=1.0, tie_break=tie_break)
    assert picky.merges == bpe.merges
    assert not picky.removed
    assert picky.encode(held) == bpe.encode(held)


def test_picky_on_shakespeare_is_bpe():
    docs = read_corpus("tinyshakespeare.txt")[:30_000].split("\n\n")
    assert methods.train("picky", docs, 450).merges == methods.train("bpe", docs, 450).merges


def test_picky_below_one_removes_tokens_and_round_trips(swift):
    docs, held = swift
    picky = methods.train("picky", docs, 500, tau=0.7)
    assert picky.removed, "tau 0.7 should remove some intermediate token"
    assert len(picky.vocab) == 500 and len(picky.merges) > 244
    ids = picky.encode(held)
    assert picky.decode(ids) == held
    assert not set(ids) & picky.removed
    with pytest.raises(ValueError, match="cannot be saved"):
        picky.model_text()


@pytest.mark.parametrize("tie_break", TIE_BREAKS)
def test_parity_with_one_language_is_bpe(swift, tie_break):
    docs, _ = swift
    text = "\n\n".join(docs)
    assert (methods.train("parity", {"en": text}, 480, tie_break=tie_break).merges
            == methods.train("bpe", [text], 480, tie_break=tie_break).merges)


def test_parity_lowers_gini_on_the_arena():
    arena = {p.stem: p.read_text(encoding="utf-8") for p in sorted(ARENA.glob("*.txt"))}
    bpe = methods.train("bpe", list(arena.values()), 600)
    parity = methods.train("parity", arena, 600)

    def cost(tok):
        return gini([len(tok.encode(t)) / len(t.encode("utf-8")) for t in arena.values()])
    assert cost(parity) < cost(bpe)


@pytest.mark.parametrize("method", ["superbpe", pytest.param("boundless", marks=pytest.mark.slow)])
def test_superwords_round_trip_and_compress(swift, method):
    docs, held = swift
    # at 500 tokens on 40 kB SuperBPE's superwords do not pay yet; at 800 they do
    bpe = methods.train("bpe", docs, 800)
    tok = methods.train(method, docs, 800)
    assert len(tok.vocab) == 800
    assert tok.decode(tok.encode(held)) == held
    assert len(tok.encode(held)) < len(bpe.encode(held))
    assert any(b" " in tok.vocab[i].strip() for i in tok.vocab if i >= 256), "no superword"


def test_superbpe_transition_keeps_stage_one():
    docs = read_corpus("taylorswift.txt")[:20_000].split("\n\n")
    tok = methods.train("superbpe", docs, 450, transition=400)
    assert {p: i for p, i in tok.merges.items() if i < 400} == methods.train("bpe", docs, 400).merges


def test_special_tokens_follow_the_merges():
    tok = methods.train("boundless", ["of the<|e|>of the of the"], 262, special_tokens=["<|e|>"])
    assert tok.special_tokens == {"<|e|>": 261}
    assert isinstance(tok, BoundlessTokenizer)
    assert tok.decode(tok.encode("of the<|e|>", allowed_special="all")) == "of the<|e|>"


@settings(max_examples=40, deadline=None)
@given(st.text(alphabet="ab c1\n", max_size=60))
def test_variants_round_trip_fuzz(text):
    for method in ("superbpe", "boundless", "picky"):
        options = {"tau": 0.6} if method == "picky" else {}
        tok = methods.train(method, ["ab ab c ab c\nab 11 ab c", "c c ab"], 270, **options)
        assert tok.decode(tok.encode(text)) == text


def textbook_boundless(docs, vocab_size):
    """BoundlessBPE's merges by the textbook loop: every line a word of bytes with a
    pretoken-start flag per token, all eligible pairs recounted before each merge, the
    most frequent taken (the first met on a tie), merged left to right. Slow and plain:
    the reference for bpe.methods.merging's layout of pretokens and stand-ins."""
    tok = BoundlessTokenizer()
    counts = {}
    for doc in docs:
        for line in lines(tok.split(clean_text(doc))):
            counts[tuple(line)] = counts.get(tuple(line), 0) + 1
    words = []
    for line, count in counts.items():
        ids, starts = [], []
        for chunk in line:
            piece = chunk.encode("utf-8")
            ids += piece
            starts += [True] + [False] * (len(piece) - 1)
        words.append((ids, starts, count))

    def eligible(starts, i):  # inside a pretoken, or two whole ones side by side
        return not starts[i + 1] or starts[i] and (i + 2 == len(starts) or starts[i + 2])
    merges = {}
    for idx in range(256, vocab_size):
        stats = {}
        for ids, starts, count in words:
            for i in range(len(ids) - 1):
                if eligible(starts, i):
                    stats[ids[i], ids[i + 1]] = stats.get((ids[i], ids[i + 1]), 0) + count
        if not stats:
            break
        pair = max(stats, key=stats.get)
        for ids, starts, _ in words:
            i = 0
            while i < len(ids) - 1:
                if (ids[i], ids[i + 1]) == pair and eligible(starts, i):
                    ids[i:i + 2] = [idx]
                    del starts[i + 1]
                i += 1
        merges[pair] = idx
    return merges


def test_boundless_is_the_textbook_loop():
    docs = read_corpus("taylorswift.txt")[:12_000].split("\n\n")
    tok = methods.train("boundless", docs, 420)
    assert tok.merges == textbook_boundless(docs, 420)
    assert any(b" " in tok.vocab[i].strip() for i in tok.merges.values()), "no superword"


@settings(max_examples=60, deadline=None)
@given(st.lists(st.text(alphabet="ab c\n1", min_size=1, max_size=40), min_size=1, max_size=4))
def test_boundless_is_the_textbook_loop_fuzz(docs):
    tok = methods.train("boundless", docs, 275)
    assert tok.merges == textbook_boundless(docs, 275)


def test_boundless_layout_is_the_text_in_order(swift):
    """layout builds the arrays and pair lists in one pass, trusting that positions come
    in order: each pair list must be ascending and hold exactly the adjacent non-stand-in
    tokens; the pretokens' bytes, read by nxt, spell each distinct pretoken once; each
    stand-in is listed under its pretoken."""
    tok = BoundlessTokenizer()
    counts = {}
    for doc in swift[0]:
        for line in lines(tok.split(clean_text(doc))):
            counts[tuple(line)] = counts.get(tuple(line), 0) + 1
    ids, wt, prv, nxt, where, copies = layout(counts)
    n = len(ids)
    assert all(nxt[p] == -1 or prv[nxt[p]] == p for p in range(n))
    assert all(positions == sorted(set(positions)) for positions in where.values())
    found = {}
    for p in range(n):
        q = nxt[p]
        if q >= 0 and ids[p] >= 0 and ids[q] >= 0:
            found.setdefault((ids[p], ids[q]), []).append(p)
    assert found == where
    def spelled(p):  # a pretoken's bytes, read from its first byte by nxt
        out = bytearray()
        while p >= 0:
            out.append(ids[p])
            p = nxt[p]
        return bytes(out)
    multi = {chunk.encode("utf-8") for line in counts if len(line) > 1 for chunk in line}
    assert sorted(map(spelled, copies)) == sorted(c for c in multi if len(c) > 1)
    assert sorted(u for units in copies.values() for u in units) == \
        [p for p in range(n) if ids[p] == STAND_IN]


def textbook_superbpe(docs, vocab_size, transition):
    """SuperBPE's merges by the textbook loop: stage 1 is bpe's; stage 2 counts each
    distinct stage-2 word (GPT-4 chunks between digit runs, each encoded by stage 1)
    once with its weight, recounts every pair stage 1 did not merge before each merge,
    takes the most frequent (the first met on a tie) and merges it left to right. The
    reference for superbpe's stage 2 (train_merges over stage2_counts' words, banned
    from stage 1's pairs, starting from stage 1's own ids). If stage 1 runs out of pairs before the transition, there is no stage 2 (as in superbpe)."""
    stage1 = methods.train("bpe", docs, transition)
    if len(stage1.merges) < transition - 256:
        return stage1.merges
    counts = {}
    for doc in docs:
        for word in stage2_words(stage1.split(clean_text(doc))):
            counts[word] = counts.get(word, 0) + 1
    words = [[i for chunk in word for i in stage1.encode_chunk(chunk.encode("utf-8"))]
             for word in counts]
    merges = dict(stage1.merges)
    for idx in range(transition, vocab_size):
        stats = {}
        for ids, count in zip(words, counts.values()):
            for pair in zip(ids, ids[1:]):
                if pair not in stage1.merges:
                    stats[pair] = stats.get(pair, 0) + count
        if not stats:
            break
        pair = max(stats, key=stats.get)
        for ids in words:
            i = 0
            while i < len(ids) - 1:
                if (ids[i], ids[i + 1]) == pair:
                    ids[i:i + 2] = [idx]
                i += 1
        merges[pair] = idx
    return merges


def test_superbpe_is_the_textbook_loop():
    text = read_corpus("taylorswift.txt")[:15_000]
    docs = text.split("\n\n")
    tok = methods.train("superbpe", docs, 480, transition=400)
    assert tok.merges == textbook_superbpe(docs, 480, 400)
    assert any(b" " in tok.vocab[i].strip() for i in tok.merges.values() if i >= 400)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.text(alphabet="ab c\n12", min_size=1, max_size=40), min_size=1, max_size=4))
def test_superbpe_is_the_textbook_loop_fuzz(docs):
    assert methods.train("superbpe", docs, 275, transition=258).merges == \
        textbook_superbpe(docs, 275, 258)


@pytest.mark.parametrize("method", ["superbpe", "boundless"])
def test_a_text_of_special_tokens_only_trains_no_merge(method):
    tok = methods.train(method, ["<|e|><|e|>"], 300, special_tokens=["<|e|>"])
    assert tok.merges == {} and tok.special_tokens == {"<|e|>": 256}


def stage2_inputs(docs, transition):
    """Stage 2's words, stage 1's vocab and merges for docs, as superbpe.train makes them."""
    stage1 = RegexTokenizer()
    chunked = [stage1.split(clean_text(doc)) for doc in docs]
    counts = {}
    for chunks in chunked:
        for chunk in chunks:
            counts[chunk] = counts.get(chunk, 0) + 1
    result = train_merges([(chunk.encode("utf-8"), n) for chunk, n in counts.items()],
                          transition, keep_ids=True)
    stage1.apply_training(result)
    return stage2_counts(dict(zip(counts, result.ids)), chunked), stage1.vocab, result.merges


@pytest.mark.parametrize("tie_break", TIE_BREAKS)
@pytest.mark.parametrize("threshold", [2, 7, 40, 1000])
def test_superbpe_cut_rounds_are_one_train_merges_call(swift, tie_break, threshold):
    """train_stage2 cuts the words before rare pairs and resumes with lower cuts: the
    merges, their counts and the stop reason must be one uncut train_merges call's.
    A high first cut forces several rounds (each rebuilding the words from the pieces'
    ids); min_frequency 3 makes a round stop for its own reason."""
    docs = swift[0][:60]
    words, vocab, banned = stage2_inputs(docs, 400)
    for min_frequency in (1, 3):
        whole = train_merges(words.items(), 700, min_frequency, tie_break=tie_break,
                             vocab=vocab, banned=banned)
        cut = train_stage2(words, 700, min_frequency, vocab, banned, threshold=threshold,
                           tie_break=tie_break)
        assert cut.merges == whole.merges
        assert cut.merge_counts == whole.merge_counts
        assert cut.stop_reason == whole.stop_reason


@settings(max_examples=60, deadline=None)
@given(st.lists(st.text(alphabet="ab c\n12", min_size=1, max_size=60), min_size=1, max_size=4),
       st.sampled_from(TIE_BREAKS), st.integers(1, 9))
def test_superbpe_cut_rounds_fuzz(docs, tie_break, threshold):
    words, vocab, banned = stage2_inputs(docs, 260)
    whole = train_merges(words.items(), 300, tie_break=tie_break, vocab=vocab, banned=banned)
    cut = train_stage2(words, 300, 1, vocab, banned, threshold=threshold, tie_break=tie_break)
    assert (cut.merges, cut.merge_counts, cut.stop_reason) == \
        (whole.merges, whole.merge_counts, whole.stop_reason)
