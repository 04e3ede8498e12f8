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

from .formats.hf.lookups import lengths_by_first
from .formats.hf.models import Unigram
from .formats.hf.parts import Normalizer
from .formats.hf.piece_ids import PieceIds
from .formats.hf.precompiled import Precompiled

SPACE = "\u2581"  # llama.cpp's escaped space (escape_whitespaces is always on for t5)
UNK_PENALTY = 10.0  # llama.cpp's unknown_token_score_penalty


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
    which): tokens, scores and types are the GGUF file's, id by id."""

    def __init__(self, tokens, scores, types, unk):
        super().__init__({"vocab": [[t, s] for t, s in zip(tokens, scores)], "unk_id": unk})
        matched = (1, 4, 5)  # normal, user-defined, unused: what llama.cpp's trie holds
        kept = [i for i, kind in enumerate(types) if kind in matched]
        pieces = [tokens[i] for i in kept]
        self.token_to_id = PieceIds(pieces, kept)  # a later duplicate wins, as a dict's
        self.scores = [0.0 if kind == 4 else float(s) for s, kind in zip(scores, types)]
        normal = [s for s, kind in zip(scores, types) if kind == 1]
        self.unk_score = min(normal, default=0.0) - UNK_PENALTY
        self.lengths = {ch: lengths[::-1] for ch, lengths in lengths_by_first(pieces).items()}

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
    model = document["model"]
    tokens = [token for token, _ in model["vocab"]]
    scores = [score for _, score in model["vocab"]]
    types = model["gguf_token_type"]
    user_defined = [token for token, kind in zip(tokens, types) if kind == 4]
    steps = [step["type"] for step in document["pre_tokenizer"]["pretokenizers"]]
    prefix = document["decoder"]["prepend_scheme"] == "always"
    charsmap = base64.b64decode(document["normalizer"]["precompiled_charsmap"])
    tok.pipeline.normalizers = [LongestMatchNormalizer(charsmap, user_defined, prefix,
                                                       "WhitespaceSplit" in steps)]
    tok.pipeline.steps = []
    tok.model = LlamaCppUnigram(tokens, scores, types, model["unk_id"])
    return tok
