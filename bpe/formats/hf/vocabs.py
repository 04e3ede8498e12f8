"""A model's vocab read from a tokenizer.json's parse (a list, a dict, or a VocabText that
bpe.formats.hf.document_parse reads a slice at a time) into what the models keep: checked,
and packed as it comes where the model keeps it packed (issue 32: no str, int or list object
per piece kept, and a VocabText's entries never all alive). Nothing here encodes
(bpe.formats.hf.models does).
"""
from array import array
from itertools import accumulate, islice

from ... import budgets
from .document_parse import VocabText
from .piece_ids import PieceIds


class TableText(VocabText):
    """A {piece: id} vocab packed already (a PieceIds, a GGUF file's tokens) as a document's
    "vocab": a VocabText whose slices are the table's (piece, id) items, SLICE_ITEMS at a
    time, so the document is written a slice at a time (document_text.json_chunks) and
    never as a dict of every piece, and read_piece_ids takes the table itself (issue 32)."""

    __slots__ = ("table",)
    SLICE_ITEMS = 2_000

    def __init__(self, table):
        self.table, self.is_list = table, False

    def slices(self):
        items = iter(self.table.items())
        while part := list(islice(items, self.SLICE_ITEMS)):
            yield part


def is_object(vocab):
    """Whether a parse's value is a JSON object: a dict, or a VocabText of one."""
    return isinstance(vocab, dict) or (isinstance(vocab, VocabText) and not vocab.is_list)


def is_list(value):
    """Whether a parse's value is a JSON list: a list, or a VocabText of one."""
    return isinstance(value, list) or (isinstance(value, VocabText) and value.is_list)


def read_vocab(vocab, kind):
    """A {token: id} vocab checked: ids in budget, none given twice."""
    if isinstance(vocab, VocabText) and not vocab.is_list:
        vocab = dict(vocab)  # json's dict: a repeated piece keeps its first place, last id
    if not isinstance(vocab, dict):
        raise ValueError(f"the {kind} model needs a 'vocab' object (token -> id)")
    owners = {}
    for token, idx in vocab.items():
        budgets.check_id(idx, f'"vocab" {token[:40]!r}')
        if idx in owners:
            raise ValueError(f"id {idx} is given to both {owners[idx]!r} and {token!r} in the "
                             "vocab")
        owners[idx] = token
    return vocab


def read_piece_ids(vocab, kind):
    """A {piece: id} vocab (a dict, or a VocabText of one) checked as read_vocab checks it,
    as a PieceIds in its order; a VocabText is packed a slice at a time, a TableText's
    table is taken as it is."""
    if isinstance(vocab, TableText):
        return vocab.table
    if not isinstance(vocab, VocabText) or vocab.is_list:
        vocab = read_vocab(vocab, kind)
        return PieceIds(list(vocab), vocab.values())
    texts, lengths, ids = [], array("I"), array("i")
    for pairs in vocab.slices():
        if not all(type(idx) is int and 0 <= idx <= budgets.MAX_ID for _, idx in pairs):
            # an id read_vocab refuses, unless a later one of the same piece replaces it:
            # its sentence, or the table of what json reads
            vocab = read_vocab(vocab, kind)
            return PieceIds(list(vocab), vocab.values())
        texts.append("".join(piece for piece, _ in pairs))
        lengths.extend(len(piece) for piece, _ in pairs)
        ids.extend(idx for _, idx in pairs)
    # a repeated piece: its later slot wins and its first place stays, as in json's dict
    table = PieceIds.from_packed("".join(texts), array("I", accumulate(lengths, initial=0)),
                                 ids)
    _check_ids_once(table)
    return table


def _check_ids_once(table):
    """read_vocab's ValueError when two of table's pieces have one id (without a dict of
    every id: a mark per id when the ids are dense, else a set)."""
    n = len(table)
    top = max(table.ids, default=-1) + 1
    dense = top <= 8 * n + 256
    seen = bytearray(top) if dense else set()
    for piece, idx in table.items():
        if seen[idx] if dense else idx in seen:
            owner = next(other for other, i in table.items() if i == idx)
            raise ValueError(f"id {idx} is given to both {owner!r} and {piece!r} in the vocab")
        if dense:
            seen[idx] = 1
        else:
            seen.add(idx)


def read_unigram_vocab(vocab):
    """A Unigram "vocab" (a VocabText, or a list of [piece, score]) as (its pieces in one
    str, their offsets in it: an array("I") from 0, their scores: an array("d")), packed a
    slice at a time, so a VocabText's entries are never all alive; ValueError naming the
    first entry that is not [piece, score]."""
    where = 'the Unigram model\'s "vocab"'
    packed = vocab.packed_unigram() if isinstance(vocab, VocabText) else None
    if packed is not None:  # pieces are strs and scores numbers already; the count checked
        last = len(packed[1]) - 2
        if last >= 0:
            budgets.check_id(last, f"Unigram vocab entry {last}")
        return packed
    slices = vocab.slices() if isinstance(vocab, VocabText) else \
        (budgets.expect(vocab, list, where),)
    texts, lengths, scores, idx = [], array("I"), array("d"), 0
    for entries in slices:
        pieces = []
        for entry in entries:
            if not (isinstance(entry, list) and len(entry) == 2 and isinstance(entry[0], str)
                    and isinstance(entry[1], (int, float)) and not isinstance(entry[1], bool)):
                raise ValueError(f"Unigram vocab entry {idx} is {str(entry)[:40]}; expected "
                                 "[piece, score]")
            budgets.check_id(idx, f"Unigram vocab entry {idx}")
            pieces.append(entry[0])
            scores.append(float(entry[1]))
            idx += 1
        texts.append("".join(pieces))
        lengths.extend(map(len, pieces))
    return "".join(texts), array("I", accumulate(lengths, initial=0)), scores
