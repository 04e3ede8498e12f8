"""BPE without byte-level, as `tokenizers` runs it (SentencePiece style, Llama 2's files:
byte_fallback, unk_token, fuse_unk, continuing_subword_prefix, end_of_word_suffix,
ignore_merges): each character a token, then merges, lowest rank first, leftmost first.
Its vocab is a PieceIds and its merges a MergeTable (issue 32: a file's dicts of strs and
tuples cost ten times the file). Byte-level BPE is bpe.formats.hf.bytelevel; the other
models bpe.formats.hf.models. Nothing here normalizes or splits text.
"""
from array import array
from heapq import heapify, heappop, heappush

from ... import budgets
from .merge_table import LookupCache, MergeTable
from .models import Model, read_unk
from .score_bpe import ScorePairs
from .vocabs import is_list, read_piece_ids

LONG_PIECE = 256  # longer pieces are cut into segments merges cannot cross (BPE.tokens)


class BPE(LookupCache, Model):
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
        self.unk = read_unk(model, vocab, "BPE")
        self.fuse_unk = bool(model.get("fuse_unk"))
        self.byte_fallback = bool(model.get("byte_fallback"))
        self.ignore_merges = bool(model.get("ignore_merges"))
        # every piece symbols() can look up: a character, with the prefix and the suffix
        # or not; so a lookup here is the vocab's
        lengths = {1, 1 + len(prefix), 1 + len(suffix), 1 + len(prefix) + len(suffix)}
        self.singles = {piece: idx for piece, idx in vocab.items() if len(piece) in lengths}
        self.fallback_ids = [vocab.get(f"<0x{b:02X}>") for b in range(256)]
        self.segments = {}  # a long piece's segment -> its tokens (see tokens)
        merges = model.get("merges") or []
        if isinstance(merges, ScorePairs):
            self._score_merges(merges)
        else:
            self._read_merges(merges)

    def _read_merges(self, merges):
        """merges (a MergeTable of (id, id) -> merge number k, a later duplicate winning,
        as there), made[k] (the id merge k makes) and ranks (None: merge k ranks k; a GGUF
        file ranks by score, bpe.gguf_tokenizer.rank_by_score), packed as the file's merges
        come (issue 32: no tuple or int object per merge kept)."""
        if not is_list(merges):
            budgets.expect(merges, list, '"merges"')  # its sentence
        find = self.vocab.finder()
        left, right, made_slots = array("i"), array("i"), array("i")  # vocab slots, for now
        cut = len(self.prefix.encode("utf-8"))
        for rank, merge in enumerate(merges):
            pair = merge.split(" ") if isinstance(merge, str) else merge
            if not (isinstance(pair, list) and len(pair) == 2 and isinstance(pair[0], str)
                    and isinstance(pair[1], str)):
                raise ValueError(f"merge {rank} is {merge!r:.40}; expected 'left right' or "
                                 "[left, right]")
            a, b = pair
            if not cut:
                made = a + b
            else:
                try:  # tokenizers cuts the prefix's length off the right part, whatever it is
                    made = a + b.encode("utf-8")[cut:].decode("utf-8")
                except UnicodeDecodeError:
                    made = None
            slots = find(a), find(b), -1 if made is None else find(made)
            if -1 in slots:
                raise ValueError(f"merge {rank} {pair} uses or makes a token that is not in "
                                 "the vocab")
            left.append(slots[0])
            right.append(slots[1])
            made_slots.append(slots[2])
        ids = self.vocab.ids  # slots to ids in C (None: a slot is its id)
        if ids is not None:
            left, right, made_slots = (array("i", map(ids.__getitem__, column))
                                       for column in (left, right, made_slots))
        self.made, self.ranks = made_slots, None
        self.merges = MergeTable(left, right)
        self.adjacent = self._adjacent()

    def _score_merges(self, merges):
        """A SentencePiece-style vocab's merges found by text (a GGUF 'llama' file's
        ScorePairs, no table kept): find(a, b) gives the made id itself, so made is the
        identity and ranks the rank of each id's score."""
        if self.prefix or self.suffix or self.ignore_merges:
            raise ValueError("merges ranked by score have no continuing_subword_prefix, "
                             "end_of_word_suffix or ignore_merges; set them to null/false")
        self.merges, self.made, self.ranks = merges, range(self.vocab.n_slots), merges.ranks()
        self.adjacent = self._adjacent()

    def _adjacent(self):
        """single -> the characters that stand right after it in some token a merge makes
        (in any piece, for ScorePairs: a superset, so fewer cuts, never a wrong one), as one
        str: a dict sharing singles' keys, not a set of (char, char) tuples (issue 32: Llama
        2's were 0.6 x its file, a set of two-char strs 0.5 x, this 0.2 x; a filter of the
        pairs' hashes was smaller but cost an encode 30% in hash calls)."""
        if isinstance(self.merges, ScorePairs):
            pieces = iter(self.vocab)
        else:
            pieces = map(self.vocab.piece, self.made)
        follow = dict.fromkeys(self.singles, "")
        for piece in pieces:
            for left, right in zip(piece, piece[1:]):
                after = follow.get(left)
                if after is not None and right not in after:  # None: left is no token itself
                    follow[left] = after + right
        return follow

    def merge_columns(self):
        """(made ids, left ids, right ids) of every pair that merges, lowest rank first:
        three arrays (ScorePairs' made now: 0.3 s of CPU for Llama 2's 61k)."""
        ks, lefts, rights = self.merges.columns()
        if self.ranks is not None:  # stable: equal ranks in merge order
            order = sorted(range(len(ks)), key=lambda i: self.ranks[ks[i]])
            ks, lefts, rights = ([column[i] for i in order] for column in (ks, lefts, rights))
        made = self.made
        return array("q", map(made.__getitem__, ks)), array("q", lefts), array("q", rights)

    @property
    def packed_merges(self):
        """What merge_columns says, as kept (the table's arrays, a GGUF file's ranks by
        score; ScorePairs' made now, the same arrays): for a digest."""
        if isinstance(self.merges, ScorePairs):
            return self.merges.packed()
        return self.merges.left, self.merges.right, self.ranks

    def tokens(self, piece):
        if self.ignore_merges and piece in self.vocab:
            return [(self.vocab[piece], 0, len(piece))]
        if len(piece) > LONG_PIECE and not self.prefix and not self.suffix:
            return self._long_tokens(piece)
        return self._merge_all(self.symbols(piece))

    def _merge_all(self, symbols):
        return merge_all(symbols, self._lookup(), self.made, self.ranks)

    def _make_lookup(self):
        return self.merges.finder()

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
            if i < len(piece) and (piece[i - 1] not in singles or piece[i] not in singles
                                   or piece[i] in adjacent[piece[i - 1]]):
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
    # an entry: (rank, pos, k, left id, right id), the pair as it was when pushed
    for i in range(n - 1):
        a, b = ids[i], ids[i + 1]
        k = find(a, b)
        if k >= 0:
            heap.append((k if ranks is None else ranks[k], i, k, a, b))
    heapify(heap)
    while heap:
        _, pos, k, a, b = heappop(heap)
        j = nxt[pos]
        if not alive[pos] or j == -1:
            continue
        new_id = made[k]
        # subtle: the same pair still there makes the same merge, found again only when it
        # changed (a lookup per pop was a third of them: ScorePairs' cost more than a table's)
        if ids[pos] != a or ids[j] != b:
            now = find(ids[pos], ids[j])
            if now < 0 or made[now] != new_id:
                continue  # an expired entry (as there: one whose pair now makes the same id holds)
        ids[pos], ends[pos], alive[j] = new_id, ends[j], False
        after = nxt[j]
        nxt[pos] = after
        if after != -1:
            prev[after] = pos
        before = prev[pos]
        if before != -1:
            a = ids[before]
            k = find(a, new_id)
            if k >= 0:
                heappush(heap, (k if ranks is None else ranks[k], before, k, a, new_id))
        if after != -1:
            b = ids[after]
            k = find(new_id, b)
            if k >= 0:
                heappush(heap, (k if ranks is None else ranks[k], pos, k, new_id, b))
    return [(ids[i], symbols[i][1], ends[i]) for i in range(n) if alive[i]]
