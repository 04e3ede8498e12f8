"""bpe.formats.hf.piece_ids: a PieceIds reads exactly as the dict {piece: id} built the old
way (d[piece] = idx in order, a later duplicate winning), on hypothesis' pieces with
duplicates, empty strings, non-BMP characters and tables so full that probes collide; it
pickles by its packed text (the table built again); the filter lets every piece through;
and decode reads the same strings from it as token_strings gives."""
import pickle

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bpe.formats.hf import piece_ids
from bpe.formats.hf.piece_ids import PieceIds
from bpe.hf_tokenizer import tokenizer_from_hf
from helpers.hf_documents import metaspace_unigram

# few letters, so pieces repeat; a non-BMP one, so the packed text is 4 bytes a character
PIECE = st.text(alphabet=st.sampled_from("ab\u00e9\u2581\U0001f600"), max_size=4)


def _old_dict(pieces, ids):
    out = {}
    for piece, idx in zip(pieces, ids):
        out[piece] = idx
    return out


def _check(table, old, probes):
    assert len(table) == len(old)
    assert list(table) == list(old)  # first-occurrence order
    assert list(table.items()) == list(old.items())  # with the later id
    assert table == old and old == table and dict(table) == old
    for key in list(old) + probes:
        assert (key in table) == (key in old)
        assert table.get(key) == old.get(key)
        assert table.get(key, -7) == old.get(key, -7)
        if key in old:
            assert table[key] == old[key]
            h = hash(key)
            assert table.filter[h & table.mask]  # the filter never refuses a piece
        else:
            with pytest.raises(KeyError):
                table[key]
    by_id = {idx: piece for piece, idx in old.items()}
    for idx in set(by_id) | {0, 1, 5, 10**6}:
        assert table.piece(idx) == by_id.get(idx)


@settings(max_examples=300, deadline=None)
@given(st.lists(PIECE, max_size=40), st.lists(PIECE, max_size=10))
def test_unigram_slots_read_as_the_old_dict(pieces, probes):
    table = PieceIds(pieces)  # slot k is id k, as Unigram's list gives
    old = _old_dict(pieces, range(len(pieces)))
    _check(table, old, probes)
    every = list(range(len(pieces))) * 2
    assert table.strings(every) == [table.piece(idx) for idx in every]
    again = pickle.loads(pickle.dumps(table))
    _check(again, old, probes)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(PIECE, st.booleans()), max_size=40), st.lists(PIECE, max_size=10))
def test_a_table_of_some_slots_reads_as_the_dict_of_those(flagged, probes):
    # llama.cpp's Unigram: a table over the kept slots of every piece's text, slot k id k
    pieces = [piece for piece, _ in flagged]
    keep = bytes(kept for _, kept in flagged)
    table = PieceIds.from_packed("".join(pieces), PieceIds(pieces).offsets, keep=keep)
    old = _old_dict(*zip(*[(p, k) for k, (p, kept) in enumerate(flagged) if kept])) \
        if any(keep) else {}
    _check(table, old, probes)
    every = list(range(len(pieces)))
    # a left-out slot, or one a later kept duplicate took over, is no id's piece
    assert table.strings(every) == [p if old.get(p) == k else None
                                    for k, p in enumerate(pieces)]
    _check(pickle.loads(pickle.dumps(table)), old, probes)
    with pytest.raises(ValueError, match="keep flags"):
        PieceIds.from_packed("".join(pieces), PieceIds(pieces).offsets, keep=keep + b"\1")


@settings(max_examples=300, deadline=None)
@given(st.dictionaries(PIECE, st.integers(0, 200), max_size=40), st.lists(PIECE, max_size=10),
       st.booleans())
def test_a_dict_vocab_reads_as_itself(vocab, probes, sparse):
    # WordPiece/WordLevel: the file's dict, distinct pieces, ids in any order, dense or far apart
    ids = [idx * 100_000 if sparse else idx for idx in vocab.values()]
    old = dict(zip(vocab, ids))
    if len(set(ids)) != len(ids):
        return  # read_vocab refuses an id given twice before a table is made
    table = PieceIds(list(old), list(old.values()))
    _check(table, old, probes)
    assert pickle.loads(pickle.dumps(table)) == old
    asked = ids + [0, 1, 7, 10**6]
    assert table.strings(asked) == [table.piece(idx) for idx in asked]


def test_a_full_table_probes_past_collisions(monkeypatch):
    # every piece hashes into a table of 8 slots (7 pieces), so probes run long and wrap
    pieces = ["", "a", "\U0001f600", "ab", "a", "ba", "b", "\U0001f600"]
    table = PieceIds(pieces)
    assert len(table.table) == 16 and len(table) == 6
    _check(table, _old_dict(pieces, range(len(pieces))), ["c", "aa", "\U0001f600\U0001f600"])
    # a table whose every key lands on one slot: the probe walks them all, in and out
    monkeypatch.setattr(piece_ids, "hash", lambda s: 0, raising=False)
    collide = PieceIds(pieces)
    assert collide == _old_dict(pieces, range(len(pieces)))
    assert collide.get("c") is None and collide.get("ba") == 5


def test_keys_of_other_types_are_missing_and_unhashable_ones_refused():
    table = PieceIds(["1", "a"])
    assert 1 not in table and table.get(1) is None and table.get(b"a") is None
    with pytest.raises(TypeError):  # a list key is unhashable, as in a dict
        table.get([])


def test_decode_reads_the_same_strings_as_token_strings():
    # a Unigram file with a duplicate piece (id 2 shadowed by id 5) and special tokens: decode
    # reads the packed table by id, and must give what the old list from token_strings gave
    pieces = ["<unk>", "\u2581a", "b", "\u2581ab", "<s>", "b", "\U0001f600"]
    document = metaspace_unigram(pieces, [(4, "<s>")])
    tok = tokenizer_from_hf(document)
    strings = tok.token_strings()
    assert 2 not in strings and strings[5] == "b" and strings[4] == "<s>"
    known = [idx for idx in range(8) if idx in tok.vocab]
    assert 2 not in known and 7 not in known
    for ids in (known, known[::-1] * 3, [1, 4, 4, 6], [6, 5, 1]):
        assert tok.decode(ids) == tok.decoder([strings[idx] for idx in ids])
    assert tok.decode([1, 4, 2, 5]) == tok.decode([1, 4, 5])  # a shadowed id is skipped
