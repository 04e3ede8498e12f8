"""SentencePiece's Unigram as llama.cpp runs it for a GGUF file of its `t5` family.

llama.cpp's llm_tokenizer_ugm (src/llama-vocab.cpp) is written to give SentencePiece's ids,
and differs from `tokenizers`' Unigram (bpe.formats.hf.models.Unigram, with its
Precompiled normalizer) in three ways this module follows:
- the precompiled charsmap replaces the LONGEST key that prefixes the text at each place
  (SentencePiece's normalizer; tokenizers takes the shortest, per grapheme cluster), a
  user-defined piece is kept whole before the charsmap is tried, and the text's spaces are
  then written "▁": with remove_extra_whitespaces one "▁" before each run of non-spaces
  (none at the ends, none doubled), else each space one "▁" and, with add_space_prefix, one
  more before the first non-space;
- the Viterbi lattice holds normal, user-defined (scored 0) and unused pieces only: control,
  unknown and byte pieces are never matched;
- a character no piece covers is the unknown piece, scored the lowest NORMAL piece's score
  minus 10 (tokenizers: the lowest of all, which in a real file is an unused piece's -10000).

The Viterbi itself is tokenizers' (Unigram.segment: the same order, a strictly better path
replacing, unknowns fused), run on the text this normalizer gives. This module does not read
files (bpe.formats.gguf does), and it has no byte fallback: llama.cpp's Unigram has none, so
a t5 file with byte pieces is refused (bpe.formats.gguf_families). Its ids are proven
against `sentencepiece` on a ModelProto written from the same GGUF data
(tests/bpe/test_gguf_t5.py).
"""
import base64
import math

from .formats.hf.models import Unigram
from .formats.hf.parts import Normalizer
from .formats.hf.piece_ids import PieceIds
from .formats.hf.precompiled import Precompiled

SPACE = "\u2581"  # llama.cpp's escaped space (escape_whitespaces is always on for t5)
UNK_PENALTY = 10.0  # llama.cpp's unknown_token_score_penalty
MATCHED = (1, 4, 5)  # normal, user-defined, unused: the token types llama.cpp's trie holds


class LongestMatchNormalizer(Normalizer):
    """llama.cpp's llm_tokenizer_ugm_session::normalize (see the module's docstring)."""

    def __init__(self, charsmap, user_defined=(), add_space_prefix=True,
                 remove_extra_whitespaces=True):
        # Precompiled reads and bounds the blob (a charsmap bomb is refused there)
        table = Precompiled(charsmap or bytes(4), "the GGUF file's precompiled_charsmap")
        self.units, self.strings = table.units, table.strings
        self.user_defined = {piece for piece in user_defined if piece}
        self.user_lengths = sorted({len(piece) for piece in self.user_defined}, reverse=True)
        self.prepend = add_space_prefix
        self.merge = remove_extra_whitespaces

    def longest(self, text, at):
        """(characters, replacement) of the longest charsmap key that prefixes text[at:]
        (darts-clone's trie walked byte by byte, as llama.cpp walks it), or None."""
        units = self.units
        if not units:
            return None

        def base(unit):
            return (unit >> 10) << ((unit & (1 << 9)) >> 6)
        found, node = None, base(units[0])
        for n in range(1, min(len(text) - at, 64) + 1):  # no key is near 64 characters
            for c in text[at + n - 1].encode("utf-8", "surrogatepass"):
                if c == 0:
                    return found
                node ^= c
                if node >= len(units) or units[node] & ((1 << 31) | 0xFF) != c:
                    return found
                leaf = (units[node] >> 8) & 1
                node ^= base(units[node])
                if leaf and node < len(units):
                    found = (n, units[node] & ((1 << 31) - 1))
        return found

    def replacement(self, value):
        end = self.strings.find(b"\0", value)
        if value > len(self.strings) or end < 0:
            raise ValueError("the GGUF file's precompiled_charsmap points past its strings; "
                             "the file is damaged")
        return self.strings[value:end].decode("utf-8")

    def prefix(self, text, at):
        """(characters consumed, their replacement) at text[at:], llama.cpp's
        normalize_prefix: a user-defined piece whole, else the charsmap's longest key, else
        the character as it is."""
        for length in self.user_lengths:
            if text[at:at + length] in self.user_defined:
                return length, text[at:at + length]
        found = self.longest(text, at)
        return (1, text[at]) if found is None else (found[0], self.replacement(found[1]))

    def chunks(self, text):
        out, at, n = [], 0, len(text)
        in_word = prepended = False
        while at < n:
            length, repl = self.prefix(text, at)
            parts = []
            for c in repl:
                if c != " ":
                    if not in_word:
                        in_word = True
                        if (self.prepend and not prepended) or self.merge:
                            parts.append(SPACE)
                            prepended = True
                    parts.append(c)
                else:
                    in_word = False
                    if not self.merge:
                        parts.append(SPACE)
            out.append((at, at + length, "".join(parts)))
            at += length
        return out


class LlamaCppUnigram(Unigram):
    """tokenizers' Unigram lattice over llama.cpp's pieces and scores (the module says
    which), made from the Unigram built from the same form: it shares that model's pieces
    (one str and offsets, a GGUF file's own: issue 32), its table of every piece as `vocab`
    and its scores, with a second table over the matched pieces only as `token_to_id`."""

    def __init__(self, model, types):
        """model: the Unigram of the GGUF file's pieces, scores and unk_id, id by id (it is
        taken over: its user-defined pieces' scores become 0); types: the GGUF token types,
        an iterable of ints, id by id."""
        vocab = model.vocab
        n = vocab.n_slots
        keep, user, lowest = bytearray(n), [], math.inf
        scores, count = model.scores, 0
        for idx, kind in enumerate(types):
            if idx >= n:
                break
            count += 1
            if kind in MATCHED:
                keep[idx] = 1
            if kind == 1 and scores[idx] < lowest:
                lowest = scores[idx]
            elif kind == 4:
                user.append(idx)
        if count != n:
            raise ValueError(f"the GGUF file gives {count:,} token types for {n:,} tokens; "
                             "it is damaged")
        for idx in user:  # llama.cpp scores a user-defined piece 0
            scores[idx] = 0.0
        self.vocab, self.scores, self.unk = vocab, scores, model.unk
        self.byte_fallback = False
        self.user_defined = [vocab.text[vocab.offsets[k]:vocab.offsets[k + 1]] for k in user]
        # the pieces llama.cpp's trie holds; a later duplicate among them wins, as a dict's
        self.token_to_id = PieceIds.from_packed(vocab.text, vocab.offsets, keep=keep)
        self.unk_score = (0.0 if lowest == math.inf else lowest) - UNK_PENALTY
        # subtle: every piece's lengths, matched or not: a length only a left-out piece has
        # is looked up and missed, so the path is the same (one table of them, not two)
        self.lengths = model.lengths

    def tokens(self, piece):
        # by the path's own node: an unknown run whose text is also a piece stays unknown
        return [(self.unk if is_unk else self.token_to_id[piece[a:b]], a, b)
                for a, b, is_unk in self.segment(piece)]


def run_as_llama_cpp(tok, document):
    """Make tok (the HFTokenizer bpe.formats.hf built from the tokenizer.json form
    bpe.formats.gguf_families writes for a t5 file) run llama.cpp's Unigram: this module's
    normalizer in place of its Precompiled and Metaspace steps, and LlamaCppUnigram in
    place of tokenizers' Unigram. The form says all it needs: the model's pieces, scores,
    unk_id and gguf_token_type (the GGUF's types, id by id), the charsmap, WhitespaceSplit
    for remove_extra_whitespaces and Metaspace's prepend_scheme for add_space_prefix.
    Returns tok."""
    model = LlamaCppUnigram(tok.model, document["model"]["gguf_token_type"])
    steps = [step["type"] for step in document["pre_tokenizer"]["pretokenizers"]]
    prefix = document["decoder"]["prepend_scheme"] == "always"
    charsmap = base64.b64decode(document["normalizer"]["precompiled_charsmap"])
    tok.pipeline.normalizers = [LongestMatchNormalizer(charsmap, model.user_defined, prefix,
                                                       "WhitespaceSplit" in steps)]
    tok.pipeline.steps = []
    tok.model = model
    return tok
