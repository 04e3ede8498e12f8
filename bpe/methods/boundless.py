"""bpe.methods "boundless": BoundlessBPE (Schmidt et al. 2025, arXiv 2504.00178).

BPE within GPT-4's chunks (pretokens), plus "supermerges": two adjacent tokens on either
side of a pretoken boundary may merge when each is whole, i.e. covers whole pretokens
(a pretoken merged down to one token, or a superword made that way). " of" and " the",
once each is one token, can become the superword " of the". Ordinary merges and
supermerges compete in one ranking by count, so no transition size is chosen (unlike
SuperBPE); every pair keeps one id whichever kind it is.

Simplifications, said plainly:
- no supermerge crosses a pretoken holding a line break (each line is a training word,
  counted once however often it repeats);
- the paper also deletes tokens with Picky BPE's IoS rule and tunes its pretokenizer
  (its section 3.5 and appendix A); neither is done here (bpe.methods.picky does the
  deletions on its own);
- the paper's 20% more bytes per token is at a 1M-token-scale vocabulary on large data;
  bench/methods.py measures what shows at the lab's small sizes.

Tie rule: tie_break as bpe.train ("first", minbpe's, by default), by
bpe.methods.merging.Words.

Training cost: each distinct pretoken is merged once (weighted by its count), as in
plain BPE, and each line is a sequence of stand-ins that come alive as their pretokens
become whole (see `layout`); the lines are not deduplicated beyond whole repeats, so
the supermerge side costs one position per pretoken occurrence in the text, and the
positions are handed out in one pass in text order (no sort). Not done: a two-level
layout (distinct pretokens plus counts of adjacent pretoken pairs) that would build
line positions only where a supermerge lands; ordinary merges and supermerges share one
ranking and one count per pair, so it is not a plain BPE stage before a second one.

Encoding is consistent with training: each pretoken is merged on its own (inside a
pretoken every pair may merge, as in training), then each run of whole pretokens between
line breaks is merged lowest id first. A token's wholeness never changes once it exists,
so this is the order training merged the same text in. Decode is concatenation, so every
text round-trips.

>>> tok = train(["of the of the of the"], 262)
>>> [tok.vocab[i] for i in range(256, 262)]
[b'of', b' t', b' th', b' the', b' of', b' the of']
"""
from collections import defaultdict

from .. import documents
from ..encode import apply_merges
from ..regex import RegexTokenizer
from ..text import clean_text
from ..train import TrainResult
from .merge_loop import Clock, gc_paused, merge_until
from .merging import STAND_IN, Words
from .superbpe import rank_of


class BoundlessTokenizer(RegexTokenizer):
    """GPT-4's chunks merged on their own, then runs of whole ones merged together."""

    def _reset(self):
        super()._reset()
        self._rank = rank_of(self.merges)

    def model_text(self):
        raise ValueError("a BoundlessBPE tokenizer cannot be saved as a minbpe .model file: "
                         "that format merges inside GPT-4's chunks only, so its superwords "
                         "would never be made")

    def encode_ordinary(self, text):
        cache = self._cache
        ids = []
        for line in lines(self.split(clean_text(text))):
            units = [cache[chunk] for chunk in line]
            run = []
            for unit in units:
                if len(unit) == 1 and len(line) > 1:
                    run.append(unit[0])
                    continue
                if run:
                    ids.extend(apply_merges(run, self._rank))
                    run = []
                ids.extend(unit)
            if run:
                ids.extend(apply_merges(run, self._rank))
        return ids


def lines(chunks):
    """GPT-4 chunks grouped into lines: a chunk holding a line break stands alone.

    >>> lines(["a", " b", "\\n", "c"])
    [['a', ' b'], ['\\n'], ['c']]
    """
    out, run = [], []
    for chunk in chunks:
        if "\n" in chunk or "\r" in chunk:
            if run:
                out.append(run)
                run = []
            out.append([chunk])
        else:
            run.append(chunk)
    if run:
        out.append(run)
    return out


def layout(counts):
    """bpe.methods.merging.Words.laid_out's arguments (tok, wt, prv, nxt, where,
    copies) for lines counted in counts (a dict: tuple of chunks -> count, in order of
    first occurrence).

    Each distinct pretoken is one word, weighted by how often it occurs, so merges
    inside it cost its distinct occurrences, as in plain BPE; each line of two or more
    pretokens is a word of one token per pretoken: its single byte if it has one, else
    a stand-in that becomes the pretoken's token once the pretoken is merged whole.
    Positions follow the text (the lines end to end, a pretoken's bytes at its first
    occurrence, a line's token for a pretoken just after that pretoken's first byte),
    so the "first" tie rule sees each pair where the one-word-per-line loop would.
    Positions are handed out in that order in one pass, so each list is built in
    position order and each pair's positions come ascending with no sort.

    >>> tok, wt, prv, nxt, where, copies = layout({("of", " the"): 2, ("of",): 1})
    >>> tok, wt, prv, nxt
    ([111, -2, 102, 32, -2, 116, 104, 101], [3, 2, 3, 2, 2, 2, 2, 2], [-1, -1, 0, -1, 1, 3, 5, 6], [2, 4, -1, 5, -1, 6, 7, -1])
    >>> where, copies
    ({(111, 102): [0], (32, 116): [3], (116, 104): [5], (104, 101): [6]}, {0: [1], 3: [4]})
    """
    # pretoken -> [its bytes' positions, its line token (its byte, or STAND_IN), count,
    #              its stand-ins' positions]
    seen = {}
    tok, wt, prv, nxt = [], [], [], []
    where = defaultdict(list)
    for line, count in counts.items():
        multi = len(line) > 1  # a line of one pretoken has no pair across pretokens
        last = left = -1  # the line's previous token: its position and id
        for chunk in line:
            info = seen.get(chunk)
            rest = b""
            if info is None:  # its first byte here; the others after this line's token
                piece = chunk.encode("utf-8")
                rest = piece[1:]
                info = seen[chunk] = [[len(tok)], STAND_IN if rest else piece[0], 0, []]
                tok.append(piece[0])
                wt.append(0)  # the pretoken's count, filled in at the end
                prv.append(-1)
                nxt.append(-1)
            info[2] += count
            if multi:  # this line's token for the pretoken
                unit, unit_tok = len(tok), info[1]
                if unit_tok < 0:
                    info[3].append(unit)
                elif left >= 0:  # two bytes side by side: a pair from the start
                    where[left, unit_tok].append(last)
                tok.append(unit_tok)
                wt.append(count)
                prv.append(last)
                nxt.append(-1)
                if last >= 0:
                    nxt[last] = unit
                last, left = unit, unit_tok
            if rest:
                places = info[0]
                for byte in rest:
                    p, q = places[-1], len(tok)
                    where[tok[p], byte].append(p)
                    nxt[p] = q
                    tok.append(byte)
                    wt.append(0)
                    prv.append(p)
                    nxt.append(-1)
                    places.append(q)
    copies = {}  # position of a pretoken's first byte -> positions of its stand-ins
    for places, _, count, units in seen.values():
        for p in places:
            wt[p] = count
        if units:
            copies[places[0]] = units
    return tok, wt, prv, nxt, dict(where), copies


@gc_paused()
def train(texts, vocab_size, *, min_frequency=1, special_tokens=None, progress=None,
          tie_break="first"):
    """A BoundlessTokenizer of vocab_size tokens (fewer if pairs run out)."""
    tok = BoundlessTokenizer()
    specials = documents.check_specials(tok, special_tokens, vocab_size)
    size = vocab_size - len(specials)
    tok.check_train_args(size, min_frequency)
    counts = {}
    docs = (doc for text in texts for doc in documents.cut_at_specials(text, specials))
    for doc in docs:
        for line in lines(tok.split(clean_text(doc))):
            key = tuple(line)
            counts[key] = counts.get(key, 0) + 1
    state = Words.laid_out(*layout(counts), tie_break=tie_break)
    merges, merge_counts = {}, {}
    clock = Clock(progress, size - 256)
    stop_reason = merge_until(state, size, min_frequency, clock, merges, merge_counts)
    tok.apply_training(TrainResult(merges, merge_counts, stop_reason))
    return documents.register_after_merges(tok, specials)
