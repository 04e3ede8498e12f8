"""A training of this session, as one typed object: its Settings (with the request it
was asked), its Progress, its Outcome.

Every training the app runs (Train's BPE and SentencePiece, Compare's quick pair, the
sweeps and comparisons of other pages) goes through this module: a page builds a
request (lab/jobs/requests.py, checked once as it is made), `start` runs the worker function
KINDS gives for its type (lab/jobs/workers.py) in a worker process (lab/jobs/__init__.py) with
Cancel, keeps the Training in the session under a slot name, and app.py collects it
when it ends, on whatever page the user is, adding what it trained to the session's
tokenizers and saying so in a toast.

    request = BpeRequest(kind="regex", pattern="gpt4", vocab_size=1024)
    t = training.start("train", Settings(request, name="my bpe", summary="Regex…"),
                       text=text)
    t = training.get("train")     # the session's Training in that slot, or None
    t.progress()                  # Progress(phase, done, total, elapsed, rate, eta, recent)
    t.outcome                     # None while running; then Outcome(value, error, ...)
    training.cancel("train")

Kinds. KINDS maps each request type to a Kind: its name, the worker function (run as
`function(progress, request=request, **data)`; the data must pickle, and what it
returns becomes `outcome.value`) and, for a kind whose value holds tokenizers, a
function value -> [tok, ...]: those join the session under Settings.names (or
Settings.name) and the outcome lists the names they got (`outcome.added`). Another
kind is one more request type, one more function in lab/jobs/workers.py, one more entry.

Limits: SESSION_LIMIT trainings at once per session and lab.jobs.SERVER_LIMIT per server;
start() raises lab.jobs.Busy (a ValueError) with a message beyond them. Jobs end with
their session: a poller thread keeps a job alive only while the tab is connected, and
the worker's watchdog ends it once nobody polls (lab/jobs/__init__.py).
"""
import math
from dataclasses import dataclass, field

import streamlit as st

from lab import jobs, state
from lab.jobs import Busy, workers
from lab.jobs.requests import (BpeRequest, CountsRequest, ExtendRequest, MethodRequest,
                               MethodsRequest, PairRequest, SentencePieceRequest,
                               SufficiencyRequest, SweepRequest, RecoverRequest, TieRulesRequest)
from lab.jobs.workers import Trained
from lab.safe import md

SESSION_KEY = "lab_trainings"  # slot -> Training, this session's
SESSION_LIMIT = 2              # trainings one session may run at once
QUICK_PAIR = "compare_quick_pair"  # the slot of Compare's quick pair
QUICK_VOCAB = 512  # small enough to train both in a second, big enough to differ


def _one_tokenizer(value):
    return [value.tok]


def _side_by_side(value):
    return list(value.toks.values())


@dataclass(frozen=True)
class Kind:
    name: str                   # what the pages and tests call it ("bpe", "extend"...)
    worker: object              # a lab.jobs.workers function, run in the worker process
    tokenizers: object = None   # value -> [tok, ...] that join the session, or None


KINDS = {  # request type -> Kind
    BpeRequest: Kind("bpe", workers.train_bpe, _one_tokenizer),
    CountsRequest: Kind("counts", workers.train_counts, _one_tokenizer),
    SentencePieceRequest: Kind("sentencepiece", workers.train_sentencepiece, _one_tokenizer),
    PairRequest: Kind("pair", workers.train_pair, list),
    MethodRequest: Kind("method", workers.train_method, _one_tokenizer),
    MethodsRequest: Kind("methods", workers.train_methods, _side_by_side),
    # the teaching pages' jobs: their values are read on their pages, no tokenizer joins
    TieRulesRequest: Kind("ties_rules", workers.train_tie_rules),
    ExtendRequest: Kind("extend", workers.extension_job),
    SufficiencyRequest: Kind("data_size_sufficiency", workers.data_sufficiency_job),
    SweepRequest: Kind("data_size_sweep", workers.sweep_job),
    RecoverRequest: Kind("rebuild_gpt4", workers.recover_gpt4),
}


def kind_of(request):
    """The Kind of a request; ValueError for an object no kind takes."""
    kind = KINDS.get(type(request))
    if kind is None:
        raise ValueError(f"no kind of training takes a {type(request).__name__}; give one of "
                         f"{', '.join(sorted(t.__name__ for t in KINDS))} (lab/jobs/requests.py)")
    return kind


@dataclass(frozen=True)
class Settings:
    """What a training was started with: the request the worker got, and what the pages
    show about it and how its result joins the session. The corpus itself is not kept
    (it may be 200 MB), only what identifies it."""
    request: object              # a lab.jobs.requests request: what the worker was asked
    name: str                    # how its tokenizer is listed (made unique on joining)
    summary: str = ""            # one line for the progress panel
    names: tuple = ()            # names of several tokenizers, in the value's order
    pick: tuple = ()             # widget keys to set to the added names, in order
    held_chars: int = 0          # characters held out to measure compression
    corpus: object = None        # what identifies the corpus (corpus_text.corpus_fingerprint)
    corpus_label: str = ""
    named_by_size: bool = False  # name ends with the vocab size asked: say the size reached

    @property
    def kind(self):
        """The name of its kind of training ("bpe", "counts", "ties_rules"...)."""
        return kind_of(self.request).name


@dataclass(frozen=True)
class Progress:
    """A running training, as the page shows it."""
    phase: str                   # starting, counting, merging, measuring, training
    done: int = 0                # merges (or steps) done
    total: int = 0               # merges (or steps) asked for
    elapsed: float = 0.0         # seconds since the job started
    rate: float = 0.0            # merges per second, recently
    eta: float = None            # seconds left (estimate_left), None while unknown
    recent: tuple = ()           # (idx, pair, token bytes, count) of the latest merges
    label: str = ""              # a Step's label, if the kind reports steps

    @property
    def fraction(self):
        return min(self.done / self.total, 1.0) if self.total else 0.0


@dataclass
class Outcome:
    """How a training ended: its value, or why there is none."""
    value: object = None         # what the kind's function returned
    error: str = None            # what went wrong and what to do, if it failed
    cancelled: bool = False
    elapsed: float = 0.0         # seconds from start to end
    rate: float = 0.0            # merges per second over the whole training
    added: list = field(default_factory=list)  # names the tokenizers got in the session

    @property
    def ok(self):
        return self.error is None and not self.cancelled

    @property
    def tok(self):
        """The trained tokenizer of a one-tokenizer kind (bpe, sentencepiece)."""
        return self.value.tok if isinstance(self.value, Trained) else None


@dataclass
class Training:
    """One training of this session: settings, its worker job, and its outcome once
    it has ended (then job is None and the worker is gone)."""
    slot: str
    settings: Settings
    job: object = None
    outcome: Outcome = None
    announced: bool = False      # its end was shown in a toast
    shown: bool = False          # its result was shown on its page (which scrolls to it once)

    @property
    def running(self):
        return self.outcome is None

    def progress(self):
        """Poll the worker; a Progress (the last one, once it has ended)."""
        job = self.job
        if job is None:
            return Progress("done")
        job.poll()
        p = job.progress
        if p is None:
            return Progress(job.phase, elapsed=job.elapsed)
        # the first merges are the slowest and say little about the rest: no ETA yet
        settled = job.phase == "merging" and p.done >= ETA_AFTER * p.total
        return Progress(job.phase, p.done, p.total, job.elapsed, recent_rate(job.trace),
                        estimate_left(job.trace, p.total) if settled else None,
                        job.recent, getattr(p, "label", ""))

    def cancel(self):
        if self.job is not None:
            self.job.cancel()


# ------------------------------------------------------------------ the ETA
RATE_WINDOW = 0.3  # the share of the elapsed time the recent rate is measured over
ETA_AFTER = 0.05   # the share of the merges done before an ETA is shown


def recent_rate(trace, window=RATE_WINDOW):
    """Merges per second over the last `window` share of the elapsed time.

    >>> recent_rate([(100, 1.0), (300, 2.0), (600, 3.0)], window=0.34)
    300.0
    """
    if len(trace) < 2:
        return 0.0
    done, elapsed = trace[-1]
    since = elapsed * (1 - window)
    start = next((point for point in trace if point[1] >= since), trace[0])
    if start[1] >= elapsed:
        start = trace[-2]
    span = elapsed - start[1]
    return (done - start[0]) / span if span > 0 else 0.0


def estimate_left(trace, total, *, since=0.3, points=30):
    """Seconds until `total` merges are done, from a trace of (done, elapsed) points;
    None while too little is known.

    Merges mostly get cheaper as training goes (each touches fewer positions), so the
    rate so far (done / elapsed) overestimates what is left, 5-10x early on. Instead the
    time is modelled as elapsed = a * done ** b over the part of the trace after
    `since` of the elapsed time, b taken as the median slope between pairs of (at most
    `points`) points in log-log space (a stall on a busy server moves a median little),
    and read off at `total`, anchored at the latest point. On recorded real trainings
    it is within 2x of the real time left whenever that is a second or more, from 10%
    of the merges on (tests/lab/test_training.py).

    >>> round(estimate_left([(n, (n / 100) ** 0.5) for n in range(1, 501)], 1000), 2)
    0.93
    """
    trace = [(d, t) for d, t in trace if d > 0 and t > 0]
    if len(trace) < 3:
        return None
    done, elapsed = trace[-1]
    if done >= total:
        return 0.0
    tail = [p for p in trace if p[1] >= elapsed * since]
    if len(tail) < 3:
        tail = trace[-3:]
    tail = tail[::-1][::max(1, len(tail) // points)][::-1]  # the latest point kept
    logs = [(math.log(d), math.log(t)) for d, t in tail]
    slopes = sorted((y2 - y1) / (x2 - x1) for i, (x1, y1) in enumerate(logs)
                    for x2, y2 in logs[i + 1:] if x2 > x1)
    if not slopes:
        return None
    b = slopes[len(slopes) // 2]
    b = min(max(b, 0.05), 1.5)  # a noisy fit must not promise the impossible
    return max(elapsed * ((total / done) ** b - 1), 0.0)


# ------------------------------------------------------------ the session side
def trainings():
    """slot -> Training: this session's trainings, running or ended."""
    return st.session_state.setdefault(SESSION_KEY, {})


def get(slot):
    """The session's Training in slot (running or ended), or None."""
    return trainings().get(slot)


def running(slot=None):
    """True if a training runs in slot (in any slot, if slot is None)."""
    if slot is not None:
        t = get(slot)
        return t is not None and t.running
    return any(t.running for t in trainings().values())


def start(slot, settings, *, abandon_after=jobs.ABANDON_AFTER, **data):
    """Start the training settings.request asks for, in the worker, kept in slot
    (replacing what ended there); data (text...) goes to the worker function beside the
    request. Busy (a ValueError with a message) if slot or the session or the server
    runs too many; ValueError for a request no kind takes."""
    kind = kind_of(settings.request)
    if running(slot):
        raise Busy("A training is running here already: wait for it or cancel it.")
    if sum(t.running for t in trainings().values()) >= SESSION_LIMIT:
        raise Busy(f"{SESSION_LIMIT} of your trainings are running already, as many as one "
                   "visitor may run at once. Wait for one to end or cancel it, then start "
                   "this one.")
    job = jobs.start(kind.worker, dict(request=settings.request, **data),
                     abandon_after=abandon_after)
    connected = _session_connected()
    if connected is not None:
        job.keep_polling(connected)
    t = Training(slot, settings, job)
    trainings()[slot] = t
    return t


def cancel(slot):
    """Cancel the training in slot, if one runs (collect_finished records it)."""
    t = get(slot)
    if t is not None and t.running:
        t.cancel()


def forget(slot):
    """Drop the training in slot, cancelling it if it runs."""
    cancel(slot)
    trainings().pop(slot, None)


def collect_finished():
    """Give every training of the session that has ended its Outcome, adding what it
    trained to the session's tokenizers. Returns the trainings that ended since the
    last call, for app.py's toasts. Called before every page runs."""
    ended = []
    for t in list(trainings().values()):
        if t.running and t.job is not None:
            t.job.poll()
            if t.job.done:
                t.outcome = _outcome(t)
                t.job = None  # the worker is gone; drop the pipe and the trace
                ended.append(t)
    return ended


def _outcome(t):
    job = t.job
    rate = job.progress.merges_per_s if job.progress is not None else 0.0
    outcome = Outcome(error=job.error, cancelled=job.cancelled, elapsed=job.elapsed,
                      rate=rate)
    if outcome.ok:
        outcome.value = job.result()
        convert = kind_of(t.settings.request).tokenizers
        toks = convert(outcome.value) if convert else []
        names = list(t.settings.names) or [t.settings.name] * len(toks)
        if t.settings.named_by_size and len(toks) == 1:
            names = [reached_name(t.settings.name, t.settings.request.vocab_size,
                                  toks[0].n_vocab)]
        outcome.added = [state.add_tokenizer(name, tok, select=not t.settings.pick)
                         for name, tok in zip(names, toks)]
        for key, name in zip(t.settings.pick, outcome.added):
            st.session_state[key] = name
    return outcome


def reached_name(name, asked, reached):
    """name, its last word the vocab size reached instead of the one asked for (a
    training stops early when no pair occurs often enough).

    >>> reached_name("Shakespeare regex 100000", 100000, 2971)
    'Shakespeare regex 2971'
    """
    suffix = f" {int(asked)}"
    return name[:-len(suffix)] + f" {reached}" if name.endswith(suffix) else name


def toast(t):
    """The one-line toast for a training that ended (none for a cancelled one: the
    visitor knows); marks it announced."""
    t.announced = True
    o = t.outcome
    if o.cancelled:
        return None  # the visitor pressed Cancel: nothing to announce
    if o.error:
        return st.toast(f"Training “{md(t.settings.name)}” failed: {md(o.error)}",
                        icon=":material/error:")
    if not o.added:  # a sweep, a comparison: nothing joins the session's tokenizers
        return st.toast(f"Training done: **{md(t.settings.name)}**.",
                        icon=":material/check_circle:")
    added = ", ".join(f"**{md(name)}**" for name in o.added)
    return st.toast(f"Training done: {added} joined this session's tokenizers.",
                    icon=":material/check_circle:")


def start_quick_pair(text, corpus_label="Shakespeare", vocab_size=QUICK_VOCAB,
                     pick=("compare_a", "compare_b")):
    """Compare's quick pair: a Regex and a Basic tokenizer trained on text in the
    worker; when they end they join the session and are set in the widget keys pick.
    Busy if the session or server runs too many trainings."""
    names = (f"Regex {vocab_size} ({corpus_label})", f"Basic {vocab_size} ({corpus_label})")
    return start(QUICK_PAIR,
                 Settings(PairRequest(vocab_size),
                          name=f"Regex and Basic {vocab_size} ({corpus_label})",
                          names=names, pick=tuple(pick),
                          summary=f"Regex and Basic, vocab size {vocab_size}, on "
                                  f"{corpus_label}"),
                 text=text)


def _session_connected():
    """A thread-safe check that this session's browser tab is still connected, for
    job.keep_polling: the job then survives a visit to another page but not a closed
    tab. None without a Streamlit server (AppTest), where tests poll the job directly."""
    from streamlit import runtime
    from streamlit.runtime.scriptrunner import get_script_run_ctx
    ctx = get_script_run_ctx()
    if ctx is None or not runtime.exists():
        return None
    server, session_id = runtime.get_instance(), ctx.session_id
    return lambda: server.is_active_session(session_id)


__all__ = ["Busy", "Kind", "KINDS", "Outcome", "Progress", "Settings", "Trained", "Training",
           "cancel", "collect_finished", "estimate_left", "forget", "get", "kind_of",
           "recent_rate", "running", "start", "start_quick_pair", "toast", "trainings"]
