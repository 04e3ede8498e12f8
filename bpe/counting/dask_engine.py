"""Counting on a Dask cluster: byte ranges of the files are tasks, and the parts come
back to this process to be joined in order (count.py's join), so the counts, and the
merges trained on them, are identical to counting in one process.

Dask is optional (requirements-scale.txt): it is imported only when a count or an encode
runs on Dask, and so is asyncio (with ssl and socket, ~40 ms of every `import bpe` that
only a cluster probe needs). Workers must be able to import
bpe and read the files at the same paths (a shared filesystem), as with any Dask job.

Every wait on the network has a deadline. Before a Client is made, the address is asked
for its identity under CONNECT_TIMEOUT (an HTTP server, a port that accepts and never
answers, or a scheduler without workers is a ValueError within seconds, not a hang), and
while parts are counted, a part that takes longer than STALL_TIMEOUT, or a cluster that
has lost all its workers, stops the count with one message. It does not retry a lost part
elsewhere beyond what Dask itself does.
"""
import logging
import os
import time
from collections import deque
from concurrent.futures import ThreadPoolExecutor

from .parts import join
from ..corpus import RANGE_BYTES, Clock, file_ranges
from .stream import count_range, need_streamable

CONNECT_TIMEOUT = 5    # seconds to reach a scheduler, and for it to have a worker
STALL_TIMEOUT = 600    # seconds one range (RANGE_BYTES) may take before we give up
POLL = 1.0             # seconds between checks that the cluster still has workers
START_HINT = ("start one with `dask scheduler` and workers with `dask worker ADDRESS`")


def count_files_dask(tok, paths, *, scheduler=None, workers=2, progress=None,
                     range_bytes=RANGE_BYTES, connect_timeout=CONNECT_TIMEOUT, client=None,
                     stall_timeout=STALL_TIMEOUT):
    """The Part of the concatenated files, counted by Dask workers: a new LocalCluster
    of `workers` processes, the running cluster at `scheduler` (tcp://HOST:PORT), or
    the one a distributed.Client given as `client` is connected to (left open)."""
    need_streamable(tok)
    limits = dict(connect_timeout=connect_timeout, stall_timeout=stall_timeout)
    if client is not None:
        return _count(client, tok, [os.path.abspath(p) for p in paths], range_bytes,
                      progress, **limits)
    try:
        from distributed import Client, LocalCluster
    except ImportError:
        raise ValueError("--engine dask needs Dask: pip install -r requirements-scale.txt "
                         "(dask and distributed)") from None
    paths = [os.path.abspath(p) for p in paths]
    if scheduler:
        check_scheduler(scheduler, connect_timeout)
        with _quiet():
            try:
                client = Client(scheduler, timeout=f"{connect_timeout}s")
            except (OSError, TimeoutError) as e:
                raise ValueError(f"cannot reach the Dask scheduler at {scheduler} within "
                                 f"{connect_timeout} s ({type(e).__name__}); "
                                 f"{START_HINT}") from None
        cluster = None
    else:
        cluster = LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                               dashboard_address=None)
        client = Client(cluster)
    try:
        return _count(client, tok, paths, range_bytes, progress, **limits)
    finally:
        with _quiet():
            client.close(timeout=connect_timeout)
            if cluster is not None:
                cluster.close(timeout=connect_timeout)


def check_scheduler(address, timeout=CONNECT_TIMEOUT):
    """The number of workers of the Dask scheduler at `address`; ValueError within about
    `timeout` seconds if nothing answers there as a Dask scheduler, or if it still has no
    workers by then."""
    deadline = time.monotonic() + timeout
    while True:
        identity = _identity(address, max(deadline - time.monotonic(), 0.5))
        if identity.get("type") != "Scheduler":
            raise ValueError(f"{address} answered, but as a Dask {identity.get('type')!r}, "
                             f"not a scheduler; give the scheduler's address ({START_HINT})")
        n_workers = len(identity.get("workers") or {})
        if n_workers or time.monotonic() >= deadline:
            break
        time.sleep(min(0.25, max(deadline - time.monotonic(), 0)))
    if not n_workers:
        raise ValueError(f"the Dask scheduler at {address} has no workers (waited "
                         f"{timeout} s); start some with `dask worker {address}`")
    return n_workers


def _identity(address, timeout):
    """The scheduler's answer to Dask's `identity` request, under one deadline for the
    connection, the handshake and the answer (distributed's own timeouts leave the
    handshake and the reply unbounded on a port that accepts and never answers)."""
    import asyncio  # only a Dask run pays for it (see the module's docstring)
    from distributed.comm import connect

    async def ask():
        comm = await connect(address, timeout=timeout)
        try:
            await comm.write({"op": "identity", "reply": True})
            return await comm.read()
        finally:
            comm.abort()

    with _quiet():
        try:
            # its own thread: asyncio.run refuses a thread whose loop is running (a
            # notebook, or Playwright's sync API), which read as "did not answer"
            with ThreadPoolExecutor(1) as probe:
                answer = probe.submit(asyncio.run, asyncio.wait_for(ask(), timeout)).result()
        except ValueError as e:  # "unknown address scheme 'http'"
            raise ValueError(f"{address} is not a Dask scheduler address ({e}); give "
                             f"tcp://HOST:PORT") from None
        except (OSError, TimeoutError, asyncio.TimeoutError) as e:
            raise ValueError(f"cannot reach the Dask scheduler at {address} within "
                             f"{timeout:.0f} s ({type(e).__name__}); it may not be a Dask "
                             f"scheduler, or nothing answers there; {START_HINT}") from None
        except Exception as e:  # garbage from a server speaking another protocol
            raise ValueError(f"{address} did not answer as a Dask scheduler "
                             f"({type(e).__name__}); {START_HINT}") from None
    if not isinstance(answer, dict):
        raise ValueError(f"{address} did not answer as a Dask scheduler; {START_HINT}")
    return answer


class _quiet:
    """distributed logs connection failures to stderr; the CLI's answer is one line."""

    def __enter__(self):
        self.logger = logging.getLogger("distributed")
        self.level = self.logger.level
        self.logger.setLevel(logging.CRITICAL + 1)

    def __exit__(self, *exc):
        self.logger.setLevel(self.level)


def _count(client, tok, paths, range_bytes, progress, *, connect_timeout, stall_timeout):
    address = client.scheduler.address
    ranges = file_ranges(paths, range_bytes)
    clock = Clock(sum(hi - lo for _, lo, hi in ranges), progress)
    window = 2 * max(check_scheduler(address, connect_timeout), 1)
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
        part = _result(future, address, connect_timeout, stall_timeout)
        future.release()
        submit()
        total = part if total is None else join(total, part, tok.split)
        clock.add(hi - lo)
    return total


def _result(future, address, connect_timeout, stall_timeout):
    """The future's result, waited for in short steps: between them, the scheduler must
    still answer and have a worker, and the whole wait stays under stall_timeout."""
    started = time.monotonic()
    while True:
        try:
            return future.result(timeout=POLL)
        except TimeoutError:
            pass
        except RuntimeError as e:
            if "deserializ" in str(e):
                raise ValueError(f"the Dask scheduler at {address} cannot read bpe's tasks: "
                                 "run the scheduler and workers with the same Python and bpe "
                                 "as this command") from None
            raise
        if time.monotonic() - started > stall_timeout:
            raise ValueError(f"a part of the files took more than {stall_timeout} s on the "
                             f"Dask cluster at {address}; check its workers (dask worker "
                             f"logs) or count with --engine local")
        check_scheduler(address, connect_timeout)
