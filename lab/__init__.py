"""Streamlit-side glue shared by the pages: the tokenizers a session can pick from.

Pure logic lives in `bpe` (tokenizers) and `viz` (spans, HTML, frames); this package is
the only place besides the pages that imports streamlit.

Its parts are packages: jobs/ (a training walks one way: a page's form makes a typed
request, jobs/requests.py, checked once; jobs/training.py starts the worker function its
type maps to, jobs/workers.py, through the job handle in jobs/__init__.py with
jobs/settings.py, jobs/process.py and jobs/runner.py, and the outcome comes back to the
session; viz shapes it for the page), train/ (the Train and Methods pages' glue: corpus,
form, panels) and token_view/ (the component's Python beside its JS and CSS). The flat
files are the session's tokenizers (state.py), widget memory, the guard, share links,
parity badges and the one cache of what is derived from a tokenizer (derived.py).
"""
