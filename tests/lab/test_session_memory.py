"""What a closed tab leaves in the server (issue 24: ≤ 50 MB left behind once a session is
dropped). Streamlit keeps a closed tab's session for server.disconnectedSessionTTL seconds
for a reconnect; when its storage later drops it (expired, or over its size), the session
was shut down only once collected, and a session in a reference cycle waits for the cyclic
collector: its uploads and session state stayed in the server's memory meanwhile (+45 MB
after a 45 MB upload in bench/hostile.py, freed by gc.collect() only). The tests keep a
reference to each session, as a cycle does. lab.sessions.release_dropped_sessions hooks that.

Driven through Streamlit's own session manager, session storage and upload manager, inside
an event loop as on the server; the storage's clock is a counter the test moves, so
nothing waits. The tests count bytes held, not seconds.
"""
import asyncio
import time
import weakref
from concurrent.futures import ThreadPoolExecutor
from unittest import mock

import pytest
from streamlit import config
from streamlit.runtime.memory_session_storage import MemorySessionStorage
from streamlit.runtime.memory_uploaded_file_manager import MemoryUploadedFileManager
from streamlit.runtime.script_data import ScriptData
from streamlit.runtime.uploaded_file_manager import UploadedFileRec
from streamlit.runtime.websocket_session_manager import WebsocketSessionManager

from lab.sessions import release_dropped_sessions

TTL = 120


class Server:
    """A server's sessions and uploads, without the server."""

    def __init__(self, folder):
        script = folder / "app.py"
        script.write_text("")
        self.now = 0.0
        storage = MemorySessionStorage(ttl_seconds=TTL)
        storage._cache._timer = lambda: self.now  # the test's clock
        self.uploads = MemoryUploadedFileManager("/_stcore/upload_file")
        self.mgr = WebsocketSessionManager(storage, self.uploads, mock.MagicMock(), None)
        self.data = ScriptData(str(script))
        self.cycles = []  # every session, kept alive as a reference cycle would

    def session(self, sid):
        return next(s for s in self.cycles if s.id == sid)

    def open(self, existing=None):
        return self.mgr.connect_session(client=mock.MagicMock(), script_data=self.data,
                                        user_info={}, existing_session_id=existing)

    def visit(self, upload_mb=0, state=None):
        """A tab opens (uploading a file of upload_mb MB, putting state in its session
        state), then closes; its session id."""
        sid = self.open()
        self.cycles.append(self.mgr.get_active_session_info(sid).session)
        for key, value in (state or {}).items():
            self.session(sid).session_state[key] = value
        if upload_mb:
            self.uploads.add_file(sid, UploadedFileRec("f", "big.model", "",
                                                       b"x" * (upload_mb << 20)))
        self.mgr.disconnect_session(sid)
        return sid

    def held(self):
        """Bytes of uploaded files the server holds."""
        return sum(len(rec.data) for files in self.uploads.file_storage.values()
                   for rec in files.values())

    def close(self):
        for session in self.cycles:
            session.shutdown()


def on_server(tmp_path, test):
    async def run():
        server = Server(tmp_path)
        try:
            test(server)
        finally:
            server.close()
    watcher = config.get_option("server.fileWatcherType")
    config.set_option("server.fileWatcherType", "none")  # no thread watching the folder
    try:
        # in a thread of its own: a browser test's Playwright may keep an event loop
        # running in this one for the whole session
        with ThreadPoolExecutor(1) as pool:
            pool.submit(asyncio.run, run()).result()
    finally:
        config.set_option("server.fileWatcherType", watcher)


def test_a_dropped_sessions_upload_is_freed(tmp_path):
    def test(server):
        release_dropped_sessions(server.mgr)
        first = server.visit(upload_mb=5)
        assert server.held() == 5 << 20  # kept for a reconnect while the TTL runs
        server.now += TTL + 1
        server.visit()  # a later tab's disconnect makes the storage drop the expired one
        assert first not in {info.session.id for info in server.mgr.list_sessions()}
        assert server.held() == 0, "the dropped session's upload is still in memory"
    on_server(tmp_path, test)


def test_many_visitors_leave_only_the_ones_within_the_ttl(tmp_path):
    def test(server):
        release_dropped_sessions(server.mgr)
        for _ in range(50):
            server.visit(upload_mb=1)
            server.now += TTL / 2
        # 60 s apart with a 120 s TTL: at most the last 2 closed tabs can come back
        assert server.held() <= 2 << 20
        assert len(server.uploads.file_storage) <= 2
    on_server(tmp_path, test)


class Tokenizer:  # something a session keeps in its state, weakly referable
    pass


def test_a_dropped_sessions_state_is_freed(tmp_path):
    def test(server):
        release_dropped_sessions(server.mgr)
        tok = Tokenizer()
        kept = weakref.ref(tok)
        server.visit(state={"lab_tokenizers": {"mine": tok}})
        del tok
        assert kept() is not None  # the session may come back
        server.now += TTL + 1
        server.visit()
        assert kept() is None, "the dropped session's tokenizer is still in memory"
    on_server(tmp_path, test)


def test_a_reconnect_keeps_its_session_and_files(tmp_path):
    def test(server):
        release_dropped_sessions(server.mgr)
        sid = server.visit(upload_mb=1)
        server.session(sid).session_state["kept"] = 1
        assert server.open(existing=sid) == sid and server.mgr.is_active_session(sid)
        assert server.held() == 1 << 20  # resumed, not shut down
        server.now += TTL + 1
        server.visit()  # expires nothing of the resumed session: it is active
        assert server.held() == 1 << 20 and server.session(sid).session_state["kept"] == 1
    on_server(tmp_path, test)


def test_hooked_once_however_many_runs(tmp_path):
    def test(server):
        for _ in range(3):  # the frame calls it on every run
            release_dropped_sessions(server.mgr)
        server.visit(upload_mb=1)
        server.now += TTL + 1
        server.visit()
        assert server.held() == 0
    on_server(tmp_path, test)


def test_a_dropped_session_hands_its_freed_memory_back_and_a_reconnect_does_not(tmp_path,
                                                                              monkeypatch):
    import lab.sessions
    trims = []
    monkeypatch.setattr(lab.sessions, "return_freed_memory", lambda: trims.append(1))

    def test(server):
        release_dropped_sessions(server.mgr)
        sid = server.visit(upload_mb=1)
        assert server.open(existing=sid) == sid  # resumed: nothing was freed
        server.now += TTL + 1
        server.visit()
        assert trims == [], "a session that came back was trimmed as if dropped"
        server.mgr.disconnect_session(sid)
        server.now += TTL + 1
        server.visit()  # now both closed tabs expire
        assert len(trims) == 2
    on_server(tmp_path, test)


def rss_mb():
    with open("/proc/self/status") as f:
        return next(int(line.split()[1]) for line in f if line.startswith("VmRSS:")) / 1024


def test_freed_memory_goes_back_to_the_system():
    """What return_freed_memory is for, measured in bytes: 120 MB of 2 KB strings (the C
    allocator's heap, below its mmap threshold) freed except every 64th, so free chunks sit
    below live ones and the heap cannot shrink from its top."""
    from lab.sessions import return_freed_memory
    blocks = [bytes(2048) + bytes([n % 256]) for n in range(60_000)]
    kept = blocks[::64]
    del blocks
    before = rss_mb()
    if not return_freed_memory():
        pytest.skip("this C library has no malloc_trim (glibc's): nothing to hand back")
    after = rss_mb()
    assert before - after > 60, (before, after)
    assert len(kept) == 938


def test_a_burst_of_dropped_sessions_collects_once():
    """gc.collect holds the GIL: fifty sessions dropped at once run it once, not fifty
    times (counted, with the clock the module reads moved by hand)."""
    import lab.sessions
    calls = []
    clock = [time.monotonic() + 1e6]  # past any collection an earlier test ran
    with mock.patch.object(lab.sessions.gc, "collect", lambda: calls.append(1)), \
            mock.patch.object(lab.sessions.time, "monotonic", lambda: clock[0]):
        ran = [lab.sessions.collect_now() for _ in range(50)]
        assert ran.count(True) == 1 and len(calls) == 1
        clock[0] += lab.sessions.COLLECT_EVERY_S
        assert lab.sessions.collect_now() is True and len(calls) == 2
