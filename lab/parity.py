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
with sentencepiece, tokenizer.json and GPT-2's pair with `tokenizers`, always in a worker
process with a memory cap and a time limit (lab/jobs/owner_check.py): a visitor's file never
meets a compiled library in the server's process. A GGUF file has no Python owner here
(llama.cpp is C++): one whose sha256 is one of llama.cpp's test vocabularies
(lab/llama_cpp_ids.py) is checked against llama.cpp's own ids for that file's test texts;
any other is checked with `tokenizers` (in the worker) on its tokenizer.json form
(bpe.formats.gguf_families.tokenizer_json, the form the loader builds it from), or, for the t5
family (SentencePiece's Unigram), with `sentencepiece` on a model written from the file
(bpe.formats.gguf_families.t5_sentencepiece_model), and the badge names which. When a check
cannot be made (the library failed on the file, is not installed, or the file has no such
form) the badge says so instead of staying silent. Pages show
`check(label, text, ids)` (or `reference_check(...)`) as a badge.
"""
import importlib.util
import json
from dataclasses import dataclass
from pathlib import Path

import streamlit as st

from bpe import reference
from bpe.formats import gguf, gguf_families, ranks
from bpe.formats.hf.models import WordPiece
from lab import derived, llama_cpp_ids, state
from lab.jobs import owner_check
from lab.safe import md
from viz.tokens import without_post

CHECK_LIMIT = 200_000  # characters checked live; a longer text is checked on its start
# tokenizers' WordPiece shrinks each candidate from the word's end, hashing it again each
# time: a word of L characters (L <= max_input_chars_per_word) can cost ~L**3 steps (a
# 6,000-character word, 1.8 s of CPU; 20,000, minutes). N characters of text hold words of
# at most m = min(max_input_chars_per_word, N) each, so they cost at most N * m**2: the
# check is cut to the longest start within this many steps (~0.6 s of CPU here).
WORDPIECE_OWNER_STEPS = 10**10
LLAMA_CPP = "llama.cpp's test ids"  # a GGUF that is one of llama.cpp's test vocabularies
GGUF_CONVERTED = "tokenizers, on its tokenizer.json form"  # any other GGUF


class NoOwner(ValueError):
    """No owner's library can check this file; str() is the badge's sentence."""


@dataclass(frozen=True)
class Check:
    """The outcome of one parity check, for a badge."""
    library: str      # e.g. "tiktoken", "llama_models", "sentencepiece"
    ok: bool
    checked: int      # characters compared
    detail: str = ""  # where the ids first differ, when they do
    error: str = ""   # why there is no verdict (the library failed or is missing)
    note: str = ""    # what exactly was compared, for the badge's help

    @property
    def badge(self):
        """The badge's text, e.g. 'ids == tiktoken', or why nothing was checked."""
        if self.error:
            return self.error
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
    return owner_check.tiktoken_encoder(tok.ranks, ref.pattern, tok.special_tokens,
                                        cut=ref.library == "llama_models")


def file_encoder(source, tok):
    """(library, encode, matches_specials) for an uploaded file (lab.state.FileSource) that
    made tok, run in this process: for tests and files we trust. The app asks
    lab.jobs.owner_check.OwnerWorker instead (a visitor's file never meets a compiled library
    in the server's process). ValueError if the kind has no owner's library."""
    return owner_check.file_encoder(**owner_spec(source, tok))


def owner_spec(source, tok):
    """owner_check.file_encoder's keyword arguments for source and the tok it made: a
    ranks file brings our tokenizer's ranks, pattern and special tokens (the file has only
    the ranks); a GGUF brings its tokenizer.json form, for `tokenizers`. ValueError if the
    kind has no owner's library (a minbpe .model), or the GGUF has no such form."""
    if source.kind == "gguf":
        return gguf_spec(source)
    if source.kind not in owner_check.KINDS:
        raise ValueError(f"no owner's library checks a {source.kind} file")
    if source.kind != "ranks":
        return {"kind": source.kind, "files": source.files}
    table = tok.ranks if getattr(tok, "ranks", None) is not None else ranks.mergeable_ranks(tok)
    return {"kind": "ranks", "files": (), "ranks": table, "pattern": ranks.tiktoken_pattern(tok),
            "special_tokens": dict(tok.special_tokens),
            "cut": isinstance(tok, reference.LlamaTokenizer)}


def gguf_spec(source):
    """owner_check's spec for a GGUF file: `tokenizers` over the tokenizer.json the loader
    builds it from (pure Python, in this process: no compiled code meets the visitor's
    bytes here). ValueError with the fallback sentence when there is no such form."""
    name = source.files[0][0]
    try:
        info = gguf.read_tokenizer_bytes(source.data(), name)
        if info.model == "t5":  # llama.cpp's Unigram is SentencePiece's: its owner checks it
            return {"kind": "sentencepiece",
                    "files": ((f"{name}.model", gguf_families.t5_sentencepiece_model(info, name)),)}
        doc = gguf_families.tokenizer_json(info, name)
    except ValueError as e:
        where = llama_cpp_ids.absent() or "it is not one of llama.cpp's test vocabularies"
        why = " ".join(str(e).split())[:200]
        raise NoOwner(f"no parity check: llama.cpp is not run here; {where}; and the file has "
                      f"no tokenizer.json form for `tokenizers` to run ({why})") from None
    return {"kind": "tokenizer.json",
            "files": ((f"{name}.tokenizer.json", json.dumps(doc).encode()),)}


def llama_cpp_check(tok, data, vocab):
    """The Check of a GGUF file (bytes data) that is llama.cpp's test vocabulary vocab: our
    tokenizer tok's ids on each of its texts against llama.cpp's. Once per tokenizer (kept
    in lab/derived.py's cache): the texts are llama.cpp's, not the visitor's."""
    def build():
        with st.spinner("Checking against llama.cpp's test ids…"):
            return _llama_cpp_check(tok, data, vocab)
    return derived.remember(tok, "llama.cpp check", build)


def _llama_cpp_check(tok, data, vocab):
    info = gguf.read_tokenizer_bytes(data, vocab.name)
    n, wrong = llama_cpp_ids.check(tok, info, vocab)
    note = (f"This file is llama.cpp's {vocab.name} (same sha256): each of the {n} test "
            "texts llama.cpp ships with it encodes to the ids llama.cpp's own test expects. "
            "The text typed here is not among them.")
    chars = sum(len(text) for text, _ in vocab.cases)
    if wrong is None:
        return Check(LLAMA_CPP, True, chars, f"{n} texts", note=note)
    at, _, ours, theirs = wrong
    return Check(LLAMA_CPP, False, chars, f"text {at + 1} of {n}: {compare(ours, theirs)}",
                 note=note)


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
# session state: the same keys -> why the library is not run on that file (None: it may
# be), so a refused file's pieces are counted once, not on every run of the page
FILE_REFUSED = "lab_file_refused"


def _session_file_encoder(source, tok):
    """The owner's encoder for a file this session uploaded: an owner_check.OwnerWorker
    (the library runs in a worker process with a memory cap and a time limit), kept in the
    session: it leaves with the session. Per file and what shapes its ids (the pattern and
    the special tokens given a ranks file). OwnerFailed if the library fails on the file."""
    key = (source.kind, source.digest, tok.pattern, tuple(sorted(tok.special_tokens.items())))
    kept = st.session_state.setdefault(FILE_ENCODERS, {})
    if key not in kept:
        spec = owner_spec(source, tok)  # ValueError: nothing to check this kind with
        refused = st.session_state.setdefault(FILE_REFUSED, {})
        if key not in refused:
            while len(refused) >= FILE_ENCODERS_KEPT:
                refused.pop(next(iter(refused)))
            refused[key] = owner_check.too_big(spec, getattr(tok, "model", None))
        if refused[key]:
            raise owner_check.OwnerFailed(refused[key])
        while len(kept) >= FILE_ENCODERS_KEPT:
            kept.pop(next(iter(kept))).close()
        with st.spinner("Loading the file's own library…"):
            kept[key] = owner_check.OwnerWorker(spec)
    return kept[key]


def check_limit(tok):
    """How many characters of a text the owner's library is asked to encode for tok:
    CHECK_LIMIT, or fewer for a WordPiece whose words may be long (WORDPIECE_OWNER_STEPS)."""
    model = getattr(tok, "model", None)
    if not isinstance(model, WordPiece):
        return CHECK_LIMIT
    n = CHECK_LIMIT
    while n * min(model.max_chars, n) ** 2 > WORDPIECE_OWNER_STEPS:
        n = int(n * 0.9)
    return n


def reference_check(name, text, tok, ids=None):
    """Check our tokenizer tok on text against its owner's library. name: a key of
    bpe.reference.REFERENCES, or the label of an uploaded file (lab.state.file_source).
    ids, if given, are tok.encode(text) without special tokens (what a page shows: a
    post-processor's ids around them are left out here). None if name is neither or there
    is no owner's library for its kind (a minbpe .model); a Check whose `error` says why when
    the library is not installed here or could not check the file. A text longer than
    check_limit(tok) is checked on its first check_limit(tok) characters. A GGUF file that is one of
    llama.cpp's test vocabularies is checked on llama.cpp's texts, not on text."""
    part = text[:check_limit(tok)]
    about = ""
    try:
        if name in reference.REFERENCES:  # a file we ship: its library runs in-process
            library, encode = _cached_owner_encoder(name, tok)
            specials_matched = False
        else:
            source = state.file_source(name) if name else None
            if source is None or source.kind not in (*owner_check.KINDS, "gguf"):
                return None
            vocab = llama_cpp_ids.find(source.digest) if source.kind == "gguf" else None
            if vocab is not None and vocab.cases:
                return llama_cpp_check(tok, source.data(), vocab)
            worker = _session_file_encoder(source, tok)
            library, encode = worker.library, worker.encode
            if source.kind == "gguf" and library == "sentencepiece":
                about = GGUF_SENTENCEPIECE_NOTE
            elif source.kind == "gguf":
                library, about = GGUF_CONVERTED, gguf_note(vocab)
            specials_matched = worker.matches_specials
        if specials_matched and any(s in part for s in tok.special_tokens):
            # the owner always matches them, and leaves a post-processor's ids (a GGUF's
            # BOS) out: owner_check encodes with add_special_tokens=False, so we do too
            post = {"add_special_tokens": False} if hasattr(tok, "post") else {}
            ids = tok.encode(part, allowed_special="all", **post)
        elif ids is None or len(part) < len(text):
            ids = tok.encode_ordinary(part)
        else:  # a page's ids: a post-processor's (a GGUF's <s>, BERT's [CLS]) are no text's
            ids, _ = without_post(tok, ids)
        theirs = encode(part)
    except (owner_check.OwnerFailed, NoOwner) as e:
        return Check("", False, 0, error=str(e))
    except ModuleNotFoundError as e:  # an optional package: say which and how to get it
        return Check("", False, 0, error=f"no parity check: {e.name} is not installed here "
                                         f"(pip install {e.name})")
    except (FileNotFoundError, ValueError) as e:
        return Check("", False, 0, error=f"no parity check: {' '.join(str(e).split())[:200]}")
    why = compare(ids, theirs)
    cut = "" if len(part) == len(text) else f"first {len(part):,} characters"
    return Check(library, not why, len(part), why or cut, note=about)


GGUF_SENTENCEPIECE_NOTE = (
    "llama.cpp itself is not run here; its Unigram (the GGUF's t5 family) is written to give "
    "SentencePiece's ids, so `sentencepiece` encodes the text with a model written from the "
    "same pieces, scores, types and charsmap. sentencepiece sums a path's scores in a float "
    "where llama.cpp uses a double, so deep in a long text the two can take different paths "
    "of near-equal score.")


def gguf_note(vocab):
    """The badge's help for a GGUF checked with `tokenizers` on its tokenizer.json form."""
    if vocab is not None:
        why = f"it is llama.cpp's {vocab.name}, which ships without test texts"
    else:
        why = llama_cpp_ids.absent() or ("it is not one of llama.cpp's test vocabularies "
                                         "(by sha256)")
    return ("llama.cpp itself is not run here, and " + why + ". So `tokenizers` encodes the "
            "text with the tokenizer.json this lab builds from the file: this checks our "
            "BPE against tokenizers' on the same vocabulary, merges and split, not that "
            "form against llama.cpp.")


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
    if check is not None and check.error:  # may quote the file (a panic's message)
        st.badge(md(check.badge), icon=":material/help:", color="orange")
    elif check is not None:  # a library's name and ids: nothing a visitor wrote
        st.badge(check.badge, icon=":material/check:" if check.ok else ":material/close:",
                 color="green" if check.ok else "red", help=check.note or None)
