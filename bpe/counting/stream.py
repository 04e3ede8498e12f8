"""Training on text that need not fit in memory: files, iterators, counts files.

Files and counts files give exactly the merges and merge_counts that `tok.train` gives on
the concatenated text (a file is a stream); `train_from_iterator` treats each item as its
own document (bpe/documents.py), as rustbpe and Hugging Face do. The text is read a piece at a time (bytes decoded incrementally, so a
character or a \\r\\n cut by a read is whole again) and only the chunk counts are kept
(count.py's Part): memory grows with the number of *distinct* chunks, not with the
corpus. Files can also be cut into byte ranges counted by other processes or machines
(`count_range`, used by the local pool and by dask_engine.py) and joined in order.

BasicTokenizer trains on the whole text as one chunk, and a custom split pattern is not
proven safe to split piece by piece, so those read the whole text, up to WHOLE_MAX_BYTES.
This file does not merge (train.py) nor parse counts files (counts.py).

Every tie rule of tok.train (tie_break="first" | "smallest_ids" | "greatest_bytes") and
record_ties work here with the same meaning and the same result, merge_ties included:
the trainer gets the very words tok.train would, the distinct chunks with their counts
*in order of first occurrence*. That order is all "first" needs (a pair first occurs in
the first occurrence of the first chunk holding it), and count.py keeps it through
pieces, byte ranges, worker joins and counts files (which store it); the other two rules
need only the counts.
"""
import os
from collections import Counter

from ..corpus import RANGE_BYTES, Clock, file_ranges, read_pieces
from ..documents import check_specials, count_documents, cut_at_specials, register_after_merges
from ..text import clean_text
from ..tie_break import check_tie_break
from ..train import train_merges
from .chunks import PIECE_CHARS
from .counts_file import read_counts
from .parts import Part, PartCounter, chunk_items, join, join_all

WHOLE_MAX_BYTES = 256 << 20  # Basic and custom patterns hold the text and ~20 bytes a byte


# ------------------------------------------------------------------ reading
def count_range(path, start, end, split, piece_chars=None):
    """The Part of path's bytes start..end: one task for a worker process or machine.
    split: the tokenizer's split (tok.split; it pickles with its tokenizer)."""
    counter = PartCounter(split, piece_chars)
    for _, text in read_pieces(path, start, end):
        counter.feed(text)
    return counter.part()


# ----------------------------------------------------------------- counting
def count_files(tok, paths, *, workers=1, progress=None, range_bytes=RANGE_BYTES):
    """The Part of the concatenated files, counted in this process (workers=1) or by a
    pool of worker processes over byte ranges; identical either way."""
    need_streamable(tok)
    total = sum(os.path.getsize(p) for p in paths)
    clock = Clock(total, progress)
    if workers <= 1:
        counter = PartCounter(tok.split)
        for path in paths:
            for nbytes, text in read_pieces(path):
                counter.feed(text)
                clock.add(nbytes)
        return counter.part()
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor
    ranges = file_ranges(paths, range_bytes)
    # spawn: the caller may have threads (a server), which fork could deadlock
    with ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("spawn")) as pool:
        parts = pool.map(count_range, *zip(*ranges), [tok.split] * len(ranges))
        return join_all(clock.track(parts, ranges), tok.split)


def count_texts(tok, texts, *, progress=None):
    """The Part of the concatenated texts (an iterable of str)."""
    need_streamable(tok)
    counter = PartCounter(tok.split)
    clock = Clock(0, progress)
    held = ""
    for text in texts:
        text = held + text
        # subtle: a surrogate pair cut between two strs is one character to clean_text
        # on the whole text, so a trailing high surrogate waits for the next str
        held = text[-1] if text and "\ud800" <= text[-1] <= "\udbff" else ""
        counter.feed(clean_text(text[:len(text) - len(held)]))
        clock.add(len(text) - len(held))
    counter.feed(clean_text(held))
    return counter.part()


def need_streamable(tok):
    if not tok.is_preset:
        raise ValueError("streamed counting is proven exact only for the preset split "
                         "patterns (gpt2, gpt4, gpt4o); train a custom pattern or a "
                         "BasicTokenizer on the whole text with tok.train(text, ...)")


# ----------------------------------------------------------------- training
def train_from_files(tok, paths, vocab_size, *, min_frequency=1, progress=None,
                     count_progress=None, workers=1, tie_break="first", record_ties=False):
    """Train tok on the concatenated UTF-8 files, reading them a piece at a time; the
    same merges, merge_counts and merge_ties as tok.train(concatenated text) with the
    same tie_break and record_ties. workers > 1 counts byte ranges in that many
    processes. Returns tok."""
    rules = _check_args(tok, vocab_size, min_frequency, tie_break, record_ties)
    paths = [os.fspath(p) for p in paths]
    if not tok.is_preset:
        return tok.train(_whole_text(tok, _file_texts(paths)), vocab_size,
                         min_frequency=min_frequency, progress=progress, **rules)
    part = count_files(tok, paths, workers=workers, progress=count_progress)
    return train_from_part(tok, part, vocab_size, min_frequency=min_frequency,
                           progress=progress, **rules)


def train_from_iterator(tok, texts, vocab_size, *, special_tokens=None, min_frequency=1,
                        progress=None, count_progress=None, tie_break="first",
                        record_ties=False):
    """Train tok on an iterable of str (rustbpe's name), each item its own document: no
    merge crosses from one item to the next (rustbpe's and HF's meaning), and no merge
    crosses a special-token string inside one (special_tokens as in tok.train: they get
    the ids after the last merge, and vocab_size counts them). Keeps only the chunk
    counts (a Basic tokenizer keeps each distinct item); the same merges as tok.train on
    the items joined by a special token, with the same tie_break and record_ties.
    Returns tok."""
    specials = check_specials(tok, special_tokens, vocab_size)
    vocab_size -= len(specials)
    rules = _check_args(tok, vocab_size, min_frequency, tie_break, record_ties)
    clock = Clock(0, count_progress)
    docs = (doc for text in _clocked(texts, clock) for doc in cut_at_specials(text, specials))
    counts = count_documents(tok, docs, limit=WHOLE_MAX_BYTES)
    train_from_part(tok, Part([], counts, ""), vocab_size, min_frequency=min_frequency,
                    progress=progress, **rules)
    return register_after_merges(tok, specials)


def _clocked(texts, clock):
    for text in texts:
        if not isinstance(text, str):
            raise TypeError(f"train_from_iterator takes str items, not {type(text).__name__}")
        yield text
        clock.add(len(text))


def train_from_counts(tok, paths, vocab_size, *, min_frequency=1, progress=None,
                      tie_break="first", record_ties=False):
    """Train tok on counts files (counts.py) joined in order; the same merges (and
    merge_ties) as training on the files they count, with any tie rule. Each must be
    made with tok's pattern."""
    rules = _check_args(tok, vocab_size, min_frequency, tie_break, record_ties)
    need_streamable(tok)

    total = None
    for path in paths:
        pattern, part = read_counts(path)
        if pattern != tok.pattern:
            raise ValueError(f"{path} was counted with the split pattern "
                             f"{pattern[:60]!r}, not this tokenizer's {tok.pattern[:60]!r};"
                             " count every file with the same --pattern")
        try:
            total = part if total is None else join(total, part, tok.split)
        except ValueError as e:  # a file from an older bpe, cut inside a long run
            raise ValueError(f"{path}: {e}") from None
        del part  # its counts are in total's now; this name would keep the last file's
    total = total if total is not None else Part([], Counter(), "")
    return train_from_part(tok, total, vocab_size,
                           min_frequency=min_frequency, progress=progress, **rules)


def train_from_part(tok, part, vocab_size, *, min_frequency=1, progress=None,
                    tie_break="first", record_ties=False):
    """Train tok on the chunk counts of a whole text (a Part from its start to its end,
    its chunks in order of first occurrence, as count.py and counts files keep them);
    tie_break and record_ties as in tok.train, with the same result. Consumes part."""
    rules = _check_args(tok, vocab_size, min_frequency, tie_break, record_ties)
    words = [(chunk.encode("utf-8"), freq) for chunk, freq in chunk_items(part, tok.split)]
    part.counts.clear()  # the words hold the chunks now; free the str copies before merging
    result = train_merges(words, vocab_size, min_frequency, progress, **rules)
    del words
    return tok.apply_training(result)


def _check_args(tok, vocab_size, min_frequency, tie_break, record_ties):
    """ValueError for arguments no training can use, before any counting (an hour of
    reading should not end in a typo); the tie options as keyword arguments for train."""
    tok.check_train_args(vocab_size, min_frequency)
    check_tie_break(tie_break)
    if not isinstance(record_ties, bool):
        raise ValueError(f"record_ties must be True or False, not {record_ties!r}")
    return dict(tie_break=tie_break, record_ties=record_ties)


def _file_texts(paths):
    for path in paths:
        for _, text in read_pieces(path):
            yield text


def _whole_text(tok, texts, limit=None):
    """The concatenated texts for a tokenizer that must see the whole text at once;
    ValueError past limit bytes rather than running out of memory."""
    limit = limit or WHOLE_MAX_BYTES
    pieces, size = [], 0
    for text in texts:
        pieces.append(text)
        size += len(text)
        if size > limit:
            what = ("BasicTokenizer trains on the whole text as one sequence"
                    if not tok.pattern else "a custom split pattern is split whole")
            raise ValueError(f"this input is over {limit >> 20} MiB and {what}, which needs "
                             "about 20 bytes of memory per byte of text; use a "
                             "RegexTokenizer with a preset pattern (gpt2, gpt4, gpt4o), "
                             "which counts in pieces")
    return "".join(pieces)


__all__ = ["train_from_files", "train_from_iterator", "train_from_counts", "train_from_part",
           "count_files", "count_texts", "count_range", "Part", "PIECE_CHARS", "join"]
