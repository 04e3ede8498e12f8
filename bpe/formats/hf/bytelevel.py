"""Byte-level BPE from a tokenizer.json (GPT-2's kind), with any id layout: GPT-2's
byte-level alphabet, the model's ids in our internal layout (byte b is b, merge k makes
256 + k, so an id is also its priority) and the merging, as `tokenizers` merges (the pair
of lowest rank, leftmost first). Other models are bpe.formats.hf.bpe_model and
bpe.formats.hf.models; this file neither reads files nor splits text.
"""
from array import array

from ...encode import apply_merges
from .merge_table import LookupCache, MergeTable
from .packed_vocab import PackedPieces


def bytes_to_unicode():
    """GPT-2's byte-level alphabet: byte -> a printable character standing for it. Printable
    Latin-1 bytes stand for themselves; the rest take the characters from U+0100 on, in order.

    >>> bytes_to_unicode()[ord(" ")], bytes_to_unicode()[ord("a")]
    ('Ġ', 'a')
    """
    keep = [*range(ord("!"), ord("~") + 1), *range(ord("¡"), ord("¬") + 1),
            *range(ord("®"), ord("ÿ") + 1)]
    table, extra = {}, 0
    for b in range(256):
        if b in keep:
            table[b] = chr(b)
        else:
            table[b] = chr(256 + extra)
            extra += 1
    return table



class ByteLevelBPE(LookupCache):
    """The BPE model's ids: which id each byte has, and each merge's pair and result, in
    our internal ids (byte b is b, merge k makes 256 + k, so an id is also its priority)."""

    def __init__(self, vocab, merges, model, added_ids):
        for option in ("byte_fallback", "continuing_subword_prefix", "end_of_word_suffix",
                       "dropout"):
            if model.get(option):
                raise ValueError(f"the BPE model's {option}={model[option]!r} is not byte-level "
                                 "BPE (ByteLevel pre-tokenizer or decoder: bytes need no "
                                 "fallback, prefixes or suffixes, and dropout is random)")
        self.vocab = vocab  # token str -> HF id (a PieceIds: bpe.formats.hf.vocabs)
        table = bytes_to_unicode()
        self.inverse = {ch: b for b, ch in table.items()}
        self.byte_ids = [vocab.get(table[b]) for b in range(256)]  # None: byte unknown
        self.unk = None
        unk = model.get("unk_token")
        if unk is not None:
            if not isinstance(unk, str) or unk not in vocab:
                raise ValueError(f"the unk_token {unk!r} is not in the vocab")
            self.unk = vocab[unk]
        self.fuse_unk = bool(model.get("fuse_unk"))
        self.ignore_merges = bool(model.get("ignore_merges"))
        self.added_ids = added_ids
        self._read_merges(vocab, merges, table)
        # the model's tokens' bytes (not the file's added tokens'), packed once (issue 32:
        # a dict of bytes objects cost ~95 B a token): HFTokenizer's vocab is made of them,
        # and tokens() reads each token's length from them
        token_bytes = self.token_bytes
        self.pieces = PackedPieces((idx, token_bytes(token))
                                   for token, idx in vocab.items() if idx not in added_ids)
        self.added_lengths = {idx: len(token_bytes(token))
                              for token, idx in vocab.items() if idx in added_ids}

    def _read_merges(self, vocab, merges, table):
        """canonical, out, merges (a MergeTable of canonical ids) and aliased, from the file's
        merges (a list, or a VocabText read a slice at a time): checked, and packed as they
        come (issue 32: no str, tuple or int object per merge kept)."""
        # subtle: Llama 3's merges make some tokens twice (["Ġ", "ĠĠĠ"] and ["ĠĠ", "ĠĠ"] both
        # make "ĠĠĠĠ"; its 280k merges make 128k tokens). Each merge keeps its own internal
        # id, so its own rank, as tokenizers ranks pairs; merges are looked up by each
        # part's canonical id (the first that made it), so merging never depends on which
        # merge made a part. A token is known by its slot in the vocab's table.
        slot_of = vocab.finder()  # every key a str
        canon = array("i", [-1]) * vocab.n_slots  # vocab slot -> canonical internal id
        for b in range(256):
            if self.byte_ids[b] is not None:
                canon[slot_of(table[b])] = b
        self.canonical = array("i", range(256))  # internal id -> canonical internal id
        # internal id -> HF id (-1: a byte the vocab lacks, which no run ever holds)
        self.out = array("i", [-1 if idx is None else idx for idx in self.byte_ids])
        parts = array("i")  # each merge's two parts' vocab slots, until all are made
        # one C-level check per merge (a set's issuperset, string truthiness) rather than an
        # all() over a generator: command-r's 254k merges spent seconds there
        alphabet, canonical = _ALPHABET, self.canonical
        made_slots = array("i")
        for k, merge in enumerate(merges):
            pair = merge.split(" ") if isinstance(merge, str) else merge
            if not (isinstance(pair, list) and len(pair) == 2
                    and isinstance(pair[0], str) and isinstance(pair[1], str)
                    and pair[0] and pair[1]):
                raise ValueError(f"merge {k} is {merge!r:.40}; expected 'left right' or "
                                 "[left, right]")
            made = pair[0] + pair[1]
            s0, s1, made_slot = slot_of(pair[0]), slot_of(pair[1]), slot_of(made)
            if s0 < 0 or s1 < 0 or made_slot < 0:
                raise ValueError(f"merge {k} {pair} uses or makes a token that is not in the "
                                 "vocab")
            if not alphabet.issuperset(made):
                raise ValueError(f"merge {k} {pair} has characters outside the byte-level "
                                 "alphabet, so this is not a byte-level BPE")
            if canon[made_slot] < 0:
                canon[made_slot] = 256 + k
            canonical.append(canon[made_slot])
            made_slots.append(made_slot)
            parts.append(s0)
            parts.append(s1)
        ids = vocab.ids  # slots to ids in C (None: a slot is its id)
        self.out += made_slots if ids is None else array("i", map(ids.__getitem__, made_slots))
        # a merge whose part no merge makes and no byte is can never apply (left -1)
        left = array("i", [canon[s] for s in parts[::2]])
        right = array("i", [canon[s] for s in parts[1::2]])
        for k in range(len(left)):
            if right[k] < 0:
                left[k] = -1
        del parts, canon, made_slots
        self.merges = MergeTable(left, right)  # a later merge of a pair wins, as there
        self.aliased = canonical[256:] != array("i", range(256, len(canonical)))

    def is_ours(self):
        """Bytes at ids 0-255 and merge k making id 256 + k: minbpe's layout."""
        return (self.byte_ids == list(range(256)) and self.unk is None
                and not self.ignore_merges and not self.aliased
                and self.out[256:] == array("i", range(256, len(self.out)))
                and len(self.merges) == len(self.out) - 256)

    def merges_in_order(self):
        """{(canonical id, canonical id): internal id} as a dict assigned in merge order."""
        return {pair: 256 + k for pair, k in self.merges.pairs()}

    def merge_columns(self):
        """(made ids, left ids, right ids) in the file's ids, in merge order: three arrays."""
        ks, lefts, rights = self.merges.columns()
        out = self.out
        # generators, not lists: no int object per merge alive at once
        return (array("q", (out[256 + k] for k in ks)), array("q", map(out.__getitem__, lefts)),
                array("q", map(out.__getitem__, rights)))

    @property
    def packed_merges(self):
        """What merge_columns says, as kept (the table's arrays): for a digest."""
        return self.merges.left, self.merges.right, None

    def token_bytes(self, token):
        """The bytes a vocab string stands for (UTF-8 of it if it is not byte-level)."""
        # each alphabet character stands for one byte: translated to the Latin-1
        # character of that byte, the token's Latin-1 encoding is its bytes (C loops only)
        if _ALPHABET.issuperset(token):
            return token.translate(_TO_LATIN1).encode("latin-1")
        return token.encode("utf-8")

    def encode_bytes(self, text_bytes):
        layout = self
        if layout.ignore_merges:
            whole = layout.vocab.get("".join(_BYTE_CHARS[b] for b in text_bytes))
            if whole is not None:
                return [whole]
        byte_ids = layout.byte_ids
        ids, run = [], []
        for b in text_bytes:
            if byte_ids[b] is not None:
                run.append(b)
            elif layout.unk is not None:  # as HF: the unknown byte becomes unk, not merged
                ids += self.merge_run(run)
                run = []
                if not (layout.fuse_unk and ids and ids[-1] == layout.unk):
                    ids.append(layout.unk)
            # else HF drops the byte, and its neighbours may merge across it
        return ids + self.merge_run(run)

    def merge_run(self, run):
        if not run:
            return []
        out = self.out
        return [out[idx] for idx in apply_merges(run, self._lookup())]

    def _make_lookup(self):
        """rank_of(a, b) for apply_merges: the internal id the pair merges into, or None."""
        return self.merges.rank_of(self.canonical if self.aliased else None)

    def ids(self, piece):
        return self.encode_bytes(piece.encode("utf-8"))

    def tokens(self, piece):
        """[(id, start, end)]: character offsets in piece, from each token's bytes (a
        token that ends inside a character covers all of it; an unk counts one byte)."""
        data = piece.encode("utf-8")
        char_of = []  # byte index -> character index
        for i, ch in enumerate(piece):
            char_of += [i] * len(ch.encode("utf-8"))
        out, pos = [], 0
        for idx in self.encode_bytes(data):
            n = 1 if idx == self.unk else self._length(idx)
            end = min(pos + n, len(data))
            a = char_of[pos] if pos < len(data) else len(piece)
            out.append((idx, a, char_of[end - 1] + 1 if end > pos else a))
            pos = end
        return out


    def _length(self, idx):
        """How many bytes token idx stands for (1 for an id the vocab has not)."""
        k = self.pieces.slot(idx)
        if k is None:
            return self.added_lengths.get(idx, 1)
        return self.pieces.offsets[k + 1] - self.pieces.offsets[k]


_BYTE_CHARS = bytes_to_unicode()
_ALPHABET = frozenset(_BYTE_CHARS.values())
_TO_LATIN1 = {ord(ch): b for b, ch in _BYTE_CHARS.items()}  # str.translate: char -> byte's char
