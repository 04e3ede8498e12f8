"""Work in a worker process, so a long training never stalls the Streamlit server: the
job handle the server holds.

Streamlit runs every session's script in a thread of one process; `tok.train` is pure
Python and holds the GIL, so training in the script thread would slow every other user.
`start` runs a function in another process instead (started by lab/jobs/process.py's
forkserver plumbing) and returns a TrainingJob the caller polls:

    from lab import jobs
    from lab.jobs import workers
    from lab.jobs.requests import BpeRequest
    job = jobs.start(workers.train_bpe, dict(request=BpeRequest("regex", "gpt4", 1024),
                                             text=text))
    job.poll()      # -> new progress events since the last poll, batched
    job.done, job.error, job.result(), job.cancel()

A job runs a module-level function (lab/jobs/workers.py holds the app's) with keyword
arguments; the worker calls `function(progress, **args)` (lab/jobs/runner.py). progress
is a callable taking bpe's MergeProgress (or a `Step`, for work counted in other units),
with a `phase(name)` method to say what it is doing ("counting", "measuring"...). What
the function returns must pickle: it comes back as job.result(). lab/train/training.py (the
session side: typed requests, progress, outcome) is the place pages use; this module
knows nothing of Streamlit.

Limits: at most SERVER_LIMIT workers run at once on a server (start raises Busy, a
ValueError with a message, beyond that), and each worker's address space is capped at
WORKER_MEMORY bytes (resource.RLIMIT_AS), so one training cannot take the server's memory;
hitting the cap ends the job with a message that says so. Both, and ABANDON_AFTER, are
read from the environment (lab/jobs/settings.py says how).

The worker never outlives its use: it exits when its parent process dies, when nobody
has polled it for `abandon_after` seconds (the tab was closed), and on cancel(), taking
along the processes it forks to count a big corpus. `job.keep_polling(still_wanted)`
polls from a thread while the page is not shown, so the job survives a visit to
another page of the app.
"""
import os
import pickle
import signal
import sys
import threading
import time
import weakref

from lab.jobs import process, runner
from lab.jobs.process import warm_up
from lab.jobs.runner import Step, memory_message
from lab.jobs.settings import (ABANDON_AFTER, ABANDONED, OUT_OF_MEMORY, RECENT_MERGES, SERVER_LIMIT,
                               TARGET_PACKAGES, TRACE_POINTS, WORKER_MEMORY, setting)

_live = weakref.WeakSet()  # the jobs started by this process, to count running workers
_live_lock = threading.Lock()


class Busy(ValueError):
    """Too many trainings run on this server (or in this session) to start another."""


def running_jobs():
    """How many workers this server process runs now."""
    with _live_lock:
        return sum(1 for job in list(_live) if not job.done and job.alive())


def start(function, args, *, abandon_after=ABANDON_AFTER, memory=None):
    """Start function(progress, **args) in a worker process; returns its TrainingJob at
    once. function: a module-level function of bpe/, lab/ or viz/ (it travels to the
    worker pickled by name; lab/jobs/workers.py holds the app's). Busy if SERVER_LIMIT
    workers run. memory: the worker's address-space cap in bytes (WORKER_MEMORY by
    default)."""
    check_function(function)
    with _live_lock:
        if sum(1 for job in list(_live) if not job.done and job.alive()) >= SERVER_LIMIT:
            raise Busy(f"{SERVER_LIMIT} trainings are running on this server already, "
                       "which is as many as it runs at once. Wait a minute for one to end, "
                       "then train again.")
        job = TrainingJob(dict(target=function, args=args,
                               memory=WORKER_MEMORY if memory is None else memory),
                          abandon_after)
        _live.add(job)
    return job


def check_function(function):
    """TypeError unless function is a module-level function of bpe/, lab/ or viz/ that
    the worker can find again by its module and name (no lambda, no method, no other
    package's function such as os.system)."""
    module = getattr(function, "__module__", None) or ""
    name = getattr(function, "__qualname__", "")
    found = getattr(sys.modules.get(module), name, None) if "." not in name else None
    if not callable(function) or found is not function \
            or module.split(".")[0] not in TARGET_PACKAGES:
        raise TypeError(f"a job runs a module-level function of {'/, '.join(TARGET_PACKAGES)}/ "
                        f"(one of lab/jobs/workers.py's), not {function!r}")


class TrainingJob:
    """A training running in a worker process. Poll it from the page; poll and cancel
    may also come from its keep_polling thread (they take a lock)."""

    def __init__(self, spec, abandon_after=ABANDON_AFTER):
        ctx = process.mp_context()
        self.phase = "starting"   # starting -> counting -> merging -> measuring -> done
        self.progress = None      # the latest MergeProgress (or Step), None before merging
        # (idx, pair, token, count) of the latest merges, newest last; replaced, never
        # mutated, so a page can read it while a keep_polling thread polls
        self.recent = ()
        self.done = False
        self.error = None         # str: what went wrong and what to do, if it failed
        self.cancelled = False
        # (done, elapsed) at every progress batch, for the ETA (lab.train.training.estimate_left)
        self.trace = []
        self.started = time.monotonic()
        self._abandon_after = abandon_after
        self._memory = spec.get("memory")
        self.finished = None
        self._value = None
        self._has_value = False
        self._lock = threading.Lock()  # poll and cancel may come from two threads
        # subtle: a shared double, not a pipe message, so the worker can read the time of
        # the last poll without the parent writing anything it would have to drain
        self._heartbeat = ctx.Value("d", time.monotonic(), lock=False)
        # subtle: duplex although only the worker writes: the worker's end turns readable
        # exactly when this end is closed (the parent died or dropped the job), which is
        # how the worker notices. Its parent pid would not tell: under forkserver the
        # worker's parent is the fork server, which lives as long as its workers do.
        self._conn, child_conn = ctx.Pipe(duplex=True)
        self._process = process.WorkerProcess(
            target=runner.run, args=(child_conn, self._heartbeat, abandon_after, spec),
            name="bpe-train", daemon=True)
        self._process.start()
        child_conn.close()  # the worker holds the only other end: EOF means it is gone

    @property
    def pid(self):
        return self._process.pid

    @property
    def exitcode(self):
        """The worker's exit code once it has exited (ABANDONED if it gave up), else None."""
        return self._process.exitcode

    def join(self, timeout=None):
        """Wait for the worker process to exit, without reading its messages."""
        self._process.join(timeout)

    @property
    def elapsed(self):
        return (self.finished or time.monotonic()) - self.started

    def alive(self):
        """True while the worker process exists (it may have finished its work)."""
        return self._process.is_alive()

    def poll(self):
        """New progress events since the last poll (MergeProgress or Step, the last of
        each batch); updates phase, progress, recent, trace, and done/error once the
        worker finishes."""
        with self._lock:
            return self._poll()

    def _poll(self):
        self._heartbeat.value = time.monotonic()
        events = []
        while not self.done:
            try:
                if not self._conn.poll():
                    break
                kind, payload = self._conn.recv()
            except (EOFError, OSError):
                self._finish(error=self._death_message())
                break
            if kind == "phase":
                self.phase = payload
            elif kind == "progress":
                p, latest = payload
                if self.phase in ("starting", "counting"):
                    self.phase = "merging"
                if self.progress is not None and p.done < self.progress.done:
                    self.trace = []  # a second training within the job starts over
                self.progress = p
                self.recent = (self.recent + tuple(latest))[-RECENT_MERGES:]
                self.trace.append((p.done, p.elapsed))
                if len(self.trace) > TRACE_POINTS:
                    self.trace = self.trace[::2]
                events.append(p)
            elif kind == "result":
                self._value = pickle.loads(payload)
                self._has_value = True
                self._finish()
            elif kind == "error":
                self._finish(error=payload)
        if not self.done and not self._process.is_alive() and not self._conn.poll():
            # gone without a word and without EOF (a copy of its end lingers somewhere)
            self._finish(error=self._death_message())
        return events

    def wait(self, timeout=None):
        """Poll until the job is done or timeout seconds pass; True if done."""
        deadline = None if timeout is None else time.monotonic() + timeout
        while not self.done:
            left = None if deadline is None else deadline - time.monotonic()
            if left is not None and left <= 0:
                break
            # subtle: poll() drains the pipe, or a chatty worker blocks on a full pipe
            self._conn.poll(min(left, 0.5) if left is not None else 0.5)
            self.poll()
        return self.done

    def keep_polling(self, still_wanted, every=1.0):
        """Poll from a daemon thread while still_wanted() is true, so the job lives on
        while its page is not shown (the user looks at another page of the app) and
        its messages do not fill the pipe. Once still_wanted() has been false for
        abandon_after seconds (the tab was closed) the thread stops; the worker's
        watchdog then ends the worker. still_wanted must be safe to call from a thread.
        """
        def run():
            wanted_at = time.monotonic()
            while not self.done:
                time.sleep(every)
                if still_wanted():
                    wanted_at = time.monotonic()
                    self.poll()
                elif time.monotonic() - wanted_at > self._abandon_after:
                    return
        thread = threading.Thread(target=run, name=f"bpe-train-{self.pid}-poller",
                                  daemon=True)
        thread.start()
        return thread

    def result(self):
        """What the job's function returned. RuntimeError if the job failed or is still
        running."""
        if not self.done:
            raise RuntimeError("the training is still running; poll() until job.done")
        if not self._has_value:
            raise RuntimeError(self.error or "the training was cancelled")
        return self._value

    def cancel(self):
        """Stop the worker now (no-op once done). Returns once it has exited."""
        with self._lock:
            if self.done:
                return
            self.cancelled = True
            self._finish(error=None)
        _signal_group(self._process, signal.SIGTERM)
        self._process.join(2)
        if self._process.is_alive():
            _signal_group(self._process, signal.SIGKILL)
            self._process.join(2)

    def _finish(self, error=None):
        self.done = True
        self.phase = "done"
        self.error = error
        self.finished = time.monotonic()
        self._conn.close()
        if not self.cancelled:
            self._process.join(5)  # it sent its last message and is exiting: reap it

    def _death_message(self):
        self._process.join(1)
        code = self._process.exitcode
        if code == ABANDONED:
            return ("The training stopped because this page stopped checking on it for a "
                    "while (was the tab closed or asleep?). Train again to restart it.")
        if code is not None and code < 0 and -code == signal.SIGKILL:
            return ("The training process was killed (signal 9), most likely because the "
                    "server ran out of memory. Try a smaller corpus or vocab size.")
        if code == OUT_OF_MEMORY:
            return memory_message(self._memory)
        return (f"The training process ended without a result (exit code {code}). "
                "Try again; if it keeps happening, try a smaller corpus.")


def _signal_group(worker, signum):
    """Signal the worker and the processes it forked to count a big corpus (its group)."""
    try:
        os.killpg(worker.pid, signum)
    except (ProcessLookupError, PermissionError):
        # not yet its own group leader (it has just started), or already gone
        try:
            os.kill(worker.pid, signum)
        except ProcessLookupError:
            pass


__all__ = ["ABANDON_AFTER", "ABANDONED", "Busy", "OUT_OF_MEMORY", "SERVER_LIMIT", "Step",
           "TrainingJob", "WORKER_MEMORY", "check_function", "memory_message", "running_jobs",
           "setting", "start", "warm_up"]
