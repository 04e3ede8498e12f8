"""A closed tab's session leaves the server with everything it held: Streamlit's session
storage is hooked once per server so that a session it drops is shut down at once, not
when the cyclic garbage collector gets to it, and the memory it freed is handed back to the
operating system. Only that; what a session keeps is lab.state's.
"""
import ctypes
import gc
import logging
import threading
import time

log = logging.getLogger("lab")


def release_dropped_sessions(session_mgr=None):
    """Have Streamlit shut down every session its storage drops, so what the session held
    (its uploaded files, up to 200 MB each; its session state; its media) goes with it.

    A closed tab's session is kept server.disconnectedSessionTTL seconds (120) for a
    reconnect. When the storage then drops it (expired, or past its 128 entries) Streamlit
    only forgets it: the session is shut down by its __del__, and a session in a reference
    cycle (a run leaves some) is collected only when the cyclic collector gets to it.
    Until then its uploads and state stay in the server's memory (bench/hostile.py's
    app-upload-45mb: +45 MB once the session was dropped, freed by a gc.collect() only).
    This hooks the storage once per server: a session it removes that is not connected
    again (a reconnect also removes it from the storage) is shut down at once, as
    Streamlit's own close_session does, and its session state is cleared (the
    UploadedFile objects, the tokenizers and file bytes lab.state keeps there).
    session_mgr: the running server's, by default. Streamlit's internals: if they are not
    as expected, nothing is hooked and the log says so once.
    """
    if session_mgr is None:
        from streamlit import runtime
        if not runtime.exists():
            return
        session_mgr = getattr(runtime.get_instance(), "_session_mgr", None)
    storage = getattr(session_mgr, "_session_storage", None)
    if storage is None:  # no browser sessions to drop (AppTest's runtime)
        return
    cache = getattr(storage, "_cache", None)
    with _hook_lock:
        if cache is None or not hasattr(cache, "_on_remove") or \
                not hasattr(session_mgr, "is_active_session"):
            if not _hook_missing:
                _hook_missing.append(True)
                log.warning("Streamlit's session storage is not as lab.guard expects: "
                            "dropped sessions are left to the garbage collector")
            return
        if getattr(cache, "_lab_release", False):
            return
        before = cache._on_remove

        def removed(session_id, info):
            if before is not None:
                before(session_id, info)
            if not session_mgr.is_active_session(session_id):
                info.session.shutdown()  # twice is harmless: it checks its state
                # its tokenizers and files go now, even while the session object waits
                # in a reference cycle for the collector
                info.session.session_state.clear()
                # what a run's reference cycles still hold goes now too, then its pages
                collect_now()
                return_freed_memory()
        cache._on_remove = removed
        cache._lab_release = True


_hook_lock = threading.Lock()
_hook_missing = []  # the warning is logged once


# glibc's; None elsewhere (macOS, musl), where the next visitor reuses the freed memory
_malloc_trim = getattr(ctypes.CDLL(None), "malloc_trim", None)
_trim_missing = []  # the note is logged once


def return_freed_memory():
    """Hand the memory the C allocator holds free back to the operating system; True when
    it could. Memory a dropped session's objects freed stays with the process otherwise:
    glibc returns only the free top of its heap, and a large tokenizer's pieces, tables and
    pandas frames leave free chunks below live ones. bench/hostile.py's HTML-pieces upload
    (3.6 MB, 100,000 pieces) left the server +76 MB after its session was dropped, with
    +9 MB of live objects (tracemalloc); malloc_trim(0) gives the free pages back (a plain
    process: +84 MB -> +13 MB). A few milliseconds, once per dropped session."""
    if _malloc_trim is None:
        if not _trim_missing:
            _trim_missing.append(True)
            log.info("this C library has no malloc_trim: memory freed by dropped sessions "
                     "stays with the server process, for the next visitors to reuse")
        return False
    _malloc_trim(0)
    return True


COLLECT_EVERY_S = 10.0
_last_collect = [-COLLECT_EVERY_S]


def collect_now():
    """A full gc.collect(), at most once every COLLECT_EVERY_S seconds; True when it ran.
    It holds the GIL for its length (0.05-0.3 s on a server with tokenizers loaded), so a
    burst of dropped sessions (the storage drops up to 128 at once) must not run one each:
    the others' cycles wait for the next one, or for Python's own collector."""
    now = time.monotonic()
    with _hook_lock:
        if now - _last_collect[0] < COLLECT_EVERY_S:
            return False
        _last_collect[0] = now
    gc.collect()
    return True
