"""Live parity: do our ids equal the ids of the reference's own library, on this text?

For every reference tokenizer (bpe.reference.REFERENCES) one encoder from outside this
project, built once per server: the owner's tokenizer class where it is importable
(llama_models' Tokenizer for Llama 3 and 4, mistral_common's Tekkenizer for Tekken),
sentencepiece for Mistral's SentencePiece models, and tiktoken's Encoding over the same
hash-checked ranks, pattern and special tokens for OpenAI's. When mistral_common cannot be
imported (its dependencies are not installed) Tekken is checked with tiktoken over its
ranks instead, and the badge says so. The encoders over ranks and SentencePiece models take
them from our cached tokenizer, so nothing is read or hashed again.

An uploaded file (lab.state.FileSource) is checked too: ranks with tiktoken, SentencePiece
with sentencepiece, tokenizer.json and GPT-2's pair with `tokenizers`. Pages show
`check(label, text, ids)` (or `reference_check(...)`) as a badge.
"""
import importlib.util
import json
from dataclasses import dataclass
from pathlib import Path

import streamlit as st

from bpe import reference
from lab import state

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


def owner_encoder(name, tok=None):
    """(library, encode) for reference name: encode(text) -> ids, the text's special-token
    text treated as ordinary text, computed by a library that is not ours. tok: our loaded
    reference (its ranks or model are reused; None: loaded here)."""
    ref = reference.REFERENCES[name]
    if ref.kind == "sentencepiece":
        import sentencepiece as spm
        tok = tok if tok is not None else reference.load_reference(name)
        return "sentencepiece", spm.SentencePieceProcessor(model_proto=tok.model_proto).encode
    path = reference.locate(ref)
    if ref.kind == "tekken":
        if _importable("mistral_common.tokens.tokenizers.tekken"):
            try:
                from mistral_common.tokens.tokenizers.tekken import Tekkenizer
                reference.read_checked(ref, path)  # the owner reads the file: the official one
                tekken = Tekkenizer.from_file(path)
                return "mistral_common", lambda text: tekken.encode(text, bos=False, eos=False)
            except ImportError:  # one of its dependencies is missing
                pass
        return "tiktoken (mistral_common not importable)", _tiktoken_tekken(name, tok)
    if ref.library == "llama_models" and _importable(f"llama_models.{name}.tokenizer"):
        try:
            module = importlib.import_module(f"llama_models.{name}.tokenizer")
            reference.read_checked(ref, path)  # the owner reads the file: the official one
            llama = module.Tokenizer(Path(path))
            return "llama_models", lambda text: llama.encode(text, bos=False, eos=False)
        except ImportError:
            pass
    tok = tok if tok is not None else reference.load_reference(name)
    return _tiktoken_encoder(tok.ranks, ref.pattern, tok.special_tokens,
                             cut=ref.library == "llama_models")


def _tiktoken_encoder(ranks, pattern, special_tokens, cut=False):
    """("tiktoken", encode) over ranks; cut: Llama's cut of long runs first, as its owner."""
    import tiktoken
    enc = tiktoken.Encoding("lab_check", pat_str=pattern, mergeable_ranks=ranks,
                            special_tokens=special_tokens)
    if cut:
        return "tiktoken + Llama's cut", lambda text: [
            idx for piece in reference.llama_pieces(text)
            for idx in enc.encode(piece, disallowed_special=())]
    return "tiktoken", lambda text: enc.encode(text, disallowed_special=())


def file_encoder(source, tok):
    """(library, encode, matches_specials) for an uploaded file (lab.state.FileSource) that
    made tok: the owner's library over the same file. matches_specials: encode turns
    special-token text into special tokens (tokenizers always does). ValueError if the
    kind has no owner's library to ask (a minbpe .model)."""
    if source.kind == "ranks":
        from bpe.formats import ranks
        table = tok.ranks if hasattr(tok, "ranks") else ranks.mergeable_ranks(tok)
        library, encode = _tiktoken_encoder(table, ranks.tiktoken_pattern(tok),
                                            tok.special_tokens,
                                            cut=isinstance(tok, reference.LlamaTokenizer))
        return library, encode, False
    if source.kind == "sentencepiece":
        import sentencepiece as spm
        return "sentencepiece", spm.SentencePieceProcessor(model_proto=source.data()).encode, False
    import tokenizers
    if source.kind == "tokenizer.json":
        hf = tokenizers.Tokenizer.from_str(source.data().decode("utf-8"))
    elif source.kind == "gpt2-pair":
        hf = _hf_gpt2_pair(source)
    else:
        raise ValueError(f"no owner's library checks a {source.kind} file")
    return "tokenizers", lambda text: hf.encode(text, add_special_tokens=False).ids, True


def _hf_gpt2_pair(source):
    """`tokenizers`' BPE with ByteLevel over GPT-2's two files, as its GPT-2 tokenizer is."""
    import tokenizers

    from bpe.formats import gpt2
    files = dict(source.files)
    vocab = next(data for name, data in files.items() if gpt2.is_vocab_json(_json(data)))
    merges_data = next(data for data in files.values() if data is not vocab)
    merges = [tuple(line.split(" ")) for line in merges_data.decode("utf-8").split("\n")
              if line.strip() and not line.startswith("#version")]
    vocab = json.loads(vocab)
    hf = tokenizers.Tokenizer(tokenizers.models.BPE(vocab=vocab, merges=merges))
    hf.pre_tokenizer = tokenizers.pre_tokenizers.ByteLevel(add_prefix_space=False)
    made = {a + b for a, b in merges}
    hf.add_special_tokens([t for t in vocab if len(t) > 1 and t not in made])
    return hf


def _json(data):
    try:
        return json.loads(data)
    except ValueError:
        return None


def _tiktoken_tekken(name, tok=None):
    import tiktoken
    tok = tok if tok is not None else reference.load_reference(name)
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
def _cached_owner_encoder(name, _tok=None):
    return owner_encoder(name, _tok)


FILE_ENCODERS = "lab_file_encoders"  # session state: (kind, digest, pattern, specials) -> encoder
FILE_ENCODERS_KEPT = 4  # a session's last few; an older one is loaded again if asked for


def _session_file_encoder(source, tok):
    """The owner's encoder for a file this session uploaded, kept in the session: it
    leaves with the session (a server-wide cache kept up to 32 visitors' encoders alive
    after they had gone). Per file and what shapes its ids (the pattern and the special
    tokens given a ranks file)."""
    key = (source.kind, source.digest, tok.pattern, tuple(sorted(tok.special_tokens.items())))
    kept = st.session_state.setdefault(FILE_ENCODERS, {})
    if key not in kept:
        with st.spinner("Loading the file's own library…"):
            found = file_encoder(source, tok)
        while len(kept) >= FILE_ENCODERS_KEPT:
            kept.pop(next(iter(kept)))
        kept[key] = found
    return kept[key]


def reference_check(name, text, tok, ids=None):
    """Check our tokenizer tok on text against its owner's library. name: a key of
    bpe.reference.REFERENCES, or the label of an uploaded file (lab.state.file_source).
    ids, if given, are tok.encode_ordinary(text). None if name is neither or its library
    cannot be loaded here. A text longer than CHECK_LIMIT is checked on its first
    CHECK_LIMIT characters."""
    specials_matched = False
    try:
        if name in reference.REFERENCES:
            library, encode = _cached_owner_encoder(name, tok)
        else:
            source = state.file_source(name) if name else None
            if source is None:
                return None
            library, encode, specials_matched = _session_file_encoder(source, tok)
    except (FileNotFoundError, ValueError, ImportError):
        return None
    part = text[:CHECK_LIMIT]
    if specials_matched and any(s in part for s in tok.special_tokens):
        ids = tok.encode(part, allowed_special="all")  # the owner always matches them
    elif ids is None or len(part) < len(text):
        ids = tok.encode_ordinary(part)
    why = compare(ids, encode(part))
    note = "" if len(part) == len(text) else f"first {len(part):,} characters"
    return Check(library, not why, len(part), why or note)


def check(label, text, ids=None):
    """The parity Check of the tokenizer a picker shows as label (None: nothing to check)."""
    entry = state.entry(label)
    return reference_check(entry.reference or label, text, entry.tokenizer, ids)


def name_of(label):
    """What reference_check takes for a picker label: the reference key ('Llama 3' ->
    'llama3'), the label itself for an uploaded file, None for others. Prefer check()."""
    return state.reference_key(label) or (label if state.file_source(label) else None)


def show_badge(label, text, tok, ids=None):
    """Draw the parity badge of the picked tokenizer (a picker label, e.g. "Llama 3") on
    text; nothing for a tokenizer that has nothing to check against. ids: tok's ids for
    text with special-token text as ordinary text (None: computed here)."""
    result = reference_check(name_of(label), text, tok, ids)
    draw_badge(result)
    return result


def draw_badge(check):
    """The one badge for a Check (nothing for None): green when ids agree, red if not."""
    if check is not None:
        st.badge(check.badge, icon=":material/check:" if check.ok else ":material/close:",
                 color="green" if check.ok else "red")
