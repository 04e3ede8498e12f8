"""minbpe's `.model` and `.vocab` files: the one home of that format.

A .model file is, line by line: "minbpe v1", the split pattern ("" for none), the number
of special tokens, one "<special> <id>" line each, then one "<id> <id>" merge per line,
the merge on line k making id 256 + k. The .vocab file is for people only and is never
read back. This module writes and parses the text; Tokenizer.save/load and bpe.load call
it. It imports nothing else from bpe but bpe.budgets (whose budgets bound ids, tokens and
the whole vocabulary, so a chained file is refused before it is built) and the packed
MergeTable, so the Tokenizer base can use it.

`PackedMerges` is every minbpe-style tokenizer's `merges` (trained or loaded), held as the
file lays them out: merge k makes id 256 + k from left[k] and right[k] (issue 32: a dict
of tuples cost ~180 B a merge, twenty times the file's ~9 B line).

Special tokens must hold no whitespace: minbpe's reader splits each special-token line
on whitespace (so " <|pad|>" or "a b" could not be read back by minbpe), and a line
break would end the line. `check_model_specials` refuses them before a file is written,
so what is saved always loads back exactly, in minbpe and here.

>>> text = model_text("", {"<|x|>": 300}, {(97, 98): 256})
>>> text
'minbpe v1\\n\\n1\\n<|x|> 300\\n97 98\\n'
>>> parse_model(text)
('', {'<|x|>': 300}, {(97, 98): 256})
"""
import operator
import unicodedata
from array import array
from collections.abc import ItemsView, Mapping, ValuesView
from itertools import chain, count

from .. import budgets
from .hf.merge_table import MergeTable

MODEL_VERSION = "minbpe v1"  # the first line of a .model file, as minbpe writes it
BLOCK_LINES = 1024  # merge lines parsed at a time: no list of every line is ever alive
READ_ONLY = ("a tokenizer's merges are read-only (held packed: issue 32); to change them, "
             "assign a new dict: merges = dict(tok.merges); merges[pair] = idx; "
             "tok.merges = merges")
BLOCK_CHARS = 1 << 13  # the text split into lines a block of about this many characters at a time


def render_token(token: bytes) -> str:
    """Bytes as readable text: invalid UTF-8 replaced, control characters escaped.

    >>> render_token(b"hi\\n\\xff")
    'hi\\\\u000a\\ufffd'
    """
    text = token.decode("utf-8", errors="replace")
    return "".join(ch if unicodedata.category(ch)[0] != "C" else f"\\u{ord(ch):04x}"
                   for ch in text)


def check_model_specials(special_tokens):
    """ValueError unless every special token can be written to a .model file and read back
    exactly (by minbpe too): no whitespace in it.

    >>> check_model_specials({" <|pad|>": 300})
    Traceback (most recent call last):
    ValueError: special token ' <|pad|>' contains whitespace, which the .model format cannot hold (minbpe's reader splits each special-token line on whitespace); rename it, or save as tokenizer.json or tiktoken ranks instead
    """
    for special in special_tokens:
        if any(ch.isspace() for ch in special):
            raise ValueError(f"special token {special!r} contains whitespace, which the .model "
                             "format cannot hold (minbpe's reader splits each special-token "
                             "line on whitespace); rename it, or save as tokenizer.json or "
                             "tiktoken ranks instead")


def model_text(pattern, special_tokens, merges):
    """The contents of a .model file: version, pattern, special tokens, merges (in id order)."""
    if "\n" in pattern or "\r" in pattern:
        raise ValueError("the split pattern contains a line break, which the .model "
                         "format cannot hold; write it as \\n or \\r inside the regex")
    check_model_specials(special_tokens)
    lines = [MODEL_VERSION, pattern, str(len(special_tokens))]
    lines += [f"{special} {idx}" for special, idx in special_tokens.items()]
    lines += [f"{p0} {p1}" for p0, p1 in PackedMerges.of(merges)]
    return "\n".join(lines) + "\n"


def vocab_text(vocab, merges):
    """The contents of the .vocab file: every token, how it was made, for people.

    >>> print(vocab_text({97: b"a", 98: b"b", 256: b"ab"}, {(97, 98): 256}), end="")
    [a] 97
    [b] 98
    [a][b] -> [ab] 256
    """
    parents = {idx: pair for pair, idx in merges.items()}
    lines = []
    for idx, token in vocab.items():
        s = render_token(token)
        if idx in parents:
            p0, p1 = parents[idx]
            lines.append(f"[{render_token(vocab[p0])}][{render_token(vocab[p1])}]"
                         f" -> [{s}] {idx}")
        else:
            lines.append(f"[{s}] {idx}")
    return "\n".join(lines) + "\n"


def parse_model(text, source="model"):
    """The contents of a .model file -> (pattern, special_tokens, merges: a PackedMerges).
    ValueError naming the line if malformed. The pattern is not compiled here. Read a
    block of lines at a time (issue 32: never a list of every line, nor a dict of merges).

    >>> parse_model("minbpe v1\\n\\n0\\n97 300\\n", source="m.model")
    Traceback (most recent call last):
    ValueError: m.model line 4: merge (97, 300) uses id 300, which is not defined before id 256
    """
    lines = chain.from_iterable(_line_blocks(text))
    header = [line for _, line in zip(range(3), lines)]
    if not header or header[0].strip() != MODEL_VERSION:
        found = header[0][:40] if header else "an empty file"
        raise ValueError(f"{source} line 1: expected {MODEL_VERSION!r}, found {found!r}; "
                         "is this a .model file written by save() or minbpe?")
    if len(header) < 3:
        raise ValueError(f"{source} line {len(header) + 1}: the file ends before the "
                         "pattern and special-token count")
    pattern = header[1].rstrip("\r")
    count_line = header[2]
    n_special = count_line.strip()
    if not n_special.isascii() or not n_special.isdigit():
        raise ValueError(f"{source} line 3: expected the number of special tokens, "
                         f"found {count_line[:40]!r}")
    num_special = budgets.parse_id(n_special, f"{source} line 3 (the number of special "
                                   "tokens)", limit=budgets.MAX_SPECIAL_TOKENS)
    special_tokens = {}
    for lineno in range(4, 4 + num_special):
        line = next(lines, None)
        if line is None:
            raise ValueError(f"{source} line {lineno}: the file ends inside the "
                             f"{num_special} special tokens it announces")
        # subtle: split as minbpe does (on whitespace), so a file reads the same in both
        parts = line.split()
        # subtle: str.isdigit() takes other scripts' digits too; parse_id says ASCII only
        if len(parts) != 2 or not parts[1].isdigit():
            raise ValueError(f"{source} line {lineno}: expected '<special text> <id>' (the "
                             f"special text without spaces), found {line[:40]!r}")
        if parts[0] in special_tokens:
            raise ValueError(f"{source} line {lineno}: special token {parts[0]!r} appears twice")
        special_tokens[parts[0]] = budgets.parse_id(parts[1], f"{source} line {lineno}")
    merges = _parse_merges(lines, 4 + num_special, source)
    budgets.check_special_ids(special_tokens, range(256 + len(merges)),
                              f"{source} special tokens")
    return pattern, special_tokens, merges


def _line_blocks(text):
    """text.split("\\n") without its last "" (a file's final line break), as lists of
    the lines of about BLOCK_CHARS characters at a time."""
    pos, end = 0, len(text)
    while pos < end:
        cut = text.find("\n", pos + BLOCK_CHARS)
        if cut < 0:
            block = text[pos:].split("\n")
            if block[-1] == "":
                block.pop()
            pos = end
        else:
            block = text[pos:cut].split("\n")
            pos = cut + 1
        yield block


def _parse_merges(lines, first_lineno, source):
    """The merge lines (an iterator of str, the first on line first_lineno) as a
    PackedMerges, checked as they come: two ASCII ids a line, each defined before the id
    the line makes, the vocabulary's bytes within budget (counted from the tokens'
    lengths, so a chained file is refused before a token is built), no pair twice."""
    left, right = array("i"), array("i")
    lengths = array("i", [1]) * 256  # idx -> its token's length in bytes (< MAX_VOCAB_BYTES)
    total = 256
    while batch := [line for _, line in zip(range(BLOCK_LINES), lines)]:
        done = len(left)
        fast = _batch_pairs(batch, 256 + done)
        if fast is not None:
            before = total
            for a, b in zip(*fast):
                n_bytes = lengths[a] + lengths[b]
                total += n_bytes
                if total > budgets.MAX_VOCAB_BYTES:
                    break  # the careful way names the line
                lengths.append(n_bytes)
            else:
                left.extend(fast[0])
                right.extend(fast[1])
                continue
            total = before
            del lengths[256 + done:]
        # the careful way, line by line: it names the first line that is wrong
        for k, line in enumerate(batch):
            lineno, idx = first_lineno + done + k, 256 + done + k
            where = f"{source} line {lineno}"
            parts = line.split()
            if len(parts) != 2 or not all(p.isdigit() for p in parts):
                raise _repeat_error(left, right, first_lineno, source) or ValueError(
                    f"{where}: expected a merge '<id> <id>', found {line[:40]!r}")
            try:  # the common case a plain int(); parse_id says why anything else fails
                p0, p1 = (int(p) if p.isascii() and len(p) <= 7 else budgets.parse_id(p, where)
                          for p in parts)
            except ValueError as e:
                raise _repeat_error(left, right, first_lineno, source) or e from None
            for p in (p0, p1):
                if p >= idx:
                    raise _repeat_error(left, right, first_lineno, source) or ValueError(
                        f"{where}: merge ({p0}, {p1}) uses id {p}, which is not defined "
                        f"before id {idx}")
            left.append(p0)
            right.append(p1)
            lengths.append(lengths[p0] + lengths[p1])
            total += lengths[idx]
            if total > budgets.MAX_VOCAB_BYTES:
                raise _repeat_error(left, right, first_lineno, source) or \
                    budgets.vocab_bytes_error(where, budgets.MAX_VOCAB_BYTES)
    del lengths
    table = MergeTable(left, right)
    error = _repeat_error(left, right, first_lineno, source, table)
    if error:
        raise error
    return PackedMerges(left, right, table)


def _batch_pairs(batch, first_idx):
    """(lefts, rights) of a block of merge lines, two lists of ints, if every line is two
    ASCII ids of at most 7 digits, each below the id its line makes; else None (the
    careful way then names the line)."""
    fields = list(map(str.split, batch))
    if any(len(f) != 2 for f in fields):
        return None
    flat = list(chain.from_iterable(fields))
    digits = "".join(flat)
    if not (digits.isascii() and digits.isdigit()) or max(map(len, flat)) > 7:
        return None
    ids = list(map(int, flat))
    lefts, rights = ids[0::2], ids[1::2]
    made = range(first_idx, first_idx + len(batch))
    if not (all(map(operator.lt, lefts, made)) and all(map(operator.lt, rights, made))):
        return None
    return lefts, rights


def _repeat_error(left, right, first_lineno, source, table=None):
    """The ValueError naming the first line whose pair an earlier line merged already,
    or None. subtle: a repeat is found once its merges are packed (no set of pairs is kept
    while reading), so each other error asks first whether a repeat came before it."""
    table = table or MergeTable(left, right)
    if not table.repeats:
        return None
    k = min(table.repeats)
    a, b = left[k], right[k]
    first = next(j for j in range(k) if left[j] == a and right[j] == b)
    return ValueError(f"{source} line {first_lineno + k}: merge ({a}, {b}) already made id "
                      f"{256 + first}; a pair is merged once")


class PackedMerges(Mapping):
    """merges (a, b) -> idx of a minbpe-style tokenizer, read-only, in merge order: merge k
    makes idx 256 + k from left[k] and right[k] (array("i")), found through a MergeTable.
    Reads as the dict it replaces ([], get, in, len, iteration, items/values in merge order,
    == a dict, pickle, copy); `find(a, b)` is encode's lookup (idx or None, one call).
    Changing it refuses and says what to do: assign a new dict to tok.merges."""

    __slots__ = ("left", "right", "table", "find")

    def __init__(self, left=None, right=None, table=None):
        """left, right: array("i") of the merges' parts, merge k's each below 256 + k, no
        pair twice; table: their MergeTable if the caller has built and checked it."""
        left = array("i") if left is None else left
        right = array("i") if right is None else right
        if table is None:
            if len(left) != len(right):
                raise ValueError(f"{len(left)} left parts but {len(right)} right parts")
            if not all(map(operator.lt, left, count(256))) or not all(
                    map(operator.lt, right, count(256))) or min(chain(left, right), default=0) < 0:
                raise ValueError("merges must make ids 256, 257, ... in turn, each from two "
                                 "ids below its own")
            table = MergeTable(left, right)
            if table.repeats:
                k = min(table.repeats)
                raise ValueError(f"merge ({left[k]}, {right[k]}) -> {256 + k} repeats an "
                                 "earlier merge's pair; a pair is merged once")
        self.left, self.right, self.table = left, right, table
        self.find = table.rank_of()

    @classmethod
    def of(cls, merges):
        """merges (a dict (int, int) -> int, ids 256, 257, ... in any order) packed; a
        PackedMerges as it is.

        >>> PackedMerges.of({(256, 97): 257, (97, 98): 256})
        {(97, 98): 256, (256, 97): 257}
        """
        if isinstance(merges, PackedMerges):
            return merges
        if not isinstance(merges, Mapping):
            raise TypeError("merges must be a dict (int, int) -> int, e.g. {(97, 98): 256}")
        left, right = array("i"), array("i")
        for k, ((p0, p1), idx) in enumerate(sorted(merges.items(), key=lambda item: item[1])):
            if idx != 256 + k or not 0 <= p0 < idx or not 0 <= p1 < idx:
                raise ValueError(f"merge ({p0}, {p1}) -> {idx} does not fit: merges must make "
                                 "ids 256, 257, ... in turn, each from two ids below its own")
            left.append(p0)
            right.append(p1)
        return cls(left, right, MergeTable(left, right))

    def __getitem__(self, pair):
        idx = self.get(pair)
        if idx is None:
            raise KeyError(pair)
        return idx

    def get(self, pair, default=None):
        if not isinstance(pair, tuple) or len(pair) != 2:
            return default
        try:
            idx = self.find(operator.index(pair[0]), operator.index(pair[1]))
        except TypeError:  # not ints: no merge, as a dict of int pairs says
            return default
        return default if idx is None else idx

    def __contains__(self, pair):
        return self.get(pair) is not None

    def __len__(self):
        return len(self.left)

    def __iter__(self):
        return zip(self.left, self.right)

    def __reversed__(self):
        return zip(reversed(self.left), reversed(self.right))

    def items(self):
        return _PackedItems(self)

    def values(self):
        return _PackedValues(self)

    def merge_columns(self):
        """(made ids, left ids, right ids) in merge order, three array("q")."""
        return (array("q", range(256, 256 + len(self.left))), array("q", self.left),
                array("q", self.right))

    def __eq__(self, other):
        if isinstance(other, PackedMerges):
            return self.left == other.left and self.right == other.right
        if isinstance(other, Mapping):
            return len(other) == len(self) and all(
                self.get(pair) == idx for pair, idx in other.items())
        return NotImplemented

    __hash__ = None  # equal to a dict, which has none

    def __reduce__(self):
        return (PackedMerges, (self.left, self.right))

    def __copy__(self):
        return self  # read-only: a copy is the same merges

    def __deepcopy__(self, memo):
        return self

    def copy(self):
        """A dict of the merges (dict.copy's meaning: one to change)."""
        return dict(self.items())

    def __repr__(self):
        return "{" + ", ".join(f"{pair!r}: {idx}" for pair, idx in self.items()) + "}"

    def _read_only(self, *args, **kwargs):
        raise TypeError(READ_ONLY)

    __setitem__ = __delitem__ = update = pop = popitem = setdefault = clear = _read_only
    __ior__ = _read_only


class _PackedItems(ItemsView):
    """A PackedMerges' items, in merge order, without a probe per item."""

    def __iter__(self):
        merges = self._mapping
        return zip(zip(merges.left, merges.right), range(256, 256 + len(merges)))

    def __reversed__(self):
        merges = self._mapping
        return zip(reversed(merges), reversed(range(256, 256 + len(merges))))


class _PackedValues(ValuesView):
    """A PackedMerges' ids, 256, 257, ... in merge order."""

    def __iter__(self):
        return iter(range(256, 256 + len(self._mapping)))

    def __contains__(self, idx):
        return idx in range(256, 256 + len(self._mapping))
