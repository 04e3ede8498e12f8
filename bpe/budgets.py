"""Budgets for everything a file controls, checked before the work starts.

A .model, a ranks file or a tokenizer.json can come from anyone. This file holds the
pure checks the loaders call first, so a hostile input ends in one ValueError that says
what to do, instead of gigabytes or a hung thread:

- `parse_id`, `check_special_ids`, `VocabBudget`, `vocab_bytes_error`: ids are ASCII
  digits and bounded, ids unique, the whole vocabulary bounded in bytes,
  computed incrementally so a chained file is refused before it is built; special
  tokens bounded in number, length and total length (encode compiles them to a regex).
- `parse_json`, `expect`: a tokenizer.json's structure checked before use.
- `growth_limit`, `Growth`: the one budget for every component that can make its output
  longer than its input (normalizers, decoders, post-processors, charsmaps): at most
  GROWTH_FACTOR times the input plus GROWTH_SLACK, counted while the output is built, so a
  bomb stops before it allocates. `check_steps` bounds a Sequence of components.

Split patterns have their own checks in bpe.patterns.safety. This file does not read
files or know any format beyond that: the loaders call it.
"""
import json
import re

MAX_ID = 10_000_000          # the largest vocabularies in use hold ~1M ids
# A token itself has no limit of its own: Basic training past the point where every pair
# occurs once makes one token longer each merge (27 KB at 36k merges of tinyshakespeare),
# and a file we save must load back. The total bounds memory, and the app's trainings stop
# at the same total (bpe.train's max_vocab_bytes), so what they make always loads.
MAX_VOCAB_BYTES = 64 << 20   # o200k's tokens total ~1.5 MB
MAX_SPECIAL_LENGTH = 4096    # characters in one special token; real ones are < 30
MAX_UNK_CHARS = 2 << 20      # an unk_token / unk_surface (decode writes it per unknown id)
MAX_SPECIAL_TOKENS = 10_000  # Llama 3 reserves 256; encode compiles them into one regex
# ...so their total length is bounded too (measured: 1,000 tokens of 4 KB took 22 s and
# 1.1 GB to compile; 128 K characters take ~0.6 s and ~25 MB; Llama 3's are ~8 K)
MAX_SPECIAL_CHARS = 128 * 1024
MAX_JSON_DEPTH = 64          # a tokenizer.json nests ~6 deep
# What a file's components may make of one text: GROWTH_FACTOR times its length, plus
# GROWTH_SLACK (BERT's spacing of Chinese is 3x; NFKC of a text of ligatures alone needs the
# slack). Counted in the input's own units (characters of a str, bytes of bytes), so the
# memory of the output stays a multiple of the input's.
GROWTH_FACTOR = 4
GROWTH_SLACK = 4096
# One replacement string of a charsmap (SentencePiece's normalizer, Precompiled): NFKC's
# longest is 33 bytes (U+FDFA). sentencepiece normalizes in C++, where growth cannot be
# counted as it happens, so this bounds what one input byte can become there.
MAX_REPLACEMENT_BYTES = 256
MAX_STEPS = 64               # components in one Sequence (flattened); real files use <= 8
MAX_TEMPLATE_IDS = 64        # ids a post-processor puts around a text; real ones use <= 3
# A vocabulary read from a file: entries (pieces, merges, vocab.json keys). The largest in
# use hold ~262k (Gemma); parsing costs ~12 us and ~150 bytes per entry in Python.
MAX_ENTRIES = 1 << 20
MAX_SENTENCEPIECE_PIECES = 1 << 19   # sentencepiece's own load adds ~7 us a piece


# ------------------------------------------------------------------ ids and vocab
_ASCII_DIGITS = re.compile(r"[0-9]+\Z")


def parse_id(text, where, *, limit=MAX_ID):
    """An id or rank written in ASCII digits, at most limit; ValueError naming where.
    (str.isdigit() and int() also accept '٣' and '²'.)

    >>> parse_id("42", "x.model line 5")
    42
    >>> parse_id("٣", "x.model line 5")
    Traceback (most recent call last):
    ...
    ValueError: x.model line 5: expected an id in ASCII digits 0-9, found '٣'
    """
    if not isinstance(text, str) or not _ASCII_DIGITS.match(text):
        raise ValueError(f"{where}: expected an id in ASCII digits 0-9, found {text!r:.40}")
    if len(text) > len(str(limit)) or int(text) > limit:
        raise ValueError(f"{where}: id {text[:20]}{'…' if len(text) > 20 else ''} is larger "
                         f"than {limit:,}, the largest id this lab accepts")
    return int(text)


def check_id(value, where, *, limit=MAX_ID):
    """An int id from a parsed file (JSON): an int (not bool), 0 <= value <= limit.

    >>> check_id(-1, "tokenizer.json vocab 'a'")
    Traceback (most recent call last):
    ...
    ValueError: tokenizer.json vocab 'a': id -1 is out of range: an id must be an integer from 0 to 10,000,000
    """
    if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value <= limit:
        raise ValueError(f"{where}: id {value!r:.40} is out of range: an id must be an integer "
                         f"from 0 to {limit:,}")
    return value


def check_special_ids(special_tokens, ordinary_ids=(), where="special tokens"):
    """special_tokens (str -> int) checked: non-empty str keys, ids in range, no id
    used twice and none equal to an ordinary token's id. Returns special_tokens.

    >>> check_special_ids({'<a>': 300, '<b>': 300})
    Traceback (most recent call last):
    ...
    ValueError: special tokens: '<a>' and '<b>' both have id 300; give each special token its own id
    """
    if len(special_tokens) > MAX_SPECIAL_TOKENS:
        raise ValueError(f"{where}: {len(special_tokens):,} special tokens; the limit is "
                         f"{MAX_SPECIAL_TOKENS:,}")
    total = sum(len(special) for special in special_tokens if isinstance(special, str))
    if total > MAX_SPECIAL_CHARS:
        raise ValueError(f"{where}: the special tokens hold {total:,} characters in all; the "
                         f"limit is {MAX_SPECIAL_CHARS:,} (encode compiles them into one "
                         "regex)")
    owners = {}
    ordinary_ids = ordinary_ids if hasattr(ordinary_ids, "__contains__") else set(ordinary_ids)
    for special, idx in special_tokens.items():
        if not isinstance(special, str) or not special:
            raise ValueError(f"{where}: {special!r:.40} must be a non-empty str")
        if len(special) > MAX_SPECIAL_LENGTH:
            raise ValueError(f"{where}: {special[:40]!r}… is {len(special):,} characters; a "
                             f"special token may have at most {MAX_SPECIAL_LENGTH:,}")
        check_id(idx, f"{where}: {special!r:.40}")
        if idx in owners:
            raise ValueError(f"{where}: {owners[idx]!r:.40} and {special!r:.40} both have id "
                             f"{idx}; give each special token its own id")
        if idx in ordinary_ids:
            raise ValueError(f"{where}: id {idx} for special token {special!r:.40} is already an "
                             "ordinary token; pick an id past the vocabulary")
        owners[idx] = special
    return special_tokens


class VocabBudget:
    """A running total of a vocabulary's bytes, at most max_total_bytes: a file whose
    merges chain ever longer tokens is refused at the line that would pass it, before
    the tokens are built. The 256 byte tokens are there from the start.

    >>> b = VocabBudget(max_total_bytes=261)
    >>> b.add(256, 2, "line 4"); b.add(257, 4, "line 5")
    Traceback (most recent call last):
    ...
    ValueError: line 5: the vocabulary would exceed 261 bytes of token bytes; the limit keeps one file from exhausting the server's memory
    """

    def __init__(self, max_total_bytes=MAX_VOCAB_BYTES):
        self.max_total_bytes = max_total_bytes
        self.lengths = dict.fromkeys(range(256), 1)  # idx -> token length in bytes
        self.total = 256

    def add(self, idx, n_bytes, where):
        self.total += n_bytes
        if self.total > self.max_total_bytes:
            raise vocab_bytes_error(where, self.max_total_bytes)
        self.lengths[idx] = n_bytes


def vocab_bytes_error(where, limit=MAX_VOCAB_BYTES):
    """The one wording of the vocabulary's byte budget (VocabBudget's, and the .model
    parser's, which counts its lengths in an array: bpe.formats.model)."""
    shown = f"{limit >> 20} MB" if limit >= 1 << 20 else f"{limit:,} bytes"
    return ValueError(f"{where}: the vocabulary would exceed {shown} of token bytes; "
                      "the limit keeps one file from exhausting the server's memory")


# -------------------------------------------------------------------- growth
def growth_limit(n_in):
    """The most a component may make of an input of n_in units.

    >>> growth_limit(1000)
    8096
    """
    return GROWTH_FACTOR * n_in + GROWTH_SLACK


def growth_error(what, n_in):
    """The one wording of the growth budget."""
    return ValueError(f"{what} would make more than {growth_limit(n_in):,} characters out "
                      f"of {n_in:,}, more than this lab allows ({GROWTH_FACTOR}x the input "
                      f"+ {GROWTH_SLACK:,}); encode a shorter text, or fix that part of the file")


class Growth:
    """The output of a component over an input of n_in units, counted as it is built:
    add(n) before each piece is made raises once the total passes growth_limit(n_in).

    >>> g = Growth(10, "the Replace decoder"); g.add(4000); g.add(200)
    Traceback (most recent call last):
    ...
    ValueError: the Replace decoder would make more than 4,136 characters out of 10, more than this lab allows (4x the input + 4,096); encode a shorter text, or fix that part of the file
    """
    __slots__ = ("n_in", "limit", "total", "what")

    def __init__(self, n_in, what):
        self.n_in, self.what = n_in, what
        self.limit = growth_limit(n_in)
        self.total = 0

    def add(self, n):
        self.total += n
        if self.total > self.limit:
            raise growth_error(self.what, self.n_in)


def check_growth(n_in, n_out, what):
    """ValueError if n_out passes growth_limit(n_in) (for output already counted)."""
    if n_out > growth_limit(n_in):
        raise growth_error(what, n_in)


def check_steps(n, what):
    """ValueError if a Sequence holds more than MAX_STEPS components (each runs over the
    whole text, so their number multiplies every encode's work)."""
    if n > MAX_STEPS:
        raise ValueError(f"{what}: more than {MAX_STEPS} components in a Sequence; this lab "
                         f"runs at most {MAX_STEPS} (real files use fewer than 10)")


def check_entries(n, where, limit=MAX_ENTRIES, what="entries"):
    """ValueError if a file holds more than limit entries (counted before they are built)."""
    if n > limit:
        raise ValueError(f"{where}: more than {limit:,} {what}; this lab reads at most "
                         f"{limit:,} (the largest vocabularies in use hold ~262,000), so "
                         "one file cannot exhaust the server's memory")


# ---------------------------------------------------------------------- json
def parse_json(text, where):
    """json.loads with one clear ValueError for malformed or too deeply nested input
    (100,000 nested '[' would otherwise raise RecursionError).

    >>> parse_json("[" * 100_000, "tokenizer.json")
    Traceback (most recent call last):
    ...
    ValueError: tokenizer.json: nests deeper than 64 levels; is it a tokenizer.json?
    """
    if _json_depth(text) > MAX_JSON_DEPTH:
        raise too_deep(where)
    try:
        return json.loads(text)
    except RecursionError:
        raise ValueError(f"{where}: nests too deeply; is it a tokenizer.json?") from None
    except json.JSONDecodeError as e:
        raise not_json(where, e.msg, e.lineno) from None


def too_deep(where):
    """The ValueError for JSON nested deeper than MAX_JSON_DEPTH."""
    return ValueError(f"{where}: nests deeper than {MAX_JSON_DEPTH} levels; is it a "
                      "tokenizer.json?")


def not_json(where, msg, line):
    """The ValueError for malformed JSON (json's own msg, at line)."""
    return ValueError(f"{where} is not valid JSON ({msg} at line {line})")


# subtle: a string is matched as an unrolled loop, runs of plain characters at a time; the
# plain (?:[^"\\]|\\.)* keeps a backtracking frame per character, so one 10 MB string in
# a file took gigabytes (a MemoryError) before anything was parsed
_JSON_TOKENS = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"|[\[\]{}]')


def _json_depth(text):
    """The deepest nesting of [ and { outside strings."""
    depth = deepest = 0
    for m in _JSON_TOKENS.finditer(text):
        ch = m.group(0)
        if ch in "[{":
            depth += 1
            if depth > deepest:
                deepest = depth
                if deepest > MAX_JSON_DEPTH:
                    break
        elif ch in "]}":
            depth -= 1
    return deepest


def expect(value, kind, where):
    """value if it is of type kind (a type or tuple of types), else ValueError saying
    what was expected where.

    >>> expect(5, list, 'tokenizer.json "added_tokens"')
    Traceback (most recent call last):
    ...
    ValueError: tokenizer.json "added_tokens": expected a list, found int 5
    """
    if not isinstance(value, kind) or (isinstance(value, bool) and bool not in _types(kind)):
        names = " or ".join(_NAMES.get(t, t.__name__) for t in _types(kind))
        raise ValueError(f"{where}: expected {names}, found {type(value).__name__} "
                         f"{json.dumps(value, default=str)[:40]}")
    return value


_NAMES = {list: "a list", dict: "an object", str: "a string", int: "an integer",
          float: "a number", bool: "true or false"}


def _types(kind):
    return kind if isinstance(kind, tuple) else (kind,)
