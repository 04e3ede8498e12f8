"""ScorePairs: a SentencePiece-style vocab's merges (a GGUF 'llama' file's) found by text
rather than kept, as llama.cpp's llm_tokenizer_spm finds them: the pair (a, b) merges iff
the text piece(a) + piece(b) is a piece, making that piece's id, ranked by its score
(equal scores equal, so the leftmost merges first). These are exactly gguf_parts.ScoreMerges'
merges (every split of a piece into two pieces), so a BPE model ranks and merges as it did
from their table, without the table (issue 32: Llama 2's 61k merges as a MergeTable, its
made and rank arrays and the char pairs of the made pieces were 3 x its file).

It is also the document's "merges" (a MergesText): written or listed, it is ScoreMerges'
list, made again then. bpe.formats.hf.bpe_model.BPE reads it as its merges.
"""
import math
from array import array

from ..gguf_parts import ScoreMerges, by_score
from .document_parse import MergesText


class ScorePairs(MergesText):
    """The merges of table (a PieceIds, slot k is id k) ranked by scores (id -> score).
    finder() is the hot loop's lookup; columns() and packed() derive ScoreMerges' order
    when asked (the Vocabulary page, a digest)."""

    __slots__ = ("table", "scores")

    def __init__(self, table, scores, source):
        if table.ids is not None:
            raise ValueError(f"{source}: a SentencePiece-style vocab's ids are its slots; "
                             "this table numbers them apart")
        if any(map(math.isnan, scores)):  # ScoreMerges' sentence, said at load
            raise ValueError(f"{source}: a GGUF SentencePiece-style ('llama') token has a "
                             "score that is not a number, so its merges have no order; the "
                             "file is damaged")
        self.table, self.scores, self.source, self.is_list = table, scores, source, True

    def slices(self):
        return ScoreMerges(self.table, self.scores, self.source).slices()

    def __len__(self):
        return len(ScoreMerges(self.table, self.scores, self.source))

    def ranks(self):
        """id -> the rank of a merge that makes it: how many distinct scores of the file's
        tokens are higher, read off the ids in score order (by_score: no set or dict of
        every score, which were 5 x Llama 2's file); 2 bytes a rank when they fit (a
        rank is below the number of ids)."""
        scores = self.scores
        code = "h" if len(scores) <= 1 << 15 else "i"
        rank_of, rank, last = array(code, bytes(array(code).itemsize * len(scores))), -1, None
        for idx in by_score(scores):
            score = scores[idx]
            if score != last:
                rank, last = rank + 1, score
            rank_of[idx] = rank
        return rank_of

    def finder(self):
        """find(a, b) -> the id the pair makes (its own merge number: made is the
        identity), or -1: the joined text looked up in the table. subtle: an id whose text
        a later id owns (PieceIds.shadowed) is in no merge, as in ScoreMerges; the owner
        the probe gives is the made id ScoreMerges lists."""
        table = self.table
        text, offsets, slots, slot_mask = table.text, table.offsets, table.table, table.table_mask
        filt, mask, shadowed = table.filter, table.mask, table.shadowed

        def find(a, b):
            joined = text[offsets[a]:offsets[a + 1]] + text[offsets[b]:offsets[b + 1]]
            h = hash(joined)
            if not filt[h & mask]:
                return -1
            # subtle: PieceIds' probe (its slot()) inline: a call less per pair, the hot
            # loop's most frequent one
            n, i = len(joined), h & slot_mask
            while (s := slots[i]) >= 0:
                at = offsets[s]
                if offsets[s + 1] - at == n and text.startswith(joined, at):
                    return s
                i = (i + 1) & slot_mask
            return -1

        if not shadowed:
            return find
        return lambda a, b: -1 if a in shadowed or b in shadowed else find(a, b)

    def _merges(self):
        """(made, left, right): ScoreMerges' merges in its order, as three id arrays."""
        merges = ScoreMerges(self.table, self.scores, self.source)
        find, text, offsets = self.table.finder(), self.table.text, self.table.offsets
        left, right = array("i"), array("i")
        for idx, cut in zip(merges.made, merges.cuts):
            at = offsets[idx] + cut
            left.append(find(text[offsets[idx]:at]))
            right.append(find(text[at:offsets[idx + 1]]))
        return merges.made, left, right

    def columns(self):
        """MergeTable.columns' (merge number, left, right) in merge order: the number a
        merge has here is the id it makes."""
        return self._merges()

    def packed(self):
        """(left, right, ranks): what a BPE model kept of these merges as a MergeTable and
        ranks by score (bpe_model.BPE.packed_merges, for a digest), made now."""
        made, left, right = self._merges()
        rank_of = self.ranks()
        return left, right, array("i", map(rank_of.__getitem__, made))

    def __eq__(self, other):
        if not isinstance(other, ScorePairs):
            return NotImplemented
        return self.table == other.table and list(self.scores) == list(other.scores)

    __hash__ = None

    def __reduce__(self):
        return (ScorePairs, (self.table, self.scores, self.source))

