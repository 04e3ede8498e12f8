"""PieceIds: a model's piece -> id table (the Unigram, WordPiece and WordLevel vocabs) held
packed: every piece in one str, an offset per piece, and an open-addressing hash table of
slot numbers in an array, rather than a dict with a str and an int object per piece
(issue 32: 100,000 HTML-shaped pieces cost ~130 B each that way).

A read-only Mapping with a dict's meaning: `[]` (KeyError), get, `in`, len, iteration over
the distinct pieces in first-occurrence order, items, == with a dict, pickle; a piece given
twice keeps its later id, as `d[piece] = idx` in order did. `piece(idx)` is the string of
id idx. The hot loops read `filter`/`mask` themselves: `filter[hash(t) & mask]` is 0 for
most strings not in the table, one C-level subscript, before `slot(t, h)` probes.

The table is keyed on Python's hash(), which differs per process for str, so a pickle
carries the packed text, offsets and ids only and the table is built again on load. Nothing
here checks ids or encodes (bpe.formats.hf.models does).
"""
import operator
from array import array
from collections.abc import ItemsView, Mapping
from itertools import accumulate, filterfalse

# ids spread wider than this many slots per piece are looked up through a dict id -> slot
DENSE_SLOTS_PER_PIECE = 2
FILTER_BYTES_PER_PIECE = 4  # at least; a miss passes the filter with odds < 1 / this


def power_of_two(n):
    """The least power of two >= n (8 at least): an open-addressing table's size."""
    return 1 << max(3, (n - 1).bit_length())


class PieceIds(Mapping):
    """str -> id: slot k holds text[offsets[k]:offsets[k + 1]] with id ids[k] (ids None:
    the slot is the id, Unigram's case); table holds slot numbers (-1 empty) at hash & the
    table's mask, linear probing; filter[hash & mask] is 1 where some piece's hash falls."""

    __slots__ = ("text", "offsets", "ids", "table", "filter", "mask", "size", "order",
                 "shadowed", "by_id", "table_mask", "slot", "keep")

    def __init__(self, pieces, ids=None):
        """pieces: the strs in slot order (a list; a piece may repeat, the later slot wins);
        ids: their ids (an iterable of ints), or None when slot k is id k."""
        self.text = "".join(pieces)
        # 4 bytes each: a file's text is far below 4 GB and ids below 2**31 (budgets.MAX_ID
        # is 10,000,000); past that array raises OverflowError rather than wrapping
        self.offsets = array("I", accumulate(map(len, pieces), initial=0))
        self.ids = None if ids is None else array("i", ids)
        if self.ids is not None and len(self.ids) != len(pieces):
            raise ValueError(f"{len(pieces)} pieces but {len(self.ids)} ids")
        self._build()

    @classmethod
    def from_packed(cls, text, offsets, ids=None, keep=None):
        """PieceIds(pieces, ids) of the pieces text[offsets[k]:offsets[k + 1]] (offsets: an
        array("I") from 0), for a builder that packs pieces as they come (a Unigram file's
        slices, issue 32) and for pickle. keep: None, or a bytes-like of one flag per slot;
        a slot flagged 0 is left out, as if absent (no lookup, iteration or piece() gives
        it), so a table of some of a file's pieces shares the text and offsets of all
        (llama.cpp's Unigram matches only some kinds of piece: bpe.sentencepiece_unigram)."""
        out = cls.__new__(cls)
        out.text, out.offsets, out.ids = text, offsets, ids
        out._build(keep)
        return out

    def _build(self, keep=None):
        """The hash table, the filter and the duplicates, from text, offsets and ids."""
        text, offsets = self.text, self.offsets
        n = len(offsets) - 1
        if keep is not None and len(keep) != n:
            raise ValueError(f"{n} pieces but {len(keep)} keep flags")
        size = power_of_two(n + n // 2 + 1)
        table, mask = array("i", [-1]) * size, size - 1
        fsize = power_of_two(FILTER_BYTES_PER_PIECE * n + 1)
        filt, fmask = bytearray(fsize), fsize - 1
        later = []  # slots that repeat an earlier slot's piece (they win; the earlier loses)
        shadowed = []
        left_out = []  # slots keep leaves out
        for k in range(n):
            if keep is not None and not keep[k]:
                left_out.append(k)
                continue
            a, b = offsets[k], offsets[k + 1]
            piece = text[a:b]
            h = hash(piece)
            filt[h & fmask] = 1
            i = h & mask
            while (s := table[i]) >= 0:
                if offsets[s + 1] - offsets[s] == b - a and text.startswith(piece, offsets[s]):
                    table[i] = k
                    later.append(k)
                    shadowed.append(s)
                    break
                i = (i + 1) & mask
            else:
                table[i] = k
        self.table, self.filter, self.mask = table, filt, fmask
        self.table_mask = mask
        self.slot = _prober(table, text, offsets, mask)
        self.size = n - len(later) - len(left_out)
        # iteration: first occurrences only (a dict keeps a key's first place), none left out
        gone = set(later).union(left_out)
        # (filtered in order, not a set of every slot: 250k slots' set was 2 x a t5 file)
        self.order = None if not gone else array("i", filterfalse(gone.__contains__, range(n)))
        self.shadowed = frozenset(shadowed).union(left_out)
        self.keep = keep
        self._index_ids()

    def _index_ids(self):
        ids, n = self.ids, len(self.offsets) - 1
        if ids is None:
            self.by_id = None  # slot k is id k
            return
        top = max(ids, default=-1) + 1
        if top <= DENSE_SLOTS_PER_PIECE * n + 256:
            by_id = array("i", [-1]) * top
            for k, idx in enumerate(ids):
                by_id[idx] = k
            self.by_id = by_id
        else:
            self.by_id = {idx: k for k, idx in enumerate(ids)}

    # -------------------------------------------------------------- the lookups
    def finder(self):
        """find(key) -> the slot of a str key, or -1: slot_of for a loop over many strs (a BPE
        file's load looks up three per merge), the filter and the probe bound in a closure,
        with no method call or attribute read a key (Llama 3's 280k merges: 1.6 s of CPU
        went to slot_of and slot)."""
        probe, filt, fmask = self.slot, self.filter, self.mask

        def find(key):
            h = hash(key)
            return probe(key, h) if filt[h & fmask] else -1
        return find

    def slot_of(self, key):
        """key's slot, or -1 when key is no piece (a dict's meaning for any key)."""
        h = hash(key)  # unhashable: the TypeError a dict gives
        if not isinstance(key, str) or not self.filter[h & self.mask]:
            return -1
        return self.slot(key, h)

    @property
    def n_slots(self):
        """Slots 0 .. n_slots - 1 (a piece given twice has two; the table gives the later)."""
        return len(self.offsets) - 1

    def id_at(self, slot):
        return slot if self.ids is None else self.ids[slot]

    def __getitem__(self, key):
        s = self.slot_of(key)
        if s < 0:
            raise KeyError(key)
        return s if self.ids is None else self.ids[s]

    def get(self, key, default=None):
        s = self.slot_of(key)
        if s < 0:
            return default
        return s if self.ids is None else self.ids[s]

    def __contains__(self, key):
        return self.slot_of(key) >= 0

    def __len__(self):
        return self.size

    def _slots(self):
        return iter(self.order) if self.order is not None else iter(range(len(self.offsets) - 1))

    def __iter__(self):
        text, offsets = self.text, self.offsets
        for k in self._slots():
            yield text[offsets[k]:offsets[k + 1]]

    def items(self):
        return PieceItems(self)

    def piece(self, idx):
        """The string of id idx, or None when no piece has it (or a later duplicate of its
        piece took the piece over, so the table does not give idx)."""
        idx = operator.index(idx)
        by_id = self.by_id
        if by_id is None:
            k = idx if 0 <= idx < len(self.offsets) - 1 else -1
        elif isinstance(by_id, dict):
            k = by_id.get(idx, -1)
        else:
            k = by_id[idx] if 0 <= idx < len(by_id) else -1
        if k < 0 or k in self.shadowed:
            return None
        return self.text[self.offsets[k]:self.offsets[k + 1]]

    def strings(self, ids):
        """[self.piece(idx) for idx in ids] for a list of ints, without a Python call per id
        when every id is a piece's (decode's case)."""
        by_id, n = self.by_id, len(self.offsets) - 1
        if not ids:
            return []
        if min(ids) < 0:  # an array would read a negative index from its end
            return [self.piece(idx) for idx in ids]
        if by_id is None:
            slots = ids if max(ids) < n else None
        else:
            try:
                slots = list(map(by_id.__getitem__, ids))
            except (KeyError, IndexError):
                slots = None
            if slots is not None and isinstance(by_id, array) and min(slots) < 0:
                slots = None
        if slots is None or (self.shadowed and not self.shadowed.isdisjoint(slots)):
            return [self.piece(idx) for idx in ids]
        text, offsets = self.text, self.offsets
        return [text[offsets[k]:offsets[k + 1]] for k in slots]

    def ids_by_slot(self):
        """Every slot's id (shadowed ones too), in slot order."""
        return range(len(self.offsets) - 1) if self.ids is None else self.ids

    def __reduce__(self):
        return (_piece_ids, (self.text, self.offsets, self.ids, self.keep))

    def __repr__(self):
        return f"PieceIds({len(self):,} pieces)"


class PieceItems(ItemsView):
    """(piece, id) in the iteration order, the id the table gives (a later duplicate's)."""

    def __iter__(self):
        table = self._mapping
        text, offsets = table.text, table.offsets
        if table.order is None:
            for k, idx in zip(range(len(offsets) - 1), table.ids_by_slot()):
                yield text[offsets[k]:offsets[k + 1]], idx
            return
        for k in table.order:
            piece = text[offsets[k]:offsets[k + 1]]
            yield piece, table[piece]


def _prober(table, text, offsets, mask):
    """slot(key, h) -> key's slot (h = hash(key)), or -1: the probe after the filter let key
    through, its arrays bound in a closure (the hot loops call it per candidate)."""
    def slot(key, h):
        n, i = len(key), h & mask
        while (s := table[i]) >= 0:
            a = offsets[s]
            if offsets[s + 1] - a == n and text.startswith(key, a):
                return s
            i = (i + 1) & mask
        return -1
    return slot


def _piece_ids(text, offsets, ids, keep=None):
    """A PieceIds again from its packed parts (for pickle): the table is built anew, as
    this process hashes strs its own way."""
    return PieceIds.from_packed(text, offsets, ids, keep)
