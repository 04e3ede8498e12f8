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
from array import array
from collections.abc import Mapping

from . import budgets
from .encode import apply_merges
from .formats import gpt2
from .formats.hf.merge_table import LookupCache, MergeTable
from .formats.hf.packed_vocab import PackedPieces, PackedVocab
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


class VocabMergesTokenizer(LookupCache, Pretrained, RegexTokenizer):
    """BPE by merge order over a vocab in any id layout; see the module's docstring.

    Held packed (issue 32): the vocab's ordinary tokens as PackedPieces, the merges as a
    MergeTable of codes (merge k is code 256 + k), `_ids` (code -> id) and `_canon` (code ->
    the code of the first token with its bytes) as array("i"); `merges` is made from them
    when read, and merge_columns reads them without a dict."""

    made_from = "a vocab and merges"
    cannot_save = "that format's ids are 0-255, then one per merge, and these need not be"

    def __init__(self, vocab, merges, *, special_tokens=(), pattern="gpt2", name="vocab+merges"):
        ordinary, specials = _checked_vocab(vocab, special_tokens)
        pieces, tables = _compile(ordinary, merges)
        self._setup(name, pattern, pieces, tables, specials)

    @classmethod
    def from_tables(cls, pieces, tables, specials, *, pattern="gpt2", name="vocab+merges"):
        """The tokenizer of tables already compiled (compile_slots) over pieces (PackedPieces
        of the ordinary tokens): a file's loader packs them without a dict of the vocab."""
        tok = cls.__new__(cls)
        tok._setup(name, pattern, pieces, tables, specials)
        return tok

    def _setup(self, name, pattern, pieces, tables, specials):
        self.name = name
        self._pieces = pieces
        self._table, self._ids, self._canon = tables
        super().__init__(pattern)
        self.register_special_tokens(specials)

    @property
    def merges(self):
        """(id, id) -> id in the vocab's ids, in merge order (for views; encode uses codes),
        made anew on every read (nothing kept: merge_columns serves the views that can)."""
        made, lefts, rights = self.merge_columns()
        return dict(zip(zip(lefts, rights), made))

    @merges.setter
    def merges(self, value):
        if value:
            raise ValueError(f"{self.name}'s merges come from its merge list and cannot be set")

    def merge_columns(self):
        """(made ids, left ids, right ids) of every merge that can fire, in merge order."""
        ks, lefts, rights = self._table.columns()
        ids = self._ids
        return (array("q", (ids[256 + k] for k in ks)), array("q", map(ids.__getitem__, lefts)),
                array("q", map(ids.__getitem__, rights)))

    def _build_vocab(self):
        return PackedVocab(self._pieces, {idx: special.encode("utf-8")
                                          for special, idx in self.special_tokens.items()})

    def _encode_chunk(self, text_bytes):
        ids = self._ids
        return [ids[code] for code in apply_merges(list(text_bytes), self._lookup())]

    def _make_lookup(self):
        """rank_of(a, b) for apply_merges: the code the pair of codes merges into, or None."""
        canon = self._canon
        aliased = canon != array("i", range(len(canon)))  # two merges make the same bytes
        return self._table.rank_of(canon if aliased else None)


def _checked_vocab(vocab, special_tokens):
    """(ordinary vocab id -> bytes, specials str -> id), within the budgets."""
    # any mapping: a tokenizer.json's vocab is a read-only PackedVocab (issue 32); the
    # ordinary ids are copied into a dict while the tables are compiled, then packed
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
    check_vocab_bytes(total)
    by_text = special_ids(special_tokens, seen.get, max(vocab, default=-1) + 1)
    special_ids_ = set(by_text.values())
    ordinary = {idx: bytes(token) for idx, token in vocab.items() if idx not in special_ids_}
    return ordinary, by_text


def check_vocab_bytes(total):
    """ValueError when the vocab's tokens hold more than budgets.MAX_VOCAB_BYTES in all."""
    if total > budgets.MAX_VOCAB_BYTES:
        raise ValueError(f"the vocab holds {total:,} bytes of tokens; the limit is "
                         f"{budgets.MAX_VOCAB_BYTES >> 20} MB (it keeps one file from exhausting "
                         "the server's memory)")


def special_ids(special_tokens, id_of, after):
    """special str -> id: id_of(its bytes) when the vocab has it (not None), else the ids
    from after on, in order."""
    by_text = {}
    for special in special_tokens:
        if not isinstance(special, str) or not special:
            raise ValueError(f"special token {special!r} must be a non-empty str")
        if special in by_text:
            continue
        idx = id_of(special.encode("utf-8"))
        if idx is None:
            idx, after = after, after + 1
        by_text[special] = idx
    return by_text


def _compile(vocab, merges):
    """(PackedPieces of vocab, compile_slots' tables) for the ordinary vocab (id -> bytes)
    and merges ((bytes, bytes) in order); a token's slot is its first id's place."""
    slot_of, slot_ids = {}, array("i")
    for idx, token in vocab.items():
        if token not in slot_of:
            slot_of[token] = len(slot_ids)
            slot_ids.append(idx)
    byte_slots = checked_bytes([slot_of.get(bytes([b]), -1) for b in range(256)])
    merges = list(merges)
    for k, merge in enumerate(merges):
        if (not isinstance(merge, (tuple, list)) or len(merge) != 2
                or not all(isinstance(part, (bytes, bytearray)) for part in merge)):
            raise TypeError(f"merges must be a list of (bytes, bytes) pairs, in merge order; "
                            f"merge {k} is {merge!r:.60}")
    merges = [(bytes(a), bytes(b)) for a, b in merges]
    left = array("i", [slot_of.get(a, -1) for a, _ in merges])
    right = array("i", [slot_of.get(b, -1) for _, b in merges])
    made = array("i", [slot_of.get(a + b, -1) for a, b in merges])
    del slot_of
    tables = compile_slots(slot_ids, byte_slots, left, right, made, merges.__getitem__)
    return PackedPieces(vocab.items()), tables


def checked_bytes(byte_slots):
    """byte_slots (each byte's token's slot, -1: none) as an array; ValueError if one is -1."""
    missing = [b for b in range(256) if byte_slots[b] < 0]
    if missing:
        raise ValueError(f"the vocab has no token for byte {missing[0]} ({len(missing)} bytes "
                         "in all); a byte-level BPE needs all 256 single bytes")
    return array("i", byte_slots)


def compile_slots(slot_ids, byte_slots, left, right, made, merge_bytes):
    """(MergeTable of codes, code -> id, code -> canonical code) for the encoder: the one
    compile of every vocab and merges, over slots (a token's place in the vocab, whatever
    its id; slot_ids[slot] its id). byte_slots: byte b's slot; left, right, made: merge k's
    parts' and result's slots, -1 where the ordinary vocab lacks it; merge_bytes(k) gives
    merge k's (bytes, bytes) for a message. Code b is byte b, code 256 + k merge k's result;
    a token's canonical code is the first of those with its bytes."""
    if len(made) > budgets.MAX_ID:
        raise ValueError(f"{len(made):,} merges is more than the {budgets.MAX_ID:,} ids allowed")
    # the first merge with a part or result the vocab lacks, found in C
    bad = [column.index(-1) for column in (left, right, made) if -1 in column]
    if bad:
        k = min(bad)
        a, b = merge_bytes(k)
        part = next(part for part, s in ((a, left[k]), (b, right[k]), (a + b, made[k]))
                    if s < 0)
        raise ValueError(f"merge {k} ({a!r:.40}, {b!r:.40}) uses or makes {part!r:.60}, "
                         "which is not in the vocab; every merge's parts and result "
                         "must be tokens")
    code_of = array("i", [-1]) * len(slot_ids)  # slot -> its canonical code, -1: never made
    for b, s in enumerate(byte_slots):
        code_of[s] = b
    canon = array("i", range(256))
    for k, s in enumerate(made):
        if code_of[s] < 0:
            code_of[s] = 256 + k
        canon.append(code_of[s])
    ids = array("i", map(slot_ids.__getitem__, byte_slots))
    ids.extend(map(slot_ids.__getitem__, made))
    # a merge with a part no merge makes (and no byte is) can never fire: left out (-1)
    left_codes = array("i", map(code_of.__getitem__, left))
    right_codes = array("i", map(code_of.__getitem__, right))
    del code_of
    for k in range(len(left_codes)):
        if right_codes[k] < 0:
            left_codes[k] = -1
    table = MergeTable(left_codes, right_codes)
    if table.repeats:
        k = min(table.repeats)
        pair = left_codes[k], right_codes[k]
        first = next(j for j in range(k) if (left_codes[j], right_codes[j]) == pair)
        a, b = merge_bytes(k)
        raise ValueError(f"merge {k} ({a!r:.40}, {b!r:.40}) is listed twice (first as merge "
                         f"{first}); keep one")
    return table, ids, canon


def load_gpt2_pair(vocab_data, merges_data, *, vocab_source="encoder.json",
                   merges_source="vocab.bpe", pattern=None, special_tokens=None):
    """The tokenizer of a GPT-2 pair (the two files' bytes): ids are the vocab's, merges
    applied in file order, GPT-2's split pattern unless pattern says otherwise. Vocab
    entries no merge can make, other than single bytes, are special tokens (GPT-2's
    "<|endoftext|>"); special_tokens (str list) adds more. What from_vocab_merges makes of
    the files' dict and list, built from slots of the packed vocab (issue 32: no dict, bytes
    or tuple per token or merge), with its checks in its order and its messages."""
    vocab = gpt2.parse_vocab(vocab_data, vocab_source)  # GPT-2 string -> id, packed
    merges = gpt2.parse_merges(merges_data, merges_source)
    left, right, made = merges.slots(vocab)
    slot_ids = vocab.ids  # slot -> id (parse_vocab's slots are its entries, in file order)
    slot_of = vocab.finder()
    is_made = bytearray(len(slot_ids))
    for s in made:
        if s >= 0:
            is_made[s] = 1
    for char in gpt2.BYTE_TO_CHAR.values():
        if (s := slot_of(char)) >= 0:
            is_made[s] = 1
    specials = []
    for s in sorted((s for s in range(len(slot_ids)) if not is_made[s]), key=slot_ids.__getitem__):
        try:
            specials.append(gpt2.token_bytes(_key_at(vocab, s), vocab_source).decode("utf-8"))
        except UnicodeDecodeError:
            pass  # not text, so no special token: an ordinary token no text can reach
    del is_made
    specials += [s for s in (special_tokens or ()) if s not in specials]
    check_vocab_bytes(len(vocab.text))  # a GPT-2 character stands for one byte
    by_text = special_ids(specials, lambda token, get=vocab.get: get(gpt2.token_text(token)),
                          max(slot_ids, default=-1) + 1)
    special_slots = {slot_of(gpt2.token_text(special.encode("utf-8"))) for special in by_text}
    special_slots.discard(-1)
    # subtle: a special token is no ordinary token, so a merge using it is refused; the
    # first such merge in each column is marked -1 (compile_slots names the earliest -1),
    # found in C: a bytearray read at each slot (its last byte stands for slot -1)
    is_special = bytearray(len(slot_ids) + 1)
    for s in special_slots:
        is_special[s] = 1
    for column in (left, right, made):
        if (k := bytes(map(is_special.__getitem__, column)).find(1)) >= 0:
            column[k] = -1
    del is_special
    byte_slots = checked_bytes([-1 if (s := slot_of(gpt2.BYTE_TO_CHAR[b])) in special_slots
                                else s for b in range(256)])
    # the vocab packed, and its strings' table let go, before the tables are built: the two
    # were the load's peak together
    special_ids_ = set(by_text.values())
    text, offsets = vocab.text, vocab.offsets
    del vocab, slot_of  # its hash table and filter: only its strings are read from here on
    pieces = PackedPieces((idx, gpt2.token_bytes(text[offsets[s]:offsets[s + 1]], vocab_source))
                          for s, idx in enumerate(slot_ids) if idx not in special_ids_)
    del text, offsets
    tables = compile_slots(slot_ids, byte_slots, left, right, made, merges.merge_at)
    del left, right, made
    return VocabMergesTokenizer.from_tables(pieces, tables, by_text, pattern=pattern or "gpt2",
                                            name=vocab_source)


def _key_at(vocab, slot):
    """The string in slot of a PieceIds."""
    return vocab.text[vocab.offsets[slot]:vocab.offsets[slot + 1]]
