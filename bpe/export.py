"""Old home of the file formats, kept only so existing imports work until call sites move.

tiktoken ranks live in bpe.ranks, tokenizer.json in bpe.hf, the .model format in
bpe.model and opening any file in bpe.formats. New code imports from those.
"""
from .formats import FORMATS, load_bytes, tokenizer_from_ranks  # noqa: F401
from .formats import load as _load
from .hf import (bytes_to_unicode, hf_json, hf_pattern, save_hf,  # noqa: F401
                 tokenizer_from_hf)
from .model import MODEL_VERSION  # noqa: F401
from .ranks import (WHOLE_TEXT_PATTERN, check_rank_consistent, mergeable_ranks,  # noqa: F401
                    save_tiktoken, tiktoken_kwargs, tiktoken_pattern, tiktoken_text)
from .ranks import parse_ranks as parse_tiktoken_ranks  # noqa: F401


def load_file(path, **kwargs):
    """bpe.formats.load on the file at path."""
    return _load(path, **kwargs)
