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
from itertools import chain

import regex

from .. import documents
from ..chunk_cache import ChunkCache
from ..encode import apply_merges
from ..regex import RegexTokenizer
from ..text import clean_text
from ..train import TrainResult, check_tie_break, train_merges
from .merging import BOUNDARY, Clock, Words, gc_paused, merge_until

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
    bpe.train does), and stage 2 lays the same chunks out as stage1_text says."""
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
        tie_break=tie_break)
    stage1.apply_training(result)
    merges = dict(stage1.merges)
    merge_counts = dict(stage1.merge_counts)
    stop_reason = stage1.stop_reason
    if stop_reason == "vocab_size" and size > transition:
        state = Words([stage1_text(stage1, chunked, counts)], [1], vocab=stage1.vocab,
                      tie_break=tie_break, banned=merges)
        del chunked
        clock = Clock(progress, total)
        clock.done = len(merges)
        stop_reason = merge_until(state, size, min_frequency, clock, merges, merge_counts)
    tok.transition = transition
    tok.apply_training(TrainResult(merges, merge_counts, stop_reason))
    return documents.register_after_merges(tok, specials)


def stage1_text(stage1, chunked, counts):
    """Stage 2's words as one list of ids: every document's chunks (chunked: a list of
    chunk lists) encoded by stage 1, end to end, with BOUNDARY around each digit chunk
    and after each document, so the stretches between them are stage2_words' words.

    Every occurrence is laid out (one Words word of weight 1) rather than each distinct
    word once: the words are whole paragraphs that hardly repeat (tinyshakespeare: 7222
    words, all distinct), and the list is then built by C-level joins. Each distinct chunk (the
    keys of counts) is encoded once. The merges are the same either way, under every
    tie rule: the counts are, and for "first" a word's first occurrence in the text is
    where a layout of distinct words in order of first occurrence puts it.

    >>> s1 = RegexTokenizer()
    >>> chunked = [s1.split("ab 12c"), s1.split("d")]
    >>> stage1_text(s1, chunked, Counter(chain.from_iterable(chunked)))
    [97, 98, 32, -3, 49, 50, -3, 99, -3, 100, -3]
    """
    pieces = {}
    for chunk in counts:
        ids = stage1.encode_chunk(chunk.encode("utf-8"))
        pieces[chunk] = [BOUNDARY, *ids, BOUNDARY] if DIGITS.match(chunk) else ids
    ids = []
    for chunks in chunked:
        ids += chain.from_iterable(map(pieces.__getitem__, chunks))
        ids.append(BOUNDARY)
    return ids
