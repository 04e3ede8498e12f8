"""The decode family every tokenizer shares, tiktoken's names and manners: ids -> bytes
per token, bytes, text, offsets. It reads only `self.vocab` (int -> bytes) and
`self.n_vocab`; how ids are made is the Tokenizer's business (bpe/base.py).
"""
import operator

from .formats.hf.packed_vocab import PackedVocab
from .ranks_vocab import RanksVocab

MAX_ID = 2 ** 32  # ids are u32 in tiktoken: larger or negative ones are out of range


class DecodeMethods:
    """Mixed into bpe.base.Tokenizer: decode_single_token_bytes, decode_tokens_bytes,
    decode_bytes, decode, decode_batch, decode_with_offsets, token_byte_offsets."""

    def decode_single_token_bytes(self, idx):
        """The bytes of one token id. As tiktoken: TypeError for a non-integer, OverflowError
        for an id below 0 or of 2**32 and more, KeyError for an id not in the vocabulary."""
        idx = _token_id(idx)
        try:
            return self.vocab[idx]
        except KeyError:
            raise KeyError(f"unknown token id {idx}: ids run from 0 to {self.n_vocab - 1}, "
                           "with gaps only between ordinary and special tokens") from None

    def decode_tokens_bytes(self, ids):
        """The bytes of each token, one entry per id (useful for visualising)."""
        ids = list(ids)
        vocab = self.vocab
        tokens = None
        if isinstance(vocab, RanksVocab):  # any ids: None when some is not a plain token's
            tokens = vocab.tokens_bytes(ids)
        elif all(type(idx) is int for idx in ids):  # the common case, at C speed
            if isinstance(vocab, PackedVocab):  # no Python call per id (None: some id is
                tokens = vocab.tokens_bytes(ids)  # not a piece's: the careful way below)
            else:
                try:
                    tokens = list(map(vocab.__getitem__, ids))
                except KeyError:
                    pass
        if tokens is not None:
            return tokens
        # as tiktoken, every id is checked to be a u32 before any is looked up: [7**20, "a"]
        # is an OverflowError, [100256, -1] too (not a KeyError)
        return [self.decode_single_token_bytes(idx) for idx in list(map(_token_id, ids))]

    def decode_bytes(self, ids):
        """The exact bytes the ids stand for."""
        return b"".join(self.decode_tokens_bytes(ids))

    def decode(self, ids, errors="replace"):
        """The text the ids stand for; invalid UTF-8 replaced by U+FFFD by default."""
        return self.decode_bytes(ids).decode("utf-8", errors=errors)

    def decode_batch(self, batch, *, errors="replace", num_threads=8):
        """decode on each list of ids."""
        return [self.decode(ids, errors=errors) for ids in batch]

    def decode_with_offsets(self, ids):
        """(text, offsets): the decoded text and, per token, the index of the character
        where it starts: tiktoken's definition, so a token that starts inside a character
        (its first byte a UTF-8 continuation byte) gets that character's index. Like
        tiktoken, UnicodeDecodeError if the ids do not decode to valid UTF-8.

        >>> from bpe import BasicTokenizer
        >>> BasicTokenizer().decode_with_offsets(list("hé".encode()))
        ('hé', [0, 1, 1])
        """
        tokens = self.decode_tokens_bytes(ids)
        offsets = []
        chars = 0  # characters started so far: bytes that are not continuation bytes
        for token in tokens:
            starts_inside = bool(token) and 0x80 <= token[0] < 0xC0
            offsets.append(max(0, chars - starts_inside))
            chars += sum(not 0x80 <= b < 0xC0 for b in token)
        return b"".join(tokens).decode("utf-8", errors="strict"), offsets

    def token_byte_offsets(self, ids):
        """The byte offset at which each token starts in decode_bytes(ids).

        >>> from bpe import BasicTokenizer
        >>> BasicTokenizer().token_byte_offsets([104, 105])
        [0, 1]
        """
        offsets = []
        pos = 0
        for token in self.decode_tokens_bytes(ids):
            offsets.append(pos)
            pos += len(token)
        return offsets


def _token_id(idx):
    """idx as an int, checked as tiktoken converts an id: TypeError for a non-integer,
    OverflowError outside 0 to MAX_ID - 1."""
    idx = operator.index(idx)  # TypeError for 1.0 or "1", which a dict lookup would take
    if not 0 <= idx < MAX_ID:
        raise OverflowError(f"token id {idx} is out of range: ids are integers from 0 "
                            f"to {MAX_ID - 1}")
    return idx
