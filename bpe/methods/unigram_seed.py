"""unigram_seed: what bpe.methods.unigram's training starts from: the characters it must
keep (character coverage), every prefix of the words with its weight, and the seed pieces
(the most frequent substrings, by frequency x length).

Not here: EM, pruning (bpe.methods.unigram) and the lattice passes
(bpe.methods.unigram_lattice).
"""
import math
from bisect import bisect_right
from collections import Counter
from heapq import heappush, heappushpop
from itertools import compress
from operator import itemgetter

from .unigram_lattice import MAX_PIECE_LENGTH

CHARACTER_COVERAGE = 0.9995
LIGHT = 8  # the seed counts a prefix weighing up to this in C, once per unit (see seed_pieces)
SEED_FACTOR = 2  # tinyshakespeare 2000: 1 gives 11% more held-out tokens, 4 gives 4% fewer
# at 1.5x the training time (bench/results/methods_hf.md)
# subtle: a text may hold "<0x41>" literally; with these characters always pieces, spelling
# it out beats the byte piece's floor score, so it is never read back as "A"
ALWAYS = set("<>x0123456789ABCDEF")


def required_chars(word_counts):
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


def prefix_weights(words):
    """[(word, count)] -> {every prefix of the words: the total count of the words that
    start with it}, shortest first. An occurrence of a string in a word ends a prefix of
    it, so a string's frequency is the sum of the weights of the prefixes it ends: a sum
    over distinct prefixes (tinyshakespeare: 54k), not over every character (193k).

    >>> prefix_weights([("ab", 3), ("ac", 1), ("b", 2), ("ab", 1)])
    {'b': 2, 'a': 5, 'ab': 4, 'ac': 1}
    """
    # bottom up: a prefix weighs its own words' count plus the weights of the prefixes one
    # character longer, so each distinct prefix is sliced and added once, longest first
    # (54k additions, not one per character of every word: 2.5x faster). Within a length
    # the order is the words' of that length, then the longer prefixes' parents: any order
    # serves, as long as it is shortest first (seed_pieces cuts each length off by bisect;
    # build_graph sorts the prefixes itself)
    by_length = [{} for _ in range(max(map(len, (word for word, _ in words)), default=0) + 1)]
    for word, count in words:
        same = by_length[len(word)]
        same[word] = same.get(word, 0) + count
    for n in range(len(by_length) - 1, 1, -1):
        shorter = by_length[n - 1]
        get = shorter.get
        for prefix, weight in by_length[n].items():
            parent = prefix[:-1]
            shorter[parent] = get(parent, 0) + weight
    weights = {}
    for same in by_length[1:]:
        weights.update(same)
    return weights


def seed_pieces(prefixes, size, chars):
    """The seed pieces: chars, and the SEED_FACTOR x size substrings of 2 to MAX_PIECE_LENGTH
    characters seen at least twice with the highest frequency x length (ties: the larger
    string), scored log(freq / total). prefixes: prefix_weights.

    Counted length by length, as the endings of the prefixes, and only where the seed may
    still be: a prefix's ending s is grown one character to the left only while freq(s) x
    MAX_PIECE_LENGTH reaches the k-th best frequency x length found so far, since no
    longer string that ends with s is more frequent than s. Every prefix that ends with a
    string ends with its shorter endings too, so whatever is counted is counted in full:
    the seed is the one a count of every substring gives, at a fraction of the work."""
    k = int(SEED_FACTOR * size)
    # subtle: sorted, not the set's order, which follows str hashing and so changes from
    # process to process (PYTHONHASHSEED): the characters' pids set the order sums run
    # in, and a last-bit difference could break a tie another way (a CLI run and a test
    # trained the same text to different ids)
    char_freq = dict.fromkeys(sorted(chars), 0)
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
