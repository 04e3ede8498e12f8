"""The worker side of a training job: what runs inside the worker process.

`run` (the process's target) caps the process's memory, starts the watchdog, calls the
job's function as `function(progress, **args)`, and sends back batched progress, then
the pickled value or an error message (ValueError/TypeError text as it is; a bug's
traceback only in the server's log). The watchdog (`_watch`) ends the process when its
parent is gone or has stopped polling. The handle on the server side is lab/jobs/__init__.py's;
how the process is started, lab/jobs/process.py's.
"""
import multiprocessing
import os
import pickle
import resource
import signal
import sys
import time
import traceback
from collections import deque
from typing import NamedTuple

from lab.jobs.settings import ABANDONED, OUT_OF_MEMORY, RECENT_MERGES, REPORT_EVERY, WATCH_EVERY


class Step(NamedTuple):
    """Progress of work counted in other units than merges (a sweep's runs, say)."""
    done: int          # units done so far
    total: int         # units in all
    elapsed: float     # seconds since the work began
    label: str = ""    # what the unit is ("vocab size 1024"), shown beside the bar

    @property
    def merges_per_s(self) -> float:
        return self.done / self.elapsed if self.elapsed > 0 else 0.0


def memory_message(limit):
    size = f"{limit / 2**20:,.0f} MB" if limit else "the memory it may use"
    return (f"The training hit this server's memory cap for one training ({size}). Try a "
            "smaller corpus or vocab size; for big corpora use the command line "
            "(python -m bpe train), which has no such cap.")


def run(conn, heartbeat, abandon_after, spec):
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
        function = spec["target"]
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
