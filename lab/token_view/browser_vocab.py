"""What the browser needs to encode by itself: a tokenizer's ranks and split pattern as files.

The token view (lab/token_view/encoder.js) encodes on every key press in the browser when
it has two static files, fetched once and cached (each is named by the sha256 of its
content, so a cached copy is always the right one):
  vocab/<sha>.ranks.gz  the ranks: gzip of "TVV1", a uint32 JSON header length, the header
                        {"n", "first", "width"}, n token lengths (uint8, or uint16 when
                        width is 2) and the n tokens' bytes, in rank order; rank = first+i
  vocab/<sha>.split.gz  gzip of JSON {"source", "flags", "specials"}: the split pattern
                        as a JavaScript RegExp, and the special tokens (str -> id)
Both are built from the tokenizer in memory (the references' ranks were hash-checked when
they were loaded), on the first page that asks (then kept in lab/derived.py's cache, by
the tokenizer's content), into lab/token_view/vocab/ (ignored by git,
served like the view's JS). Nothing comes from a CDN. That folder is an LRU under a byte
limit (VOCAB_BYTES, env LAB_VOCAB_DIR_MB, 256): every use of a spec touches its files, and
each write removes the least recently used files past the limit, so uploads cannot fill
the disk and what survives a restart is within the limit. A spec whose files were removed
is built again when next asked for.

Python stays the source of truth: the page still encodes every text and the view compares
its ids with the browser's. JavaScript regexes have no possessive quantifiers and take
their Unicode classes from the browser's ICU, so a preset pattern is rewritten here by hand
(JS_TEMPLATES) with every class spelled out as explicit code point ranges taken from the
`regex` module itself: the browser splits exactly as Python does whatever its Unicode
version (tests/browser/test_browser_encoder.py checks every code point and 20,000 fuzz strings in
Chromium). A pattern without a rewrite (a custom one) is encoded on the server, and
`browser_spec` says why. This module does not encode and draws nothing.

>>> js_pattern("not a preset") is None
True
"""
import functools
import gzip
import hashlib
import json
import os
import struct
import threading
from pathlib import Path

import regex

from bpe.formats.ranks import mergeable_ranks
from bpe.patterns import GPT2_SPLIT_PATTERN, GPT4_SPLIT_PATTERN, GPT4O_SPLIT_PATTERN
from bpe.reference import LLAMA3_SPLIT_PATTERN, LLAMA_MAX_RUN_CHARS
from lab import derived
from lab.jobs.settings import setting

VOCAB_DIR = Path(__file__).parent / "vocab"
# bytes the vocab folder may hold (env LAB_VOCAB_DIR_MB); GPT-4's files are about 1 MB
VOCAB_BYTES = setting("LAB_VOCAB_DIR_MB", 256, 1, 2**20, "MB", whole=True) * 2**20
PROPERTIES = ("L", "N", "Lu", "Ll", "Lt", "Lm", "Lo", "M")

# The presets for JavaScript: {X} is the body of a character class holding exactly the
# code points `regex` puts in \p{X} ({S}: its \s), {ci:'re} a case-insensitive 're as
# regex's simple case folding has it. Possessive quantifiers become greedy ones where
# nothing after them can fail (so backtracking never happens), \s++$ becomes \s+$ (a run
# of whitespace that reaches the end; Python's $ before a final \n is the same here, the
# run takes the \n), and \s+(?!\S) keeps its lookahead with \S spelled out.
_CONTRACTIONS_CI = "{ci:'s}|{ci:'t}|{ci:'re}|{ci:'ve}|{ci:'m}|{ci:'ll}|{ci:'d}"
# Mistral's Tekken (the pattern in mistral_common's tekken json): GPT-4o's without the
# contractions, one digit per chunk
TEKKEN_SPLIT_PATTERN = (
    r"[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+|[^\r\n\p{L}"
    r"\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*|\p{N}| ?[^\s\p{L}\p{N}]+"
    r"[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+")
_UPPER_FIRST = "[^\\r\\n{L}{N}]?[{Lu}{Lt}{Lm}{Lo}{M}]*[{Ll}{Lm}{Lo}{M}]+"
_LOWER_AFTER = "[^\\r\\n{L}{N}]?[{Lu}{Lt}{Lm}{Lo}{M}]+[{Ll}{Lm}{Lo}{M}]*"
_GPT4O_TAIL = "| ?[^{S}{L}{N}]+[\\r\\n/]*|[{S}]*[\\r\\n]+|[{S}]+(?![^{S}])|[{S}]+"
JS_TEMPLATES = {
    GPT2_SPLIT_PATTERN:
        "'(?:[sdmt]|ll|ve|re)| ?[{L}]+| ?[{N}]+| ?[^{S}{L}{N}]+|[{S}]+$|[{S}]+(?![^{S}])|[{S}]",
    GPT4_SPLIT_PATTERN:
        "'(?:{ci:s}|{ci:d}|{ci:m}|{ci:t}|{ci:ll}|{ci:ve}|{ci:re})"
        "|[^\\r\\n{L}{N}]?[{L}]+|[{N}]{1,3}| ?[^{S}{L}{N}]+[\\r\\n]*|[{S}]+$|[{S}]*[\\r\\n]"
        "|[{S}]+(?![^{S}])|[{S}]",
    GPT4O_SPLIT_PATTERN:
        _UPPER_FIRST + "(?:" + _CONTRACTIONS_CI + ")?|" + _LOWER_AFTER + "(?:" + _CONTRACTIONS_CI
        + ")?|[{N}]{1,3}" + _GPT4O_TAIL,
    LLAMA3_SPLIT_PATTERN:
        "(?:" + _CONTRACTIONS_CI + ")|[^\\r\\n{L}{N}]?[{L}]+|[{N}]{1,3}"
        "| ?[^{S}{L}{N}]+[\\r\\n]*|[{S}]*[\\r\\n]+|[{S}]+(?![^{S}])|[{S}]+",
    TEKKEN_SPLIT_PATTERN: _UPPER_FIRST + "|" + _LOWER_AFTER + "|[{N}]" + _GPT4O_TAIL,
}


@functools.lru_cache(maxsize=1)
def all_code_points():
    return "".join(chr(c) for c in range(0x110000) if not 0xD800 <= c <= 0xDFFF)


@functools.cache
def class_body(name):
    """The body of a JS character class (u flag) matching exactly the code points that
    `regex` matches with \\p{name} (name "S": with \\s).

    >>> class_body("S").startswith(chr(92) + "u{9}-" + chr(92) + "u{d}")
    True
    """
    pattern = r"\s" if name == "S" else rf"\p{{{name}}}"
    cps = [ord(c) for c in regex.findall(pattern, all_code_points())]
    return _ranges(cps)


@functools.cache
def _case_insensitive(ch):
    """The characters `regex` matches with (?i:ch), as a class or the character itself."""
    if not ch.isalpha():
        return regex.escape(ch)
    found = regex.findall(f"(?i:{regex.escape(ch)})", all_code_points())
    return "[" + _ranges(sorted(map(ord, found))) + "]"


def _ranges(cps):
    out = []
    start = prev = None
    for cp in cps:
        if prev is not None and cp == prev + 1:
            prev = cp
            continue
        if start is not None:
            out.append(_span(start, prev))
        start = prev = cp
    if start is not None:
        out.append(_span(start, prev))
    return "".join(out)


def _span(lo, hi):
    if lo == hi:
        return f"\\u{{{lo:x}}}"
    return f"\\u{{{lo:x}}}-\\u{{{hi:x}}}"


@functools.lru_cache(maxsize=16)
def js_pattern(pattern):
    """The JavaScript RegExp source (flags "gu") that splits exactly as `pattern` does in
    the `regex` module, or None when there is no rewrite for it (the server encodes)."""
    template = JS_TEMPLATES.get(pattern)
    if template is None:
        return None

    def fill(m):
        key = m.group(1)
        if key.startswith("ci:"):
            return "".join(_case_insensitive(ch) for ch in key[3:])
        return class_body(key)

    return regex.sub(r"\{(ci:[^}]*|S|" + "|".join(PROPERTIES) + r")\}", fill, template)


# --- the static files ---------------------------------------------------------------------

def ranks_file_bytes(ranks):
    """The (uncompressed) ranks file for ranks (bytes -> int, its ranks n consecutive
    ints); ValueError when they are not consecutive or a token is over 65,535 bytes."""
    by_rank = sorted(ranks.items(), key=lambda item: item[1])
    first = by_rank[0][1] if by_rank else 0
    if by_rank and by_rank[-1][1] - first != len(by_rank) - 1:
        raise ValueError("the ranks are not consecutive numbers")
    lengths = [len(token) for token, _ in by_rank]
    longest = max(lengths, default=0)
    if longest > 0xFFFF:  # the file stores each length in two bytes at most
        raise ValueError(f"it has a token of {longest:,} bytes, and the browser's vocabulary "
                         f"file holds tokens of at most 65,535")
    width = 1 if longest < 256 else 2
    header = json.dumps({"n": len(by_rank), "first": first, "width": width}).encode()
    lens = bytes(lengths) if width == 1 else struct.pack(f"<{len(lengths)}H", *lengths)
    return b"TVV1" + struct.pack("<I", len(header)) + header + lens + b"".join(
        token for token, _ in by_rank)


def _write(content, suffix):
    """content gzipped into VOCAB_DIR as <sha256 of content><suffix>; -> the file name."""
    name = hashlib.sha256(content).hexdigest()[:32] + suffix
    path = VOCAB_DIR / name
    try:
        os.utime(path)  # there, and used now: the last to go
    except FileNotFoundError:
        VOCAB_DIR.mkdir(exist_ok=True)
        tmp = path.with_suffix(".tmp")
        tmp.write_bytes(gzip.compress(content, compresslevel=6, mtime=0))
        tmp.replace(path)  # a reader never sees half a file
        prune(keep={name})
    return name


def prune(keep=()):
    """Remove the least recently used files of VOCAB_DIR until it holds at most
    VOCAB_BYTES (the names in keep stay: they were just written); returns bytes left."""
    found = []
    for path in VOCAB_DIR.glob("*.gz"):
        try:
            stat = path.stat()
        except FileNotFoundError:  # another thread removed it
            continue
        found.append((stat.st_mtime, stat.st_size, path))
    total = sum(size for _, size, _ in found)
    for _, size, path in sorted(found, key=lambda f: f[0]):
        if total <= VOCAB_BYTES:
            break
        if path.name not in keep:
            path.unlink(missing_ok=True)
            total -= size
    return total


def _still_there(spec):
    """True when spec's files are all in VOCAB_DIR (each touched: just used) or it has
    none; False when one was pruned."""
    try:
        for key in ("ranks", "split"):
            if key in spec:
                os.utime(VOCAB_DIR / spec[key])  # FileNotFoundError once pruned
    except FileNotFoundError:
        return False
    return True


_writing = threading.Lock()  # one spec's files written at a time: they share .tmp names


def _ranks_of(tok):
    ranks = getattr(tok, "ranks", None)
    if ranks is not None:
        return ranks
    # a trained tokenizer: its ranks when tiktoken's rule gives its ids (ValueError if not)
    return mergeable_ranks(tok)


def browser_spec(tok):
    """For the token view: {"ranks": file, "split": file, "max_chars": int or None} when
    the browser can encode with tok exactly, else {"why": a sentence} (the server
    encodes). Files are built on the first call for tok's content and name and kept in
    lab/derived.py's cache; a spec whose files were pruned is built again."""
    def build():
        with _writing:
            return _build_spec(tok)
    return derived.remember(tok, "browser spec", build, still_good=_still_there)


def _build_spec(tok):
    if getattr(tok, "ranks", None) is None and not hasattr(tok, "compiled_pattern"):
        return {"why": "this kind of tokenizer is encoded on the server only"}
    pattern = getattr(tok, "pattern", None)
    source = js_pattern(pattern) if pattern else None
    if source is None:
        return {"why": "its split pattern has no exact JavaScript version, so the server "
                       "encodes every key press"}
    try:
        ranks = _ranks_of(tok)
        ranks_file = _write(ranks_file_bytes(ranks), ".ranks.gz")
        split = json.dumps({"source": source, "flags": "gu",
                            "specials": dict(tok.special_tokens)}, ensure_ascii=True).encode()
        split_file = _write(split, ".split.gz")
    except (ValueError, OSError) as e:
        return {"why": f"its vocabulary cannot be sent to the browser ({e}); the server "
                       "encodes every key press"}
    # Llama's owner cuts long runs before encoding; the browser leaves such texts to us
    max_chars = LLAMA_MAX_RUN_CHARS if type(tok).__name__ == "LlamaTokenizer" else None
    return {"ranks": ranks_file, "split": split_file, "max_chars": max_chars}
