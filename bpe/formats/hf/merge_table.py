"""MergeTable: a BPE model's merges, (left id, right id) -> the merge's number k, held
packed: the merges' parts in two arrays (left[k], right[k]) and an open-addressing hash table
of merge numbers in a third, rather than a dict with a tuple key and two or three int objects
per merge (issue 32: ~135-160 B a merge, five times a compact file's line for it, so a
visitor's BPE tokenizer.json cost eleven times its size). Here it is 8 B for the parts and
8-16 B of table a merge.

A pair written twice keeps its later merge and its first place, as a dict assigned in merge
order does: the earlier merge stays in the arrays and is never found, and `repeats` names
the later ones (not a pair's first place, when the pairs are listed). A merge whose left
part is -1 is not in the table (it can never apply: its parts are never made).

`finder(offset, missing)` makes the hot loops' lookup, `find(a, b)`: offset + k for the pair's
merge, else missing, in one Python call (a probe of a few array reads), about twice a dict's
get on a tuple. What a merge makes and how it ranks are the models' (bpe.formats.hf.models,
bytelevel); nothing here encodes.
"""
from array import array

from .piece_ids import power_of_two

MIX = 0x9E3779B1  # Fibonacci hashing's multiplier: spreads consecutive ids over the table


class MergeTable:
    """left[k], right[k]: merge k's parts (array("i")); table: merge numbers (-1 empty) at
    (left * MIX + right) & mask, linear probing."""

    __slots__ = ("left", "right", "table", "mask", "repeats", "size")

    def __init__(self, left, right):
        """left, right: array("i") of the merges' parts in merge order (left -1: left out)."""
        if len(left) != len(right):
            raise ValueError(f"{len(left)} left parts but {len(right)} right parts")
        self.left, self.right = left, right
        n = len(left)
        size = power_of_two(2 * n + 1)  # at most half full: a miss ends at an empty slot soon
        table, mask = array("i", [-1]) * size, size - 1
        repeats = []
        for k in range(n):
            a = left[k]
            if a < 0:
                continue
            b = right[k]
            i = (a * MIX + b) & mask
            while (s := table[i]) >= 0:
                if left[s] == a and right[s] == b:
                    table[i] = k  # a later merge of the same pair wins
                    repeats.append(k)
                    break
                i = (i + 1) & mask
            else:
                table[i] = k
        self.table, self.mask = table, mask
        self.repeats = frozenset(repeats)
        self.size = sum(1 for a in left if a >= 0) - len(repeats)

    def finder(self, offset=0, missing=-1):
        """find(a, b) -> offset + k of the merge of the pair (a, b), else missing: the hot
        loops' lookup, its arrays bound in a closure (no attribute read per call)."""
        table, left, right, mask = self.table, self.left, self.right, self.mask

        def find(a, b):
            i = (a * MIX + b) & mask
            while (s := table[i]) >= 0:
                if left[s] == a and right[s] == b:
                    return offset + s
                i = (i + 1) & mask
            return missing
        return find

    def rank_of(self, canonical=None):
        """apply_merges' rank_of over codes: 256 + k for the pair's merge k, else None; each
        part read through canonical (code -> the first code with the same bytes) when two
        merges make the same bytes (a byte-level vocab that writes a token twice)."""
        find = self.finder(256, None)
        if canonical is None:
            return find
        return lambda a, b: find(canonical[a], canonical[b])

    def __len__(self):
        """The pairs that merge (a pair written twice counts once)."""
        return self.size

    def pairs(self):
        """((left, right), k) of each pair that merges, in the order a dict assigned in merge
        order iterates: the pair's first place, its last merge."""
        ks, lefts, rights = self.columns()
        yield from zip(zip(lefts, rights), ks)

    def columns(self):
        """pairs() as three arrays ("i"): each pair's merge number, its left and its right
        parts, without a tuple per merge (a view of 100,000 merges reads these)."""
        left, right, repeats = self.left, self.right, self.repeats
        keep = [k for k in range(len(left)) if left[k] >= 0 and k not in repeats]
        lefts = array("i", [left[k] for k in keep])
        rights = array("i", [right[k] for k in keep])
        if repeats:  # a repeated pair's place is its first merge's, its number its last's
            find = self.finder()
            ks = array("i", [find(a, b) for a, b in zip(lefts, rights)])
        else:
            ks = array("i", keep)
        return ks, lefts, rights

    def probes(self):
        """The mean slots read to find each merge (1.0: none collides); for tests and
        benchmarks of the mix."""
        left, right, mask = self.left, self.right, self.mask
        reads, found = 0, 0
        for i, k in enumerate(self.table):
            if k >= 0:  # k's probe starts at its home slot and reads up to slot i
                reads += ((i - (left[k] * MIX + right[k])) & mask) + 1
                found += 1
        return reads / found if found else 1.0

    def __eq__(self, other):
        if not isinstance(other, MergeTable):
            return NotImplemented
        return self.left == other.left and self.right == other.right

    __hash__ = None  # mutable arrays inside, as a dict's merges

    def __reduce__(self):
        return (MergeTable, (self.left, self.right))

    def __repr__(self):
        return f"MergeTable({len(self):,} merges)"


class LookupCache:
    """Mixed into an encoder whose hot loop looks pairs up in a MergeTable: `_lookup()` is
    that closure, made by the encoder's `_make_lookup()` on first use and never pickled (a
    closure cannot be; a loaded or copied encoder makes it again)."""

    def _lookup(self):
        lookup = self.__dict__.get("_lookup_fn")
        if lookup is None:
            lookup = self._lookup_fn = self._make_lookup()
        return lookup

    def __getstate__(self):
        state = dict(self.__dict__)
        state.pop("_lookup_fn", None)
        return state
