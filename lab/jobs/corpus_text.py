"""A corpus to train on, as text: uploaded files decoded and joined, the held-out slice
cut off its end (the trainings' one policy for it), and a cheap fingerprint that tells
whether the corpus on the page is the one a tokenizer was trained on.

Pure (no streamlit, no disk): the page hands it bytes and text, and the worker
(lab/jobs/workers.py) cuts the held-out slice with the same functions. Where sample corpora
come from is lab/train/corpora.py's; what a training may be asked (vocab sizes, corpus sizes)
is lab/jobs/requests.py's; viz/train_result.py draws what a training made.
"""
from typing import NamedTuple


HELD_OUT_FRACTION = 0.1  # the last tenth of the corpus is kept out of training...
HELD_OUT_LIMIT = 200_000  # ...up to this many characters, to measure compression on
HELD_OUT_MIN = 200      # below this many characters the held-out slice says nothing


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


def corpus_fingerprint(text, edge=65536):
    """A cheap identity for a corpus: its length and a hash of its two ends. Enough to
    tell whether the corpus on the page is still the one a tokenizer was trained on.

    >>> corpus_fingerprint("abc") == corpus_fingerprint("abc") != corpus_fingerprint("abd")
    True
    """
    import hashlib
    ends = (text[:edge] + "\0" + text[-edge:]).encode("utf-8", "surrogatepass")
    return len(text), hashlib.blake2b(ends, digest_size=16).hexdigest()
