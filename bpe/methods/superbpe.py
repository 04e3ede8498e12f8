"""bpe.methods "superbpe": SuperBPE (Liu et al. 2025, arXiv 2503.13423).

Two stages, as the paper's tokenizer is trained:
1. plain BPE (bpe.train, GPT-4's split pattern) until the vocabulary has `transition`
   tokens: subwords;
2. BPE goes on with whitespace no longer a boundary: the stage-2 "words" are the stretches
   between digit runs. This follows the paper's stage-2 pretokenization (its code keeps
   only the digit splits: digits apart from everything else, in groups of three); here
   the digit groups are GPT-4's own (`\\p{N}{1,3}`), so both stages agree on them. Each
   stage-2 word is the text's GPT-4 chunks, each encoded by stage 1, end to end, so
   merges may now join " of" and " the" into the superword " of the".

Default transition: 80% of vocab_size. The paper's best downstream model used t = 180k
of 200k (90%); smaller t compresses more (its 33% fewer tokens is at a lower t). At the
small sizes this lab trains, 80% leaves stage 2 enough merges to show superwords.

Stage 2 never re-learns a pair stage 1 already merged (it can meet one across a chunk
boundary): a pair has one id in `merges`. Encoding applies stage-1 merges within each
GPT-4 chunk, then stage-2 merges across the chunks of each stage-2 word, lowest id
first, which is how training saw the text; decode is plain concatenation, so every text
round-trips. Tie rule: tie_break as bpe.train ("first", minbpe's) in both stages.

>>> tok = train(["the cat and the dog and the cat"], 270, transition=262)
>>> tok.decode(tok.encode("the cat")) == "the cat"
True
"""
from collections import Counter
from functools import partial
from itertools import chain, compress, islice, repeat
from operator import add, mul

import regex

from .. import documents
from ..chunk_cache import ChunkCache
from ..encode import apply_merges
from ..regex import RegexTokenizer
from ..text import clean_text
from ..tie_break import check_tie_break
from ..train import TrainResult, train_merges
from .merge_loop import gc_paused

TRANSITION_SHARE = 0.8
DIGITS = regex.compile(r"\p{N}")


class SuperBPETokenizer(RegexTokenizer):
    """GPT-4's chunks merged by stage 1, then stage-2 merges across them."""

    def __init__(self, pattern=None):
        self.transition = 256  # ids below it are stage 1's
        super().__init__(pattern)

    def _reset(self):
        super()._reset()
        stage1 = {pair: idx for pair, idx in self.merges.items() if idx < self.transition}
        self._stage1 = ChunkCache(partial(merged_bytes, rank_of(stage1)))
        self._stage2 = {pair: idx for pair, idx in self.merges.items() if idx >= self.transition}
        self._stage2_rank = rank_of(self._stage2)

    def model_text(self):
        if self._stage2:
            raise ValueError("a SuperBPE tokenizer cannot be saved as a minbpe .model file: "
                             "that format would apply its superword merges inside GPT-4's "
                             "chunks only, so they would never happen")
        return super().model_text()

    def encode_ordinary(self, text):
        ids = []
        for word in stage2_words(self.split(clean_text(text))):
            part = list(chain.from_iterable(map(self._stage1.__getitem__, word)))
            ids.extend(apply_merges(part, self._stage2_rank) if self._stage2 else part)
        return ids


class rank_of(dict):
    """apply_merges' callback for a dict of merges: (a, b) -> the id they make, or None.
    A dict, not a closure, so a trained tokenizer pickles (the app's worker sends it)."""

    __slots__ = ()

    def __call__(self, a, b):
        return self.get((a, b))


def merged_bytes(rank, text_bytes):
    """text_bytes' ids after every merge rank knows (a chunk cache's encode_chunk)."""
    return apply_merges(list(text_bytes), rank)


def stage2_words(chunks):
    """GPT-4 chunks grouped into stage-2 words: each digit chunk alone, the chunks
    between them together.

    >>> stage2_words(["a", " b", "123", " c"])
    [('a', ' b'), ('123',), (' c',)]
    """
    words, run = [], []
    for chunk in chunks:
        if DIGITS.match(chunk):
            if run:
                words.append(tuple(run))
                run = []
            words.append((chunk,))
        else:
            run.append(chunk)
    if run:
        words.append(tuple(run))
    return words


@gc_paused()
def train(texts, vocab_size, *, min_frequency=1, special_tokens=None, progress=None,
          tie_break="first", transition=None):
    """A SuperBPETokenizer: stage 1 up to transition tokens, stage 2 up to vocab_size.

    The text is split into GPT-4 chunks once: stage 1 trains on their counts (as
    bpe.train does), and stage 2 on the words stage2_counts makes of the same chunks,
    by train_stage2 (train_merges on the pieces between rare pairs), banned from
    picking a pair stage 1 merged."""
    tok = SuperBPETokenizer()
    specials = documents.check_specials(tok, special_tokens, vocab_size)
    size = vocab_size - len(specials)
    if transition is None:
        transition = max(256, int(TRANSITION_SHARE * size))
    transition = min(transition, size)
    total = size - 256
    stage1 = RegexTokenizer()
    stage1.check_train_args(transition, min_frequency)
    check_tie_break(tie_break)
    docs = (doc for text in texts for doc in documents.cut_at_specials(text, specials))
    chunked = [stage1.split(clean_text(doc)) for doc in docs]
    counts = Counter(chain.from_iterable(chunked))  # in order of first occurrence
    result = train_merges(
        [(chunk.encode("utf-8"), freq) for chunk, freq in counts.items()], transition,
        min_frequency, None if progress is None else lambda p: progress(p._replace(total=total)),
        tie_break=tie_break, keep_ids=True)
    stage1.apply_training(result)
    merges = dict(stage1.merges)
    merge_counts = dict(stage1.merge_counts)
    stop_reason = stage1.stop_reason
    if stop_reason == "vocab_size" and size > transition:
        # every stage-1 merge was made, so each chunk's ids in training are its encoding
        words = stage2_counts(dict(zip(counts, result.ids)), chunked)
        del chunked
        # the first cut: stage 1's last count, where stage 2 starts about; none (1) on
        # a small text, where counting and cutting cost about what they save
        last = merge_counts[max(merge_counts)] if merge_counts else 1
        if sum(map(len, words)) < CUT_FROM:
            last = 1
        result = train_stage2(
            words, size, min_frequency, stage1.vocab, merges, threshold=last,
            progress=None if progress is None else lambda p: progress(p._replace(total=total)),
            tie_break=tie_break)
        merges.update(result.merges)
        merge_counts.update(result.merge_counts)
        stop_reason = result.stop_reason
    tok.transition = transition
    tok.apply_training(TrainResult(merges, merge_counts, stop_reason))
    return documents.register_after_merges(tok, specials)


def stage2_counts(encoded, chunked):
    """Stage 2's words as ids, each with its count, in order of first occurrence:
    every document's chunks (chunked: a list of chunk lists) as encoded (a dict: each
    distinct chunk -> its stage-1 ids), end to end, cut before and after each digit
    chunk and at the document's end, so the words are stage2_words' words. A
    document's ids are joined and cut by C-level calls.

    >>> chunked = [["ab", " ", "12", "c"], ["ab", " "]]
    >>> encoded = {"ab": [256], " ": [32], "12": [49, 50], "c": [99]}
    >>> stage2_counts(encoded, chunked)
    Counter({(256, 32): 2, (49, 50): 1, (99,): 1})
    """
    pieces = {chunk: [CUT, *ids, CUT] if DIGITS.match(chunk) else ids
              for chunk, ids in encoded.items()}
    words = Counter()
    for chunks in chunked:
        ids = list(chain.from_iterable(map(pieces.__getitem__, chunks)))
        ids.append(CUT)
        start, last = 0, len(ids) - 1
        while start <= last:
            end = ids.index(CUT, start)
            if end > start:
                words[tuple(ids[start:end])] += 1
            start = end + 1
    return words


CUT_FROM = 100_000  # stage-2 positions from which train cuts (bench/results/methods.md)
CUT = -1  # stage2_counts' mark between two stage-2 words in a document's ids: no token id


def train_stage2(words, size, min_frequency, vocab, banned, *, threshold, progress=None,
                 tie_break="first"):
    """Stage 2: train_merges over words (a dict: tuple of ids -> count, in order of first
    occurrence) from vocab's ids up to size ids, never merging a pair of banned (stage
    1's merges); a TrainResult of the new merges, the same as one train_merges call over
    the words would give, in fewer positions.

    Stage 2's words are the text between digit runs, whole paragraphs that never repeat,
    so one call lays out every token of the text (tinyshakespeare: 322k positions). But a
    merge can only join tokens across a place where the adjacent ids (u, v) are common:
    a token pair (x, y) that meets there has x ending in u and y beginning with v at
    every one of its occurrences, so it occurs at most as often as (u, v) did. Cutting
    the words before every pair that occurs fewer than `cut` times therefore changes no
    merge while the best count is at least `cut`, and the pieces between cuts repeat,
    so they are counted once each as bpe counts chunks (first occurrences keep their
    order, so the "first" tie rule still sees each pair where it first occurs).
    train_merges is told min_frequency=cut, so it stops where that stops holding; then
    the words are put back together from the pieces' ids and training goes on with
    half the cut, until a round ends for its own reason or has no cut at all (cut 1).

    threshold: the first round's cut. SuperBPE passes stage 1's last merge count: counts
    only fall as training goes on, and stage 2 starts about there (tinyshakespeare at
    4096: stage 1 ends at 18, stage 2 at 23, one round of 69k positions)."""
    vocab = dict(vocab)
    merges, merge_counts = {}, {}
    cut = max(threshold, min_frequency, 1)
    while True:
        pieces, parts = cut_words(words, cut)
        done = len(banned) + len(merges)
        result = train_merges(
            pieces.items(), size, max(cut, min_frequency),
            None if progress is None else lambda p: progress(p._replace(done=done + p.done)),
            tie_break=tie_break, vocab=vocab, banned={**banned, **merges}, keep_ids=True)
        merges.update(result.merges)
        merge_counts.update(result.merge_counts)
        for (a, b), idx in result.merges.items():
            vocab[idx] = vocab[a] + vocab[b]
        stop_reason = result.stop_reason
        if cut == 1 or stop_reason == "vocab_size" or (
                stop_reason == "min_frequency" and cut <= min_frequency):
            return TrainResult(merges, merge_counts, stop_reason)
        # subtle: "no_pairs" with cuts left is not the end: pairs across cuts remain
        ids = dict(zip(pieces, result.ids))
        words = {tuple(chain.from_iterable(map(ids.__getitem__, word_parts))): count
                 for word_parts, count in zip(parts, words.values())}
        cut = max(cut // 2, min_frequency) if cut > min_frequency else 1


def cut_words(words, cut):
    """(pieces, parts): words (a dict: tuple of ids -> count) cut before every pair of
    adjacent ids whose weighted count over all words is below cut; pieces counts each
    distinct piece, in order of first occurrence, parts lists each word's pieces.

    >>> pieces, parts = cut_words({(1, 2, 3, 1, 2): 1, (3, 1, 2): 2}, 3)  # (2, 3) once
    >>> dict(pieces), parts
    ({(1, 2): 1, (3, 1, 2): 3}, [[(1, 2), (3, 1, 2)], [(3, 1, 2)]])
    """
    if cut <= 1:
        return Counter(words), [[word] for word in words]
    # subtle: a pair (a, b) is counted as the int a * shift + b, as train_merges codes
    # pairs: ints hash in C without a tuple to build (cut_words 0.31 -> 0.26 s here)
    shift = max(map(max, filter(None, words)), default=0) + 1
    codes = [list(map(add, map(mul, word, repeat(shift)), islice(word, 1, None)))
             for word in words]
    # a word of count n is counted as n copies (list repetition), so each Counter is
    # filled in one C-level pass, in order of first occurrence
    stats = Counter(chain.from_iterable(map(mul, codes, words.values())))
    rare = cut.__gt__
    parts = []
    for word, word_codes in zip(words, codes):
        ends = list(compress(range(1, len(word)),
                             map(rare, map(stats.__getitem__, word_codes))))
        bounds = [0, *ends, len(word)]
        parts.append(list(map(word.__getitem__, map(slice, bounds, bounds[1:]))))
    pieces = Counter(chain.from_iterable(map(mul, parts, words.values())))
    return pieces, parts
