"""Tokenizing a corpus: UTF-8 files streamed to one flat array of ids, in one process, a
pool of processes or on Dask, with the same ids as encoding each file's whole text.

Each file is one document, encoded as `tok.encode_ordinary(its text)` (special-token text
is ordinary text); the files' ids follow each other in order, with the end-of-text special
between them when asked. Files are cut into byte ranges that encode apart and are put back
in order (bpe.encoding.tasks says where a cut may fall). The ids are written to a
temporary file beside the output, renamed into place with a JSON sidecar at the end.

`encode_file` and `encode_ordinary_batch` are what Tokenizer's methods of those names
call. This file reads no text itself and merges nothing.
"""
import array
import json
import multiprocessing
import os
import sys
import tempfile
import threading
from collections import deque
from itertools import chain, pairwise

from ..formats import atomic
from .tasks import (
    ENCODE_RANGE_BYTES,
    encode_task,
    encode_texts,
    init_worker,
    iter_ids,
    plan,
    worker_task,
)
from ..corpus import Clock
from ..counting.dask_engine import CONNECT_TIMEOUT

MIN_RANGE_BYTES = 1 << 20     # the smallest task a pool is given by default
BATCH_PARALLEL_MIN = 4 << 20   # encode_ordinary_batch starts processes only above this
TYPECODES = {"uint16": "H", "uint32": "I"}
EOT_NAMES = ("<|endoftext|>", "<|end_of_text|>", "</s>")


def choose_dtype(tok, dtype=None):
    """'uint16' when every id fits in 16 bits (the default), else 'uint32'; ValueError
    if dtype is asked for and too small, or not one of TYPECODES.

    >>> from bpe import BasicTokenizer
    >>> choose_dtype(BasicTokenizer())
    'uint16'
    """
    if dtype is not None and dtype not in TYPECODES:
        raise ValueError(f"dtype must be uint16 or uint32, not {dtype!r}")
    fits16 = tok.n_vocab <= 1 << 16
    if dtype == "uint16" and not fits16:
        raise ValueError(f"the vocabulary has ids up to {tok.n_vocab - 1:,}, which do not fit "
                         "in uint16 (at most 65,535); use --dtype uint32")
    return dtype or ("uint16" if fits16 else "uint32")


def eot_id(tok):
    """The id of tok's end-of-text special token; ValueError if it has none."""
    for name in EOT_NAMES:
        if name in tok.special_tokens:
            return tok.special_tokens[name]
    raise ValueError(f"this tokenizer has no end-of-text special token (one of {EOT_NAMES}); "
                     "leave out --eot, or register one")


# ------------------------------------------------------------------ many tasks
def _ordered(tok, tasks, typecode, workers, scheduler=None, engine="local"):
    """Yield (task index, ids array) in order, here, in a local pool or on Dask; a task
    done here may yield several arrays (memory stays bounded), others one."""
    if engine == "dask" or scheduler:
        yield from enumerate(_ordered_dask(tok, tasks, typecode, workers, scheduler))
        return
    if workers <= 1 or len(tasks) <= 1:
        for i, (path, lo, hi) in enumerate(tasks):
            ids = array.array(typecode)
            for chunk_ids in iter_ids(tok, path, lo, hi):
                ids.extend(chunk_ids)
                if len(ids) >= 1 << 20:
                    yield i, ids
                    ids = array.array(typecode)
            yield i, ids
        return
    from concurrent.futures import ProcessPoolExecutor
    with ProcessPoolExecutor(workers, mp_context=_context(), initializer=init_worker,
                             initargs=(tok,)) as pool:
        yield from enumerate(_windowed(
            lambda task: pool.submit(worker_task, (*task, typecode)), tasks, 2 * workers,
            lambda future: future.result()))


def _windowed(submit, tasks, window, result):
    """Yield the results of tasks in order, with at most `window` of them in flight, so
    memory stays bounded however many tasks there are."""
    pending, todo = deque(), iter(tasks)
    for task in todo:
        pending.append(submit(task))
        if len(pending) >= window:
            break
    while pending:
        future = pending.popleft()
        yield result(future)
        for task in todo:
            pending.append(submit(task))
            break


def _context():
    """fork when this process has no other threads (fast: the tokenizer is inherited),
    spawn otherwise (forking a process with threads running can deadlock)."""
    if threading.active_count() == 1 and "fork" in multiprocessing.get_all_start_methods():
        return multiprocessing.get_context("fork")
    return multiprocessing.get_context("spawn")


def _ordered_dask(tok, tasks, typecode, workers, scheduler):
    try:
        from distributed import Client, LocalCluster
    except ImportError:
        raise ValueError("--engine dask needs Dask: pip install -r requirements-scale.txt "
                         "(dask and distributed)") from None
    cluster = None
    if scheduler:
        try:
            client = Client(scheduler, timeout=f"{CONNECT_TIMEOUT}s")
        except (OSError, TimeoutError) as e:
            raise ValueError(f"cannot reach the Dask scheduler at {scheduler} within "
                             f"{CONNECT_TIMEOUT} s ({type(e).__name__}); start one with "
                             "`dask scheduler` and workers with `dask worker ADDRESS`") from None
    else:
        cluster = LocalCluster(n_workers=max(workers, 1), threads_per_worker=1,
                               processes=True, dashboard_address=None)
        client = Client(cluster)
    try:
        shared = client.scatter(tok, broadcast=True)  # sent once per worker, not per task
        window = 2 * max(len(client.scheduler_info().get("workers", {})), 1)
        tasks = [(os.path.abspath(p), lo, hi) for p, lo, hi in tasks]

        def result(future):
            ids = future.result()
            future.release()
            return ids
        yield from _windowed(lambda t: client.submit(encode_task, shared, *t, typecode,
                                                      pure=False), tasks, window, result)
    finally:
        client.close()
        if cluster is not None:
            cluster.close()


# ------------------------------------------------------------------ files
def encode_file(tok, paths, out=None, *, dtype=None, workers=1, eot=False, progress=None,
                engine="local", scheduler=None, range_bytes=None, model_sha256=None):
    """Encode UTF-8 files, each as tok.encode_ordinary(its whole text), to one flat array.

    paths: a path or a list of them, encoded in order (eot=True puts the end-of-text
    special token between files). out=None returns the ids as an array.array ('H' for
    uint16, 'I' for uint32); otherwise they are written to out as little-endian integers
    (numpy.fromfile(out, dtype) reads them) with a JSON sidecar out + '.json', and the
    sidecar's dict is returned. A failure leaves neither file. workers > 1 encodes byte
    ranges in that many processes; engine='dask' on a Dask cluster (a local one of
    `workers` processes, or the running one at `scheduler`). The ids are the same
    whichever way. progress, if given, is called with stream.CountProgress now and then.
    """
    paths = [os.fspath(paths)] if isinstance(paths, (str, os.PathLike)) else \
        [os.fspath(p) for p in paths]
    dtype = choose_dtype(tok, dtype)
    typecode = TYPECODES[dtype]
    separator = array.array(typecode, [eot_id(tok)] if eot else [])
    if not isinstance(workers, int) or workers < 1:
        raise ValueError(f"workers must be an int of at least 1, not {workers!r}")
    for path in paths:
        if not os.path.isfile(path):
            raise FileNotFoundError(2, "no such file" if not os.path.exists(path) else
                                    "not a file", path)
    total = sum(os.path.getsize(p) for p in paths)
    if range_bytes is None and (workers > 1 or engine == "dask" or scheduler):
        # a few tasks per worker, so that none waits long for the last (11 MB on 2
        # workers in 8 MB ranges would be one worker's 8 MB against the other's 3)
        range_bytes = max(MIN_RANGE_BYTES, min(ENCODE_RANGE_BYTES, total // (4 * workers)))
    tasks = plan(tok, paths, range_bytes)
    clock = Clock(total, progress)
    sink = _Sink(out, typecode)
    files = []  # per file: path, bytes, first token, tokens
    try:
        done = -1
        for i, ids in _ordered(tok, tasks, typecode, workers, scheduler, engine):
            path, lo, _hi = tasks[i]
            if i != done and lo == 0:  # a file's first task
                if files and separator:
                    sink.write(separator)
                files.append({"path": path, "bytes": os.path.getsize(path),
                              "start": sink.count, "tokens": 0})
            sink.write(ids)
            files[-1]["tokens"] += len(ids)
            if i != done:
                if done >= 0:
                    clock.add(tasks[done][2] - tasks[done][1])
                done = i
        if done >= 0:
            clock.add(tasks[done][2] - tasks[done][1])
        if out is None:
            return sink.ids
        meta = sidecar(tok, dtype, sink.count, files, eot, model_sha256)
        sink.commit(json.dumps(meta, indent=1, ensure_ascii=False) + "\n")
        return meta
    finally:
        sink.discard()


def sidecar(tok, dtype, count, files, eot, model_sha256=None):
    """What the JSON sidecar holds: enough to read the ids back and know what they mean."""
    return {"format": "bpe ids", "tokenizer": tok.name, "tokenizer_sha256": model_sha256,
            "n_vocab": tok.n_vocab, "dtype": dtype, "byteorder": "little", "count": count,
            "eot": eot_id(tok) if eot else None, "files": files}


def read_sidecar(out):
    """The sidecar of the ids file out, as a dict; ValueError if it is not one."""
    path = os.fspath(out) + ".json"
    with open(path, encoding="utf-8") as f:
        meta = json.load(f)
    if not isinstance(meta, dict) or meta.get("format") != "bpe ids":
        raise ValueError(f"{path} is not the sidecar of an ids file written by bpe encode -o")
    return meta


class _Sink:
    """Where the ids go: an array in memory (out=None), or a temporary file beside out
    that commit() renames into place with its sidecar; discard() removes what is left.
    (atomic.write_files takes whole contents; a corpus's ids are streamed.)"""

    def __init__(self, out, typecode):
        self.out, self.typecode, self.count = out, typecode, 0
        self.ids = array.array(typecode) if out is None else None
        self.file = self.tmp = None
        if out is not None:
            target = os.fspath(out)
            fd, self.tmp = tempfile.mkstemp(dir=os.path.dirname(target) or ".",
                                            prefix=f".{os.path.basename(target)}.",
                                            suffix=".tmp")
            umask = os.umask(0)
            os.umask(umask)
            os.chmod(self.tmp, 0o666 & ~umask)  # as open() would make it, not mkstemp's 0600
            self.file = os.fdopen(fd, "wb")

    def write(self, ids):
        self.count += len(ids)
        if self.file is None:
            self.ids.extend(ids)
            return
        if sys.byteorder == "big":
            ids = array.array(self.typecode, ids)
            ids.byteswap()
        ids.tofile(self.file)

    def commit(self, sidecar_text):
        target = os.fspath(self.out)
        self.file.flush()
        os.fsync(self.file.fileno())
        self.file.close()
        os.replace(self.tmp, target)
        self.tmp = None
        try:
            atomic.write_files({target + ".json": sidecar_text})
        except BaseException:
            os.remove(target)
            raise

    def discard(self):
        if self.file is not None and not self.file.closed:
            self.file.close()
        if self.tmp is not None:
            try:
                os.remove(self.tmp)
            except FileNotFoundError:
                pass
            self.tmp = None


# ------------------------------------------------------------------ texts
def encode_ordinary_batch(tok, texts, num_threads=8):
    """[tok.encode_ordinary(text) for text in texts], by up to num_threads processes
    when the texts are big enough (BATCH_PARALLEL_MIN characters) to pay for starting
    them; in this process otherwise. The same ids either way."""
    texts = list(texts)
    workers = min(int(num_threads or 1), os.cpu_count() or 1, len(texts))
    if workers <= 1 or sum(map(len, texts)) < BATCH_PARALLEL_MIN:
        return [tok.encode_ordinary(text) for text in texts]
    from concurrent.futures import ProcessPoolExecutor
    # batches of about equal size, in order, a few per worker so none waits for the last
    bounds, size, total = [0], 0, sum(map(len, texts))
    for i, text in enumerate(texts):
        size += len(text)
        if size >= total / (4 * workers):
            bounds.append(i + 1)
            size = 0
    if bounds[-1] != len(texts):
        bounds.append(len(texts))
    batches = [texts[a:b] for a, b in pairwise(bounds)]
    with ProcessPoolExecutor(workers, mp_context=_context(), initializer=init_worker,
                             initargs=(tok,)) as pool:
        return list(chain.from_iterable(pool.map(encode_texts, batches)))
