"""unigram: our own Unigram language model trainer (Kudo 2018), as sentencepiece trains it.

The model: every piece has a probability; a word is split into the pieces of highest total
log-probability (Viterbi over the lattice of pieces that spell it). Training, following
sentencepiece's unigram_model_trainer.cc step for step (its constants: shrinking_factor
0.75, num_sub_iterations 2, stop at 1.1 x the vocab size, then keep the best by score):
1. words: the text is split before every space (" ?[^ \\t\\n\\r]+", each other whitespace
   character alone) and counted; each unique word is worked on once, weighted by its count.
2. seed: every character (those covering 99.95% of the text; the rarest go to byte
   fallback) and the substrings of up to 16 characters seen at least twice, the top
   SEED_FACTOR x vocab_size by frequency x length; score = log(frequency / total).
3. EM, num_sub_iterations times: the E-step runs forward-backward over each word's lattice
   (all of them held as one graph over the words' distinct prefixes, so a prefix shared by
   many words is worked once) and sums each piece's expected count; the M-step drops pieces expected less than 0.5
   times and sets score = digamma(count) - digamma(total) (sentencepiece's Bayesian
   re-estimation, which favours frequent pieces).
4. prune: the Viterbi split of every word counts each piece's use; a piece whose own best
   split is not itself goes; for the rest, the loss is how much the corpus likelihood drops
   if its uses go to its second-best split; keep the max(1.1 x vocab, 0.75 x size) pieces of
   highest loss (single characters always stay). Repeat 3-4 until small enough.

The result is a tokenizer.json Unigram model run by bpe.formats.hf.tokenizer_json (proven against
`tokenizers`), so it exports and loads anywhere: ids 0 "<unk>", then the special tokens,
then the 256 byte pieces "<0x00>".."<0xFF>", then the pieces by score. A character with
no piece is written as its UTF-8 bytes, so every text decodes back exactly.

DIFFERENCES from sentencepiece (model_type="unigram", byte_fallback=True), and why.
"""
import math
import re
import statistics
import time
from collections import Counter, namedtuple
from bisect import bisect_right
from heapq import heappush, heappushpop
from itertools import chain, compress
from operator import itemgetter

from ..hf_tokenizer import tokenizer_from_hf
from ..train import MergeProgress
from .hf_bpe import added_tokens, check_specials

DIFFERENCES = (
    "Spaces stay spaces in the pieces (' the', not '▁the'): sentencepiece's '▁' would turn a "
    "'▁' already in the text into a space when decoded, and here every text round-trips.",
    "No normalization (sentencepiece applies NFKC by default): the text is kept byte for "
    "byte, again so that it round-trips.",
    "The seed is every substring of up to 16 characters seen twice, counted over unique "
    "words, capped at SEED_FACTOR x vocab_size pieces (sentencepiece: frequent substrings "
    "from a suffix array, up to 1,000,000); a smaller seed keeps pure-Python EM fast.",
    "Pieces may mix scripts, digits and letters (sentencepiece splits by Unicode script and "
    "by number by default).",
    "Words are trained on cut at characters left to byte fallback and into 24-character "
    "chunks (pieces are at most 16 long anyway; sentencepiece puts an unknown node there), "
    "so the E-step can run in probabilities, not logarithms.",
)
__doc__ += "".join(f"\n- {line}" for line in DIFFERENCES) + "\n"

UNK = "<unk>"
SHRINKING_FACTOR = 0.75
NUM_SUB_ITERATIONS = 2
MAX_PIECE_LENGTH = 16
CHARACTER_COVERAGE = 0.9995
LIGHT = 8  # the seed counts a prefix weighing up to this in C, once per unit (see _seed)
SEED_FACTOR = 2  # tinyshakespeare 2000: 1 gives 11% more held-out tokens, 4 gives 4% fewer
# at 1.5x the training time (bench/results/methods_hf.md)
EXPECTED_FREQUENCY_THRESHOLD = 0.5
VOCAB_MARGIN = 1.1
CHUNK = 24
# STARTS[n]: where a piece ending a string of n characters may start, nearest first
STARTS = [range(n - 1, max(n - MAX_PIECE_LENGTH, 0) - 1, -1) for n in range(CHUNK + 1)]
FLOOR_SCORE = -1e4  # <unk> and byte pieces: used only for characters no piece covers
SPLIT = r" ?[^ \t\n\r]+|[ \t\n\r]"
WORDS = re.compile(SPLIT)
BYTE_PIECES = [f"<0x{byte:02X}>" for byte in range(256)]
# subtle: a text may hold "<0x41>" literally; with these characters always pieces, spelling
# it out beats the byte piece's floor score, so it is never read back as "A"
ALWAYS = set("<>x0123456789ABCDEF")


def train(texts, vocab_size, *, min_frequency=1, special_tokens=(), progress=None):
    """Train a Unigram LM with byte fallback on texts (a list of documents).

    min_frequency: a word seen fewer times is left out of training (its characters still
    count for coverage). progress: MergeProgress after each EM or pruning step (done/total
    over the steps expected; idx is the number of pieces still in the running, pair and
    count are empty, token is b"").

    >>> tok = train(["low lower lowest " * 20, "new newer newest " * 20], 300)
    >>> text = "lowest newer <0x41> ▁é"
    >>> tok.decode(tok.encode(text)) == text
    True
    """
    special_tokens = check_specials(special_tokens, "unigram")
    meta = 1 + len([t for t in dict.fromkeys(special_tokens) if t != UNK]) + 256
    document = {
        "version": "1.0", "truncation": None, "padding": None,
        "added_tokens": added_tokens([UNK] + [t for t in special_tokens if t != UNK]),
        "normalizer": {"type": "Prepend", "prepend": " "},
        "pre_tokenizer": {"type": "Split", "pattern": {"Regex": SPLIT},
                          "behavior": "Isolated", "invert": False},
        "post_processor": None,
        "decoder": {"type": "Sequence", "decoders": [
            {"type": "ByteFallback"}, {"type": "Fuse"},
            {"type": "Strip", "content": " ", "start": 1, "stop": 0}]},
    }
    word_counts = count_words(texts)
    chars = _required_chars(word_counts)
    if vocab_size < meta + len(chars):
        raise ValueError(f"unigram needs {meta} ids for <unk>, the special tokens and the "
                         f"256 byte pieces, and {len(chars)} for this corpus's characters; "
                         f"vocab_size must be at least {meta + len(chars)}, not {vocab_size}")
    words = [(word, count) for word, count in word_counts.items() if count >= min_frequency]
    scores = train_pieces(words, vocab_size - meta, chars, progress)
    pieces = sorted(scores.items(), key=lambda item: (-item[1], item[0]))
    vocab = [[UNK, FLOOR_SCORE]] + [[t, FLOOR_SCORE] for t in dict.fromkeys(special_tokens)
                                    if t != UNK]
    vocab += [[piece, FLOOR_SCORE] for piece in BYTE_PIECES] + [[p, s] for p, s in pieces]
    document["model"] = {"type": "Unigram", "unk_id": 0, "vocab": vocab, "byte_fallback": True}
    tok = tokenizer_from_hf(document, source="unigram")
    tok.name = f"unigram {len(vocab)}"
    return tok


def piece_scores(tok):
    """{piece: log-probability} of a Unigram tokenizer's learned pieces, best first (not
    <unk>, the special tokens or the byte pieces): what a page shows in place of merges.
    Read from its tokenizer.json, so it survives pickling to and from a worker."""
    model = tok.document["model"]
    first = 1 + len(tok.special_tokens) - (UNK in tok.special_tokens) + len(BYTE_PIECES)
    return {piece: score for piece, score in model["vocab"][first:]}


def count_words(texts):
    """{word: count} over the documents, in order of first occurrence: what the document's
    Prepend normalizer and Split pre-tokenizer make of each (bpe.formats.hf.tokenizer_json's pipeline gives
    the same pieces, tests/bpe/test_methods_unigram.py; this is one regex, 5x faster)."""
    # every step in C: the documents' words end to end into one Counter (a dict, so in
    # order of first occurrence); an empty document has no words, not " "
    return Counter(chain.from_iterable(map(WORDS.findall, map(" ".__add__, filter(None, texts)))))


def _required_chars(word_counts):
    """The characters that cover CHARACTER_COVERAGE of the text (most frequent first), plus
    ALWAYS; a rarer one is spelled in byte pieces."""
    by_count = {}  # count -> the words seen that often, joined: Counter counts their
    for word, count in word_counts.items():  # characters in C, not one by one
        by_count.setdefault(count, []).append(word)
    freq = {}
    for count, group in by_count.items():
        for ch, n in Counter("".join(group)).items():
            freq[ch] = freq.get(ch, 0) + n * count
    total = sum(freq.values())
    kept, covered = set(ALWAYS), 0
    for ch, count in sorted(freq.items(), key=lambda item: (-item[1], item[0])):
        if covered >= CHARACTER_COVERAGE * total:
            break
        kept.add(ch)
        covered += count
    return kept


def train_pieces(words, size, chars, progress=None):
    """[(word, count)] -> {piece: score} of at most `size` pieces (every char of chars
    among them), by seed, EM and pruning (see the module)."""
    chunks = {}
    for word, count in words:
        if len(word) <= CHUNK and chars.issuperset(word):  # most words: one chunk, whole
            chunks[word] = chunks.get(word, 0) + count
            continue
        # a character left to byte fallback cuts the word: no piece may hold it
        for run in _covered_runs(word, chars):
            for start in range(0, len(run), CHUNK):
                chunk = run[start:start + CHUNK]
                chunks[chunk] = chunks.get(chunk, 0) + count
    words = list(chunks.items())
    prefixes = _prefix_weights(words)
    seed = _seed(prefixes, size, chars)
    pieces = list(seed)                       # pid -> piece
    ends = _ends(pieces)
    score = list(seed.values())               # pid -> log-probability, None once dropped
    is_char = [piece in chars for piece in pieces]
    # the words' lattices once, as one graph (see _graph), cut down as pieces go
    graph = _graph(prefixes, words, ends)
    desired = max(int(size * VOCAB_MARGIN), len(chars))
    rounds = max(1, math.ceil(math.log(max(len(pieces), 1) / desired)
                              / -math.log(SHRINKING_FACTOR)) + 1)
    total = rounds * (NUM_SUB_ITERATIONS + 1)
    done = 0
    start = time.perf_counter()

    def step():
        nonlocal done
        done += 1
        if progress is not None:
            progress(MergeProgress(min(done, total), total, _alive(score), (), b"", 0,
                                   time.perf_counter() - start))
    last = list(score)  # pid -> its latest score, kept after it is dropped

    def remember(new):
        for pid, s in enumerate(new):
            if s is not None:
                last[pid] = s
        return new
    while True:
        for _ in range(NUM_SUB_ITERATIONS):
            score = remember(_m_step(_e_step(graph, score, pieces), score, is_char))
            step()
        if _alive(score) <= desired:
            break
        score = _prune(graph, score, pieces, ends, is_char, desired)
        # subtle: a dropped piece's edges add exactly nothing (the E-step weighs them 0,
        # the Viterbi never takes them), so they go only here, where most pieces go
        graph = _without_dropped(graph, score)
        step()
    # keep the best `size` by score, characters first (sentencepiece's Finalize). subtle:
    # the M-step may drop so many pieces that fewer than `size` are left (the seed is
    # small); the dropped ones then fill up by their last score, below every kept piece
    kept = {piece: score[pid] for pid, piece in enumerate(pieces) if is_char[pid]}
    alive = sorted((pid for pid, s in enumerate(score) if s is not None),
                   key=lambda pid: -score[pid])
    dropped = sorted((pid for pid, s in enumerate(score) if s is None),
                     key=lambda pid: -last[pid])
    floor = min([score[pid] for pid in alive] + list(kept.values()), default=0.0)
    for pid in alive + dropped:
        if len(kept) >= size:
            break
        kept.setdefault(pieces[pid], score[pid] if score[pid] is not None
                        else min(last[pid], floor) - 1.0)
    return kept


def _alive(score):
    return sum(s is not None for s in score)


def _covered_runs(word, chars):
    """The runs of word made of chars only.

    >>> _covered_runs("a\tbc", set("abc"))
    ['a', 'bc']
    """
    runs, start = [], 0
    for i, ch in enumerate(word):
        if ch not in chars:
            if i > start:
                runs.append(word[start:i])
            start = i + 1
    if len(word) > start:
        runs.append(word[start:])
    return runs


def _prefix_weights(words):
    """[(word, count)] -> {every prefix of the words: the total count of the words that
    start with it}, shortest first. An occurrence of a string in a word ends a prefix of
    it, so a string's frequency is the sum of the weights of the prefixes it ends: a sum
    over distinct prefixes (tinyshakespeare: 54k), not over every character (193k).

    >>> _prefix_weights([("ab", 3), ("ac", 1)])
    {'a': 4, 'ab': 3, 'ac': 1}
    """
    # length by length, so shortest first with no sort; within a length, in order of
    # first occurrence
    strings, counts = [word for word, _ in words], [count for _, count in words]
    weights = {}
    end = 1
    while strings:
        for prefix, count in zip(map(itemgetter(slice(0, end)), strings), counts):
            weights[prefix] = weights.get(prefix, 0) + count
        longer = list(map(end.__lt__, map(len, strings)))
        strings, counts = list(compress(strings, longer)), list(compress(counts, longer))
        end += 1
    return weights


def _seed(prefixes, size, chars):
    """The seed pieces: chars, and the SEED_FACTOR x size substrings of 2 to MAX_PIECE_LENGTH
    characters seen at least twice with the highest frequency x length (ties: the larger
    string), scored log(freq / total). prefixes: _prefix_weights.

    Counted length by length, as the endings of the prefixes, and only where the seed may
    still be: a prefix's ending s is grown one character to the left only while freq(s) x
    MAX_PIECE_LENGTH reaches the k-th best frequency x length found so far, since no
    longer string that ends with s is more frequent than s. Every prefix that ends with a
    string ends with its shorter endings too, so whatever is counted is counted in full:
    the seed is the one a count of every substring gives, at a fraction of the work."""
    k = int(SEED_FACTOR * size)
    char_freq = dict.fromkeys(chars, 0)
    for prefix, weight in prefixes.items():
        char_freq[prefix[-1]] += weight
    best = []  # min-heap of the k best (freq x length, substring) so far
    # the prefixes of 2+ characters, shortest first, apart by weight: most weigh little,
    # and a light one's ending is counted by Counter (in C) once per unit of its weight;
    # a heavier one is added in one by one
    light = {}  # weight -> [prefix], for weights up to LIGHT
    heavy = []  # [(prefix, weight)]
    for prefix, weight in prefixes.items():
        if len(prefix) > 1:
            if weight <= LIGHT:
                light.setdefault(weight, []).append(prefix)
            else:
                heavy.append((prefix, weight))
    length = 2
    while light or heavy:
        ending = itemgetter(slice(-length, None))
        freq = Counter()
        light_subs = {}
        for weight, group in light.items():
            subs = light_subs[weight] = list(map(ending, group))
            for _ in range(weight):
                freq.update(subs)
        heavy_subs = [prefix[-length:] for prefix, _ in heavy]
        for sub, (_, weight) in zip(heavy_subs, heavy):
            freq[sub] = freq.get(sub, 0) + weight
        for sub, f in freq.items():
            if f >= 2:
                item = (f * length, sub)
                if len(best) < k:
                    heappush(best, item)
                elif item > best[0]:
                    heappushpop(best, item)
        if length == MAX_PIECE_LENGTH:
            break
        bound = best[0][0] if len(best) == k else 0
        grow = {sub for sub, f in freq.items() if f >= 2 and f * MAX_PIECE_LENGTH >= bound}
        # the prefixes of this length are done; they come first in each group
        for weight, group in list(light.items()):
            cut = bisect_right(group, length, key=len)
            light[weight] = list(compress(group[cut:], map(grow.__contains__,
                                                           light_subs[weight][cut:])))
            if not light[weight]:
                del light[weight]
        heavy = [item for item, sub in zip(heavy, heavy_subs)
                 if sub in grow and len(item[0]) > length]
        length += 1
    seed = {sub: value // len(sub) for value, sub in sorted(best, reverse=True)}
    seed.update({ch: max(count, 1) for ch, count in char_freq.items()})
    logsum = math.log(sum(seed.values()))
    return {piece: math.log(count) - logsum for piece, count in seed.items()}


def _ends(pieces):
    """{every suffix of every piece: its pid, or -1 if it is not a piece itself}.

    >>> _ends(["abc", "c"])
    {'c': 1, 'bc': -1, 'abc': 0}
    """
    ends = {}
    for piece in pieces:
        for start in range(len(piece) - 1, 0, -1):
            ends.setdefault(piece[start:], -1)
    for pid, piece in enumerate(pieces):
        ends[piece] = pid
    return ends


def _pieces_ending(text, ends):
    """[(start, pid)] of the pieces text[start:] that end text, leftmost first; the search
    stops at the first text[start:] that ends no piece (ends: _ends).

    >>> _pieces_ending("xabc", _ends(["abc", "c", "bc"]))
    [(1, 0), (2, 2), (3, 1)]
    """
    found = []
    for start in STARTS[len(text)]:
        pid = ends.get(text[start:])
        if pid is None:
            break
        if pid >= 0:
            found.append((start, pid))
    found.reverse()
    return found


# edges (sources[e], targets[e], pids[e]) by target; nodes: how many; words: each word's
# node; counts: each word's count
Graph = namedtuple("Graph", "sources targets pids nodes words counts")


def _graph(prefixes, words, ends):
    """The words' lattices as one Graph over their distinct prefixes (prefixes:
    _prefix_weights, shortest first): node 0 is "", and an edge says prefix `target` is
    prefix `source` followed by piece `pid`. A word's own lattice is the graph on its
    prefixes, so words sharing a prefix share its edges (tinyshakespeare: 54k prefixes
    for 193k characters), and every pass below is a pass over the graph, not each word.

    >>> words = [("ab", 3), ("a", 1)]
    >>> g = _graph(_prefix_weights(words), words, _ends(["a", "b", "ab"]))
    >>> list(zip(g.sources, g.targets, g.pids)), g.words
    ([(0, 1, 0), (0, 2, 2), (1, 2, 1)], [2, 1])
    """
    node = {"": 0}
    node.update(zip(prefixes, range(1, len(prefixes) + 1)))
    parent = [0]  # node -> the node one character shorter
    parent += map(node.__getitem__, map(itemgetter(slice(0, -1)), prefixes))
    sources, targets, pids = [], [], []
    # shortest first: an edge's source comes before its target
    for target, prefix in enumerate(prefixes, 1):
        source = parent[target]
        first = len(sources)  # this target's edges go here, longest piece first
        # (_pieces_ending, inlined: 2x faster); prefix[:start] is the node `source`,
        # walked up one parent per step
        for start in STARTS[len(prefix)]:
            pid = ends.get(prefix[start:])
            if pid is None:
                break
            if pid >= 0:
                sources.insert(first, source)
                pids.insert(first, pid)
                targets.append(target)
            source = parent[source]
    return Graph(sources, targets, pids, len(node), [node[word] for word, _ in words],
                 [count for _, count in words])


def _without_dropped(graph, score):
    """The graph without the edges of pieces whose score is None."""
    keep = [score[pid] is not None for pid in graph.pids]
    return graph._replace(sources=list(compress(graph.sources, keep)),
                          targets=list(compress(graph.targets, keep)),
                          pids=list(compress(graph.pids, keep)))


def _e_step(graph, score, pieces):
    """Each piece's expected count over all words: forward-backward on the graph.

    Forward, alpha[node] sums the weights of the paths from "" to the prefix. Backward,
    outside[node] sums, over the words that start with the prefix, count / alpha[word]
    times the weights of the paths from the prefix to the word's end; an edge's expected
    count is then alpha[source] x its weight x outside[target], the sum over the words of
    each word's forward-backward posterior for that piece at that place.

    subtle: in probabilities, each edge weighted by exp(score + per_char * length): every
    path spells the whole word, so all gain the same factor and the posteriors are
    unchanged, while products stay near 1 instead of underflowing."""
    alive = [pid for pid, s in enumerate(score) if s is not None]
    per_char = -statistics.median(score[pid] / len(pieces[pid]) for pid in alive)
    weight = [0.0] * len(score)  # a dropped piece weighs 0: its edges add nothing
    for pid in alive:
        weight[pid] = math.exp(min(700.0, score[pid] + per_char * len(pieces[pid])))
    sources, targets, pids = graph.sources, graph.targets, graph.pids
    weights = list(map(weight.__getitem__, pids))
    alpha = [0.0] * graph.nodes
    alpha[0] = 1.0
    for p, q, w in zip(sources, targets, weights):
        alpha[q] += alpha[p] * w
    outside = [0.0] * graph.nodes
    for q, count in zip(graph.words, graph.counts):
        z = alpha[q]
        if not 0.0 < z < math.inf:
            raise ArithmeticError("unigram: a word's lattice under/overflowed")
        outside[q] = count / z
    expected = [0.0] * len(score)
    # subtle: backwards by target, every edge leaving q comes before any edge into q, so
    # outside[q] is complete when read, and each edge's share is known right there
    for p, q, w, pid in zip(reversed(sources), reversed(targets), reversed(weights),
                            reversed(pids)):
        share = w * outside[q]
        outside[p] += share
        expected[pid] += alpha[p] * share
    return expected


def _m_step(expected, score, is_char):
    """Scores from expected counts: digamma(count) - digamma(total); a piece expected
    fewer than 0.5 times goes (a character stays, counted at least 0.5)."""
    # subtle: the floor keeps every character usable, so every word stays spellable once
    # the longer pieces that covered it are pruned
    kept = {pid: max(f, EXPECTED_FREQUENCY_THRESHOLD) if is_char[pid] else f
            for pid, f in enumerate(expected)
            if score[pid] is not None and (is_char[pid] or f >= EXPECTED_FREQUENCY_THRESHOLD)}
    logsum = digamma(sum(kept.values()))
    out = [None] * len(score)
    for pid, f in kept.items():
        out[pid] = digamma(f) - logsum
    return out


def digamma(x):
    """The digamma function (d/dx log Gamma) for x > 0: recurrence up to 7, then the
    asymptotic series.

    >>> round(digamma(1.0), 6)  # minus the Euler-Mascheroni constant
    -0.577216
    """
    result = 0.0
    while x < 7:
        result -= 1 / x
        x += 1
    x -= 0.5
    xx2 = 1 / (x * x)
    xx4 = xx2 * xx2
    return (result + math.log(x) + xx2 / 24 - 7 * xx4 / 960 + 31 * xx4 * xx2 / 8064
            - 127 * xx4 * xx4 / 30720)


def _viterbi_uses(graph, score):
    """[pid -> how often the piece is used] in every word's Viterbi split, weighted by the
    word's count. Of two equal paths into a prefix, the one whose last piece starts
    further left wins; a dropped piece (score None) is never used.

    Counted without spelling out the paths: backwards over the nodes (longest prefix
    first), a node passes the count of the words whose best path runs through it on to
    its best path's last edge and that edge's source."""
    sources, targets, pids = graph.sources, graph.targets, graph.pids
    edge_score = [-math.inf if s is None else s for s in score]
    best = [-math.inf] * graph.nodes
    best[0] = 0.0
    back = [0] * graph.nodes  # node -> the edge its best path ends with
    for edge, (p, q, pid) in enumerate(zip(sources, targets, pids)):
        candidate = best[p] + edge_score[pid]
        if candidate > best[q]:
            best[q], back[q] = candidate, edge
    through = [0] * graph.nodes  # node -> the count of the words whose best path has it
    for q, count in zip(graph.words, graph.counts):
        through[q] = count
    uses = [0] * len(score)
    for q in range(graph.nodes - 1, 0, -1):  # a source is shorter, so numbered lower
        count = through[q]
        if count:
            edge = back[q]
            uses[pids[edge]] += count
            through[sources[edge]] += count
    return uses


def _best_splits(piece, pid, ends, score):
    """(the pids of piece's best split, those of its best split without pid; None where
    there is none). The same tie rule as _viterbi_uses. One pass: pid spans the whole
    piece, so up to the last character both are the same, and only the last piece differs.

    >>> pieces = ["ab", "a", "b"]
    >>> _best_splits("ab", 0, _ends(pieces), [-1.0, -2.0, -2.0])
    ([0], [1, 2])
    """
    n = len(piece)
    best = [-math.inf] * (n + 1)
    back = [None] * (n + 1)  # position -> (start, pid) of the best split's last piece
    best[0] = 0.0
    for j in range(1, n):
        for i, other in _pieces_ending(piece[:j], ends):
            s = score[other]
            if s is not None and best[i] + s > best[j]:
                best[j], back[j] = best[i] + s, (i, other)
    whole = without = (-math.inf, 0, None)  # (score, start, pid) of the last piece
    for i, other in _pieces_ending(piece, ends):
        s = score[other]
        if s is None:
            continue
        candidate = (best[i] + s, i, other)
        if candidate[0] > whole[0]:
            whole = candidate
        if other != pid and candidate[0] > without[0]:
            without = candidate

    def spelled(last):
        _, start, other = last
        if other is None:
            return None
        split = [other]
        while start:
            start, other = back[start]
            split.append(other)
        return split[::-1]
    return spelled(whole), spelled(without)


def _prune(graph, score, pieces, ends, is_char, desired):
    """Drop the pieces whose loss of corpus likelihood would be least (sentencepiece's
    PruneSentencePieces), down to max(desired, 0.75 x the current size)."""
    freq = _viterbi_uses(graph, score)
    total = sum(freq)
    logsum = math.log(total)
    out = [None] * len(score)
    candidates = []
    kept = 0
    for pid, s in enumerate(score):
        if s is None:
            continue
        if is_char[pid]:
            out[pid] = s
            kept += 1
            continue
        f = freq[pid]
        if f == 0:
            continue
        piece = pieces[pid]
        split, alternatives = _best_splits(piece, pid, ends, score)
        if split != [pid]:
            continue  # its own string splits better otherwise: it is never used whole
        logprob = math.log(f) - logsum
        logsum_alt = math.log(total + f * (len(alternatives) - 1))
        logprob_alt = sum(math.log(freq[alt] + f) - logsum_alt for alt in alternatives)
        candidates.append((f / total * (logprob - logprob_alt), pid))
    size = max(desired, int(SHRINKING_FACTOR * _alive(score)))
    candidates.sort(key=lambda item: -item[0])
    for _, pid in candidates[:max(0, size - kept)]:
        out[pid] = score[pid]
    return out
