"""`--scheduler` at addresses that are not a working Dask scheduler (issue 24): a port that
accepts and never answers, an HTTP server, and a real scheduler with no workers each give
one `bpe: error:` line and no output, instead of hanging for minutes. Every server here is
on 127.0.0.1 and is closed when its test ends; the subprocess's own timeout is only a cap."""
import os

import pytest
from helpers import hostile_round2

from test_cli import one_error_line, run


@pytest.fixture
def text(tmp_path, taylorswift):
    (tmp_path / "a.txt").write_text(taylorswift[:20_000], encoding="utf-8")
    return tmp_path


def train_at(scheduler, cwd):
    before = sorted(os.listdir(cwd))
    result = run("train", "a.txt", "--vocab-size", "300", "--scheduler", scheduler, "-o", "m",
                 cwd=cwd)
    assert sorted(os.listdir(cwd)) == before  # nothing written
    return one_error_line(result)


@pytest.fixture
def silent_port():
    accepted = []
    with hostile_round2.silent_port(accepted) as addr:
        yield addr, accepted


@pytest.fixture
def http_port():
    with hostile_round2.http_server() as addr:
        yield int(addr.rsplit(":", 1)[1])


def test_a_port_that_never_answers(text, silent_port):
    addr, accepted = silent_port
    line = train_at(addr, text)
    assert accepted  # the CLI did connect, so the wait was on the silence, not a refusal
    assert f"cannot reach the Dask scheduler at {addr} within 5 s" in line
    assert "dask scheduler" in line


def test_an_http_server(text, http_port):
    line = train_at(f"tcp://127.0.0.1:{http_port}", text)
    assert f"tcp://127.0.0.1:{http_port}" in line
    assert "it may not be a Dask scheduler" in line


def test_an_http_address(text, http_port):
    line = train_at(f"http://127.0.0.1:{http_port}", text)
    assert "is not a Dask scheduler address" in line and "give tcp://HOST:PORT" in line


def test_a_scheduler_with_no_workers(text):
    distributed = pytest.importorskip("distributed", reason="Dask is optional: pip install -r "
                                                            "requirements-scale.txt")
    with distributed.LocalCluster(n_workers=0, processes=False, protocol="tcp://",
                                  host="127.0.0.1", scheduler_port=0,
                                  dashboard_address=None) as cluster:
        address = cluster.scheduler_address
        assert address.startswith("tcp://127.0.0.1:")
        line = train_at(address, text)
    assert f"the Dask scheduler at {address} has no workers" in line
    assert f"dask worker {address}" in line


def test_the_probe_works_inside_a_running_event_loop():
    """A caller with an event loop running in its thread (Jupyter; Playwright's sync API,
    which an earlier test in the same pytest worker had started) made the probe's
    asyncio.run raise RuntimeError, reported as 'did not answer as a Dask scheduler'."""
    import asyncio
    import threading

    from bpe.counting.dask_engine import check_scheduler
    distributed = pytest.importorskip("distributed", reason="Dask is optional: pip install -r "
                                                            "requirements-scale.txt")
    with distributed.LocalCluster(n_workers=1, processes=False, protocol="tcp://",
                                  host="127.0.0.1", scheduler_port=0,
                                  dashboard_address=None) as cluster:
        async def from_a_notebook_cell():
            return check_scheduler(cluster.scheduler_address, 5)

        # the cell's loop in a thread of its own: this pytest worker's main thread may
        # already have one running (Playwright's), where asyncio.run would refuse the test
        answers = []
        cell = threading.Thread(target=lambda: answers.append(asyncio.run(from_a_notebook_cell())))
        cell.start()
        cell.join(60)
        assert answers == [1]
