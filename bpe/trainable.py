"""The training family every minbpe-style tokenizer shares: train, train_from_files,
train_from_iterator, the argument check run before any counting, taking a TrainResult as
the tokenizer's merges, and counting the text's chunks.

Mixed into bpe.base.Tokenizer, as bpe.decode's DecodeMethods is. It reads and sets only the
Tokenizer's own fields (split, special_tokens, merges, merge_counts, merge_ties,
stop_reason, _reset); the merges themselves are learned by bpe.train, documents cut by
bpe.documents, files and iterators counted by bpe.counting.stream. A tokenizer that comes
made refuses all of this (bpe.pretrained).

>>> from bpe import BasicTokenizer
>>> tok = BasicTokenizer()
>>> tok.train("aaabdaaabac", 259).merges, tok.stop_reason
({(97, 97): 256, (256, 97): 257, (257, 98): 258}, 'vocab_size')
"""
from collections import Counter

from . import documents
from .counting import stream
from .text import clean_text
from .train import chain_progress, print_progress, train_merges


class TrainMethods:
    """Mixed into bpe.base.Tokenizer: train, train_from_files, train_from_iterator,
    check_train_args, apply_training, count_chunks."""

    def train(self, text, vocab_size, verbose=False, *, special_tokens=None, min_frequency=1,
              progress=None, tie_break="first", record_ties=False, max_vocab_bytes=None):
        """Learn vocab_size - 256 merges from text (fewer if pairs run out or the best
        pair occurs fewer than min_frequency times; see self.stop_reason).

        special_tokens (a list of str, CS336's and HF's meaning): the text is cut at them
        into documents that no merge crosses, and each gets an id after the last merge;
        vocab_size counts them (bpe.documents).

        tie_break: which pair wins among equal counts: "first" (the one occurring first
        in the text, minbpe's rule), "smallest_ids" (rustbpe's) or "greatest_bytes"
        (CS336's). record_ties=True fills self.merge_ties (about 2x slower).
        max_vocab_bytes, if given, stops training (stop_reason "vocab_bytes") before the
        merge that would take the vocab's total bytes past it: Basic training's tokens
        grow without end once every pair occurs once (bpe.budgets.MAX_VOCAB_BYTES is what
        bpe.load accepts).

        progress, if given, is called after each merge with a MergeProgress
        (done, total, idx, pair, token, count, elapsed, merges_per_s).
        verbose=True prints each merge through the same path.
        """
        text = clean_text(text)
        specials = documents.check_specials(self, special_tokens, vocab_size)
        vocab_size -= len(specials)
        self.check_train_args(vocab_size, min_frequency)
        if verbose:
            progress = chain_progress(progress, print_progress)
        counts = documents.count_documents(self, documents.cut_at_specials(text, specials))
        words = [(chunk.encode("utf-8"), freq) for chunk, freq in counts.items()]
        del counts
        result = train_merges(words, vocab_size, min_frequency, progress,
                              tie_break=tie_break, record_ties=record_ties,
                              max_vocab_bytes=max_vocab_bytes)
        return documents.register_after_merges(self.apply_training(result), specials)

    def train_from_files(self, paths, vocab_size, **options):
        """Train on UTF-8 files read a piece at a time: the same merges as train() on
        their concatenated text, in memory that grows with the distinct chunks only
        (options: min_frequency, tie_break, record_ties, progress, count_progress,
        workers). See bpe.counting.stream."""
        return stream.train_from_files(self, paths, vocab_size, **options)

    def train_from_iterator(self, texts, vocab_size, **options):
        """Train on an iterable of str (rustbpe's name), each item its own document (no
        merge crosses two; HF's and rustbpe's meaning), keeping only chunk counts; options
        as train's, special_tokens included. See bpe.counting.stream."""
        return stream.train_from_iterator(self, texts, vocab_size, **options)

    def check_train_args(self, vocab_size, min_frequency):
        """ValueError for arguments no training can use; run before any counting, so a
        bad argument fails at once rather than after an hour of reading."""
        if not isinstance(vocab_size, int) or isinstance(vocab_size, bool) or vocab_size < 256:
            raise ValueError(f"vocab_size must be an int of at least 256 (the 256 byte "
                             f"tokens), not {vocab_size!r}")
        if not isinstance(min_frequency, int) or min_frequency < 1:
            raise ValueError(f"min_frequency must be an int of at least 1, not {min_frequency!r}")
        clash = [s for s, idx in self.special_tokens.items() if 256 <= idx < vocab_size]
        if clash:
            raise ValueError(f"special tokens {clash} have ids inside the range training "
                             f"will fill (256..{vocab_size - 1}); register them with ids of "
                             f"at least {vocab_size}, or after training")

    def apply_training(self, result):
        """Take a bpe.train.TrainResult as this tokenizer's merges; returns self."""
        self.merges = result.merges
        self.merge_counts = result.merge_counts
        self.merge_ties = result.merge_ties or {}
        self.stop_reason = result.stop_reason
        self._reset()
        return self

    def count_chunks(self, text):
        """Counter of the text's chunks, in order of first occurrence."""
        return Counter(self.split(text))
