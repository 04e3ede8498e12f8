"""Loading a .model file into the right class, whichever kind saved it."""
import os

from .base import MODEL_VERSION
from .basic import BasicTokenizer
from .regex import RegexTokenizer


def load(model_file=None, *, text=None, source=None):
    """Load a .model file (or its text) written by save() or minbpe: a RegexTokenizer if it
    has a split pattern, else a BasicTokenizer. Malformed input raises ValueError."""
    if text is None:
        source = source or os.fspath(model_file)
        try:
            with open(os.fspath(model_file), "r", encoding="utf-8") as f:
                text = f.read()
        except UnicodeDecodeError:
            raise ValueError(f"{source} is not UTF-8 text, so not a .model file") from None
    lines = text.split("\n", 2)
    has_pattern = len(lines) > 1 and lines[0].strip() == MODEL_VERSION and lines[1] != ""
    tok = RegexTokenizer() if has_pattern else BasicTokenizer()
    tok.load_text(text, source=source or "model")
    return tok
