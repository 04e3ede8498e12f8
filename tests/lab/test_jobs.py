"""Training in a worker process (lab/jobs/__init__.py): same merges as in-process, progress
batched, user errors as text, cancel, and no orphan when nobody polls or the parent dies."""
import os
import random
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from bpe import BasicTokenizer, MergeProgress, RegexTokenizer
from bpe.replay import token_counts_by_merge
from helpers.app import until
from helpers.training import start_training
from lab import jobs
from lab.jobs import runner

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = (ROOT / "samples" / "shakespeare_100k.txt").read_text(encoding="utf-8")

# A training that outlasts every test that stops it: Basic, 60,000 merges over 3 MB of
# random letters (a runaway split pattern no longer serves: the core stops it in seconds).
LONG = ("basic", None, "".join(random.Random(0).choices("abcdefgh ", k=3_000_000)), 60_000)


def test_job_trains_the_same_merges_as_in_process():
    text, held_out = SAMPLE[:80_000], SAMPLE[80_000:90_000]
    job = start_training("regex", "gpt4", text, 700, min_frequency=2,
                         special_tokens=["<|endoftext|>", "<|pad|>"], held_out=held_out)
    events = []
    while not job.done:
        job.wait(0.2)
        events += job.poll()
    assert job.error is None, job.error
    tok, held_out_counts = job.result().tok, job.result().held_out_counts
    ref = RegexTokenizer("gpt4").train(text, 700, min_frequency=2)
    assert tok.merges == ref.merges
    assert tok.merge_counts == ref.merge_counts
    assert tok.stop_reason == ref.stop_reason
    # special tokens get the ids right after the trained vocabulary
    n = 256 + len(ref.merges)
    assert tok.special_tokens == {"<|endoftext|>": n, "<|pad|>": n + 1}
    assert held_out_counts == token_counts_by_merge(ref, held_out)
    # the last progress event reports the last merge; the recent merges end with it
    last_idx = max(ref.merges.values())
    assert job.progress.done == len(ref.merges) == job.progress.total
    assert isinstance(job.progress, MergeProgress)
    assert job.trace[-1] == (len(ref.merges), job.progress.elapsed)
    assert job.recent[-1][0] == last_idx
    assert job.recent[-1][2] == ref.vocab[last_idx]
    assert job.recent[-1][3] == ref.merge_counts[last_idx]
    assert not job.alive()


def test_basic_job_matches_basic_training():
    text = SAMPLE[:5_000]
    job = start_training("basic", None, text, 400)
    assert job.wait(120)
    assert job.result().tok.merges == BasicTokenizer().train(text, 400).merges
    assert isinstance(job.result().tok, BasicTokenizer)


def test_progress_is_batched(monkeypatch):
    """A thousand merges in a simulated second make ten messages, not a thousand."""
    clock = iter(range(10**6))
    monkeypatch.setattr(jobs.time, "monotonic", lambda: next(clock) / 1000)
    sent = []

    class Conn:
        def send(self, message):
            sent.append(message)

    report = runner._Reporter(Conn())
    for done in range(1, 1001):
        report(MergeProgress(done, 1000, 255 + done, (97, 98), b"ab", 5, done / 1000))
    report.flush()
    assert 9 <= len(sent) <= 12
    kinds = {kind for kind, _ in sent}
    assert kinds == {"progress"}
    last, latest = sent[-1][1]
    assert last.done == 1000 and last.total == 1000
    assert latest[-1] == (1255, (97, 98), b"ab", 5)
    assert all(len(latest) <= jobs.RECENT_MERGES for _, (_, latest) in sent)


ARGS = dict(kind="regex", pattern="gpt4", text="hello world, hello", vocab_size=300,
            min_frequency=1)


@pytest.mark.parametrize("kwargs, message", [
    (dict(pattern="(unclosed"), "invalid split pattern"),
    (dict(vocab_size=100), "from 256"),
    (dict(min_frequency=0), "min_frequency"),
    (dict(kind="sentencepiece"), "kind must be one of"),
])
def test_bad_settings_are_refused_before_a_worker_starts(kwargs, message):
    """The typed request checks itself as it is made: no worker for a bad setting."""
    before = jobs.running_jobs()
    with pytest.raises(ValueError, match=message):
        start_training(**{**ARGS, **kwargs})
    assert jobs.running_jobs() == before


def test_errors_only_the_training_finds_come_back_as_text():
    job = start_training(**{**ARGS, "pattern": r"[a-z]+"})  # it would drop the spaces
    assert job.wait(60)
    assert job.error is not None and "skips" in job.error
    assert "Traceback" not in job.error
    with pytest.raises(RuntimeError):
        job.result()


def test_cancel_stops_a_training_that_would_never_end():
    job = start_training(*LONG)
    while job.phase == "starting":  # wait until the worker runs the pattern
        job.wait(0.1)
    assert not job.done and job.alive()
    job.cancel()
    assert job.done and job.cancelled and job.error is None
    assert not job.alive()
    assert job.exitcode == -signal.SIGTERM
    with pytest.raises(RuntimeError, match="cancelled"):
        job.result()
    job.cancel()  # a second cancel is harmless


def test_watchdog_ends_a_job_nobody_polls():
    job = start_training(*LONG, abandon_after=1.0)
    job.join(60)
    assert job.exitcode == jobs.ABANDONED
    job.poll()
    assert job.done and "stopped checking" in job.error


WORKER_OF_A_DOOMED_PARENT = f"""
import sys, time
sys.path.insert(0, {str(ROOT)!r})
from lab import jobs
from lab.jobs import workers
from lab.jobs.requests import BpeRequest
if __name__ == "__main__":
    import random
    text = "".join(random.Random(0).choices("abcdefgh ", k=3_000_000))
    job = jobs.start(workers.train_bpe, dict(request=BpeRequest("basic", None, 60_000),
                                             text=text))
    while job.phase == "starting":
        job.wait(0.1)
    print(job.pid, flush=True)
    time.sleep(600)
"""


def _running(pid):
    """True if pid is a live process (a zombie waiting to be reaped counts as gone)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False


def test_worker_exits_when_its_parent_dies():
    parent = subprocess.Popen([sys.executable, "-c", WORKER_OF_A_DOOMED_PARENT],
                              stdout=subprocess.PIPE, text=True)
    try:
        worker = int(parent.stdout.readline())
        assert _running(worker)
        parent.send_signal(signal.SIGKILL)
        parent.wait(10)
        assert until(lambda: not _running(worker), timeout=30)
    finally:
        parent.kill()
        parent.wait(10)
        if 'worker' in locals() and _running(worker):
            os.kill(worker, signal.SIGKILL)


def test_keep_polling_keeps_a_job_alive_until_it_is_no_longer_wanted():
    """While its page is not shown, a poller thread stands in for it; once the session
    is gone (still_wanted turns false) the watchdog ends the worker as before."""
    wanted = True
    job = start_training(*LONG, abandon_after=1.0)
    poller = job.keep_polling(lambda: wanted, every=0.1)
    job.join(3)  # three times abandon_after
    assert job.alive() and job.exitcode is None
    wanted = False
    job.join(60)
    assert job.exitcode == jobs.ABANDONED
    poller.join(60)
    assert not poller.is_alive()


def _group(pgid):
    """The live (not zombie) processes in process group pgid."""
    members = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as f:
                    fields = f.read().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[2]) == pgid and fields[0] != "Z":
                members.append(int(entry))
    return members


@pytest.mark.parametrize("how", ["cancel", "abandon"])
def test_counting_processes_end_with_the_worker(shakespeare, how):
    """A corpus above bpe.counting.chunks.PARALLEL_MIN is counted by processes the worker forks;
    cancel and the watchdog end them too (the worker leads its own process group)."""
    from bpe.counting.chunks import PARALLEL_MIN
    # subtle: the watchdog first looks after WATCH_EVERY s; the counting must outlast it
    text = shakespeare * (4 * PARALLEL_MIN // len(shakespeare) + 1)
    job = start_training("regex", "gpt4", text, 300,
                         abandon_after=0.01 if how == "abandon" else jobs.ABANDON_AFTER)
    until(lambda: len(_group(job.pid)) >= 2 or job.done, timeout=60, every=0.01)
    assert len(_group(job.pid)) >= 2  # the worker and its counting processes
    if how == "cancel":
        job.cancel()
    else:
        job.join(60)
        assert job.exitcode == jobs.ABANDONED
    until(lambda: not _group(job.pid), timeout=30)
    assert _group(job.pid) == []
