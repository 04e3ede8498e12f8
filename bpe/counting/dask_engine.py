"""Counting on a Dask cluster: byte ranges of the files are tasks, and the parts come
back to this process to be joined in order (count.py's join), so the counts, and the
merges trained on them, are identical to counting in one process.

Dask is optional (requirements-scale.txt): nothing imports this module but the CLI's
`--engine dask`, and it imports dask only when called. Workers must be able to import
bpe and read the files at the same paths (a shared filesystem), as with any Dask job.
"""
import os
from collections import deque

from .parts import join
from .stream import RANGE_BYTES, _Clock, count_range, file_ranges

CONNECT_TIMEOUT = 5  # seconds to reach a scheduler before giving up


def count_files_dask(tok, paths, *, scheduler=None, workers=2, progress=None,
                     range_bytes=RANGE_BYTES, connect_timeout=CONNECT_TIMEOUT, client=None):
    """The Part of the concatenated files, counted by Dask workers: a new LocalCluster
    of `workers` processes, the running cluster at `scheduler` (tcp://HOST:PORT), or
    the one a distributed.Client given as `client` is connected to (left open)."""
    from .stream import _need_streamable
    _need_streamable(tok)
    if client is not None:
        return _count(client, tok, [os.path.abspath(p) for p in paths], range_bytes, progress)
    try:
        from distributed import Client, LocalCluster
    except ImportError:
        raise ValueError("--engine dask needs Dask: pip install -r requirements-scale.txt "
                         "(dask and distributed)") from None
    paths = [os.path.abspath(p) for p in paths]
    if scheduler:
        try:
            client = Client(scheduler, timeout=f"{connect_timeout}s")
        except (OSError, TimeoutError) as e:
            raise ValueError(f"cannot reach the Dask scheduler at {scheduler} within "
                             f"{connect_timeout} s ({type(e).__name__}); start one with "
                             "`dask scheduler` and workers with `dask worker ADDRESS`") from None
        cluster = None
    else:
        cluster = LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                               dashboard_address=None)
        client = Client(cluster)
    try:
        return _count(client, tok, paths, range_bytes, progress)
    finally:
        client.close()
        if cluster is not None:
            cluster.close()


def _count(client, tok, paths, range_bytes, progress):
    ranges = file_ranges(paths, range_bytes)
    clock = _Clock(sum(hi - lo for _, lo, hi in ranges), progress)
    window = 2 * max(len(client.scheduler_info().get("workers", {})), 1)
    pending, todo = deque(), iter(ranges)
    total = None

    def submit():
        for task in todo:
            pending.append((task, client.submit(count_range, *task, tok.split, pure=False)))
            return

    for _ in range(window):
        submit()
    while pending:
        # in order, at most `window` parts in flight: memory stays bounded however many
        # ranges there are, and the join is the same left-to-right fold as one process
        (_, lo, hi), future = pending.popleft()
        part = future.result()
        future.release()
        submit()
        total = part if total is None else join(total, part, tok.split)
        clock.add(hi - lo)
    return total
