"""Extending a vocabulary: new merges learned on top of a tokenizer, its ids unchanged.

The base tokenizer (trained, loaded, GPT-4, GPT-4o: any) first encodes each chunk of
the domain text exactly as it always does; BPE then continues on those id sequences,
so every new merge joins two tokens the base really produces side by side. New ids
start after the largest id the base uses (special tokens included), so ids
0..base.n_vocab-1 keep their bytes and every special token keeps its id.

Encoding with the extension is the base's encoding followed by the new merges, in the
order they were learned. Text that no new merge touches therefore encodes exactly as
in the base, and undoing the new merges in any encoding gives the base's ids back.
This file does not split text or apply ranks itself: it asks the base.
"""
from .base import Tokenizer
from .encode import apply_merges
from .text import clean_text
from .train import train_merges


class ExtendedTokenizer(Tokenizer):
    """A base tokenizer plus new merges (pair -> idx, ids above all of the base's)."""

    def __init__(self, base, new_merges, new_merge_counts=None, stop_reason=None):
        self.base = base
        self.new_merges = dict(new_merges)          # (int, int) -> int, in merge order
        self._merges = None
        Tokenizer.__init__(self)
        self.merge_counts = dict(new_merge_counts or {})  # of the new merges only
        self.pattern = base.pattern
        self.stop_reason = stop_reason
        self.special_tokens = dict(base.special_tokens)
        self._reset()

    @property
    def merges(self):
        """The base's merges (recovered from its ranks if it has ranks), then the new ones."""
        if self._merges is None:
            self._merges = {**self.base.merges, **self.new_merges}
        return self._merges

    @merges.setter
    def merges(self, value):
        if value:
            raise ValueError("an extended tokenizer's merges are its base's plus the new "
                             "ones; extend the base again instead")

    @property
    def base_n_vocab(self):
        return self.base.n_vocab

    def _build_vocab(self):
        vocab = dict(self.base.vocab)
        for (p0, p1), idx in self.new_merges.items():
            vocab[idx] = vocab[p0] + vocab[p1]
        return vocab

    def split(self, text):
        return self.base.split(text)

    def count_chunks(self, text):
        return self.base.count_chunks(text)

    def _encode_chunk(self, text_bytes):
        chunk_ids = self.base.encode_chunk(text_bytes)
        if len(chunk_ids) < 2 or not self.new_merges:
            return chunk_ids
        get = self.new_merges.get
        return apply_merges(chunk_ids, lambda a, b: get((a, b)))

    def undo_new_merges(self, ids):
        """The ids with every new token split back into the base tokens it was made of.

        ext.undo_new_merges(ext.encode_ordinary(text)) == base.encode_ordinary(text).
        """
        parts = {idx: pair for pair, idx in self.new_merges.items()}
        out = []
        stack = list(reversed(ids))
        while stack:
            idx = stack.pop()
            pair = parts.get(idx)
            if pair is None:
                out.append(idx)
            else:
                stack += [pair[1], pair[0]]
        return out

    def train(self, text, vocab_size, verbose=False, **kwargs):
        raise ValueError("an extended tokenizer is trained by extend_vocabulary(base, text, "
                         "num_merges); extend it again to add more")

    def model_text(self):
        """minbpe's .model: only when the base's bytes are ids 0-255 and every merged id
        follows the one before (the format numbers merges 256, 257, ... in order)."""
        if hasattr(self.base, "ranks"):
            raise ValueError(f"{getattr(self.base, 'name', 'this base')} keeps its bytes at "
                             "ids other than 0-255 (its ranks), which a .model file cannot "
                             "express; export as .tiktoken instead")
        ids = list(self.merges.values())
        if ids != list(range(256, 256 + len(ids))):
            gap = next(i for i, idx in enumerate(ids, 256) if idx != i)
            raise ValueError(f"the new tokens start at id {self.new_idx_start}, after the "
                             f"special tokens, leaving ids {gap}..{self.new_idx_start - 1} "
                             "between merges, which a .model file (merges numbered 256, "
                             "257, ... in order) cannot express; export as .tiktoken or "
                             "tokenizer.json instead")
        return super().model_text()

    @property
    def new_idx_start(self):
        return max(self.base.vocab) + 1


def extend_vocabulary(base, text, num_merges, *, min_frequency=2, tie_break="first",
                      progress=None, record_ties=False):
    """A new tokenizer: base plus up to num_merges merges learned from text (fewer if no
    pair occurs min_frequency times; see .stop_reason). Ids of base keep their meaning.

    >>> from bpe import RegexTokenizer
    >>> base = RegexTokenizer().train("hello world", 258)
    >>> ext = extend_vocabulary(base, "lowlow lowlow", 2)
    >>> [ext.vocab[idx] for idx in ext.new_merges.values()]
    [b'lo', b'low']
    >>> ext.encode_ordinary("hello lowly"), base.encode_ordinary("hello lowly")
    ([257, 258, 32, 259, 108, 121], [257, 108, 111, 32, 108, 111, 119, 108, 121])
    >>> ext.undo_new_merges([259]), ext.n_vocab
    ([108, 111, 119], 260)
    """
    if not isinstance(base, Tokenizer):
        raise TypeError(f"base must be a tokenizer from bpe, not {type(base).__name__}")
    if not isinstance(num_merges, int) or isinstance(num_merges, bool) or num_merges < 0:
        raise ValueError(f"num_merges must be an int of at least 0, not {num_merges!r}")
    if not isinstance(min_frequency, int) or isinstance(min_frequency, bool) or min_frequency < 1:
        raise ValueError(f"min_frequency must be an int of at least 1, not {min_frequency!r}")
    text = clean_text(text)
    encode_chunk = base.encode_chunk
    words = [(encode_chunk(chunk.encode("utf-8")), freq)
             for chunk, freq in base.count_chunks(text).items()]
    start = max(base.vocab) + 1
    result = train_merges(words, start + num_merges, min_frequency, progress,
                          tie_break=tie_break, record_ties=record_ties, vocab=base.vocab)
    ext = ExtendedTokenizer(base, result.merges, result.merge_counts, result.stop_reason)
    ext.merge_ties = result.merge_ties or {}
    return ext
