"""The on-disk cache of tables derived from a ranks file: its parsed ranks and its joinable
table (bpe.encode.joinable_table), so that a new process (a CLI call, a worker, the app's
first page) reads them back instead of deriving them again.

Where: the folder named by the environment variable BPE_DERIVED_CACHE if it is set ("off"
turns the cache off; tests point it at a temp folder), else $XDG_CACHE_HOME/bpe-lab/derived,
else ~/.cache/bpe-lab/derived. It is the user's own folder, not the vocabulary's: packages
that ship vocabularies are often installed read-only and shared between users.

Each entry is one file named by the sha256 of the ranks file's bytes as they are on disk
(so a .gz is not even decompressed on a hit) and by CODE_VERSION, which changes whenever
what is derived, or how, changes. The file is MAGIC, then the sha256 of the payload, then
the payload: a marshal of plain data (dict, bytes, str, int) that is only unmarshalled
once its digest matches, and only used if it has the expected shape. A missing, short,
truncated or otherwise damaged entry is rebuilt from the ranks file and rewritten;
entries are written atomically (bpe.formats.atomic), and at most MAX_ENTRIES are kept
(the oldest go), so the folder cannot grow without bound. A folder that cannot be written
costs only speed: the tables are derived in memory as before. Nothing is downloaded.

It caches files read by path only (references, CLI paths): an upload's bytes are parsed
in memory and never written here.
"""
import hashlib
import marshal
import os

from .encode import joinable_table
from .formats import atomic
from .formats.ranks import check_sha256, parse_ranks, read_file_bytes, uncompressed

CODE_VERSION = 1      # bump when the derived tables or the code deriving them change
MAGIC = b"bpeDC1\n\0"  # 8 bytes: what this file is, and its layout's version
MAX_ENTRIES = 32      # files kept; real vocabularies take 0.5-4 MB each
ENV = "BPE_DERIVED_CACHE"


def cache_dir():
    """The cache folder (a str), or None when BPE_DERIVED_CACHE is "off"."""
    chosen = os.environ.get(ENV)
    if chosen == "off":
        return None
    if chosen:
        return chosen
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "bpe-lab", "derived")


def entry_path(kind, file_sha256):
    """The cache file for one kind of table derived from the file with this sha256."""
    folder = cache_dir()
    if folder is None:
        return None
    return os.path.join(folder, f"{kind}-{file_sha256}-v{CODE_VERSION}.marshal")


def read_entry(path):
    """The payload stored at path, or None if it is missing or damaged in any way.

    >>> read_entry("/no/such/file") is None
    True
    """
    try:
        with open(path, "rb") as f:
            blob = f.read()
    except OSError:
        return None
    head = len(MAGIC) + 32
    if len(blob) < head or not blob.startswith(MAGIC) or \
            hashlib.sha256(blob[head:]).digest() != blob[len(MAGIC):head]:
        return None
    try:
        return marshal.loads(blob[head:])
    except (ValueError, EOFError, TypeError):
        return None


def write_entry(path, payload):
    """Store payload (plain data) at path atomically, then drop the oldest entries past
    MAX_ENTRIES. A folder that cannot be written is not an error: the cache only saves
    time, and the caller already holds the tables."""
    data = marshal.dumps(payload)
    try:
        atomic.write_files({path: [MAGIC, hashlib.sha256(data).digest(), data]})
    except OSError:
        return
    folder = os.path.dirname(path)
    try:
        # the entry just written always stays (mtimes can tie within a second)
        others = [e for e in os.scandir(folder)
                  if e.name.endswith(".marshal") and e.path != path]
        others.sort(key=lambda e: e.stat().st_mtime)
        for old in others[:max(0, len(others) - (MAX_ENTRIES - 1))]:
            os.remove(old.path)
    except OSError:
        pass  # another process pruned it first


def ranks_tables(path, sha256=None, fix=""):
    """(ranks, joinable) of the ranks file at path: ranks as bpe.formats.ranks.read_ranks_file
    gives them (gunzipped if .gz, its content's sha256 checked when given, ValueError if it
    differs) and joinable_table(ranks), read from the cache when it holds this file."""
    path = os.fspath(path)
    raw = read_file_bytes(path)
    entry = entry_path("ranks", hashlib.sha256(raw).hexdigest())
    payload = read_entry(entry) if entry else None
    if _is_ranks_entry(payload) and (sha256 is None or payload["sha256"] == sha256.lower()):
        return payload["ranks"], payload["joinable"]
    data = uncompressed(raw, path)
    if sha256 is not None:
        check_sha256(data, sha256, path, fix)
    ranks = parse_ranks(data, source=path)
    joinable = joinable_table(ranks)
    if entry:
        write_entry(entry, {"sha256": hashlib.sha256(data).hexdigest(), "ranks": ranks,
                            "joinable": joinable})
    return ranks, joinable


def _is_ranks_entry(payload):
    """The shape ranks_tables writes (its digest matched, so a mismatch is an old layout)."""
    return isinstance(payload, dict) and isinstance(payload.get("sha256"), str) and \
        isinstance(payload.get("ranks"), dict) and \
        isinstance(payload.get("joinable"), bytes) and len(payload["joinable"]) == 65536
