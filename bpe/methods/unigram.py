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
   and sums each piece's expected count; the M-step drops pieces expected less than 0.5
   times and sets score = digamma(count) - digamma(total) (sentencepiece's Bayesian
   re-estimation, which favours frequent pieces).
4. prune: the Viterbi split of every word counts each piece's use; a piece whose own best
   split is not itself goes; for the rest, the loss is how much the corpus likelihood drops
   if its uses go to its second-best split; keep the max(1.1 x vocab, 0.75 x size) pieces of
   highest loss (single characters always stay). Repeat 3-4 until small enough.

The result is a tokenizer.json Unigram model run by bpe.formats.hf (proven against
`tokenizers`), so it exports and loads anywhere: ids 0 "<unk>", then the special tokens,
then the 256 byte pieces "<0x00>".."<0xFF>", then the pieces by score. A character with
no piece is written as its UTF-8 bytes, so every text decodes back exactly.

DIFFERENCES from sentencepiece (model_type="unigram", byte_fallback=True), and why.
"""
import math
import statistics
import time

from ..formats.hf import tokenizer_from_hf
from ..formats.hf_pipeline import Pipeline
from ..train import MergeProgress
from .hf_bpe import added_tokens, check_specials, count_words

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
SEED_FACTOR = 8
EXPECTED_FREQUENCY_THRESHOLD = 0.5
VOCAB_MARGIN = 1.1
CHUNK = 24
FLOOR_SCORE = -1e4  # <unk> and byte pieces: used only for characters no piece covers
SPLIT = r" ?[^ \t\n\r]+|[ \t\n\r]"
BYTE_PIECES = [f"<0x{byte:02X}>" for byte in range(256)]
# subtle: a text may hold "<0x41>" literally; with these characters always pieces, spelling
# it out beats the byte piece's floor score, so it is never read back as "A"
ALWAYS = set("<>x0123456789ABCDEF")


def train(texts, vocab_size, *, min_frequency=1, special_tokens=(), progress=None):
    """Train a Unigram LM with byte fallback on texts (a list of documents).

    min_frequency: a word seen fewer times is left out of training (its characters still
    count for coverage). progress: MergeProgress after each EM or pruning step (done/total
    over the steps expected; pair and count are empty, token is b"").

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
    word_counts = count_words(texts, Pipeline.from_json(document))
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
    tok.piece_scores = dict(pieces)  # piece -> log-probability, for the pages to show
    return tok


def _required_chars(word_counts):
    """The characters that cover CHARACTER_COVERAGE of the text (most frequent first), plus
    ALWAYS; a rarer one is spelled in byte pieces."""
    freq = {}
    for word, count in word_counts.items():
        for ch in word:
            freq[ch] = freq.get(ch, 0) + count
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
        # a character left to byte fallback cuts the word: no piece may hold it
        for run in _covered_runs(word, chars):
            for start in range(0, len(run), CHUNK):
                chunk = run[start:start + CHUNK]
                chunks[chunk] = chunks.get(chunk, 0) + count
    words = list(chunks.items())
    scores = _seed(words, size, chars)
    desired = max(int(size * VOCAB_MARGIN), len(chars))
    rounds = max(1, math.ceil(math.log(max(len(scores), 1) / desired)
                              / -math.log(SHRINKING_FACTOR)) + 1)
    total = rounds * (NUM_SUB_ITERATIONS + 1)
    done = 0
    start = time.perf_counter()

    def step():
        nonlocal done
        done += 1
        if progress is not None:
            progress(MergeProgress(min(done, total), total, len(scores), (), b"", 0,
                                   time.perf_counter() - start))
    while True:
        for _ in range(NUM_SUB_ITERATIONS):
            scores = _m_step(_e_step(words, scores), chars)
            step()
        if len(scores) <= desired:
            break
        scores = _prune(words, scores, chars, desired)
        step()
    # keep the best `size` by score, characters first (sentencepiece's Finalize)
    kept = {ch: scores.get(ch, FLOOR_SCORE / 2) for ch in chars}
    for piece, score in sorted(scores.items(), key=lambda item: -item[1]):
        if len(kept) >= size:
            break
        kept.setdefault(piece, score)
    return kept


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


def _seed(words, size, chars):
    """The seed pieces: chars, and the frequent substrings, scored log(freq / total)."""
    freq = {}
    char_freq = dict.fromkeys(chars, 0)
    for word, count in words:
        n = len(word)
        for i in range(n):
            char_freq[word[i]] += count
            for j in range(i + 2, min(n, i + MAX_PIECE_LENGTH) + 1):
                sub = word[i:j]
                freq[sub] = freq.get(sub, 0) + count
    substrings = sorted(((f * len(s), s) for s, f in freq.items() if f >= 2), reverse=True)
    seed = {s: freq[s] for _, s in substrings[:SEED_FACTOR * size]}
    seed.update({ch: max(count, 1) for ch, count in char_freq.items()})
    logsum = math.log(sum(seed.values()))
    return {piece: math.log(count) - logsum for piece, count in seed.items()}


def _lattice(word, scores):
    """Every (start, end, piece) whose piece spells word[start:end], sorted by end."""
    edges = []
    n = len(word)
    for end in range(1, n + 1):
        for start in range(max(0, end - MAX_PIECE_LENGTH), end):
            piece = word[start:end]
            if piece in scores:
                edges.append((start, end, piece))
    return edges


def _e_step(words, scores):
    """Each piece's expected count over all words (forward-backward on each lattice).

    subtle: in probabilities, each edge weighted by exp(score + per_char * length): every
    path spells the whole word, so all gain the same factor and the posteriors are
    unchanged, while products stay near 1 instead of underflowing."""
    per_char = -statistics.median(score / len(piece) for piece, score in scores.items())
    weight = {piece: math.exp(min(700.0, score + per_char * len(piece)))
              for piece, score in scores.items()}
    expected = dict.fromkeys(scores, 0.0)
    for word, count in words:
        n = len(word)
        edges = [(i, j, weight[p], p) for i, j, p in _lattice(word, scores)]
        alpha = [0.0] * (n + 1)
        alpha[0] = 1.0
        for i, j, w, _ in edges:
            alpha[j] += alpha[i] * w
        beta = [0.0] * (n + 1)
        beta[n] = 1.0
        for i, j, w, _ in reversed(edges):
            beta[i] += w * beta[j]
        z = alpha[n]
        if not 0.0 < z < math.inf:
            raise ArithmeticError(f"unigram: the lattice of {word[:30]!r} under/overflowed")
        scale = count / z
        for i, j, w, p in edges:
            expected[p] += alpha[i] * w * beta[j] * scale
    return expected


def _m_step(expected, chars):
    """Scores from expected counts: digamma(count) - digamma(total); a piece expected
    fewer than 0.5 times goes (a character stays, counted at least 0.5)."""
    kept = {p: f for p, f in expected.items()
            if f >= EXPECTED_FREQUENCY_THRESHOLD or p in chars}
    logsum = digamma(sum(kept.values()))
    # subtle: a character's count is floored at the threshold, so it keeps a usable score
    # (every word must stay spellable once longer pieces are pruned)
    return {p: digamma(max(f, EXPECTED_FREQUENCY_THRESHOLD)) - logsum for p, f in kept.items()}


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


def viterbi(word, scores, whole=True):
    """The pieces of word's best split under scores (None if no split exists); whole=False
    leaves out the split into word itself (its second-best split, if word is a piece)."""
    n = len(word)
    best = [-math.inf] * (n + 1)
    back = [None] * (n + 1)
    best[0] = 0.0
    for i, j, p in _lattice(word, scores):
        if not whole and j - i == n:
            continue
        candidate = best[i] + scores[p]
        if candidate > best[j]:
            best[j], back[j] = candidate, (i, p)
    if back[n] is None:
        return None
    out = []
    while n:
        n, piece = back[n]
        out.append(piece)
    return out[::-1]


def _prune(words, scores, chars, desired):
    """Drop the pieces whose loss of corpus likelihood would be least (sentencepiece's
    PruneSentencePieces), down to max(desired, 0.75 x the current size)."""
    freq = dict.fromkeys(scores, 0.0)
    for word, count in words:
        for piece in viterbi(word, scores):
            freq[piece] += count
    total = sum(freq.values())
    logsum = math.log(total)
    keep, candidates = {}, []
    for piece, score in scores.items():
        if piece in chars:
            keep[piece] = score
            continue
        if freq[piece] == 0:
            continue
        best = viterbi(piece, scores)
        if best != [piece]:
            continue  # its own string splits better otherwise: it is never used whole
        alternatives = viterbi(piece, scores, whole=False)
        if alternatives is None:
            keep[piece] = score
            continue
        f = freq[piece]
        logprob = math.log(f) - logsum
        logsum_alt = math.log(total + f * (len(alternatives) - 1))
        logprob_alt = sum(math.log(freq[alt] + f) - logsum_alt for alt in alternatives)
        candidates.append((f / total * (logprob - logprob_alt), piece))
    size = max(desired, int(SHRINKING_FACTOR * len(scores)))
    candidates.sort(key=lambda item: -item[0])
    for _, piece in candidates[:max(0, size - len(keep))]:
        keep[piece] = scores[piece]
    return keep
