"""Renamed: lab/tokenizer_cache.py. Kept until the pages import it by its new name
(the lead's merge); then delete this file."""
from lab.tokenizer_cache import (TEXTS_KEPT, _derived, counts_by_merge,  # noqa: F401
                                 parents, vocab_table)
