"""Hugging Face models, each turning one pre-tokenized piece into ids as `tokenizers` does:
BPE without byte-level (SentencePiece style: byte_fallback, unk_token, fuse_unk,
continuing_subword_prefix, end_of_word_suffix, ignore_merges), WordPiece (BERT),
Unigram (T5, ALBERT, XLNet: Viterbi over piece scores) and WordLevel (one id per piece).
Byte-level BPE, GPT-2's kind, is bpe.formats.hf.bytelevel. Every model gives `tokens(piece) -> [(id, start, end)]` with
character offsets in the piece, and `ids(piece)`. Reading a file's vocab and refusing
what cannot be reproduced (dropout, a missing unk) happens here; nothing here normalizes
or splits text (bpe.formats.hf.pipeline does).
"""
import math
from array import array
from heapq import heapify, heappop, heappush

from ... import budgets
from .lookups import WORK_FLOOR, WORK_PER_CHAR, lengths_by_first, over_budget
from .merge_table import MergeTable
from .piece_ids import PieceIds
from .vocabs import is_list, read_piece_ids, read_unigram_vocab


def _unk(model, vocab, kind):
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


LONG_PIECE = 256  # longer pieces are cut into segments merges cannot cross (BPE.tokens)


class BPE(Model):
    """BPE over characters (not bytes): each character is a token (with the continuing
    prefix after the first, the end-of-word suffix on the last), else its UTF-8 bytes as
    <0xXX> tokens (byte_fallback), else unk (consecutive ones fused with fuse_unk), else
    dropped; then merges, lowest rank first, leftmost first, as tokenizers' Word."""

    def __init__(self, model):
        # piece -> id packed (a PieceIds); the hot loops read single characters from
        # `singles` and byte tokens from `fallback_ids`, small dicts and a list
        self.vocab = vocab = read_piece_ids(model.get("vocab"), "BPE")
        if model.get("dropout") not in (None, 0, 0.0):
            raise ValueError(f"the BPE model's dropout={model['dropout']!r} makes encoding "
                             "random, so no ids can be reproduced; set dropout to null")
        self.prefix = prefix = model.get("continuing_subword_prefix") or ""
        self.suffix = suffix = model.get("end_of_word_suffix") or ""
        self.unk = _unk(model, vocab, "BPE")
        self.fuse_unk = bool(model.get("fuse_unk"))
        self.byte_fallback = bool(model.get("byte_fallback"))
        self.ignore_merges = bool(model.get("ignore_merges"))
        # every piece symbols() can look up: a character, with the prefix and the suffix
        # or not; so a lookup here is the vocab's
        lengths = {1, 1 + len(prefix), 1 + len(suffix), 1 + len(prefix) + len(suffix)}
        self.singles = {piece: idx for piece, idx in vocab.items() if len(piece) in lengths}
        self.fallback_ids = [vocab.get(f"<0x{b:02X}>") for b in range(256)]
        self.adjacent = set()  # (char, char) side by side in some token a merge makes
        self.segments = {}     # a long piece's segment -> its tokens (see tokens)
        self._read_merges(model.get("merges") or [])

    def _read_merges(self, merges):
        """merges (a MergeTable of (id, id) -> merge number k, a later duplicate winning,
        as there), made[k] (the id merge k makes) and ranks (None: merge k ranks k; a GGUF
        file ranks by score, bpe.gguf_tokenizer.rank_by_score), packed as the file's merges
        come (issue 32: no tuple or int object per merge kept)."""
        if not is_list(merges):
            budgets.expect(merges, list, '"merges"')  # its sentence
        vocab = self.vocab
        left, right, self.made, self.ranks = array("i"), array("i"), array("i"), None
        cut = len(self.prefix.encode("utf-8"))
        for rank, merge in enumerate(merges):
            pair = merge.split(" ") if isinstance(merge, str) else merge
            if not isinstance(pair, list) or len(pair) != 2 or not all(
                    isinstance(p, str) for p in pair):
                raise ValueError(f"merge {rank} is {merge!r:.40}; expected 'left right' or "
                                 "[left, right]")
            a, b = pair
            try:  # tokenizers cuts the prefix's length off the right part, whatever it is
                made = a + b.encode("utf-8")[cut:].decode("utf-8")
            except UnicodeDecodeError:
                made = None
            ids = vocab.get(a), vocab.get(b), vocab.get(made)
            if None in ids:
                raise ValueError(f"merge {rank} {pair} uses or makes a token that is not in "
                                 "the vocab")
            left.append(ids[0])
            right.append(ids[1])
            self.made.append(ids[2])
            self.adjacent.update(zip(made, made[1:]))
        self.merges = MergeTable(left, right)

    def merges_by_rank(self):
        """{(id, id): made id} of every pair that merges, lowest rank first."""
        made, ranks = self.made, self.ranks
        pairs = list(self.merges.pairs())
        if ranks is not None:
            pairs.sort(key=lambda item: ranks[item[1]])  # stable: equal ranks in merge order
        return {pair: made[k] for pair, k in pairs}

    def tokens(self, piece):
        if self.ignore_merges and piece in self.vocab:
            return [(self.vocab[piece], 0, len(piece))]
        if len(piece) > LONG_PIECE and not self.prefix and not self.suffix:
            return self._long_tokens(piece)
        return self._merge_all(self.symbols(piece))

    def _merge_all(self, symbols):
        find = self.__dict__.get("_find") or self.__dict__.setdefault(
            "_find", self.merges.finder())
        return merge_all(symbols, find, self.made, self.ranks)

    def __getstate__(self):
        state = dict(self.__dict__)
        state.pop("_find", None)  # a closure; made again on first use
        return state

    def _long_tokens(self, piece):
        """A long piece (a whole text, with no pre-tokenizer: Llama 2's files) cut where no
        merge can join its two sides: between two characters that are tokens themselves
        and stand side by side in no token any merge makes. Each side then merges alone
        to the same tokens, and repeated segments (words) are merged once."""
        singles, adjacent, cache = self.singles, self.adjacent, self.segments
        if len(cache) > 100_000:
            cache.clear()
        out, start = [], 0
        for i in range(1, len(piece) + 1):
            if i < len(piece) and ((piece[i - 1], piece[i]) in adjacent
                                   or piece[i - 1] not in singles or piece[i] not in singles):
                continue
            segment = piece[start:i]
            tokens = cache.get(segment)
            if tokens is None:
                tokens = cache[segment] = self._merge_all(self.symbols(segment))
            out += [(idx, a + start, b + start) for idx, a, b in tokens]
            start = i
        return out

    def symbols(self, piece):
        singles, prefix, suffix = self.singles, self.prefix, self.suffix
        out, unk, last = [], None, len(piece) - 1
        for i, ch in enumerate(piece):
            s = ch
            if i and prefix:
                s = prefix + s
            if i == last and suffix:
                s += suffix
            idx = singles.get(s)
            if idx is not None:
                if unk:
                    out.append(unk)
                    unk = None
                out.append([idx, i, i + 1])
                continue
            if self.byte_fallback:
                fallback = self.fallback_ids
                byte_ids = [fallback[b] for b in s.encode("utf-8")]
                if None not in byte_ids:  # subtle: a pending unk stays pending, as there
                    out += [[b, i, i + 1] for b in byte_ids]
                    continue
            if self.unk is not None:
                if unk and self.fuse_unk:
                    unk[2] = i + 1
                else:
                    if unk:
                        out.append(unk)
                    unk = [self.unk, i, i + 1]
            # else: tokenizers drops the character
        if unk:
            out.append(unk)
        return out


def merge_all(symbols, find, made, ranks=None):
    """[[id, start, end]] merged by the merges find(a, b) -> k (or -1) looks up, merge k
    making made[k] at rank ranks[k] (ranks None: rank k): lowest rank first, leftmost first
    (tokenizers' Word.merge_all, heap and all) -> [(id, start, end)]."""
    n = len(symbols)
    if n < 2:
        return [tuple(s) for s in symbols]
    ids = [s[0] for s in symbols]
    ends = [s[2] for s in symbols]
    nxt, prev, alive = list(range(1, n + 1)), list(range(-1, n - 1)), [True] * n
    nxt[-1] = -1
    heap = []
    for i in range(n - 1):
        k = find(ids[i], ids[i + 1])
        if k >= 0:
            heap.append((k if ranks is None else ranks[k], i, k))
    heapify(heap)
    while heap:
        _, pos, k = heappop(heap)
        j = nxt[pos]
        if not alive[pos] or j == -1:
            continue
        now = find(ids[pos], ids[j])
        new_id = made[k]
        if now < 0 or made[now] != new_id:
            continue  # an expired entry (as there: one whose pair now makes the same id holds)
        ids[pos], ends[pos], alive[j] = new_id, ends[j], False
        after = nxt[j]
        nxt[pos] = after
        if after != -1:
            prev[after] = pos
        before = prev[pos]
        if before != -1:
            k = find(ids[before], new_id)
            if k >= 0:
                heappush(heap, (k if ranks is None else ranks[k], before, k))
        if after != -1:
            k = find(new_id, ids[after])
            if k >= 0:
                heappush(heap, (k if ranks is None else ranks[k], pos, k))
    return [(ids[i], symbols[i][1], ends[i]) for i in range(n) if alive[i]]


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


def model_from_json(model):
    """A non-byte-level "model" of a tokenizer.json -> a Model (BPE, WordPiece, Unigram,
    WordLevel)."""
    kind = model.get("type")
    if kind is None:  # tokenizers guesses from the fields
        kind = "Unigram" if is_list(model.get("vocab")) else (
            "BPE" if "merges" in model else "WordPiece")
    if kind == "BPE":
        return BPE(model)
    if kind == "WordPiece":
        return WordPiece(model)
    if kind == "Unigram":
        return Unigram(model)
    if kind == "WordLevel":
        return WordLevel(model)
    raise ValueError(f"the model {kind!r} is not implemented here (only BPE, WordPiece, "
                     "Unigram and WordLevel are)")
