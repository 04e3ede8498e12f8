"""Streamlit-side glue shared by the pages: the tokenizers a session can pick from.

Pure logic lives in `bpe` (tokenizers) and `viz` (spans, HTML, frames); this package is
the only place besides the pages that imports streamlit.
"""
