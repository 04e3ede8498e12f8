"""The training worker's watchdog, through the Train page in real Chromium: a training
outlives a tab that stops polling (the session's poller thread stands in for it), but
not a closed tab (the watchdog ends it and says so in the server's log). One app server
of this module's own, with a watchdog of WATCHDOG s instead of 30.
Screenshot: screenshots/train_outlived_a_paused_tab.png."""
import random
import time
from pathlib import Path

import pytest
from helpers.app import (
    WAIT,
    open_train,
    screenshot,
    streamlit_server,
    until,
    upload_corpus,
    wait_rendered,
)

ROOT = Path(__file__).resolve().parents[2]
WATCHDOG = 4  # seconds: LAB_ABANDON_AFTER_S of this module's own server (30 by default)


@pytest.fixture(scope="module")
def watchdog_server():
    """(URL, process) of an app server whose training workers give up after WATCHDOG s
    without a poll: the same watchdog as in production, only sooner, so an honest
    training of seconds can outlast it."""
    with streamlit_server(ROOT / "app.py", env={"LAB_ABANDON_AFTER_S": str(WATCHDOG)}) \
            as server:
        yield server


@pytest.fixture(scope="module")
def long_corpus():
    """4 MB of random letters: Basic to 20,000 trains on it for 10-25 s on a 2-core
    machine as busy as ours was (counting pairs dominates: ~2.5-6 s a MB), well past the
    ~7 s the pausing test spends away. A real corpus stops too soon: Basic on the 1 MB
    tinyshakespeare ends within 5 s at the vocabulary byte budget."""
    return "".join(random.Random(0).choices("abcdefgh ", k=4_000_000)).encode()


@pytest.fixture
def watched_tab(browser, watchdog_server):
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    tab = context.new_page()
    tab.goto(watchdog_server[0])
    wait_rendered(tab)
    yield tab
    context.close()


def start_long_training(tab, server, corpus, name):
    """Start Basic on corpus on the Train page; returns its worker's pid once the
    progress panel shows."""
    before = training_workers(server)
    open_train(tab)
    upload_corpus(tab, ("letters.txt", corpus))
    tab.locator(".st-key-train_kind").get_by_text("Basic").click()
    tab.locator(".st-key-train_vocab_size input").fill("20000")
    tab.locator(".st-key-train_name input").fill(name)
    tab.locator(".st-key-train_submit button").click()
    tab.locator(".st-key-train_progress").wait_for(timeout=WAIT)
    (worker,) = training_workers(server) - before
    return worker


def server_log(server):
    """What the server (and the workers it started) wrote so far: conftest sends its
    output to an unlinked temporary file, which /proc still opens."""
    with open(f"/proc/{server.pid}/fd/1", "rb") as f:
        return f.read().decode(errors="replace")


def children(pid):
    """The pids of pid's live child processes."""
    try:
        with open(f"/proc/{pid}/task/{pid}/children") as f:
            return [int(child) for child in f.read().split()]
    except FileNotFoundError:
        return []


def training_workers(server):
    """The pids of the server's training workers: the children of its fork server."""
    for child in children(server.pid):
        try:
            with open(f"/proc/{child}/cmdline", "rb") as f:
                if b"forkserver" in f.read():
                    return set(children(child))
        except FileNotFoundError:
            pass
    return set()


def test_a_training_outlives_a_tab_that_stops_polling_on_another_page(watched_tab,
                                                                      watchdog_server,
                                                                      long_corpus):
    """A tab that stays connected but runs no script (a background tab, which browsers
    throttle or freeze) polls nothing, so the worker would give up after WATCHDOG s;
    the session's poller thread stands in for it. The test pauses the tab's JavaScript
    on another page, past the watchdog, then comes back to the result."""
    tab, server = watched_tab, watchdog_server[1]
    worker = start_long_training(tab, server, long_corpus, "outlasting")
    tab.get_by_role("link", name="Tokenize", exact=True).click()
    wait_rendered(tab)
    assert "Training “outlasting”" in tab.locator('[data-testid="stSidebar"]').inner_text()
    js = tab.context.new_cdp_session(tab)
    js.send("Debugger.enable")
    js.send("Debugger.pause")  # no timer fires, no fragment reruns: the page polls nothing
    # subtle: waiting out the watchdog is the point; nothing can signal that it did not
    # strike. The page last polled at most 1 s before the pause (the sidebar polls every
    # second) and the worker looks every 0.5 s: without the poller thread it is gone by
    # WATCHDOG + 1.5 s into the pause
    time.sleep(WATCHDOG + 2)
    alive = worker in training_workers(server)
    js.send("Debugger.resume")
    js.detach()
    assert f"training worker {worker} stopped" not in server_log(server), \
        "the watchdog ended the training while its tab was connected"
    assert alive, "the training ended during the pause, which then proved nothing: " \
                  "make long_corpus longer"
    tab.get_by_role("link", name="Train", exact=True).click()
    main = tab.locator('[data-testid="stMain"]')
    tab.get_by_text("Added to this session as outlasting").or_(
        main.get_by_text("stopped checking")).first.wait_for(timeout=300_000)
    wait_rendered(tab)
    assert "stopped checking" not in main.inner_text()
    assert "Added to this session as outlasting" in main.inner_text()
    assert f"training worker {worker} stopped" not in server_log(server)
    screenshot(tab, "train_outlived_a_paused_tab")


def test_a_training_whose_tab_is_closed_is_ended_by_the_watchdog(watched_tab,
                                                                 watchdog_server,
                                                                 long_corpus):
    """Once the tab is gone, the poller thread stops standing in (the session is no
    longer connected) and the worker's watchdog ends the training WATCHDOG s later,
    before it could finish; the worker says so in the server's log."""
    server = watchdog_server[1]
    worker = start_long_training(watched_tab, server, long_corpus, "orphaned")
    watched_tab.context.close()  # the tab and its connection, as a closed tab does
    assert until(lambda: worker not in training_workers(server), timeout=120, every=0.1)
    assert worker not in training_workers(server)
    # gone: stopped by the watchdog (it writes this line before it exits), not finished
    assert (f"lab.jobs: training worker {worker} stopped: nobody polled it for {WATCHDOG} s"
            in server_log(server)), "no watchdog line in the server's log, which ends:\n" \
        + server_log(server)[-2000:]
