"""The settings a server reads from its environment for its training workers, once, as
lab/jobs/__init__.py is imported; and the fixed numbers of the job protocol.

  LAB_MAX_TRAININGS      workers at once (SERVER_LIMIT; one per core, at least two)
  LAB_WORKER_MEMORY_MB   one worker's address-space cap (WORKER_MEMORY; 2048)
  LAB_ABANDON_AFTER_S    seconds without a poll before a worker gives up (ABANDON_AFTER;
                         30, from 2 to 3600). Lower means a closed tab frees its worker
                         sooner but a busy server may miss a poll; the browser tests
                         start a server with 4 so a training can outlast it.

A value out of range or not a number stops the import with a ValueError that says so.
It starts no process and knows nothing of what a job runs.
"""
import os

REPORT_EVERY = 0.1     # seconds between progress messages: one pipe write per batch
RECENT_MERGES = 20     # latest merges carried by a progress event (and kept by the job)
WATCH_EVERY = 0.5      # seconds between the worker's checks on its parent and its polls
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
