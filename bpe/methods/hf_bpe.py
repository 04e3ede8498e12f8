"""hf-bpe: Hugging Face's BpeTrainer, step for step, in pure Python.

`train` makes the vocab, merges and ids that `tokenizers` makes with

    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel()      # add_prefix_space=True, use_regex=True
    tok.decoder = decoders.ByteLevel()
    trainer = BpeTrainer(vocab_size=V, min_frequency=m, special_tokens=[...],
                         initial_alphabet=pre_tokenizers.ByteLevel.alphabet())
    tok.train_from_iterator(texts, trainer)

(tests/bpe/test_methods_hf.py proves it on real corpora and on fuzz). ByteLevel keeps HF's
default add_prefix_space=True: a text's first word gets the same leading space as every
other word, so "Hello" at the start and " Hello" inside share tokens; as in tokenizers,
decode then gives the text back with that space in front.

`train_words` is the trainer itself (tokenizers/src/models/bpe/trainer.rs), shared with
WordPiece, which is this trainer with continuing_subword_prefix "##":
- words are the pre-tokenizer's pieces, counted over all documents (each unique word is
  worked on once, weighted by its count);
- ids: the special tokens first (in the order given), then the alphabet (every character
  seen, plus the initial alphabet) sorted by code point, then any prefixed character
  ("##a") met while splitting the words, then one id per new token in merge order;
- the next merge is the pair with the highest count; on a tie, the smallest pair of ids
  (id0, id1) wins (HF's Merge ordering);
- training stops at vocab_size tokens (specials included), when no pair is left, or when
  the best count is below min_frequency;
- HF's bookkeeping is kept where it shows in the result: a pair's queue entry carries the
  words it was seen in, and a merge is applied to those words only; a new token whose
  string already exists reuses that id (two merges may make "abc": ab+c and a+bc).

It does not train from files, limit the alphabet, or cap token length (HF options the lab
does not offer). The tokenizer it returns is the tokenizer.json document run by
bpe.formats.hf.tokenizer_json, so encode/decode/export are the ones proven against `tokenizers`.
"""
import time
from heapq import heapify, heappop, heappush
from itertools import repeat

from ..hf_tokenizer import tokenizer_from_hf
from ..formats.hf.bytelevel import bytes_to_unicode
from ..patterns import GPT2_SPLIT_PATTERN
from ..patterns.fast_split import for_pattern
from ..train import MergeProgress

BYTE_LEVEL = {"type": "ByteLevel", "add_prefix_space": True, "trim_offsets": True,
              "use_regex": True}
# subtle: ByteLevel's regex (bpe.formats.hf.pre_tokenizers.BYTE_LEVEL_PATTERN) and GPT-2's
# preset are the same alternatives written two ways ("\s+(?!\S)|\s+" vs "\s++$|\s+(?!\S)|\s":
# a whitespace run that fails the lookahead is one character long either way), so the
# preset's fast exact split cuts what the pipeline cuts (tests/bpe/test_methods_hf.py, fuzz)
SPLIT = for_pattern(GPT2_SPLIT_PATTERN)
BYTE_TABLE = bytes_to_unicode()                          # 32 -> "Ġ"
BYTE_CHARS = {ch: byte for byte, ch in BYTE_TABLE.items()}  # "Ġ" -> 32
# a chunk's UTF-8 bytes read as Latin-1 (one character per byte) -> its byte-level string
LATIN1_TO_BYTE_LEVEL = str.maketrans({chr(byte): ch for byte, ch in BYTE_TABLE.items()})


def train(texts, vocab_size, *, min_frequency=1, special_tokens=(), progress=None):
    """Train HF's byte-level BPE on texts (a list of documents) to vocab_size tokens.

    >>> tok = train(["hello hello world"], 256 + 3)
    >>> [tok.vocab[idx] for idx in tok.merges.values()]
    [b'el', b'hel', b'lo']
    >>> tok.decode(tok.encode("hello world"))
    ' hello world'
    """
    special_tokens = check_specials(special_tokens, "hf-bpe")
    floor = len(special_tokens) + 256
    if vocab_size < floor:
        raise ValueError(f"hf-bpe starts from the 256 byte symbols and {len(special_tokens)} "
                         f"special token(s); vocab_size must be at least {floor}, not "
                         f"{vocab_size}")
    document = {
        "version": "1.0", "truncation": None, "padding": None,
        "added_tokens": added_tokens(special_tokens),
        "normalizer": None, "pre_tokenizer": dict(BYTE_LEVEL), "post_processor": None,
        "decoder": dict(BYTE_LEVEL),
    }
    vocab, merges = train_words(count_byte_level_words(texts), vocab_size, min_frequency=min_frequency,
                                special_tokens=special_tokens, initial_alphabet=BYTE_CHARS,
                                progress=progress, token_bytes=byte_level_bytes)
    document["model"] = {
        "type": "BPE", "dropout": None, "unk_token": None, "continuing_subword_prefix": None,
        "end_of_word_suffix": None, "fuse_unk": False, "byte_fallback": False,
        "ignore_merges": False, "vocab": vocab, "merges": merges}
    tok = tokenizer_from_hf(document, source="hf-bpe")
    tok.name = f"hf-bpe {len(vocab)}"
    return tok


def check_specials(special_tokens, method):
    """special_tokens as a list of distinct non-empty str, or a TypeError/ValueError."""
    if isinstance(special_tokens, str):
        raise TypeError(f"{method}: special_tokens is a list of strings; wrap one token in "
                        f"a list: [{special_tokens!r}]")
    special_tokens = list(special_tokens or ())
    for token in special_tokens:
        if not isinstance(token, str) or not token:
            raise TypeError(f"{method}: every special token must be a non-empty str, not "
                            f"{token!r}")
    return special_tokens


def added_tokens(special_tokens):
    """The tokenizer.json added_tokens entries tokenizers writes for a trainer's specials
    (their ids: the first ones, in order, skipping repeats, as the trainer gives them)."""
    ids = {}
    for token in special_tokens:
        ids.setdefault(token, len(ids))
    return [{"id": idx, "content": token, "single_word": False, "lstrip": False,
             "rstrip": False, "normalized": False, "special": True}
            for token, idx in ids.items()]


def count_words(texts, pipeline, cut=None, fast=None):
    """{word: count} over the documents, in order of first occurrence: each document is
    normalized and pre-tokenized on its own, as tokenizers' train_from_iterator does.

    cut: a compiled regex where the text may be cut (separators no word spans and the
    pipeline maps to nothing, like BERT's whitespace); then the pipeline runs once per
    distinct chunk, not over the whole corpus (3x faster, same counts:
    tests/bpe/test_methods_hf.py). fast: chunk -> its pieces, or None where only the
    pipeline knows them (a shortcut the caller proves equal on fuzz)."""
    if cut is not None:
        chunks = {}
        for text in texts:
            for chunk in cut.split(text):
                if chunk:
                    chunks[chunk] = chunks.get(chunk, 0) + 1
        texts, weights = list(chunks), list(chunks.values())
    else:
        weights = repeat(1)
    counts = {}
    for text, weight in zip(texts, weights):
        pieces = fast(text) if fast is not None else None
        for word in pipeline.pieces(text) if pieces is None else pieces:
            counts[word] = counts.get(word, 0) + weight
    return counts


def count_byte_level_words(texts):
    """{byte-level word: count} over the documents, in order of first occurrence: the
    pieces ByteLevel(add_prefix_space=True) makes of each document, as byte characters.
    The same counts as count_words with its pipeline (tests/bpe/test_methods_hf.py, fuzz),
    4x faster: a space in front, the fast split, and each distinct chunk mapped once.

    >>> count_byte_level_words(["hi hi", " hi!"])
    {'Ġhi': 3, '!': 1}
    """
    chunks = {}
    for text in texts:
        if text:  # the pipeline makes no piece of "", not even the prefix space
            for chunk in SPLIT(text if text[0] == " " else " " + text):
                chunks[chunk] = chunks.get(chunk, 0) + 1
    return {chunk.encode("utf-8").decode("latin-1").translate(LATIN1_TO_BYTE_LEVEL): count
            for chunk, count in chunks.items()}


def byte_level_bytes(token):
    """A byte-level token string -> the bytes it stands for ("Ġhi" -> b" hi")."""
    return bytes(BYTE_CHARS[ch] for ch in token)


def train_words(word_counts, vocab_size, *, min_frequency=1, special_tokens=(),
                initial_alphabet=(), prefix=None, prefixed_order=None, progress=None,
                token_bytes=str.encode):
    """HF's BpeTrainer.do_train on {word: count} -> (vocab {token: id}, merges [[a, b], ...]).

    prefix: the continuing_subword_prefix ("##" for WordPiece) put before every character
    that does not start its word. prefixed_order: the prefixed characters' id order. HF
    gives them ids in the order its hash map hands it the words, which differs from run to
    run (so do WordPiece's ids); by default they come in order of first occurrence here.
    token_bytes: token string -> bytes, for the progress callback.

    >>> train_words({"abab": 2, "ab": 1}, 6)
    ({'a': 0, 'b': 1, 'ab': 2, 'abab': 3}, [['a', 'b'], ['ab', 'ab']])
    """
    w2id = {}
    id2w = []

    def add(token):
        if token not in w2id:
            w2id[token] = len(id2w)
            id2w.append(token)
    for token in special_tokens:
        add(token)
    alphabet = set(initial_alphabet)
    for word in word_counts:
        alphabet.update(word)
    for ch in sorted(alphabet):
        add(ch)
    if prefix is not None and prefixed_order is not None:
        inside = {ch for word in word_counts for ch in word[1:]}
        for ch in prefixed_order:
            if ch in inside:
                add(prefix + ch)
    # --- the words as id lists
    words = []
    counts = []
    for word, count in word_counts.items():
        ids = []
        for i, ch in enumerate(word):
            if i and prefix is not None:
                ch = prefix + ch
            add(ch)
            ids.append(w2id[ch])
        words.append(ids)
        counts.append(count)
    first_size = len(id2w)
    if first_size > vocab_size:
        raise ValueError(f"this corpus starts the vocabulary with {first_size} tokens (special "
                         f"tokens, every character{', its prefixed forms' if prefix else ''}) "
                         f"before any merge; ask for a vocab_size of at least {first_size}, "
                         f"not {vocab_size}")
    # --- pair counts and the words each pair is in
    pair_counts = {}
    where = {}
    for i, (ids, count) in enumerate(zip(words, counts)):
        for pair in zip(ids, ids[1:]):
            pair_counts[pair] = pair_counts.get(pair, 0) + count
            found = where.get(pair)
            if found is None:
                where[pair] = {i}
            else:
                found.add(i)
    # heap entries: (-count, pair, seq, words); HF's heap pops the highest count, then the
    # smallest pair. seq only orders two entries of one pair and one count (never seen)
    heap = [(-pair_counts[pair], pair, seq, pos) for seq, (pair, pos) in enumerate(where.items())]
    heapify(heap)
    seq = len(heap)
    merges = {}  # (int, int) -> (rank, new id): a repeated merge takes its later rank, as in HF
    rank = 0
    start = time.perf_counter()
    total = max(vocab_size - first_size, 0)
    while len(w2id) < vocab_size and heap:
        negcount, pair, _, pos = heappop(heap)
        count = pair_counts[pair]
        if -negcount != count:
            # subtle: HF re-queues the entry with the pair's current count but keeps its
            # word set, even when the count grew elsewhere
            heappush(heap, (-count, pair, seq, pos))
            seq += 1
            continue
        if count < 1 or min_frequency > count:
            break
        a, b = pair
        part_b = id2w[b]
        if prefix is not None and part_b.startswith(prefix):
            part_b = part_b[len(prefix):]
        token = id2w[a] + part_b
        add(token)
        new_id = w2id[token]
        merges[pair] = (rank, new_id)
        rank += 1
        where = {}
        for i in pos:
            weight = counts[i]
            for changed, change in _merge_word(words[i], a, b, new_id):
                pair_counts[changed] = pair_counts.get(changed, 0) + change * weight
                if change > 0:
                    found = where.get(changed)
                    if found is None:
                        where[changed] = {i}
                    else:
                        found.add(i)
        for changed, found in where.items():
            new_count = pair_counts[changed]
            if new_count > 0:
                heappush(heap, (-new_count, changed, seq, found))
                seq += 1
        if progress is not None:
            progress(MergeProgress(len(id2w) - first_size, total, new_id, pair,
                                   token_bytes(token), count, time.perf_counter() - start))
    merge_list = [[id2w[a], id2w[b]] for (a, b), _ in sorted(merges.items(),
                                                             key=lambda item: item[1][0])]
    return w2id, merge_list


def _merge_word(ids, a, b, new_id):
    """Merge (a, b) -> new_id in ids in place, left to right; the pair count changes
    [(pair, +1 or -1), ...] for the neighbours, as HF's Word.merge reports them (it reports
    nothing for the merged pair itself, whose count it leaves as it was).

    >>> ids = [1, 2, 1, 2]
    >>> _merge_word(ids, 1, 2, 9), ids
    ([((2, 1), -1), ((9, 1), 1), ((9, 1), -1), ((9, 9), 1)], [9, 9])
    """
    changes = []
    i = 0
    while i < len(ids) - 1:
        if ids[i] == a and ids[i + 1] == b:
            if i > 0:
                left = ids[i - 1]
                changes.append(((left, a), -1))
                changes.append(((left, new_id), 1))
            ids[i:i + 2] = [new_id]
            if i < len(ids) - 1:
                right = ids[i + 1]
                changes.append(((b, right), -1))
                changes.append(((new_id, right), 1))
        i += 1
    return changes
