"""The owner libraries on a file a visitor supplied, run in a worker process, never in the server's.

`tokenizers`, `tiktoken` and `sentencepiece` are compiled code. On a hostile file they can
panic (pyo3's PanicException, a BaseException), abort (std::bad_alloc), allocate without
bound, take minutes in native code while holding the GIL (every visitor's page and
/_stcore/health then wait), or crash the process. So for an uploaded file they run in a
worker forked from lab/jobs/process.py's fork server (as trainings do), under:

  - OWNER_MEMORY: the worker's address space (RLIMIT_AS); env LAB_OWNER_MEMORY_MB, 1024;
  - OWNER_SECONDS: CPU seconds per request (RLIMIT_CPU, raised by that much before each
    one, so a busy machine does not fail a check that a quiet one passes); env
    LAB_OWNER_SECONDS, 10. The server also gives up after WALL_FACTOR times that in wall
    time, WALL_LEAST seconds at least (a worker stuck without using CPU).

  - a counted bound on what the library would build, checked in the server before any
    worker starts (too_big): `tokenizers` keeps a Unigram model's pieces in a trie with
    a hash table per node, ~TRIE_NODE_BYTES per distinct prefix byte (measured: 297 MB for
    100,000 HTML-shaped pieces in a 3.6 MB file, 85x the file; GPT-2's BPE file, 23 MB for
    1.4 MB). A file whose trie would pass OWNER_FILE_FACTOR times its size plus
    OWNER_FLOOR is not checked, and the badge says why (issue 32: the app's memory per
    visitor file stays within a few times the file).

Any of those ends in OwnerFailed, a ValueError whose text is "the owner library could not
check this file (<why>)"; the server and the session go on. The worker lives as long as
its OwnerWorker (a session keeps a few, lab/parity.py) and exits when the server drops it.

`file_encoder(kind, files, pattern, specials, cut)` builds the owner's encoder and is
what the worker runs; a file we ship (bpe.reference) may use it in-process. This module
imports no Streamlit (the fork server preloads it).
"""
import json
import math
import os
import resource
import signal
import threading

from bpe.formats import gpt2
from bpe.formats.hf.models import Unigram
from bpe.reference import llama_pieces
from lab.jobs import process
from lab.jobs.settings import setting

OWNER_MEMORY = setting("LAB_OWNER_MEMORY_MB", 1024, 64, 2**24, "MB", whole=True) * 2**20
OWNER_SECONDS = setting("LAB_OWNER_SECONDS", 10.0, 0.5, 3600, "seconds")
WALL_FACTOR = 6   # wall seconds per CPU second before the server gives up on a worker,
WALL_LEAST = 30   # and never fewer (a loaded machine gives a worker little CPU a second)
# `tokenizers`' Unigram trie: bytes per node (a HashMap of children per prefix byte),
# measured with tokenizers 0.2x on three files (346-365 B per node, the vocab included)
TRIE_NODE_BYTES = 360
# What a check may build: this many times the file's size, plus a floor (a small file's
# trie is checked whatever its shape). subtle: real vocabularies share prefixes, so their
# tries are far smaller per byte of file than a hostile one's: XLM-R's 250,000 pieces (as
# nomic-bert-moe's GGUF ships them, 9.9 MB as compact JSON) need ~269 MB, 27x, and must
# still be checked; the 100,000 HTML-shaped pieces need ~301 MB for 3.5 MB, 85x. 10x
# refused XLM-R; 40x checks it and still refuses the HTML-pieces file (204 MB allowed).
OWNER_FILE_FACTOR = 40
OWNER_FLOOR = 64 * 2**20
KINDS = ("ranks", "sentencepiece", "tokenizer.json", "gpt2-pair")


class OwnerFailed(ValueError):
    """The owner library could not check a file; str() is the sentence for the page."""

    def __init__(self, why):
        super().__init__(f"the owner library could not check this file ({why})")


def trie_nodes(pieces):
    """The nodes of a byte trie holding pieces (str): their distinct non-empty prefixes'
    count, from the pieces sorted (each adds the bytes past what it shares with the one
    before), without building the trie.

    >>> trie_nodes(["ab", "abc", "b", "ab"])
    4
    """
    nodes, before = 0, b""
    for piece in sorted({piece.encode("utf-8", "surrogatepass") for piece in pieces}):
        shared = 0
        for a, b in zip(before, piece):
            if a != b:
                break
            shared += 1
        nodes += len(piece) - shared
        before = piece
    return nodes


def too_big(spec, model):
    """Why the owner library is not run on spec (file_encoder's arguments), or None if it
    may be: what it would build is more than OWNER_FILE_FACTOR times the file's size plus
    OWNER_FLOOR. model: our model of the same file (a Unigram's trie is counted)."""
    if spec.get("kind") != "tokenizer.json" or not isinstance(model, Unigram):
        return None
    size = sum(len(data) for _, data in spec["files"])
    allowed = OWNER_FILE_FACTOR * size + OWNER_FLOOR
    need = trie_nodes(model.vocab) * TRIE_NODE_BYTES
    if need <= allowed:
        return None
    return (f"it was not run: `tokenizers` would build a trie of about {need >> 20:,} MB for "
            f"this {size / 2**20:,.1f} MB file's {len(model.vocab):,} Unigram pieces, more "
            f"than the {allowed >> 20:,} MB a check may use ({OWNER_FILE_FACTOR} times the "
            f"file plus {OWNER_FLOOR >> 20} MB); our own ids are shown unchecked")


# ------------------------------------------------------------------ the encoders
def tiktoken_encoder(ranks, pattern, special_tokens, cut=False):
    """("tiktoken", encode) over ranks; cut: Llama's cut of long runs first, as its owner."""
    import tiktoken
    enc = tiktoken.Encoding("lab_check", pat_str=pattern, mergeable_ranks=ranks,
                            special_tokens=special_tokens)
    if cut:
        return "tiktoken + Llama's cut", lambda text: [
            idx for piece in llama_pieces(text)
            for idx in enc.encode(piece, disallowed_special=())]
    return "tiktoken", lambda text: enc.encode(text, disallowed_special=())


def file_encoder(kind, files, ranks=None, pattern=None, special_tokens=None, cut=False):
    """(library, encode, matches_specials) for a tokenizer file: the owner's library over
    the same file(s). files: ((filename, bytes), ...). ranks/pattern/special_tokens/cut:
    for a ranks file, what our loaded tokenizer uses (the file holds only the ranks).
    matches_specials: encode turns special-token text into special tokens (tokenizers
    always does). ValueError if the kind has no owner's library (a minbpe .model)."""
    if kind == "ranks":
        library, encode = tiktoken_encoder(ranks, pattern, special_tokens or {}, cut=cut)
        return library, encode, False
    if kind == "sentencepiece":
        import sentencepiece as spm
        return "sentencepiece", spm.SentencePieceProcessor(model_proto=files[0][1]).encode, False
    if kind == "tokenizer.json":
        import tokenizers
        hf = tokenizers.Tokenizer.from_str(files[0][1].decode("utf-8"))
    elif kind == "gpt2-pair":
        hf = hf_gpt2_pair(files)
    else:
        raise ValueError(f"no owner's library checks a {kind} file")
    return "tokenizers", lambda text: hf.encode(text, add_special_tokens=False).ids, True


def hf_gpt2_pair(files):
    """`tokenizers`' BPE with ByteLevel over GPT-2's two files, as its GPT-2 tokenizer is."""
    import tokenizers
    files = dict(files)
    vocab = next(data for data in files.values() if gpt2.is_vocab_json(_json(data)))
    merges_data = next(data for data in files.values() if data is not vocab)
    merges = [tuple(line.split(" ")) for line in merges_data.decode("utf-8").split("\n")
              if line.strip() and not line.startswith("#version")]
    vocab = json.loads(vocab)
    hf = tokenizers.Tokenizer(tokenizers.models.BPE(vocab=vocab, merges=merges))
    hf.pre_tokenizer = tokenizers.pre_tokenizers.ByteLevel(add_prefix_space=False)
    made = {a + b for a, b in merges}
    hf.add_special_tokens([t for t in vocab if len(t) > 1 and t not in made])
    return hf


def _json(data):
    try:
        return json.loads(data)
    except ValueError:
        return None


# text a trial encodes: letters, digits, spaces, newlines, other scripts, an emoji
TRIAL_TEXT = "Hello world! 2026 — tokens\n\n  and lines: héllo, 안녕, Привет, 👍🏽 <s>"


def trial(spec):
    """Open the file in a worker and encode TRIAL_TEXT with it; OwnerFailed if the library
    crashes, panics or passes a limit on it. For a file this server then opens in-process
    with the same library (a SentencePiece .model)."""
    worker = OwnerWorker(spec)
    try:
        worker.encode(TRIAL_TEXT)
    finally:
        worker.close()


# ------------------------------------------------------------------ the worker side
def serve(conn, spec, memory, seconds):
    """The worker process: build the encoder from spec (file_encoder's keyword
    arguments), then answer ("encode", text) requests with ("ids", ids) or ("error", why),
    each under `seconds` more CPU seconds (SIGXCPU ends the process past them)."""
    os.setpgrp()
    resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
    signal.signal(signal.SIGXCPU, signal.SIG_DFL)  # past the budget: the process ends

    def budget():
        used = resource.getrusage(resource.RUSAGE_SELF)
        soft = math.ceil(used.ru_utime + used.ru_stime + seconds)
        resource.setrlimit(resource.RLIMIT_CPU, (soft, resource.RLIM_INFINITY))

    try:
        budget()
        library, encode, specials = file_encoder(**spec)
        conn.send(("ready", (library, specials)))
        while True:
            try:
                _, text = conn.recv()
            except EOFError:  # the server dropped this worker
                return
            budget()
            conn.send(("ids", list(encode(text))))
    except MemoryError:
        _say(conn, f"it needed more than the {memory >> 20:,} MB a check may use")
    except (KeyboardInterrupt, SystemExit):
        raise  # the worker is being stopped: stop
    except BaseException as e:  # noqa: BLE001 — a panic is a BaseException; say what it was
        _say(conn, f"{type(e).__name__}: {' '.join(str(e).split())[:200]}")


def _say(conn, why):
    try:
        conn.send(("error", why))
    except (OSError, MemoryError):
        pass


# ------------------------------------------------------------------ the server side
class OwnerWorker:
    """One uploaded file's owner encoder, alive in a worker process. encode(text) -> ids,
    or OwnerFailed; once it failed, every later call fails with the same sentence (the
    worker is gone). close() ends the worker (also when the object is collected)."""

    def __init__(self, spec, *, memory=None, seconds=None):
        self.seconds = OWNER_SECONDS if seconds is None else seconds
        self.memory = OWNER_MEMORY if memory is None else memory
        self.wall = max(WALL_LEAST, self.seconds * WALL_FACTOR)
        self.failed = None
        self._lock = threading.Lock()
        ctx = process.mp_context()
        self._conn, child = ctx.Pipe(duplex=True)
        self._process = process.WorkerProcess(
            target=serve, args=(child, spec, self.memory, self.seconds), name="bpe-owner-check",
            daemon=True)
        self._process.start()
        child.close()
        self.library, self.matches_specials = self._answer("ready")

    def encode(self, text):
        with self._lock:
            if self.failed:
                raise OwnerFailed(self.failed)
            try:
                self._conn.send(("encode", text))
            except OSError:
                pass  # it is gone: _answer says why
            return self._answer("ids")

    def _answer(self, expected):
        if self.failed:
            raise OwnerFailed(self.failed)
        try:
            if self._conn.poll(self.wall):
                kind, value = self._conn.recv()
                if kind == expected:
                    return value
                self._fail(value)
        except (EOFError, OSError):
            pass
        self._fail(self._death())

    def _death(self):
        self._process.join(1)
        code = self._process.exitcode
        if code is None:
            return f"it took longer than {self.wall:g} s"
        if code == -signal.SIGXCPU:
            return f"it took more than {self.seconds:g} s of CPU"
        if code < 0:
            name = signal.Signals(-code).name if -code in signal.valid_signals() else -code
            return (f"the library crashed ({name}), or needed more than the "
                    f"{self.memory >> 20:,} MB a check may use")
        return f"the library's process ended (exit code {code})"

    def _fail(self, why):
        self.failed = why
        self.close()
        raise OwnerFailed(why)

    def close(self):
        self._conn.close()
        if self._process.is_alive():
            try:
                os.killpg(self._process.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                self._process.kill()
        self._process.join(2)

    def __del__(self):
        try:
            self.close()
        except Exception:  # noqa: BLE001, S110 — at interpreter exit the modules may be gone
            pass
