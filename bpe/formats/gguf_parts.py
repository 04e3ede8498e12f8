"""A GGUF file's packed arrays as the lists of a tokenizer.json document, made a slice at a
time whenever they are iterated (issue 32: the whole lists as Python objects were many times
the file): MergePairs (a gpt2 or gemma4 file's "left right" merges), ScoreMerges (the merges
a SentencePiece-style llama file's scores imply, ordered by by_score) and Rows (a t5 file's
[piece, score] rows and token types). Each is a document_parse MergesText or VocabText, so
the document is written and the model built from it a slice at a time; bpe.formats.
gguf_families puts them in the document it maps each family to.
"""
import heapq
import math
from array import array

from .gguf import Strings
from .hf.document_parse import MergesText, VocabText
from .hf.piece_ids import PieceIds  # noqa: F401 (ScoreMerges' doctest)

SORT_BLOCK = 4096  # ids sorted by score at a time (by_score)


class MergePairs(MergesText):
    """A GGUF file's merges ("left right" strings) as a tokenizer.json's "merges" list of
    [left, right] (llama.cpp's split: at the first space after the first character), made
    a slice at a time whenever it is iterated: a MergesText, so the document is written and
    the model built from it without a list of every merge (issue 32). Every merge is checked
    when it is made, so a damaged one is refused before anything is built from it."""

    __slots__ = ("merges",)
    SLICE_MERGES = 10_000

    def __init__(self, merges, source):
        if not isinstance(merges, Strings):
            merges = Strings.of(merges)
        self.merges, self.source, self.is_list = merges, source, True
        text, offsets = merges.text, merges.offsets
        for rank, (a, b) in enumerate(zip(offsets, offsets[1:])):
            if text.find(" ", a + 1, b) < 0:
                bad_merge(rank, text[a:b], source)

    def slices(self):
        # subtle: read from the packed text and offsets, no str made per merge
        text, offsets, step = self.merges.text, self.merges.offsets, self.SLICE_MERGES
        for start in range(0, len(offsets) - 1, step):
            part, ends = [], offsets[start + 1:start + step + 1]
            for a, b in zip(offsets[start:start + step], ends):
                cut = text.find(" ", a + 1, b)  # llama.cpp's split
                part.append([text[a:cut], text[cut + 1:b]])
            yield part


def bad_merge(rank, merge, source):
    raise ValueError(f"{source}: GGUF merge {rank} is {merge[:40]!r}; expected 'left right'")


def by_score(scores):
    """Every id, highest score first, equal scores in id order (sentencepiece's and
    llama.cpp's order of the merges a piece's score ranks), as an array("i"): sorted a
    block of SORT_BLOCK ids at a time and the blocks merged, so no int and float object per
    id are alive at once (issue 32: a sort of 32k ids by key was 3 x Llama 2's file).

    >>> list(by_score([0.0, -1.0, 0.0, 2.0]))
    [3, 0, 2, 1]
    """
    key, n = scores.__getitem__, len(scores)
    blocks = [array("i", sorted(range(start, min(start + SORT_BLOCK, n)), key=key,
                                reverse=True))  # stable: equal scores keep id order
              for start in range(0, n, SORT_BLOCK)]
    return array("i", heapq.merge(*blocks, key=key, reverse=True))  # stable across blocks



class ScoreMerges(MergesText):
    """SentencePiece's BPE as a tokenizer.json's "merges" list: every split of a piece into
    two pieces, the piece of higher score first (llama.cpp's and sentencepiece's order), then
    by the piece's id, then by where it is cut. Kept as the made ids and cuts (two arrays)
    and made into [left, right] a slice at a time whenever it is iterated: a MergesText, so
    the document is written and the model built without a list of every merge (issue 32:
    Llama 2's 61k merges and their sort keys as tuples were 26 x its file).

    >>> table = PieceIds(["a", "b", "ab", "abb"])
    >>> list(ScoreMerges(table, [0.0, 0.0, -1.0, -2.0], "x.gguf"))
    [['a', 'b'], ['ab', 'b']]
    """

    __slots__ = ("table", "made", "cuts")
    SLICE_MERGES = 2_000

    def __init__(self, table, scores, source):
        if any(map(math.isnan, scores)):
            raise ValueError(f"{source}: a GGUF SentencePiece-style ('llama') token has a "
                             "score that is not a number, so its merges have no order; the "
                             "file is damaged")
        self.table, self.source, self.is_list = table, source, True
        # the table's filter read inline: most parts are no piece and stop at it
        probe, filt, mask, piece = table.slot, table.filter, table.mask, table.piece
        made, cuts = array("i"), array("I")
        for idx in by_score(scores):
            token = piece(idx)  # None: no piece, or a later one of the same text owns it
            if token is None:
                continue
            for cut in range(1, len(token)):
                left, right = token[:cut], token[cut:]
                h, g = hash(left), hash(right)
                if filt[h & mask] and filt[g & mask] and probe(left, h) >= 0 \
                        and probe(right, g) >= 0:
                    made.append(idx)
                    cuts.append(cut)
        self.made, self.cuts = made, cuts

    def __len__(self):
        return len(self.made)

    def slices(self):
        piece, made, cuts, step = self.table.piece, self.made, self.cuts, self.SLICE_MERGES
        for start in range(0, len(made), step):
            part = []
            for idx, cut in zip(made[start:start + step], cuts[start:start + step]):
                token = piece(idx)
                part.append([token[:cut], token[cut:]])
            yield part


def piece_score(token, score):
    return [token, float(score)]


class Rows(VocabText):
    """A document's list of one row per token, made from the GGUF file's packed arrays a
    slice at a time whenever it is iterated: row(column[i], ...) for each i, or the column's
    item itself (issue 32: a t5 file's 250k [piece, score] lists were 7 x its file, alive
    through the whole build). A VocabText (is_list), so the document is written, and a
    Unigram model built, a slice at a time; tokenizer_json gives the list.

    >>> list(Rows(["a", "b"], [0, -1.5], row=piece_score)), list(Rows([1, 3]))
    ([['a', 0.0], ['b', -1.5]], [1, 3])
    """

    __slots__ = ("columns", "row")
    SLICE_ROWS = 2_000

    def __init__(self, *columns, row=None):
        self.columns, self.row, self.is_list, self.source = columns, row, True, "file"

    def __len__(self):
        return len(self.columns[0])

    def packed_unigram(self):
        # subtle: the rows piece_score makes of a Strings and a number array, without a row:
        # the model shares the file's text and offsets (issue 32: a t5 file's pieces were
        # packed again, 0.8 x its file, and made into 250k str and float objects)
        if not (self.row is piece_score and len(self.columns) == 2
                and isinstance(self.columns[0], Strings) and isinstance(self.columns[1], array)):
            return None
        pieces, scores = self.columns  # a copy (a model may change it) as exact: float32
        return pieces.text, pieces.offsets, array("f" if scores.typecode == "f" else "d", scores)

    def slices(self):
        step, row = self.SLICE_ROWS, self.row
        for start in range(0, len(self), step):
            parts = [column[start:start + step] for column in self.columns]
            yield list(parts[0]) if row is None else list(map(row, *parts))
