"""Rebuilding GPT-4 from its ranks (minbpe's exercise, step 3), as functions the lesson
page (pages/rebuild_gpt4.py) calls: the worker job that recovers the merges, one
token's recovery, and the merges-based tokenizer with its byte relabelling.

The recovery itself is bpe's (`bpe.formats.ranks_merges.recover_merges`; bpe does not export it at
the top level). This module adds no encoder of its own: the rebuilt tokenizer is a
plain `bpe.RegexTokenizer.from_merges`. It never imports streamlit (the job runs in a
worker, lab/jobs/__init__.py).

>>> ranks = {b"b": 0, b"a": 1, b"ab": 2}   # bytes get shuffled ids, as in GPT-4
>>> byte_space_merges({(1, 0): 2}, {97: 1, 98: 0})
{(97, 98): 2}
"""
import time
from dataclasses import dataclass

from bpe import GPT4Tokenizer, RanksTokenizer, RegexTokenizer
from bpe.formats.ranks import WHOLE_TEXT_PATTERN
from bpe.formats.ranks_merges import recover_merges
from lab.jobs.runner import Step


@dataclass
class Rebuilt:
    """What the recovery job returns."""
    merges: dict      # (int, int) -> int, in GPT-4's ids (a byte's id is its rank)
    n_ranks: int      # tokens in the ranks file
    seconds: float    # recover_merges' time in the worker
    checked: int      # merges whose two parts' bytes were checked to join into the token


def recover_job(progress, *, check_every=2000):
    """The worker side (lab.jobs): read GPT-4's hash-checked ranks, recover the merges
    with bpe, then check every merge's parts join into its token's bytes. Progress is
    reported as lab.jobs.Step: first the recovery (one call), then the checks."""
    started = time.monotonic()
    ranks = GPT4Tokenizer().ranks
    total = len(ranks) - 256
    progress(Step(0, total, time.monotonic() - started, "merges recovered"))
    t0 = time.perf_counter()
    merges = recover_merges(ranks)
    seconds = time.perf_counter() - t0
    progress(Step(len(merges), total, time.monotonic() - started, "merges recovered"))
    vocab = {rank: token for token, rank in ranks.items()}
    for n, ((p0, p1), idx) in enumerate(merges.items(), 1):
        if vocab[p0] + vocab[p1] != vocab[idx]:
            raise ValueError(f"merge ({p0}, {p1}) -> {idx} does not rebuild token {idx}'s "
                             "bytes: the ranks file is not GPT-4's")
        if n % check_every == 0 or n == len(merges):
            progress(Step(n, len(merges), time.monotonic() - started,
                          "merges checked against the ranks"))
    return Rebuilt(merges, len(ranks), seconds, len(merges))


def lower_rank_parts(ranks, token):
    """The ids BPE leaves of token's bytes when only the ranks below token's own may
    merge: the two parts its merge joins (bpe's RanksTokenizer does the merging).

    >>> lower_rank_parts({b"a": 0, b"b": 1, b"c": 2, b"ab": 3, b"abc": 4}, b"abc")
    [3, 2]
    """
    rank = ranks[token]
    lower = {t: r for t, r in ranks.items() if r < rank}
    return RanksTokenizer(lower, WHOLE_TEXT_PATTERN, name="lower ranks").encode_chunk(token)


def byte_space_merges(merges, byte_shuffle):
    """merges in GPT-4's ids turned into merges over raw bytes: every part that is a
    byte's id (its rank) becomes the byte itself, so encoding starts from the text's
    bytes as they are. Merged tokens keep GPT-4's ids. byte_shuffle: byte -> its id."""
    unshuffle = {idx: b for b, idx in byte_shuffle.items()}
    return {(unshuffle.get(p0, p0), unshuffle.get(p1, p1)): idx
            for (p0, p1), idx in merges.items()}


def merges_tokenizer(merges, byte_shuffle, pattern, special_tokens):
    """A bpe.RegexTokenizer built from GPT-4's recovered merges (byte_space_merges),
    GPT-4's split pattern and special tokens."""
    return RegexTokenizer.from_merges(byte_space_merges(merges, byte_shuffle),
                                      pattern=pattern, special_tokens=special_tokens)


def gpt4_ids(ids, byte_shuffle):
    """The merges tokenizer's ids as GPT-4's: a lone byte b (id b < 256) becomes
    byte_shuffle[b]; every merged token already has GPT-4's id.

    >>> gpt4_ids([97, 300], {97: 64})
    [64, 300]
    """
    return [byte_shuffle[idx] if idx < 256 else idx for idx in ids]
