"""Streamlit-side glue shared by the pages: the tokenizers a session can pick from.

Pure logic lives in `bpe` (tokenizers) and `viz` (spans, HTML, frames); this package is
the only place besides the pages that imports streamlit.

A training walks one way: a page's form makes a typed request (requests.py, checked
once), training.py starts the worker function its type maps to (workers.py) through
jobs.py (job_settings.py, job_process.py, job_worker.py), and the outcome comes back to
the session; viz shapes it for the page.
"""
