"""Streamlit-side glue shared by the pages: the tokenizers a session can pick from.

Pure logic lives in `bpe` (tokenizers) and `viz` (spans, HTML, frames); this package is
the only place besides the pages that imports streamlit.

Its parts are packages. jobs/ is the worker machinery, with no Streamlit: a typed request
(jobs/requests.py, checked once) maps to a worker function (jobs/workers.py) that the job
handle (jobs/__init__.py, with jobs/process.py, jobs/runner.py and jobs/settings.py) runs
in a capped worker process. train/ is the pages' side of a training: the form, the
session's trainings and their outcome (train/training.py), the panels, uploads and sample
corpora. token_view/ is the component: its Python beside its JS and CSS. The flat files
are the session's tokenizers (state.py), widget memory, the guard, share links, parity
badges and the one cache of what is derived from a tokenizer (derived.py).
"""
