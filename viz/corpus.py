"""A corpus to train on, as data: uploaded files decoded and joined, the held-out
slice cut off its end, and the checks the Train form runs before a training starts
(corpus size, vocab size, special tokens; a split pattern's trial is bpe.patterns.trial).

Pure (no streamlit, no disk): the page hands it bytes and text. viz/training.py draws
what a training made; lab/training.py runs it.
"""
from typing import NamedTuple


VOCAB_MIN = 256         # the 256 byte tokens come first; training adds merges on top
VOCAB_MAX = 100_000     # cl100k's size: past it a browser table and chart get sluggish,
#                         and small corpora run out of pairs long before
HELD_OUT_FRACTION = 0.1  # the last tenth of the corpus is kept out of training...
HELD_OUT_LIMIT = 200_000  # ...up to this many characters, to measure compression on
HELD_OUT_MIN = 200      # below this many characters the held-out slice says nothing
SPECIAL_LIMIT = 256     # special tokens a form may add
SENTENCEPIECE_MAX_CHARS = 20_000_000  # sentencepiece holds every line in memory: keep it small
BASIC_MAX_BYTES = 10_000_000  # Basic training holds 25-200 bytes of state per corpus byte


# ------------------------------------------------------------------ the corpus
def decode_upload(name, data, *, replace=False):
    """The text of an uploaded file. ValueError naming the file and the first bad byte
    unless it is UTF-8 (a leading byte-order mark is dropped); replace=True decodes
    anyway, with U+FFFD for each undecodable byte.

    >>> decode_upload("a.txt", b"caf\\xc3\\xa9")
    'café'
    >>> decode_upload("b.txt", b"caf\\xe9", replace=True)
    'caf\\ufffd'
    """
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        if replace:
            return data.decode("utf-8-sig", errors="replace")
        kind = "a binary file" if b"\0" in data[:4096] else "text in another encoding " \
            "(Latin-1, UTF-16...)"
        raise ValueError(f"{name} is not UTF-8 text: byte 0x{data[e.start]:02x} at position "
                         f"{e.start:,} is not valid UTF-8. It looks like {kind}. Save it as "
                         "UTF-8, or decode it with replacement characters (�).") from None


class Corpus(NamedTuple):
    text: str        # the files joined, in upload order
    used: list       # names of the files in text
    problems: list   # one message per file left out
    not_utf8: list   # names of the files that are not UTF-8 (left out unless replace=True)


def corpus_from_files(files, *, replace=False):
    """Join uploaded files [(name, bytes), ...] into one Corpus. A bad file never costs
    the good ones: it is left out with a message (or, if it is only not UTF-8 and
    replace=True, decoded with U+FFFD for the bad bytes).

    >>> corpus_from_files([("a.txt", b"one"), ("b.bin", b"\\xff\\x00"), ("c.txt", b"two\\n")])[:2]
    ('one\\ntwo\\n', ['a.txt', 'c.txt'])
    """
    parts, used, problems, not_utf8 = [], [], [], []
    for name, data in files:
        try:
            text = decode_upload(name, data)
        except ValueError as e:
            not_utf8.append(name)
            if not replace:
                problems.append(str(e))
                continue
            text = decode_upload(name, data, replace=True)
        if not text:
            problems.append(f"{name} is empty, so it adds nothing to the corpus.")
            continue
        # a file's last line must not run into the next file's first
        if parts and not parts[-1].endswith("\n"):
            parts.append("\n")
        parts.append(text)
        used.append(name)
    return Corpus("".join(parts), used, problems, not_utf8)


def check_corpus(kind, n_bytes):
    """ValueError saying what to do if a corpus of n_bytes cannot be trained as kind."""
    if n_bytes == 0:
        raise ValueError("The corpus is empty: upload a text file or pick a sample corpus.")
    if kind == "basic" and n_bytes > BASIC_MAX_BYTES:
        raise ValueError(f"The corpus has {n_bytes / 1e6:.1f} MB; Basic training tracks "
                         "every byte of it (25 to 200 bytes of memory each), so on this "
                         f"shared server it takes at most {BASIC_MAX_BYTES / 1e6:.0f} MB. "
                         "Use Regex, which counts each distinct chunk once, or a smaller "
                         "corpus.")


def held_out_start(text, fraction=HELD_OUT_FRACTION, limit=HELD_OUT_LIMIT):
    """Where the held-out slice begins: the end of the corpus, a fraction of it but at
    most limit characters, starting at a line break where one is near. len(text) (no
    slice) for a corpus too small to spare a useful one.

    >>> held_out_start("a" * 10_000), held_out_start("tiny corpus")
    (9000, 11)
    """
    size = min(int(len(text) * fraction), limit)
    if size < HELD_OUT_MIN:
        return len(text)
    cut = len(text) - size
    newline = text.find("\n", cut, cut + 1000)
    if newline != -1 and len(text) - newline - 1 >= HELD_OUT_MIN:
        cut = newline + 1
    return cut


def split_held_out(text, fraction=HELD_OUT_FRACTION, limit=HELD_OUT_LIMIT):
    """(train_text, held_out), cut at held_out_start.

    >>> [len(part) for part in split_held_out("a" * 10_000)]
    [9000, 1000]
    >>> split_held_out("tiny corpus")
    ('tiny corpus', '')
    """
    cut = held_out_start(text, fraction, limit)
    return text[:cut], text[cut:]


def parse_special_tokens(text):
    """Special tokens from a text area, one per line; blank lines ignored.

    >>> parse_special_tokens("<|endoftext|>\\n\\n  <|pad|>  \\n")
    ['<|endoftext|>', '<|pad|>']
    """
    specials = [line.strip() for line in (text or "").splitlines() if line.strip()]
    seen = set()
    for special in specials:
        if special in seen:
            raise ValueError(f"the special token {special!r} is listed twice; list each once")
        seen.add(special)
    if len(specials) > SPECIAL_LIMIT:
        raise ValueError(f"{len(specials)} special tokens is more than the {SPECIAL_LIMIT} "
                         "this form takes; special tokens mark structure, a handful is usual")
    return specials


def check_vocab_size(vocab_size):
    """ValueError saying why, unless VOCAB_MIN <= vocab_size <= VOCAB_MAX."""
    if not isinstance(vocab_size, int) or not VOCAB_MIN <= vocab_size <= VOCAB_MAX:
        raise ValueError(f"the vocab size must be a whole number from {VOCAB_MIN} (the 256 "
                         f"byte tokens, no merges) to {VOCAB_MAX:,} (as large as GPT-4's; "
                         "larger vocabularies need far bigger corpora than a browser "
                         f"upload), not {vocab_size!r}")


def corpus_fingerprint(text, edge=65536):
    """A cheap identity for a corpus: its length and a hash of its two ends. Enough to
    tell whether the corpus on the page is still the one a tokenizer was trained on.

    >>> corpus_fingerprint("abc") == corpus_fingerprint("abc") != corpus_fingerprint("abd")
    True
    """
    import hashlib
    ends = (text[:edge] + "\0" + text[-edge:]).encode("utf-8", "surrogatepass")
    return len(text), hashlib.blake2b(ends, digest_size=16).hexdigest()
