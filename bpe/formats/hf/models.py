"""Hugging Face models, each turning one pre-tokenized piece into ids as `tokenizers` does:
WordPiece (BERT), Unigram (T5, ALBERT, XLNet: Viterbi over piece scores) and WordLevel (one
id per piece); BPE without byte-level (SentencePiece style) is bpe.formats.hf.bpe_model, and
byte-level BPE, GPT-2's kind, bpe.formats.hf.bytelevel. Every model gives
`tokens(piece) -> [(id, start, end)]` with character offsets in the piece, and `ids(piece)`.
Reading a file's vocab and refusing what cannot be reproduced (a missing unk) happens here;
nothing here normalizes or splits text (bpe.formats.hf.pipeline does).
"""
import math

from ... import budgets
from .lookups import WORK_FLOOR, WORK_PER_CHAR, lengths_by_first, over_budget
from .piece_ids import PieceIds
from .vocabs import read_piece_ids, read_unigram_vocab


def read_unk(model, vocab, kind):
    """The id of a model's unk_token (None without one), checked against its vocab."""
    unk = model.get("unk_token")
    if unk is None:
        return None
    if not isinstance(unk, str) or unk not in vocab:
        raise ValueError(f"the {kind} model's unk_token {unk!r:.40} is not in its vocab; add "
                         "it to the vocab or set unk_token to null")
    check_unk_length(unk, kind)
    return vocab[unk]


def check_unk_length(unk, kind):
    """ValueError for an unk_token longer than a special token may be: decode writes it
    once per unknown, so 25 MB of it made gigabytes a run."""
    if len(unk) > budgets.MAX_UNK_CHARS:
        raise ValueError(f"the {kind} model's unk_token is {len(unk):,} characters; this lab "
                         f"accepts at most {budgets.MAX_UNK_CHARS:,}")


class Model:
    def ids(self, piece):
        return [idx for idx, _, _ in self.tokens(piece)]


class WordPiece(Model):
    """BERT's WordPiece: the longest vocab entry from the start, then "##"-prefixed ones;
    a word with no such cover, or longer than max_input_chars_per_word, is one unk."""

    def __init__(self, model):
        self.vocab = vocab = read_piece_ids(model.get("vocab"), "WordPiece")
        self.prefix = model.get("continuing_subword_prefix", "##") or ""
        self.max_chars = model.get("max_input_chars_per_word", 100)
        if not isinstance(self.max_chars, int):
            raise ValueError("the WordPiece model's max_input_chars_per_word must be an int")
        self.unk_token = model.get("unk_token", "[UNK]")
        if isinstance(self.unk_token, str):
            check_unk_length(self.unk_token, "WordPiece")
        self.longest = max(map(len, vocab), default=0)
        # the lengths to look up at a word's start, and after it (without the prefix)
        self.first = lengths_by_first(vocab)
        self.next = lengths_by_first((t for t in vocab if t.startswith(self.prefix)),
                                     len(self.prefix))

    def _unk(self, piece):
        if self.unk_token not in self.vocab:
            raise ValueError(f"this WordPiece file's unk_token {self.unk_token!r:.40} is not in "
                             "its vocab, and the text needs it (tokenizers fails on it too); "
                             "add it to the vocab")
        return [(self.vocab[self.unk_token], 0, len(piece))]

    def tokens(self, piece):
        """Greedy longest match, as tokenizers' WordPiece: from each position the longest
        vocab entry (only the lengths some entry starting with that character has are
        looked up, which finds the same entry), "##"-prefixed after the first."""
        n = len(piece)
        if n > self.max_chars:
            return self._unk(piece)
        vocab, prefix, out, start = self.vocab, self.prefix, [], 0
        # the table's filter, read inline: most lengths looked up are no entry
        filt, mask, find = vocab.filter, vocab.mask, vocab.slot
        work, budget = 0, WORK_FLOOR + WORK_PER_CHAR * n
        while start < n:
            table = self.first if start == 0 else self.next
            for length in table.get(piece[start], ()):
                end = start + length
                if end > n:
                    continue
                work += length
                sub = piece[start:end] if start == 0 else prefix + piece[start:end]
                h = hash(sub)
                if not filt[h & mask]:
                    continue
                k = find(sub, h)
                if k >= 0:
                    out.append((vocab.id_at(k), start, end))
                    break
            else:
                return self._unk(piece)
            if work > budget:
                raise over_budget("WordPiece", piece, self.longest)
            start = end
        return out


class WordLevel(Model):
    """One id per piece: the piece's, else unk's."""

    def __init__(self, model):
        self.vocab = read_piece_ids(model.get("vocab"), "WordLevel")
        self.unk_token = model.get("unk_token", "<unk>")

    def tokens(self, piece):
        idx = self.vocab.get(piece)
        if idx is None:
            idx = self.vocab.get(self.unk_token)
            if idx is None:
                raise ValueError(f"{piece[:40]!r} is not in this WordLevel vocab and its "
                                 f"unk_token {self.unk_token!r:.40} is not either (tokenizers "
                                 "fails on it too); add the unk token to the vocab")
        return [(idx, 0, len(piece))]


UNK_PENALTY = 10.0  # an unknown character scores the lowest piece score minus this


class Unigram(Model):
    """Unigram LM: the segmentation of highest total score (Viterbi over the pieces that
    start at each character, shorter first, a strictly better score replacing); a
    character no piece covers alone is unk (scored min score - 10), consecutive unks
    fused; an unk's text as <0xXX> byte pieces when byte_fallback has them all."""

    def __init__(self, model):
        text, offsets, self.scores = read_unigram_vocab(model.get("vocab"))
        # slot k is id k, a later duplicate wins (as there); packed, as a dict's str and int
        # per piece were 130 of 169 B a piece (issue 32); one table under both names
        self.token_to_id = self.vocab = PieceIds.from_packed(text, offsets)
        count = len(offsets) - 1
        self.unk = model.get("unk_id")
        if self.unk is not None and not (isinstance(self.unk, int) and 0 <= self.unk < count):
            raise ValueError(f"the Unigram model's unk_id {self.unk!r} is not an entry of its "
                             "vocab")
        self.byte_fallback = bool(model.get("byte_fallback"))
        self.unk_score = min(self.scores, default=math.inf) - UNK_PENALTY
        # first character -> the lengths of the pieces starting with it, shortest first
        self.lengths = {ch: lengths[::-1] for ch, lengths in lengths_by_first(self.vocab).items()}

    def segment(self, s):
        """The best path as [(start, end, is_unk)] (unks fused)."""
        n = len(s)
        score, start, node = [0.0] * (n + 1), [None] * (n + 1), [0] * (n + 1)
        token_to_id, scores, unk = self.token_to_id, self.scores, self.unk
        # the table's filter, read inline: most substrings are no piece and stop at it
        filt, mask, find = token_to_id.filter, token_to_id.mask, token_to_id.slot
        slot_ids = token_to_id.ids  # None: a slot is its id (the file's own list)
        work, budget = 0, WORK_FLOOR + WORK_PER_CHAR * n
        for i in range(n):
            here, single = score[i], False
            for length in self.lengths.get(s[i], ()):
                if length > n - i:
                    break
                work += length
                sub = s[i:i + length]
                h = hash(sub)
                if not filt[h & mask]:
                    continue
                idx = find(sub, h)
                if idx < 0:
                    continue
                if slot_ids is not None:
                    idx = slot_ids[idx]
                candidate = scores[idx] + here
                end = i + length
                if start[end] is None or candidate > score[end]:
                    score[end], start[end], node[end] = candidate, i, idx
                single |= length == 1
            if work > budget:
                raise over_budget("Unigram", s, max(map(len, token_to_id)))
            if not single:
                if unk is None:
                    raise ValueError(f"{s[i]!r} is in no piece of this Unigram model and it has "
                                     "no unk_id (tokenizers fails on it too); add an unk piece")
                candidate = self.unk_score + here
                if start[i + 1] is None or candidate > score[i + 1]:
                    score[i + 1], start[i + 1], node[i + 1] = candidate, i, unk
        out, end = [], n
        while end > 0:
            begin = start[end]
            is_unk = node[end] == unk
            if is_unk and out and out[-1][2]:
                out[-1] = (begin, out[-1][1], True)
            else:
                out.append((begin, end, is_unk))
            end = begin
        return out[::-1]

    def tokens(self, piece):
        out, token_to_id = [], self.token_to_id
        for a, b, _ in self.segment(piece):
            text = piece[a:b]
            idx = token_to_id.get(text)
            if idx is None:
                if self.byte_fallback:
                    byte_ids = [token_to_id.get(f"<0x{b_:02X}>") for b_ in text.encode("utf-8")]
                    if None not in byte_ids:
                        out += [(i, a, b) for i in byte_ids]
                        continue
                idx = self.unk
            out.append((idx, a, b))
        return out
