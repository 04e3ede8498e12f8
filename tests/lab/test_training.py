"""lab/train/training.py and the generic job: any registered kind runs in the worker and
returns its value; limits per server and per session refuse with a message; a worker
that hits its memory cap says so; and the ETA against recorded real trainings."""
import json
import subprocess
import sys
from pathlib import Path

import pytest

from bpe import RegexTokenizer
from helpers.training import Silent, start_training
from lab import jobs
from lab.jobs import Busy, Step, workers
from lab.jobs.requests import (BpeRequest, CountsRequest, PairRequest, SentencePieceRequest,
                               TieRulesRequest)
from lab.train import training
from lab.train.training import estimate_left, recent_rate

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = (ROOT / "samples" / "shakespeare_100k.txt").read_text(encoding="utf-8")
TRACES = sorted((ROOT / "tests" / "fixtures").glob("merge_trace_*.json"))
CATASTROPHIC = r"(?:a|aa)+b|\s+|."  # a training that never ends


def test_a_job_runs_any_function_it_names_and_returns_its_value():
    job = jobs.start(workers.train_pair, dict(request=PairRequest(300), text=SAMPLE[:20_000]))
    assert job.wait(120) and job.error is None, job.error
    regex_tok, basic_tok = job.result()
    assert regex_tok.merges == RegexTokenizer("gpt4").train(SAMPLE[:20_000], 300).merges
    assert type(basic_tok).__name__ == "BasicTokenizer"
    assert job.trace and job.trace[-1][0] == job.progress.done
    # one bar for both: the merges of the two trainings counted one after the other
    assert job.progress.done == job.progress.total == 2 * (300 - 256)
    assert all(b[0] >= a[0] and b[1] >= a[1] for a, b in zip(job.trace, job.trace[1:]))


def test_a_job_runs_a_module_level_function_of_the_lab():
    import os
    import subprocess
    for target in (os.system, subprocess.run, "lab.jobs.workers:train_pair", lambda p: p,
                   training.Training.cancel):
        with pytest.raises(TypeError, match="module-level function of bpe/, lab/, viz/"):
            jobs.start(target, {})


def test_sentencepiece_trains_in_the_worker():
    job = jobs.start(workers.train_sentencepiece,
                     dict(request=SentencePieceRequest(400), text=SAMPLE[:30_000]))
    assert job.wait(120) and job.error is None, job.error
    sp = job.result().tok
    assert type(sp).__name__ == "SentencePieceBPE" and sp.n_vocab <= 400


def test_the_server_limit_refuses_one_training_too_many(monkeypatch):
    monkeypatch.setattr(jobs, "SERVER_LIMIT", 1)
    first = start_training("regex", CATASTROPHIC, "a" * 60, 300)
    try:
        with pytest.raises(Busy, match="1 trainings are running on this server"):
            start_training("regex", "gpt4", "hello", 300)
    finally:
        first.cancel()
    second = start_training("regex", "gpt4", "hello world", 300)  # room again
    assert second.wait(60) and second.error is None


def test_a_worker_over_its_memory_cap_ends_with_a_message(shakespeare):
    # Basic training keeps ~70 bytes per corpus byte before its first merge (its lists
    # of positions, bench/results/basicmem.md): far more than 100 MB of address space here
    job = start_training("basic", None, shakespeare, 300, memory=100 * 2**20)
    assert job.wait(120)
    assert "memory cap for one training (100 MB)" in job.error
    assert "Traceback" not in job.error


def test_steps_are_reported_like_merges():
    p = Step(3, 10, 1.5, "vocab size 1024")
    assert p.merges_per_s == 2.0 and p.label == "vocab size 1024"


def test_every_request_type_has_one_kind_and_its_worker_is_a_function():
    with pytest.raises(ValueError, match="no kind of training takes a dict"):
        training.start("x", training.Settings({"kind": "bpe"}, name="x"))
    names = [kind.name for kind in training.KINDS.values()]
    assert len(set(names)) == len(names)
    for request_type, kind in training.KINDS.items():
        jobs.check_function(kind.worker)  # module-level, found again by name
        assert kind.worker.__module__ == "lab.jobs.workers"
    assert training.Settings(BpeRequest("basic", None, 300), name="x").kind == "bpe"
    assert training.Settings(CountsRequest(pattern="gpt2", vocab_size=300),
                             name="x").kind == "counts"


def test_the_jobs_package_imports_no_streamlit():
    # the fork server preloads lab.jobs' modules: Streamlit there would slow every start
    # and bring the server's threads into the worker's parent
    code = ("import importlib, pkgutil, sys, lab.jobs\n"
            "for m in pkgutil.iter_modules(lab.jobs.__path__):\n"
            "    importlib.import_module('lab.jobs.' + m.name)\n"
            "print('streamlit' in sys.modules, len(list(pkgutil.iter_modules(lab.jobs.__path__))))")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True,
                         check=True).stdout.split()
    assert out[0] == "False" and int(out[1]) >= 8


def test_the_forkserver_preloads_the_workers():
    from lab.jobs import process as job_process
    assert {"bpe", "lab.jobs.workers", "lab.jobs.runner", "lab.jobs.requests"} \
        <= set(job_process.PRELOAD)
    import importlib
    for name in job_process.PRELOAD:
        importlib.import_module(name)  # a name that no longer imports would stop the server


# ---------------------------------------------------------------- the ETA
def load_trace(path):
    data = json.loads(path.read_text())
    return [(done, elapsed) for done, elapsed, _count in data["points"]], data["merges"]


def test_traces_are_real_recordings():
    """The fixtures: (done, elapsed, count) every 10 ms of bpe trainings on the shared
    corpora (tests/fixtures/README.md says how they were made)."""
    assert len(TRACES) >= 3
    for path in TRACES:
        points, merges = load_trace(path)
        assert points[-1][0] == merges and len(points) > 100
        assert all(b[0] >= a[0] and b[1] >= a[1] for a, b in zip(points, points[1:]))


def test_recent_rate_follows_a_speed_up():
    trace = [(n, n / 100) for n in range(1, 101)] + [(100 + 4 * n, 1 + n / 100)
                                                        for n in range(1, 101)]
    assert recent_rate(trace) == pytest.approx(400, rel=0.02)


def test_estimate_needs_a_few_points_and_is_zero_at_the_end():
    assert estimate_left([(1, 0.1)], 100) is None
    assert estimate_left([(1, 0.1), (2, 0.2), (100, 1.0)], 100) == 0.0


def naive_left(trace, total):
    """What the page used to show: merges left at the average rate so far."""
    done, elapsed = trace[-1]
    return (total - done) / (done / elapsed)


def worst_ratio(estimate, points, total):
    """The worst of estimate/real and real/estimate from 10% of the merges on, where
    at least a second is really left; and the worst overshoot (s) where less is."""
    end = points[-1][1]
    worst, overshoot = 1.0, 0.0
    for i, (done, elapsed) in enumerate(points):
        if done < 0.1 * total or done >= total:
            continue
        left, real = estimate(points[:i + 1], total), end - elapsed
        assert left is not None
        if real >= 1.0:
            worst = max(worst, left / real, real / max(left, 1e-9))
        else:
            overshoot = max(overshoot, left - real)
    return worst, overshoot


@pytest.mark.parametrize("path", TRACES, ids=lambda p: p.stem)
def test_the_estimate_is_within_2x_of_real_trainings(path):
    points, total = load_trace(path)
    worst, overshoot = worst_ratio(estimate_left, points, total)
    assert worst <= 2.0, f"{path.stem}: {worst:.2f}x off"
    # under a second left, it never promises more than a couple of seconds
    assert overshoot <= 2.0


def test_the_old_average_rate_estimate_fails_the_same_traces():
    """The traces tell estimators apart: the rate-so-far estimate was 5x off or worse."""
    worst = max(worst_ratio(naive_left, *load_trace(path))[0] for path in TRACES)
    assert worst > 4


# ------------------------------------------------------------ in a session
def quick_pair_script():
    import sys

    import streamlit as st
    sys.path.insert(0, st.session_state["root"])
    from lab.train import training
    if st.session_state.get("start"):
        st.session_state["start"] = False
        try:
            training.start_quick_pair(st.session_state["text"], vocab_size=300)
        except ValueError as e:
            st.session_state["refused"] = str(e)
    st.session_state["ended"] = [t.slot for t in training.collect_finished()]
    st.session_state["picked"] = (st.session_state.get("compare_a"),
                                  st.session_state.get("compare_b"))


def test_the_quick_pair_trains_in_the_worker_and_is_picked_for_compare(monkeypatch):
    from streamlit.testing.v1 import AppTest
    at = AppTest.from_function(quick_pair_script, default_timeout=60)
    at.session_state["root"] = str(ROOT)
    at.session_state["text"] = SAMPLE[:20_000]
    at.session_state["start"] = True
    at.run()
    t = at.session_state["lab_trainings"][training.QUICK_PAIR]
    assert t.job is not None or t.outcome is not None
    if t.running:
        assert t.job.wait(120)
        at.run()
    t = at.session_state["lab_trainings"][training.QUICK_PAIR]
    assert t.outcome.ok and t.outcome.added == ["Regex 300 (Shakespeare)", "Basic 300 (Shakespeare)"]
    assert at.session_state["picked"] == tuple(t.outcome.added)
    assert list(at.session_state["lab_tokenizers"]) == t.outcome.added
    # a second start of the same slot while one runs is refused with a message
    monkeypatch.setattr(training, "SESSION_LIMIT", 0)
    at.session_state["start"] = True
    at.run()
    assert "as many as one visitor may run at once" in at.session_state["refused"]


# ------------------------------------------------------------ the trainers
def counts_bytes(tmp_path, text, pattern="gpt4"):
    """A counts file of text (as python -m bpe count writes it), as bytes."""
    from bpe.counting.counts_file import write_counts
    from bpe.counting.stream import count_texts
    tok = RegexTokenizer(pattern)
    path = tmp_path / "made.counts"
    write_counts(path, tok.pattern, count_texts(tok, [text]))
    return path.read_bytes()


def test_a_counts_file_trains_the_merges_of_its_text(tmp_path):
    data = counts_bytes(tmp_path, SAMPLE[:30_000], "gpt2")
    request = CountsRequest(pattern="gpt2", vocab_size=400, special_tokens=["<|endoftext|>"])
    job = jobs.start(workers.train_counts,
                     dict(request=request, data=data, file_name="bard.counts"))
    assert job.wait(120) and job.error is None, job.error
    tok = job.result().tok
    expected = RegexTokenizer("gpt2").train(SAMPLE[:30_000], 400)
    assert tok.pattern == expected.pattern  # the file's pattern, not a default
    assert tok.merges == expected.merges and tok.merge_counts == expected.merge_counts
    assert tok.special_tokens == {"<|endoftext|>": 400}
    assert job.result().held_out_counts is None  # no text: nothing held out
    # damaged and wrong files: one clear message naming the upload, not the temp file
    for bad, why in ((data[:-10], "is damaged"), (b"hello\nworld\n", "is not a counts file"),
                     (data.replace(b"bpe-counts 1", b"bpe-counts 9", 1), "version")):
        with pytest.raises(ValueError, match=f"^bard.counts {why}|^bard.counts is a counts"):
            workers.train_counts(Silent(), request=CountsRequest(vocab_size=300), data=bad,
                                 file_name="bard.counts")


def test_train_bpe_passes_the_tie_rule_and_records_ties():
    text = SAMPLE[:5_000]
    for rule in ("first", "smallest_ids", "greatest_bytes"):
        request = BpeRequest("regex", "gpt4", 300, tie_break=rule, record_ties=True)
        trained = workers.train_bpe(Silent(), request=request, text=text).tok
        expected = RegexTokenizer("gpt4").train(text, 300, tie_break=rule, record_ties=True)
        assert trained.merges == expected.merges
        assert trained.merge_ties == expected.merge_ties and trained.merge_ties
    plain = workers.train_bpe(Silent(), request=BpeRequest("regex", "gpt4", 300), text=text).tok
    assert not plain.merge_ties


def test_the_toast_names_what_joined_or_just_the_training(monkeypatch):
    said = []
    monkeypatch.setattr(training.st, "toast", lambda body, icon=None: said.append(body))
    settings = training.Settings(TieRulesRequest(300), name="**b** ![i](http://127.0.0.1:1/x)")
    training.toast(training.Training("s", settings, outcome=training.Outcome(value={})))
    joined = training.Training("t", training.Settings(BpeRequest("regex"), name="x"),
                               outcome=training.Outcome(added=["bard *2*"]))
    training.toast(joined)
    # md() also puts a zero-width space inside "://", so no bare URL becomes a link
    assert said[0] == ("Training done: **\\*\\*b\\*\\* \\!\\[i\\]\\(http\\:\u200b\\/\\/127\\.0\\.0\\.1"
                       "\\:1\\/x\\)**.")
    assert "joined" not in said[0]
    assert said[1] == "Training done: **bard \\*2\\*** joined this session's tokenizers."
