"""unigram: our own Unigram language model trainer (Kudo 2018), as sentencepiece trains it.

The model: every piece has a probability; a word is split into the pieces of highest total
log-probability (Viterbi over the lattice of pieces that spell it). Training, following
sentencepiece's unigram_model_trainer.cc step for step (its constants: shrinking_factor
0.75, num_sub_iterations 2, stop at 1.1 x the vocab size, then keep the best by score):
1. words: the text is split before every space (" ?[^ \\t\\n\\r]+", each other whitespace
   character alone) and counted; each unique word is worked on once, weighted by its count.
2. seed (bpe.methods.unigram_seed): every character (those covering 99.95% of the text;
   the rarest go to byte fallback) and the substrings of up to 16 characters seen at least
   twice, the top SEED_FACTOR x vocab_size by frequency x length; score = log(frequency / total).
3. EM, num_sub_iterations times: the E-step runs forward-backward over each word's lattice
   (all of them held as one graph over the words' distinct prefixes, so a prefix shared by
   many words is worked once: bpe.methods.unigram_lattice) and sums each piece's expected
   count; the M-step drops pieces expected less than 0.5 times and sets score =
   digamma(count) - digamma(total) (sentencepiece's Bayesian re-estimation, which favours
   frequent pieces).
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
import time
from collections import Counter
from itertools import chain

from ..hf_tokenizer import tokenizer_from_hf
from ..train import MergeProgress
from .hf_bpe import added_tokens, check_specials
from .unigram_lattice import CHUNK, best_splits, build_graph, e_step, ends_of, viterbi_uses, \
    without_dropped
from .unigram_seed import prefix_weights, required_chars, seed_pieces

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
EXPECTED_FREQUENCY_THRESHOLD = 0.5
VOCAB_MARGIN = 1.1
FLOOR_SCORE = -1e4  # <unk> and byte pieces: used only for characters no piece covers
SPLIT = r" ?[^ \t\n\r]+|[ \t\n\r]"
WORDS = re.compile(SPLIT)
BYTE_PIECES = [f"<0x{byte:02X}>" for byte in range(256)]


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
    chars = required_chars(word_counts)
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
    Prepend normalizer and Split pre-tokenizer make of each (bpe.formats.hf.tokenizer_json's
    pipeline gives the same pieces, tests/bpe/test_methods_unigram.py; this is one regex, 5x
    faster)."""
    # every step in C: the documents' words end to end into one Counter (a dict, so in
    # order of first occurrence); an empty document has no words, not " "
    return Counter(chain.from_iterable(map(WORDS.findall, map(" ".__add__, filter(None, texts)))))


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
    prefixes = prefix_weights(words)
    seed = seed_pieces(prefixes, size, chars)
    pieces = list(seed)                       # pid -> piece
    ends = ends_of(pieces)
    score = list(seed.values())               # pid -> log-probability, None once dropped
    is_char = [piece in chars for piece in pieces]
    # the words' lattices once, as one graph (see build_graph), cut down as pieces go
    graph = build_graph(prefixes, words, ends)
    lengths = list(map(len, pieces))
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
            score = remember(_m_step(e_step(graph, score, lengths), score, is_char))
            step()
        if _alive(score) <= desired:
            break
        score = _prune(graph, score, pieces, ends, is_char, desired)
        # subtle: a dropped piece's edges add exactly nothing (the E-step weighs them 0,
        # the Viterbi never takes them), so they go only here, where most pieces go
        graph = without_dropped(graph, score)
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


def _prune(graph, score, pieces, ends, is_char, desired):
    """Drop the pieces whose loss of corpus likelihood would be least (sentencepiece's
    PruneSentencePieces), down to max(desired, 0.75 x the current size)."""
    freq = viterbi_uses(graph, score)
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
        split, alternatives = best_splits(piece, pid, ends, score)
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
