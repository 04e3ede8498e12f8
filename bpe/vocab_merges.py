"""A tokenizer from a vocabulary and an ordered merge list, in any id layout (CS336's shape).

`from_vocab_merges(vocab, merges)` takes `vocab: dict[int, bytes]` and `merges:
list[tuple[bytes, bytes]]` in the order they were learned, as Stanford CS336's assignment 1
and GPT-2's release files (bpe.formats.gpt2) hold them. The ids are whatever the vocab
says: byte tokens need not be 0-255 and a merge's result need not have the next id.
Encoding is the merge rule of Hugging Face `tokenizers` and GPT-2's own code: within each
chunk of the split pattern, start from the single bytes and merge the adjacent pair that
comes earliest in the merge list, leftmost first, until no listed pair is left.

Inside, every merge k gets the code 256 + k and byte b the code b (minbpe's layout), so
bpe.encode.apply_merges does the work; `_ids` maps codes back to the vocab's ids. Two merges
that make the same bytes share one token, as they do in `tokenizers`. This file reads no
file (bpe.formats.gpt2 does) and does not train.

>>> vocab = {i: bytes([i]) for i in range(256)} | {300: b"ab", 299: b"abc"}
>>> tok = from_vocab_merges(vocab, [(b"a", b"b"), (b"ab", b"c")], special_tokens=["<|end|>"])
>>> tok.encode("abcab<|end|>", allowed_special="all")
[299, 300, 301]
"""
from collections.abc import Mapping

from . import budgets
from .encode import apply_merges
from .pretrained import Pretrained
from .regex import RegexTokenizer


def from_vocab_merges(vocab, merges, *, special_tokens=(), pattern="gpt2", name="vocab+merges"):
    """An exact tokenizer over vocab (id -> bytes) and merges (pairs of bytes, in merge order).

    special_tokens: strings; one already in vocab keeps its id there, the others get the
    ids after the largest one, in order. pattern: the split pattern (a preset name or a
    regex; GPT-2's by default, as CS336 uses). ValueError saying what to fix when a byte
    has no token, a merge uses or makes bytes the vocab lacks, or a pair is listed twice.
    """
    return VocabMergesTokenizer(vocab, merges, special_tokens=special_tokens, pattern=pattern,
                                name=name)


class VocabMergesTokenizer(Pretrained, RegexTokenizer):
    """BPE by merge order over a vocab in any id layout; see the module's docstring."""

    made_from = "a vocab and merges"
    cannot_save = "that format's ids are 0-255, then one per merge, and these need not be"

    def __init__(self, vocab, merges, *, special_tokens=(), pattern="gpt2", name="vocab+merges"):
        self.name = name
        vocab, specials = _checked_vocab(vocab, special_tokens)
        self._pairs, self._ids, self._canon, merge_ids = _compile(vocab, merges, specials)
        self._vocab_in = vocab
        self._merge_ids = merge_ids
        super().__init__(pattern)
        self.register_special_tokens(specials)

    @property
    def merges(self):
        """(id, id) -> id in the vocab's ids, in merge order (for views; encode uses codes)."""
        return self._merge_ids

    @merges.setter
    def merges(self, value):
        if value:
            raise ValueError(f"{self.name}'s merges come from its merge list and cannot be set")

    def _build_vocab(self):
        vocab = dict(getattr(self, "_vocab_in", {}))
        for special, idx in self.special_tokens.items():
            vocab[idx] = special.encode("utf-8")
        return vocab

    def _encode_chunk(self, text_bytes):
        pairs, canon, ids = self._pairs, self._canon, self._ids
        codes = apply_merges(list(text_bytes),
                             lambda a, b: pairs.get((canon[a], canon[b])))
        return [ids[code] for code in codes]


def _checked_vocab(vocab, special_tokens):
    """(ordinary vocab id -> bytes, specials str -> id), within the budgets."""
    # any mapping: a tokenizer.json's vocab is a read-only PackedVocab (issue 32), and the
    # ordinary ids below are copied into a dict of this tokenizer's own either way
    if not isinstance(vocab, Mapping):
        raise TypeError("vocab must be a dict[int, bytes], e.g. {0: b'\\x00', ..., 256: b'th'}")
    if isinstance(special_tokens, str):
        raise TypeError("special_tokens must be a list of str, e.g. ['<|endoftext|>'], "
                        "not one str")
    total = 0
    seen = {}
    for idx, token in vocab.items():
        budgets.check_id(idx, f"vocab id {idx!r}")
        if not isinstance(token, (bytes, bytearray)):
            raise TypeError(f"vocab[{idx}] must be bytes, not {type(token).__name__}")
        token = bytes(token)
        total += len(token)
        seen.setdefault(token, idx)  # a token listed twice: the first id, as a dict lookup
    if total > budgets.MAX_VOCAB_BYTES:
        raise ValueError(f"the vocab holds {total:,} bytes of tokens; the limit is "
                         f"{budgets.MAX_VOCAB_BYTES >> 20} MB (it keeps one file from exhausting "
                         "the server's memory)")
    by_text = {}
    after = max(vocab, default=-1) + 1
    for special in special_tokens:
        if not isinstance(special, str) or not special:
            raise ValueError(f"special token {special!r} must be a non-empty str")
        if special in by_text:
            continue
        idx = seen.get(special.encode("utf-8"))
        if idx is None:
            idx, after = after, after + 1
        by_text[special] = idx
    special_ids = set(by_text.values())
    ordinary = {idx: bytes(token) for idx, token in vocab.items() if idx not in special_ids}
    return ordinary, by_text


def _compile(vocab, merges, specials):
    """(pair table, code -> id, code -> canonical code, merges in ids) for the encoder."""
    token_id = {}
    for idx, token in vocab.items():
        token_id.setdefault(token, idx)
    missing = [b for b in range(256) if bytes([b]) not in token_id]
    if missing:
        raise ValueError(f"the vocab has no token for byte {missing[0]} ({len(missing)} bytes "
                         "in all); a byte-level BPE needs all 256 single bytes")
    merges = list(merges)
    for k, merge in enumerate(merges):
        if (not isinstance(merge, (tuple, list)) or len(merge) != 2
                or not all(isinstance(part, (bytes, bytearray)) for part in merge)):
            raise TypeError(f"merges must be a list of (bytes, bytes) pairs, in merge order; "
                            f"merge {k} is {merge!r:.60}")
    merges = [(bytes(a), bytes(b)) for a, b in merges]
    if len(merges) > budgets.MAX_ID:
        raise ValueError(f"{len(merges):,} merges is more than the {budgets.MAX_ID:,} ids allowed")
    # code of each token's bytes: a byte is its value; a merge result the first merge making it
    code_of = {bytes([b]): b for b in range(256)}
    codes_bytes = [bytes([b]) for b in range(256)]
    for k, (a, b) in enumerate(merges):
        for part in (a, b, a + b):
            if part not in token_id:
                raise ValueError(f"merge {k} ({a!r:.40}, {b!r:.40}) uses or makes {part!r:.60}, "
                                 "which is not in the vocab; every merge's parts and result "
                                 "must be tokens")
        code_of.setdefault(a + b, 256 + k)
        codes_bytes.append(a + b)
    canon = [code_of[token] for token in codes_bytes]
    ids = [token_id[token] for token in codes_bytes]
    pairs, merge_ids = {}, {}
    for k, (a, b) in enumerate(merges):
        if a not in code_of or b not in code_of:
            continue  # a part no merge makes can never be formed, so this merge never fires
        pair = (code_of[a], code_of[b])
        if pair in pairs:
            raise ValueError(f"merge {k} ({a!r:.40}, {b!r:.40}) is listed twice (first as merge "
                             f"{pairs[pair] - 256}); keep one")
        pairs[pair] = 256 + k
        merge_ids.setdefault((token_id[a], token_id[b]), token_id[a + b])
    return pairs, ids, canon, merge_ids
