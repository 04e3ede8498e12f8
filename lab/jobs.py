"""Work in a worker process, so a long training never stalls the Streamlit server.

Streamlit runs every session's script in a thread of one process; `tok.train` is pure
Python and holds the GIL, so training in the script thread would slow every other user.
`start` runs a job in another process instead, started through multiprocessing's
"forkserver" (never a plain fork of the server: it has threads, and forking a process
with threads can deadlock), and returns a TrainingJob the caller polls:

    job = start("lab.trainers:train_bpe", dict(kind="regex", pattern="gpt4",
                                               text=text, vocab_size=1024))
    job.poll()      # -> new progress events since the last poll, batched
    job.done, job.error, job.result(), job.cancel()

A job names a module-level function ("package.module:function", in bpe/, lab/ or viz/)
and its keyword arguments; the worker imports it and calls `function(progress, **args)`.
progress is a callable taking bpe's MergeProgress (or a `Step`, for work counted in
other units), with a `phase(name)` method to say what it is doing ("counting",
"measuring"...). What the function returns must pickle: it comes back as job.result().
lab/training.py (the session side: typed settings, progress, outcome) is the place
pages use; this module knows nothing of Streamlit.

Limits: at most SERVER_LIMIT workers run at once on a server (start raises Busy, a
ValueError with a message, beyond that), and each worker's address space is capped at
WORKER_MEMORY bytes (resource.RLIMIT_AS), so one training cannot take the server's memory;
hitting the cap ends the job with a message that says so.

The worker never outlives its use: it exits when its parent process dies, when nobody
has polled it for `abandon_after` seconds (the tab was closed), and on cancel(), taking
along the processes it forks to count a big corpus. `job.keep_polling(still_wanted)`
polls from a thread while the page is not shown, so the job survives a visit to
another page of the app.

Settings a server reads from its environment when it imports this module:
  LAB_MAX_TRAININGS      workers at once (SERVER_LIMIT; one per core, at least two)
  LAB_WORKER_MEMORY_MB   one worker's address-space cap (WORKER_MEMORY; 2048)
  LAB_ABANDON_AFTER_S    seconds without a poll before a worker gives up (ABANDON_AFTER;
                         30, from 2 to 3600). Lower means a closed tab frees its worker
                         sooner but a busy server may miss a poll; the browser tests
                         start a server with 4 so a training can outlast it.
A value out of range or not a number stops the import with a ValueError that says so.
"""
import importlib
import io
import multiprocessing
import multiprocessing.popen_forkserver
import os
import pickle
import resource
import signal
import sys
import threading
import time
import traceback
import weakref
from collections import deque
from typing import NamedTuple

REPORT_EVERY = 0.1     # seconds between progress messages: one pipe write per batch
RECENT_MERGES = 20     # latest merges carried by a progress event (and kept by the job)
WATCH_EVERY = 0.5      # seconds between the worker's checks on its parent and its polls
KINDS = ("basic", "regex")
ABANDONED = 3          # the worker's exit code when it gave up on an absent parent
OUT_OF_MEMORY = 4      # the worker's exit code when it hit its memory cap past recovery
TRACE_POINTS = 2000    # (done, elapsed) points a job keeps for its ETA, thinned beyond
TARGET_PACKAGES = ("bpe", "lab", "viz")  # where a job's function may live


def setting(name, default, low, high, unit, *, whole=False):
    """The number in environment variable name (default if unset), checked to lie in
    [low, high] (and to be a whole number if whole); a ValueError that names the
    variable and the range otherwise."""
    raw = os.environ.get(name, "").strip()
    if not raw:
        return default
    try:
        value = float(raw)
    except ValueError:
        value = None
    if value is None or not low <= value <= high or whole and not value.is_integer():
        # (NaN fails the range too)
        raise ValueError(f"{name}={raw!r} is not a {'whole ' if whole else ''}number of "
                         f"{unit} from {low} to {high}: fix it or unset it (the default "
                         f"is {default})")
    return int(value) if whole else value


# Workers at once on this server: one per core, at least two (env LAB_MAX_TRAININGS)
SERVER_LIMIT = setting("LAB_MAX_TRAININGS", max(2, os.cpu_count() or 1), 1, 1024,
                       "trainings", whole=True)
# Address space one worker may take, in bytes (env LAB_WORKER_MEMORY_MB)
WORKER_MEMORY = setting("LAB_WORKER_MEMORY_MB", 2048, 64, 2**24, "MB", whole=True) * 2**20
# seconds without a poll after which the worker gives up (env LAB_ABANDON_AFTER_S)
ABANDON_AFTER = setting("LAB_ABANDON_AFTER_S", 30.0, 2, 3600, "seconds")

_live = weakref.WeakSet()  # the jobs started by this process, to count running workers
_live_lock = threading.Lock()


class Busy(ValueError):
    """Too many trainings run on this server (or in this session) to start another."""


class Step(NamedTuple):
    """Progress of work counted in other units than merges (a sweep's runs, say)."""
    done: int          # units done so far
    total: int         # units in all
    elapsed: float     # seconds since the work began
    label: str = ""    # what the unit is ("vocab size 1024"), shown beside the bar

    @property
    def merges_per_s(self) -> float:
        return self.done / self.elapsed if self.elapsed > 0 else 0.0

_context = None
_warming = None  # the thread that started the fork server, once one has


def _mp_context():
    """The "forkserver" context, preloaded with bpe: a job's process then forks from a
    small single-threaded server in ~30 ms, where "spawn" takes ~0.5 s per job to start
    Python and import bpe."""
    global _context
    if _context is None:
        _context = multiprocessing.get_context("forkserver")
        _context.set_forkserver_preload(["bpe", "bpe.replay", "lab.jobs", "lab.trainers"])
    return _context


class _Popen(multiprocessing.popen_forkserver.Popen):
    """Starts a worker without re-running the parent's main script in it.

    multiprocessing prepares every child by importing the parent's __main__ again; in
    the server that is Streamlit's copy of app.py (a whole page run, GPT-4 loaded) and
    under AppTest a generated script that cannot run outside it. A job names its
    function by module, so the child needs none of it: the same launch as the
    standard library's, with the main-module entries left out of the preparation."""

    def _launch(self, process_obj):
        from multiprocessing import forkserver, reduction, spawn, util
        from multiprocessing.context import set_spawning_popen
        prep_data = spawn.get_preparation_data(process_obj._name)
        prep_data.pop("init_main_from_path", None)
        prep_data.pop("init_main_from_name", None)
        buf = io.BytesIO()
        set_spawning_popen(self)
        try:
            reduction.dump(prep_data, buf)
            reduction.dump(process_obj, buf)
        finally:
            set_spawning_popen(None)
        self.sentinel, w = forkserver.connect_to_new_process(self._fds)
        parent_w = os.dup(w)  # the child's sentinel of this parent, as the original keeps
        self.finalizer = util.Finalize(self, util.close_fds, (parent_w, self.sentinel))
        with open(w, "wb", closefd=True) as f:
            f.write(buf.getbuffer())
        self.pid = forkserver.read_signed(self.sentinel)


class WorkerProcess(multiprocessing.get_context("forkserver").Process):
    """A forkserver Process launched through _Popen (module-level: it is pickled)."""

    @staticmethod
    def _Popen(process_obj):
        return _Popen(process_obj)


def warm_up():
    """Start the fork server in the background now, so the first training a visitor
    starts does not wait seconds for it to import bpe. Safe to call on every run."""
    global _warming
    if _warming is None:
        def run():
            _mp_context()
            from multiprocessing import forkserver
            forkserver.ensure_running()
        _warming = threading.Thread(target=run, name="bpe-forkserver-warm-up", daemon=True)
        _warming.start()
    return _warming


def running_jobs():
    """How many workers this server process runs now."""
    with _live_lock:
        return sum(1 for job in list(_live) if not job.done and job.alive())


def start(target, args, *, abandon_after=ABANDON_AFTER, memory=None):
    """Start target ("package.module:function") in a worker process with keyword
    arguments args; returns its TrainingJob at once. Busy if SERVER_LIMIT workers run.
    memory: the worker's address-space cap in bytes (WORKER_MEMORY by default)."""
    module, _, function = target.partition(":")
    if not function or module.split(".")[0] not in TARGET_PACKAGES:
        raise ValueError(f"a job's target is 'package.module:function' inside "
                         f"{'/, '.join(TARGET_PACKAGES)}/, not {target!r}")
    with _live_lock:
        if sum(1 for job in list(_live) if not job.done and job.alive()) >= SERVER_LIMIT:
            raise Busy(f"{SERVER_LIMIT} trainings are running on this server already, "
                       "which is as many as it runs at once. Wait a minute for one to end, "
                       "then train again.")
        job = TrainingJob(dict(target=target, args=args,
                               memory=WORKER_MEMORY if memory is None else memory),
                          abandon_after)
        _live.add(job)
    return job


def start_training(kind, pattern, text, vocab_size, min_frequency=1, special_tokens=(),
                   *, held_out=None, abandon_after=ABANDON_AFTER, memory=None):
    """Start training a BPE tokenizer in a worker (lab.trainers.train_bpe); its result()
    is a lab.trainers.Trained (tok, held_out_counts).

    kind: "basic" or "regex"; pattern: a preset name or regex (ignored for "basic").
    special_tokens: strings given ids right after the trained vocabulary.
    held_out: optional text the worker also encodes, to report the token count after
    every merge (see bpe.replay.token_counts_by_merge).
    User errors (a bad pattern, vocab_size below 256...) come back as job.error.
    """
    if kind not in KINDS:
        raise ValueError(f"kind must be one of {KINDS}, not {kind!r}")
    return start("lab.trainers:train_bpe",
                 dict(kind=kind, pattern=pattern, text=text, vocab_size=vocab_size,
                      min_frequency=min_frequency, special_tokens=list(special_tokens),
                      held_out=held_out),
                 abandon_after=abandon_after, memory=memory)


class TrainingJob:
    """A training running in a worker process. Poll it from the page; poll and cancel
    may also come from its keep_polling thread (they take a lock)."""

    def __init__(self, spec, abandon_after=ABANDON_AFTER):
        ctx = _mp_context()
        self.phase = "starting"   # starting -> counting -> merging -> measuring -> done
        self.progress = None      # the latest MergeProgress (or Step), None before merging
        # (idx, pair, token, count) of the latest merges, newest last; replaced, never
        # mutated, so a page can read it while a keep_polling thread polls
        self.recent = ()
        self.done = False
        self.error = None         # str: what went wrong and what to do, if it failed
        self.cancelled = False
        # (done, elapsed) at every progress batch, for the ETA (lab.training.eta)
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
        self._process = WorkerProcess(
            target=_work, args=(child_conn, self._heartbeat, abandon_after, spec),
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


# ----------------------------------------------------------------- the worker side
def _signal_group(process, signum):
    """Signal the worker and the processes it forked to count a big corpus (its group)."""
    try:
        os.killpg(process.pid, signum)
    except (ProcessLookupError, PermissionError):
        # not yet its own group leader (it has just started), or already gone
        try:
            os.kill(process.pid, signum)
        except ProcessLookupError:
            pass


def memory_message(limit):
    size = f"{limit / 2**20:,.0f} MB" if limit else "the memory it may use"
    return (f"The training hit this server's memory cap for one training ({size}). Try a "
            "smaller corpus or vocab size; for big corpora use the command line "
            "(python -m bpe train), which has no such cap.")


def _work(conn, heartbeat, abandon_after, spec):
    """The worker process: run the job's function, send batched progress, then the
    pickled result or an error."""
    # Its own process group, so cancel and the watchdog end the counting processes bpe
    # forks for a big corpus along with it; and not daemonic in its own eyes, because
    # multiprocessing forbids daemonic processes to have children. (The parent still
    # treats it as daemonic and ends it when the server exits.)
    os.setpgrp()
    multiprocessing.current_process().daemon = False
    memory = spec.get("memory")
    if memory:
        # the counting processes it forks inherit the cap too
        resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
    _watch(conn, heartbeat, abandon_after)
    report = _Reporter(conn)
    try:
        module, _, name = spec["target"].partition(":")
        function = getattr(importlib.import_module(module), name)
        conn.send(("phase", "counting"))
        value = function(report, **spec["args"])
        report.flush()
        conn.send(("result", pickle.dumps(value, pickle.HIGHEST_PROTOCOL)))
    except MemoryError:
        try:
            conn.send(("error", memory_message(memory)))
        except MemoryError:
            os._exit(OUT_OF_MEMORY)
    except (ValueError, TypeError) as e:
        conn.send(("error", str(e)))
    except Exception as e:  # a bug, not the user's: keep the traceback in the server log
        traceback.print_exc(file=sys.stderr)
        conn.send(("error", f"The training failed unexpectedly ({type(e).__name__}: {e})."))
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)  # no more checks on a closing pipe
        conn.close()


class _Reporter:
    """The progress callback a job's function gets: keeps the latest merges, sends a
    batch every REPORT_EVERY seconds, so a fast training makes a few messages a second,
    not thousands. phase(name) says what the job does now."""

    def __init__(self, conn):
        self.conn = conn
        self.latest = deque(maxlen=RECENT_MERGES)
        self.last = None
        self.sent = time.monotonic()

    def __call__(self, p):
        if hasattr(p, "idx"):  # a MergeProgress: keep the merge for the recent table
            self.latest.append((p.idx, p.pair, p.token, p.count))
        self.last = p
        now = time.monotonic()
        if now - self.sent >= REPORT_EVERY:
            self.sent = now
            self.flush()

    def phase(self, name):
        self.flush()
        self.conn.send(("phase", name))

    def flush(self):
        p = self.last
        if p is None:
            return
        self.conn.send(("progress", (p, list(self.latest))))
        self.last = None
        self.latest.clear()


def _watch(conn, heartbeat, abandon_after):
    """Exit this process when its parent is gone or has stopped polling.

    The parent never writes to conn, so conn turns readable only at EOF: when the
    parent's end is closed, by its death or by dropping the job. A timer signal rather
    than a thread does the checking: it runs between the trainer's bytecodes (and
    inside long regex searches, which check for signals), and with no extra thread bpe
    may still count a big corpus on several cores (it only forks single-threaded).
    """
    def check(signum, frame):
        gone = conn.poll()
        if gone or time.monotonic() - heartbeat.value > abandon_after:
            # one line in the server's log, so whoever reads it knows why a training
            # vanished (os.write: nothing buffered is lost to _exit)
            why = ("its server process dropped it" if gone else
                   f"nobody polled it for {abandon_after:g} s (its tab was closed?)")
            os.write(2, f"lab.jobs: training worker {os.getpid()} stopped: {why}\n"
                     .encode())
            signal.signal(signal.SIGTERM, signal.SIG_IGN)
            os.killpg(0, signal.SIGTERM)  # the counting processes, if any; not this one
            os._exit(ABANDONED)

    signal.signal(signal.SIGALRM, check)
    signal.setitimer(signal.ITIMER_REAL, WATCH_EVERY, WATCH_EVERY)
