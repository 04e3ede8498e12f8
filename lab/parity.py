"""Live parity: do our ids equal the ids of the reference's own library, on this text?

For every reference tokenizer (bpe.reference.REFERENCES) one encoder from outside this
project, built once per server: the owner's tokenizer class where it is importable
(llama_models' Tokenizer for Llama 3 and 4, mistral_common's Tekkenizer for Tekken),
sentencepiece for Mistral's SentencePiece models, and tiktoken's Encoding over the same
hash-checked ranks, pattern and special tokens for OpenAI's. When mistral_common cannot be
imported (its dependencies are not installed) Tekken is checked with tiktoken over its
ranks instead, and the badge says so. Pages show `reference_check(...)` as a badge.
"""
import importlib.util
from dataclasses import dataclass
from pathlib import Path

import streamlit as st

from bpe import reference

CHECK_LIMIT = 200_000  # characters checked live; a longer text is checked on its start


@dataclass(frozen=True)
class Check:
    """The outcome of one parity check, for a badge."""
    library: str      # e.g. "tiktoken", "llama_models", "sentencepiece"
    ok: bool
    checked: int      # characters compared
    detail: str = ""  # where the ids first differ, when they do

    @property
    def badge(self):
        """The badge's text, e.g. 'ids == tiktoken'."""
        sign = "==" if self.ok else "!="
        return f"ids {sign} {self.library}" + ("" if not self.detail else f" ({self.detail})")


def owner_encoder(name):
    """(library, encode) for reference name: encode(text) -> ids, the text's special-token
    text treated as ordinary text, computed by a library that is not ours."""
    ref = reference.REFERENCES[name]
    path = reference.locate(ref)
    reference.read_checked(ref, path)  # the same verified file our tokenizer reads
    if ref.kind == "sentencepiece":
        import sentencepiece as spm
        sp = spm.SentencePieceProcessor(model_file=path)
        return "sentencepiece", sp.encode
    if ref.kind == "tekken":
        if _importable("mistral_common.tokens.tokenizers.tekken"):
            try:
                from mistral_common.tokens.tokenizers.tekken import Tekkenizer
                tekken = Tekkenizer.from_file(path)
                return "mistral_common", lambda text: tekken.encode(text, bos=False, eos=False)
            except ImportError:  # one of its dependencies is missing
                pass
        return "tiktoken (mistral_common not importable)", _tiktoken_tekken(name)
    if ref.library == "llama_models" and _importable(f"llama_models.{name}.tokenizer"):
        try:
            module = importlib.import_module(f"llama_models.{name}.tokenizer")
            llama = module.Tokenizer(Path(path))
            return "llama_models", lambda text: llama.encode(text, bos=False, eos=False)
        except ImportError:
            pass
    import tiktoken
    tok = reference.load_reference(name)
    enc = tiktoken.Encoding(f"{name}_offline", pat_str=ref.pattern, mergeable_ranks=tok.ranks,
                            special_tokens=tok.special_tokens)
    if ref.library == "llama_models":  # the owner's cut, then tiktoken
        return "tiktoken + Llama's cut", lambda text: [
            idx for piece in reference.llama_pieces(text)
            for idx in enc.encode(piece, disallowed_special=())]
    return "tiktoken", lambda text: enc.encode(text, disallowed_special=())


def _tiktoken_tekken(name):
    import tiktoken
    tok = reference.load_reference(name)
    offset = tok.n_special
    enc = tiktoken.Encoding(name, pat_str=tok.pattern,
                            mergeable_ranks={b: r - offset for b, r in tok.ranks.items()},
                            special_tokens={})
    return lambda text: [idx + offset for idx in enc.encode(text, disallowed_special=())]


def _importable(module):
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):
        return False


def compare(ours, theirs):
    """'' if the id lists are equal, else where they first differ."""
    if ours == theirs:
        return ""
    at = next((i for i, (a, b) in enumerate(zip(ours, theirs)) if a != b),
              min(len(ours), len(theirs)))
    return (f"first difference at token {at}: ours {ours[at:at + 3]}, "
            f"theirs {theirs[at:at + 3]} ({len(ours)} vs {len(theirs)} tokens)")


@st.cache_resource(show_spinner="Loading the reference library…")
def _cached_owner_encoder(name):
    return owner_encoder(name)


def reference_check(name, text, tok, ids=None):
    """Check our tokenizer tok (reference name, a key of bpe.reference.REFERENCES) on text
    against the owner's library: ids, if given, are tok.encode_ordinary(text). None if name
    is no reference or its library cannot be loaded here. A text longer than CHECK_LIMIT
    is checked on its first CHECK_LIMIT characters."""
    if name not in reference.REFERENCES:
        return None
    try:
        library, encode = _cached_owner_encoder(name)
    except (FileNotFoundError, ValueError, ImportError):
        return None
    part = text[:CHECK_LIMIT]
    if ids is None or len(part) < len(text):
        ids = tok.encode_ordinary(part)
    why = compare(ids, encode(part))
    note = "" if len(part) == len(text) else f"first {len(part):,} characters"
    return Check(library, not why, len(part), why or note)


def name_of(label):
    """The reference key for a picker label ('Llama 3' -> 'llama3'), None for others."""
    return next((name for name, ref in reference.REFERENCES.items() if ref.label == label), None)


def show_badge(label, text, tok, ids=None):
    """Draw the parity badge of the picked tokenizer (a picker label, e.g. "Llama 3") on
    text; nothing for a tokenizer that is no reference. ids: tok's ids for text with
    special-token text as ordinary text (None: computed here)."""
    check = reference_check(name_of(label), text, tok, ids)
    draw_badge(check)
    return check


def draw_badge(check):
    """The one badge for a Check (nothing for None): green when ids agree, red if not."""
    if check is not None:
        st.badge(check.badge, icon=":material/check:" if check.ok else ":material/close:",
                 color="green" if check.ok else "red")
