"""The forkserver plumbing of the training workers: how a worker process is started.

Every worker forks from multiprocessing's "forkserver", never from the Streamlit
server itself (it has threads, and forking a process with threads can deadlock). The
fork server is preloaded with PRELOAD, so a job's process starts in ~30 ms with bpe and
the worker functions already imported, where "spawn" takes ~0.5 s per job. A job's
function travels to the worker pickled, by its module and qualified name (so it must
be a module-level function of bpe/, lab/ or viz/; lab/jobs/__init__.py checks).

It knows nothing of a job's messages (lab/jobs/runner.py) or its handle (lab/jobs/__init__.py).
"""
import io
import multiprocessing
import multiprocessing.popen_forkserver
import os
import threading

# imported once by the fork server, inherited by every worker it forks
PRELOAD = ["bpe", "bpe.replay", "lab.jobs.process", "lab.jobs.runner", "lab.jobs.owner_check",
           "lab.jobs.requests",
           "lab.jobs.workers"]

_context = None
_warming = None  # the thread that started the fork server, once one has


def mp_context():
    """The "forkserver" context, preloaded with bpe: a job's process then forks from a
    small single-threaded server in ~30 ms, where "spawn" takes ~0.5 s per job to start
    Python and import bpe."""
    global _context
    if _context is None:
        _context = multiprocessing.get_context("forkserver")
        _context.set_forkserver_preload(PRELOAD)
    return _context


class _Popen(multiprocessing.popen_forkserver.Popen):
    """Starts a worker without re-running the parent's main script in it.

    multiprocessing prepares every child by importing the parent's __main__ again; in
    the server that is Streamlit's copy of app.py (a whole page run, GPT-4 loaded) and
    under AppTest a generated script that cannot run outside it. A job's function
    pickles by its module and name, so the child needs none of it: the same launch as the
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
            mp_context()
            from multiprocessing import forkserver
            forkserver.ensure_running()
        _warming = threading.Thread(target=run, name="bpe-forkserver-warm-up", daemon=True)
        _warming.start()
    return _warming
