"""Running trainings in tests: start one in the worker from plain arguments, a progress
callback that reports nothing (waits use helpers.app.until).

Imported as `from helpers.training import ...`. The app itself starts trainings through
lab.train.training with a typed request (lab/jobs/requests.py); these drive lab.jobs directly.
"""
from lab import jobs
from lab.jobs import workers
from lab.jobs.requests import BpeRequest


def start_training(kind, pattern, text, vocab_size, min_frequency=1, special_tokens=(),
                   *, held_out=None, abandon_after=jobs.ABANDON_AFTER, memory=None):
    """A BPE training of text in a worker (lab.jobs.workers.train_bpe), from the request these
    arguments make (which raises ValueError at once for a bad one); its result() is a
    lab.jobs.workers.Trained."""
    request = BpeRequest(kind, pattern, vocab_size, min_frequency, tuple(special_tokens))
    return jobs.start(workers.train_bpe, dict(request=request, text=text, held_out=held_out),
                      abandon_after=abandon_after, memory=memory)


class Silent:
    """A worker's progress callback that reports nothing."""
    def __call__(self, p):
        pass

    def phase(self, name):
        pass
