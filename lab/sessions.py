"""A closed tab's session leaves the server with everything it held: Streamlit's session
storage is hooked once per server so that a session it drops is shut down at once, not
when the cyclic garbage collector gets to it. Only that; what a session keeps is lab.state's.
"""
import logging
import threading

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
        cache._on_remove = removed
        cache._lab_release = True


_hook_lock = threading.Lock()
_hook_missing = []  # the warning is logged once
