"""RanksVocab: a ranks tokenizer's vocab (id -> bytes) read through its ranks (bytes -> id),
with no dict of its own (issue 32: the inverted dict was 3.1 x a visitor's .tiktoken file).

The ranks dict stays the one owner of every token's bytes and id objects; the vocab adds a
list indexed by id (None where no token has the id) holding references to those same bytes,
8 bytes a slot, plus the special tokens (a small dict id -> bytes). It is a read-only Mapping
that reads as the dict `{rank: token for token, rank in ranks.items()} | specials` did:
iteration in the ranks' order then the specials', the ranks' own int objects as keys,
`[]`, get, `in`, len, keys/values/items (items reversible), ==, pickle and copy (as its
ranks and specials: the list is rebuilt, not written). `tokens_bytes(ids)` is decode's bulk
lookup, one C call for a whole list of ids.

Ids are bounded (budgets.MAX_ID, 10,000,000), but a hostile file may spread a few tokens up
to it, where a list by id would be 80 MB: the list covers ids below SLOTS_PER_TOKEN slots a
token (real ranks files are 0..n-1, a few gaps at most), and the ids past it are kept sorted
in an array beside their tokens, found by bisection (16 bytes a token, looked up one at a
time). Integers only, as bpe's other vocabs: `vocab[1.0]` is a KeyError, as a negative id is.
"""
import operator
from array import array
from bisect import bisect_left
from collections import deque
from collections.abc import ItemsView, Mapping, ValuesView
from itertools import chain

from .formats.ranks import short_repr

# the list by id holds at most this many slots a token (plus the 256 bytes' worth): cl100k's
# ranks and GPT-4's specials fill 100,261 of 100,277 slots; ids past it are kept sorted
SLOTS_PER_TOKEN = 2


class RanksVocab(Mapping):
    """id -> bytes: ranks inverted, then specials (id -> bytes, ids no rank has)."""

    __slots__ = ("ranks", "specials", "_table", "_top", "_holes", "_first_gap", "_far_ids",
                 "_far_tokens")

    def __init__(self, ranks, specials=None, like=None):
        """like: an earlier RanksVocab of the same ranks (a tokenizer's vocab before its
        special tokens changed), whose slots of the ranks are copied, not laid out again."""
        self.ranks = ranks
        self.specials = dict(specials or {})
        if isinstance(like, RanksVocab) and like.ranks is ranks and not like._far_ids:
            table = like._table[:like._top]  # one C copy of the references
            for idx in like.specials:
                if idx < like._top:
                    table[idx] = None
            far, self._holes = [], like._holes
        else:
            table, self._holes, far = _lay_out(ranks)
        self._top = top = len(table)  # table[:top] is the ranks' (specials may fill holes)
        holes, limit = self._holes, SLOTS_PER_TOKEN * len(self) + 256
        for idx, token in self.specials.items():
            if idx >= limit:
                far.append((idx, token))
                continue
            if idx >= len(table):
                table += [None] * (idx + 1 - len(table))
            elif table[idx] is not None:
                raise ValueError(f"special token {short_repr(token)} has id {idx}, which is "
                                 f"already {short_repr(table[idx])}'s; give it an id no token "
                                 "has")
            table[idx] = token
            holes -= idx < top
        far.sort(key=operator.itemgetter(0))
        far_ids = array("q", [idx for idx, _ in far])
        if any(map(operator.eq, far_ids, far_ids[1:])):
            raise ValueError("two tokens have the same id; give every token its own id, as "
                             "tiktoken requires")
        self._table, self._far_ids = table, far_ids
        self._far_tokens = [token for _, token in far]
        # subtle: ids below the first empty slot need no None check after a bulk lookup
        self._first_gap = len(table) if None not in table[top:] and not holes else \
            table.index(None, 0 if holes else top)

    def __getitem__(self, idx):
        try:
            if idx >= 0:
                token = self._table[idx]
                if token is not None:
                    return token
        except (TypeError, IndexError):
            pass  # not an integer, or past the table
        return self._far(idx)

    def _far(self, idx):
        """The token of an id past the table; KeyError for any other key."""
        try:
            idx = operator.index(idx)
        except TypeError:
            raise KeyError(idx) from None
        k = bisect_left(self._far_ids, idx)
        if k < len(self._far_ids) and self._far_ids[k] == idx:
            return self._far_tokens[k]
        raise KeyError(idx)

    def __contains__(self, idx):
        try:
            self[idx]
        except KeyError:
            return False
        return True

    def __len__(self):
        return len(self.ranks) + len(self.specials)

    def __iter__(self):
        # the ranks' own int objects, at C speed (max(vocab) is n_vocab)
        return chain(self.ranks.values(), self.specials)

    def values(self):
        return RanksValues(self)

    def items(self):
        return RanksItems(self)

    def __eq__(self, other):
        if isinstance(other, RanksVocab) and other.ranks is self.ranks:
            return self.specials == other.specials
        return super().__eq__(other)

    __hash__ = None  # unhashable, as a dict

    def __reduce__(self):
        return RanksVocab, (self.ranks, self.specials)

    def __repr__(self):
        return f"RanksVocab({len(self):,} tokens)"

    def tokens_bytes(self, ids):
        """[self[idx] for idx in ids] for a list of ids, in C; None when some id is not an
        integer in the table (a hostile file's far id, a missing id, a float...), for the
        caller's careful way."""
        if not ids:
            return []
        table = self._table
        try:
            if min(ids) < 0:
                return None
            tokens = list(map(table.__getitem__, ids))
        except (TypeError, IndexError):
            return None
        if self._first_gap < len(table) and max(ids) >= self._first_gap and None in tokens:
            return None
        return tokens


def _lay_out(ranks):
    """(table, holes, far) for ranks: table[idx] is the token of rank idx (None in the
    table's holes) for the ranks below SLOTS_PER_TOKEN slots a rank, far the (rank, token)
    pairs past it."""
    if all(map(operator.eq, ranks.values(), range(len(ranks)))):
        return list(ranks), 0, []  # ranks 0..n-1 in order (every real file): keys in order
    if min(ranks.values()) < 0:
        raise ValueError("ranks must be non-negative ids, as tiktoken's are")
    top = max(ranks.values()) + 1
    table = [None] * min(top, SLOTS_PER_TOKEN * len(ranks) + 256)
    far = []
    if top <= len(table):  # filled in C, nothing made per rank
        deque(map(table.__setitem__, ranks.values(), ranks.keys()), maxlen=0)
    else:  # a hostile spread of ids
        for token, idx in ranks.items():
            if idx < len(table):
                table[idx] = token
            else:
                far.append((idx, token))
    holes = table.count(None)
    if len(table) - holes + len(far) != len(ranks):  # two ranks in one slot
        raise ValueError("two tokens have the same rank; give every token its own rank, as "
                         "tiktoken requires")
    return table, holes, far


class RanksValues(ValuesView):
    """The tokens in the vocab's order, the ranks' own bytes objects, at C speed."""

    def __iter__(self):
        vocab = self._mapping
        return chain(vocab.ranks.keys(), vocab.specials.values())


class RanksItems(ItemsView):
    """(id, token) in the vocab's order at C speed, reversible as a dict's items are."""

    def __iter__(self):
        vocab = self._mapping
        return chain(zip(vocab.ranks.values(), vocab.ranks.keys()), vocab.specials.items())

    def __reversed__(self):
        vocab = self._mapping
        ranks = vocab.ranks
        return chain(reversed(vocab.specials.items()),
                     zip(reversed(ranks.values()), reversed(ranks.keys())))
