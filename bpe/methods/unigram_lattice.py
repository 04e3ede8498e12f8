"""unigram_lattice: the words' lattices of pieces as one graph, and the passes over it that
bpe.methods.unigram's training runs: forward-backward (the E-step's expected counts) and
Viterbi (each piece's uses in the best splits, and one piece's best split for pruning).

Not here: the seed, the M-step, pruning and the tokenizer (bpe.methods.unigram,
bpe.methods.unigram_seed). Encoding a text with a trained model is the tokenizer.json
Unigram model's job (bpe.formats.hf.models).

The graph's nodes are the words' distinct prefixes in sorted order, so every prefix comes
before the longer ones that extend it (node 0 is ""); an edge says prefix `target` is prefix
`source` followed by piece `pid`, and the edges come by target, so one pass in edge order
(forward) or against it (backward) sees every node's inputs complete.
"""
import math
import statistics
from collections import namedtuple
from itertools import compress
from operator import itemgetter

MAX_PIECE_LENGTH = 16
CHUNK = 24  # the longest word trained on (bpe.methods.unigram cuts longer ones)
# STARTS[n]: where a piece ending a string of n characters may start, nearest first
STARTS = [range(n - 1, max(n - MAX_PIECE_LENGTH, 0) - 1, -1) for n in range(CHUNK + 1)]

def ends_of(pieces):
    """{every suffix of every piece: its pid, or -1 if it is not a piece itself}.

    >>> ends_of(["abc", "c"])
    {'c': 1, 'bc': -1, 'abc': 0}
    """
    ends = {}
    for piece in pieces:
        for start in range(len(piece) - 1, 0, -1):
            ends.setdefault(piece[start:], -1)
    for pid, piece in enumerate(pieces):
        ends[piece] = pid
    return ends


def pieces_ending(text, ends):
    """[(start, pid)] of the pieces text[start:] that end text, leftmost first; the search
    stops at the first text[start:] that ends no piece (ends: ends_of).

    >>> pieces_ending("xabc", ends_of(["abc", "c", "bc"]))
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


# edges: [(source, target, pid)] by target; nodes: how many; words: each word's node, in
# node order; counts: each word's count. One list of tuples, so a pass unpacks each edge in
# one step
Graph = namedtuple("Graph", "edges nodes words counts")


def build_graph(prefixes, words, ends):
    """The words' lattices as one Graph over their distinct prefixes (prefixes: every
    prefix of the words, in any order, as bpe.methods.unigram_seed.prefix_weights gives
    them; words: distinct [(word, count)]): node 0 is "", the others numbered in sorted
    order, and an edge says prefix `target` is prefix `source` followed by piece `pid`. A
    word's own lattice is the graph on its prefixes, so words sharing a prefix share its
    edges (tinyshakespeare: 54k prefixes for 193k characters), and every pass below is a
    pass over the graph, not each word.

    >>> words = [("ab", 3), ("a", 1)]
    >>> g = build_graph(["a", "ab"], words, ends_of(["a", "b", "ab"]))
    >>> g.edges, g.words
    ([(0, 1, 0), (0, 2, 2), (1, 2, 1)], [1, 2])
    """
    # subtle: sorted is the prefix tree's depth-first order: a prefix comes before its
    # extensions (what every pass needs), and a node's parent and the sources of its edges
    # are numbered close to it, so the passes touch nearby floats: the E-step and Viterbi
    # take ~25% less CPU than over the prefixes shortest first (tinyshakespeare 2000),
    # for a sort that costs about one of the four E-steps' savings
    prefixes = sorted(prefixes)
    node = {"": 0}
    node.update(zip(prefixes, range(1, len(prefixes) + 1)))
    parent = [0]  # node -> the node one character shorter
    parent += map(node.__getitem__, map(itemgetter(slice(0, -1)), prefixes))
    edges = []
    ends_get = ends.get
    # an edge's source is a prefix of its target, so it comes first
    for target, prefix in enumerate(prefixes, 1):
        source = parent[target]
        here = []  # this target's edges, shortest piece first; stored longest first
        # (pieces_ending, inlined: 2x faster); prefix[:start] is the node `source`,
        # walked up one parent per step
        for start in STARTS[len(prefix)]:
            pid = ends_get(prefix[start:])
            if pid is None:
                break
            if pid >= 0:
                here.append((source, target, pid))
            source = parent[source]
        here.reverse()
        edges += here
    # the words in node order, not the corpus's: the E-step's per-word writes then run
    # through memory in order too (12% less CPU per E-step on tinyshakespeare 2000)
    count = dict(words)
    is_word = list(map(count.__contains__, prefixes))
    return Graph(edges, len(node), list(compress(range(1, len(node)), is_word)),
                 list(map(count.__getitem__, compress(prefixes, is_word))))


def without_dropped(graph, score):
    """The graph without the edges of pieces whose score is None."""
    return graph._replace(edges=[edge for edge in graph.edges if score[edge[2]] is not None])


def e_step(graph, score, lengths):
    """Each piece's expected count over all words: forward-backward on the graph (lengths:
    pid -> the piece's length in characters).

    Forward, alpha[node] sums the weights of the paths from "" to the prefix. Backward,
    outside[node] sums, over the words that start with the prefix, count / alpha[word]
    times the weights of the paths from the prefix to the word's end; an edge's expected
    count is then alpha[source] x its weight x outside[target], the sum over the words of
    each word's forward-backward posterior for that piece at that place.

    subtle: in probabilities, each edge weighted by exp(score + per_char * length): every
    path spells the whole word, so all gain the same factor and the posteriors are
    unchanged, while products stay near 1 instead of underflowing."""
    alive = [pid for pid, s in enumerate(score) if s is not None]
    per_char = -statistics.median(score[pid] / lengths[pid] for pid in alive)
    weight = [0.0] * len(score)  # a dropped piece weighs 0: its edges add nothing
    for pid in alive:
        weight[pid] = math.exp(min(700.0, score[pid] + per_char * lengths[pid]))
    edges = graph.edges
    alpha = [0.0] * graph.nodes
    alpha[0] = 1.0
    for p, q, pid in edges:
        alpha[q] += alpha[p] * weight[pid]
    outside = [0.0] * graph.nodes
    for q, count in zip(graph.words, graph.counts):
        z = alpha[q]
        if not 0.0 < z < math.inf:
            raise ArithmeticError("unigram: a word's lattice under/overflowed")
        outside[q] = count / z
    expected = [0.0] * len(score)
    # subtle: backwards by target, every edge leaving q comes before any edge into q, so
    # outside[q] is complete when read, and each edge's share is known right there
    for p, q, pid in reversed(edges):
        o = outside[q]
        outside[p] += weight[pid] * o
        expected[pid] += alpha[p] * o
    # each edge's share is its piece's weight times alpha[p] x outside[q]: the weight is
    # multiplied in once per piece here, not once per edge above
    return list(map(float.__mul__, expected, weight))


def viterbi_uses(graph, score):
    """[pid -> how often the piece is used] in every word's Viterbi split, weighted by the
    word's count. Of two equal paths into a prefix, the one whose last piece starts
    further left wins; a dropped piece (score None) is never used.

    Counted without spelling out the paths: backwards over the nodes (longest prefix
    first), a node passes the count of the words whose best path runs through it on to
    its best path's last edge and that edge's source."""
    edges = graph.edges
    edge_score = [-math.inf if s is None else s for s in score]
    best = [-math.inf] * graph.nodes
    best[0] = 0.0
    back = [0] * graph.nodes  # node -> the edge its best path ends with
    for edge, (p, q, pid) in enumerate(edges):
        candidate = best[p] + edge_score[pid]
        if candidate > best[q]:
            best[q], back[q] = candidate, edge
    through = [0] * graph.nodes  # node -> the count of the words whose best path has it
    for q, count in zip(graph.words, graph.counts):
        through[q] = count
    uses = [0] * len(score)
    for q in range(graph.nodes - 1, 0, -1):  # a source is a prefix: numbered lower
        count = through[q]
        if count:
            p, _, pid = edges[back[q]]
            uses[pid] += count
            through[p] += count
    return uses


def best_splits(piece, pid, ends, score):
    """(the pids of piece's best split, those of its best split without pid; None where
    there is none). The same tie rule as viterbi_uses. One pass: pid spans the whole
    piece, so up to the last character both are the same, and only the last piece differs.

    >>> pieces = ["ab", "a", "b"]
    >>> best_splits("ab", 0, ends_of(pieces), [-1.0, -2.0, -2.0])
    ([0], [1, 2])
    """
    n = len(piece)
    best = [-math.inf] * (n + 1)
    back = [None] * (n + 1)  # position -> (start, pid) of the best split's last piece
    best[0] = 0.0
    for j in range(1, n):
        for i, other in pieces_ending(piece[:j], ends):
            s = score[other]
            if s is not None and best[i] + s > best[j]:
                best[j], back[j] = best[i] + s, (i, other)
    whole = without = (-math.inf, 0, None)  # (score, start, pid) of the last piece
    for i, other in pieces_ending(piece, ends):
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
