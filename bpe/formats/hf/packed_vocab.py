"""PackedVocab: a tokenizer.json's vocab (id -> bytes) held as one bytes buffer and an offset
per id, rather than a dict of one bytes object per piece (issue 32: a visitor's 100,000
pieces of 36 bytes cost ~95 B each that way, a dict entry and a bytes object; here 36 + 8 B
for the bytes and their offset, 1 B for whether the id is a piece).

A read-only Mapping with what a dict vocab gives its readers (`[]`, get, `in`, len,
iteration in the order given, keys/items/values, reversed items, ==, pickle); the special
tokens ride on top in a small dict. `tokens_bytes(ids)` and `missing(ids)` are the bulk
lookups decode uses (no Python call per id). It computes no bytes (bpe.hf_tokenizer says
what a piece's bytes are) and is never changed in place: a tokenizer makes a new one when
its special tokens change, sharing the buffer (PackedPieces).
"""
import operator
from array import array
from collections.abc import ItemsView, Mapping
from itertools import accumulate, compress, islice

# ids spread wider than this many slots per piece (a file may give ids up to 10,000,000 to
# a few pieces) are looked up through a dict id -> slot instead of by position
DENSE_SLOTS_PER_PIECE = 2
BATCH = 4096  # pieces packed at a time


class PackedPieces:
    """The model's pieces' bytes, packed once per model: data[offsets[k]:offsets[k + 1]]
    is slot k's bytes; a slot is the id itself (dense ids, `present` marks which are
    pieces) or slots[id] (sparse ids)."""

    __slots__ = ("data", "offsets", "present", "slots", "ids")

    def __init__(self, pieces):
        """pieces: (id, bytes) pairs in the order the vocab iterates, ids distinct; read
        once, as they come (no bytes object per piece is kept, not even while packing)."""
        ids, ends, buf = array("l"), array("q", [0]), bytearray()
        pieces = iter(pieces)
        while batch := list(islice(pieces, BATCH)):  # a few thousand bytes objects at once
            ids.extend([idx for idx, _ in batch])
            tokens = [token for _, token in batch]
            ends.extend(accumulate(map(len, tokens), initial=ends[-1]))
            ends.pop(len(ends) - len(tokens) - 1)  # accumulate repeats its initial value
            buf += b"".join(tokens)
        self.data = bytes(buf)
        del buf
        top = max(ids, default=-1) + 1
        if top == len(ids) and all(map(operator.lt, ids, ids[1:])):
            # ids 0, 1, 2, ... in order (every Unigram file without added tokens): a slot
            # is the id, and the offsets are as packed
            self.slots, self.ids, self.offsets = None, None, ends
            self.present = b"\1" * top
        elif top <= DENSE_SLOTS_PER_PIECE * len(ids) + 256 and all(
                map(operator.lt, ids, ids[1:])):
            # dense and in id order (most files): a slot is the id, an id no piece has an
            # empty slot
            self.slots, self.ids = None, None
            present, offsets = bytearray(top), array("q", [0]) * (top + 1)
            for k, idx in enumerate(ids):
                present[idx] = 1
                offsets[idx + 1] = ends[k + 1]
            for idx in range(top):  # an empty slot ends where the slot before it does
                if not present[idx]:
                    offsets[idx + 1] = offsets[idx]
            self.present, self.offsets = bytes(present), offsets
        else:
            # subtle: the iteration order must stay the file's (a dict's), so the ids are
            # kept in that order; the first of two equal tokens wins encode_single_token
            self.slots = {idx: k for k, idx in enumerate(ids)}
            self.ids, self.present, self.offsets = ids, None, ends

    @classmethod
    def from_parts(cls, data, offsets, present, ids):
        """Pieces from their parts as a PackedPieces keeps them (pickle; a maker that packs its
        own buffer, bpe.base.merged_pieces): ids None for the dense layout (present marks the
        ids that are pieces), else the ids in order with offsets as packed."""
        pieces = cls.__new__(cls)
        pieces.data, pieces.offsets, pieces.present, pieces.ids = data, offsets, present, ids
        pieces.slots = None if ids is None else {idx: k for k, idx in enumerate(ids)}
        return pieces

    def __len__(self):
        return len(self.ids) if self.ids is not None else sum(self.present)

    def iter_ids(self):
        if self.ids is not None:
            return iter(self.ids)
        return compress(range(len(self.present)), self.present)

    def slot(self, idx):
        """idx's slot, or None when it is not a piece."""
        if self.slots is not None:
            return self.slots.get(idx)
        return idx if 0 <= idx < len(self.present) and self.present[idx] else None


class PackedVocab(Mapping):
    """id -> bytes: the pieces' (PackedPieces) and then the special tokens' (a dict)."""

    __slots__ = ("pieces", "specials", "_size")

    def __init__(self, pieces, specials=None):
        self.pieces = pieces
        self.specials = dict(specials or {})  # id -> bytes, ids no piece has
        self._size = None

    def __getitem__(self, idx):
        token = self.specials.get(idx)
        if token is not None:
            return token
        try:
            idx = operator.index(idx)  # a numpy integer too, as a dict's lookup takes it
        except TypeError:
            raise KeyError(idx) from None
        k = self.pieces.slot(idx)
        if k is None:
            raise KeyError(idx)
        offsets = self.pieces.offsets
        return self.pieces.data[offsets[k]:offsets[k + 1]]

    def __contains__(self, idx):
        if idx in self.specials:
            return True
        try:
            idx = operator.index(idx)
        except TypeError:
            return False
        return self.pieces.slot(idx) is not None

    def __len__(self):
        if self._size is None:
            self._size = len(self.pieces) + len(self.specials)
        return self._size

    def __iter__(self):
        yield from self.pieces.iter_ids()
        yield from self.specials

    def items(self):
        return PackedItems(self)

    def __reduce__(self):
        return (_packed_vocab, (self.pieces.data, self.pieces.offsets, self.pieces.present,
                                self.pieces.ids, self.specials))

    def __repr__(self):
        return f"PackedVocab({len(self):,} tokens)"

    def tokens_bytes(self, ids):
        """[self[idx] for idx in ids] for a list of ints, without a Python call per id;
        None when some id is not a piece's (a special token's, or none), for the caller's
        own per-id way."""
        pieces, specials = self.pieces, self.specials
        if specials and not specials.keys().isdisjoint(ids):
            return None
        if pieces.slots is not None:
            try:
                ids = list(map(pieces.slots.__getitem__, ids))
            except KeyError:
                return None
        elif self.missing(ids):
            return None
        data, offsets = pieces.data, pieces.offsets
        return [data[offsets[k]:offsets[k + 1]] for k in ids]

    def missing(self, ids):
        """The ids among ids (ints) this vocab has not, as a set: empty when it has them
        all, found without a Python call per id when so."""
        pieces, specials = self.pieces, self.specials
        if pieces.slots is None and (not specials or specials.keys().isdisjoint(ids)):
            present = pieces.present  # the common case: only pieces' ids, checked in place
            # subtle: a vocab with no gap (every minbpe-style one) needs only the range
            # checked; `b"\0" in present` is one memchr, the per-id read a third of decode
            if not ids or (min(ids) >= 0 and max(ids) < len(present)
                           and (b"\0" not in present or all(map(present.__getitem__, ids)))):
                return set()
        rest = set(ids).difference(specials)
        if pieces.slots is not None:
            return rest.difference(pieces.slots)
        return {idx for idx in rest if pieces.slot(idx) is None}


class PackedItems(ItemsView):
    """A PackedVocab's items, reversible as a dict's are (encode_single_token reads them
    last to first, so the first of two equal tokens wins)."""

    def __reversed__(self):
        vocab = self._mapping
        for idx in reversed(list(vocab)):
            yield idx, vocab[idx]


def _packed_vocab(data, offsets, present, ids, specials):
    """A PackedVocab again from its parts (for pickle)."""
    return PackedVocab(PackedPieces.from_parts(data, offsets, present, ids), specials)
