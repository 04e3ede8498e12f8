"""What the Train page shows, as data: corpus decoding, the merge table, the
merge-frequency and compression curves (Altair charts), and the messages around them.

Everything here is pure (pandas and altair, no streamlit) so it is unit-tested. It
does not train: lab/jobs.py runs the training, bpe.replay counts the held-out tokens.
"""
import math
import unicodedata
from typing import NamedTuple

import altair as alt
import pandas as pd

from bpe import PATTERNS
from viz.tokens import WHITESPACE_MARKERS

VOCAB_MIN = 256         # the 256 byte tokens come first; training adds merges on top
VOCAB_MAX = 100_000     # cl100k's size: past it a browser table and chart get sluggish,
#                         and small corpora run out of pairs long before
HELD_OUT_FRACTION = 0.1  # the last tenth of the corpus is kept out of training...
HELD_OUT_LIMIT = 200_000  # ...up to this many characters, to measure compression on
HELD_OUT_MIN = 200      # below this many characters the held-out slice says nothing
CHART_POINTS = 4000     # points drawn per curve at most (more only slows the browser)
SPECIAL_LIMIT = 256     # special tokens a form may add
PATTERN_TRIAL_CHARS = 200_000  # a custom pattern is tried on this much of the corpus...
PATTERN_TRIAL_SECONDS = 2.0    # ...and refused if that takes longer (catastrophic regex)
SENTENCEPIECE_MAX_CHARS = 20_000_000  # sentencepiece trains in the server process: keep it small
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


def check_pattern_speed(pattern, text, *, chars=PATTERN_TRIAL_CHARS,
                        seconds=PATTERN_TRIAL_SECONDS):
    """ValueError if splitting the start of the corpus with pattern takes over `seconds`:
    a regex that backtracks catastrophically would otherwise keep a worker busy until
    cancelled. Presets are fast and skip the trial.

    >>> check_pattern_speed("gpt4", "hello world")
    >>> check_pattern_speed(r"(a|a)+$|.", "a" * 40 + "b", seconds=0.2)
    Traceback (most recent call last):
    ValueError: the split pattern took more than 0.2 s on the first 41 characters of the corpus, so it would never finish on the rest (catastrophic backtracking, as in (a|a)+$); simplify it, or pick a preset
    """
    import regex  # only for this check; viz needs it nowhere else
    if pattern in PATTERNS or pattern in PATTERNS.values():
        return
    sample = text[:chars]
    try:
        regex.compile(pattern).findall(sample, timeout=seconds, concurrent=True)
    except TimeoutError:
        raise ValueError(f"the split pattern took more than {seconds:g} s on the first "
                         f"{len(sample):,} characters of the corpus, so it would never finish "
                         "on the rest (catastrophic backtracking, as in (a|a)+$); simplify "
                         "it, or pick a preset") from None


# ------------------------------------------------------------------- the merges
def visible(token):
    """Token bytes as one line of text: whitespace shown as markers (space ·, tab →,
    newline ↵), other control characters as \\uXXXX, invalid UTF-8 as U+FFFD.

    >>> visible(b" the\\n")
    '·the↵'
    """
    text = token.decode("utf-8", errors="replace")
    return "".join(WHITESPACE_MARKERS.get(ch) or
                   (f"\\u{ord(ch):04x}" if unicodedata.category(ch)[0] == "C" else ch)
                   for ch in text)


def merge_table(tok):
    """One row per merge, in the order learned: rank, id, pair, from (the two parts),
    token, count (None where the tokenizer has no counts, e.g. loaded from .model).

    >>> from bpe import BasicTokenizer
    >>> merge_table(BasicTokenizer().train("aaabdaaabac", 258)).values.tolist()
    [[1, 256, '(97, 97)', '[a][a]', 'aa', 4], [2, 257, '(256, 97)', '[aa][a]', 'aaa', 2]]
    """
    vocab = tok.vocab
    rows = [(rank, idx, f"({p0}, {p1})", f"[{visible(vocab[p0])}][{visible(vocab[p1])}]",
             visible(vocab[idx]), tok.merge_counts.get(idx))
            for rank, ((p0, p1), idx) in enumerate(tok.merges.items(), 1)]
    frame = pd.DataFrame(rows, columns=["rank", "id", "pair", "from", "token", "count"])
    frame["count"] = frame["count"].astype("Int64")
    return frame


def recent_merges_table(recent):
    """The latest merges a running job reported, newest first: id, pair, token, count.
    recent holds (idx, pair, token bytes, count) tuples, as lab.jobs sends them."""
    rows = [(idx, f"({pair[0]}, {pair[1]})", visible(token), count)
            for idx, pair, token, count in reversed(list(recent))]
    return pd.DataFrame(rows, columns=["id", "pair", "token", "count"])


def _thin(frame, max_points):
    """Every k-th row (and the last) so at most about max_points rows remain."""
    if len(frame) <= max_points:
        return frame, 1
    step = math.ceil(len(frame) / max_points)
    keep = list(range(0, len(frame), step))
    if keep[-1] != len(frame) - 1:
        keep.append(len(frame) - 1)
    return frame.iloc[keep], step


def merge_frequency_chart(table, max_points=CHART_POINTS):
    """The merge-frequency curve: how often each merged pair occurred, against merge
    number, on a log scale (Zipf's law shows as a near-straight slope). Hover shows the
    token and its count. table is merge_table()'s frame."""
    data, step = _thin(table.dropna(subset=["count"]), max_points)
    data = data.assign(count=data["count"].astype(int))
    title = alt.TitleParams(
        "Merge frequency: how often each merged pair occurred",
        subtitle=("Each merge is rarer than the one before: the counts fall roughly as a "
                  "power of the rank." + (f" Every {step}th merge drawn." if step > 1 else "")))
    return alt.Chart(data, title=title).mark_line(point=alt.OverlayMarkDef(size=18)).encode(
        x=alt.X("rank:Q", title="merge number", scale=alt.Scale(domainMin=1)),
        y=alt.Y("count:Q", title="count (log scale)",
                scale=alt.Scale(type="log")),
        tooltip=[alt.Tooltip("rank:Q", title="merge"), alt.Tooltip("id:Q"),
                 alt.Tooltip("token:N"), alt.Tooltip("from:N"),
                 alt.Tooltip("count:Q", format=",")],
    ).properties(height=320)


# -------------------------------------------------------------- compression
def compression_frame(counts):
    """Bytes per token on the held-out text for every vocab size the training passed
    through. counts[k] = tokens with the first k merges (bpe.replay.token_counts_by_merge),
    so counts[0] is the number of bytes.

    >>> compression_frame([11, 9, 7, 5]).values.tolist()[-1]
    [259.0, 3.0, 5.0, 2.2]
    """
    n_bytes = counts[0] if counts else 0
    rows = [(256 + k, k, tokens, n_bytes / tokens if tokens else float("nan"))
            for k, tokens in enumerate(counts)]
    return pd.DataFrame(rows, columns=["vocab_size", "merges", "tokens", "bytes_per_token"]) \
        .astype(float).round({"bytes_per_token": 3})


def compression_chart(frame, max_points=CHART_POINTS):
    """The compression curve: bytes per token on the held-out text against vocab size."""
    data, _ = _thin(frame, max_points)
    title = alt.TitleParams(
        "Compression on held-out text",
        subtitle="Bytes per token on text the tokenizer never saw, had training stopped at "
                 "each vocab size: higher is better, and the gains shrink as merges get rarer.")
    return alt.Chart(data, title=title).mark_line(point=alt.OverlayMarkDef(size=12)).encode(
        x=alt.X("vocab_size:Q", title="vocab size", scale=alt.Scale(domainMin=256)),
        y=alt.Y("bytes_per_token:Q", title="bytes per token", scale=alt.Scale(zero=False)),
        tooltip=[alt.Tooltip("vocab_size:Q", title="vocab size", format=","),
                 alt.Tooltip("tokens:Q", title="tokens", format=","),
                 alt.Tooltip("bytes_per_token:Q", title="bytes per token", format=".3f")],
    ).properties(height=320)


# ----------------------------------------------------------------- messages
def stop_message(tok, vocab_size, min_frequency=1):
    """(early, message): why the training stopped, and whether it stopped short of
    vocab_size. stop_reason comes from bpe's trainer.

    >>> from bpe import BasicTokenizer
    >>> stop_message(BasicTokenizer().train("abab", 300, min_frequency=2), 300, 2)[1][:50]
    'Stopped early at 1 merge of 44: no pair occurs twi'
    """
    n, total = len(tok.merges), vocab_size - 256
    merges = f"{n:,} merge{'' if n == 1 else 's'}"
    if tok.stop_reason == "min_frequency":
        times = {2: "twice", 3: "three times"}.get(min_frequency, f"{min_frequency:,} times")
        return True, (f"Stopped early at {merges} of {total:,}: no pair occurs {times} or "
                      "more. Use a bigger corpus, a smaller vocab size or a lower minimum "
                      "frequency.")
    if tok.stop_reason == "no_pairs":
        return True, (f"Stopped early at {merges} of {total:,}: no pairs left to merge, "
                      "every chunk of the corpus is already a single token. Use a bigger "
                      "corpus or a smaller vocab size.")
    return False, f"Reached the vocab size: {merges}, {256 + n:,} tokens."


def format_duration(seconds):
    """Seconds as a short human duration.

    >>> format_duration(4.2), format_duration(125), format_duration(7300)
    ('4 s', '2 min 5 s', '2 h 1 min')
    """
    seconds = max(int(round(seconds)), 0)
    if seconds < 60:
        return f"{seconds} s"
    if seconds < 3600:
        return f"{seconds // 60} min {seconds % 60} s"
    return f"{seconds // 3600} h {seconds % 3600 // 60} min"


def time_left(progress):
    """Estimated seconds until all merges are done, from a job's progress event; None
    while the rate is unknown. Merges get cheaper as they get rarer, so it errs long."""
    rate = progress.get("merges_per_s") or 0
    if rate <= 0:
        return None
    return (progress["total"] - progress["done"]) / rate
