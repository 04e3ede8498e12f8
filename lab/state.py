"""The tokenizers a session can pick: the reference tokenizers for everyone, plus the session's own.

References (GPT-4 always; GPT-2, GPT-4o, Llama 3 and 4, Mistral v1, v3 and Tekken when the
package that ships their vocabulary is installed) are
built once per server (`st.cache_resource`) and shared by every session, so nothing here
may mutate them. The ones that cannot be had offline are listed with the reason, in the
picker's help and the sidebar. Tokenizers trained or uploaded in a session live in
`st.session_state` under one key, name -> Tokenizer, in the order they were added; an
uploaded one also keeps its file (kind and bytes) under another, for the parity check.

`entry(label)` is the one place a picker's label is translated: it gives the Entry (label,
tokenizer, reference key, file), so no page keeps its own label -> key table.
"""
import functools
import os
import threading
import weakref
from dataclasses import dataclass

import streamlit as st
from streamlit.runtime.scriptrunner import get_script_run_ctx

import bpe
from bpe import reference
from bpe import loading
from bpe.formats import kinds, ranks
from lab import llama_cpp_ids
from lab.jobs import owner_check
from lab.jobs.settings import setting
from lab.safe import code, md

GPT4_NAME = reference.REFERENCES["cl100k_base"].label  # "GPT-4 (cl100k_base)"
SESSION_KEY = "lab_tokenizers"  # name -> bpe.Tokenizer, this session's own
NEWEST = "lab_newest_tokenizer"  # (serial, name) of the latest one added with select
FILES_KEY = "lab_tokenizer_files"  # name -> FileSource, for the session's uploaded ones
# Uploaded tokenizers held at once: per session (their count and their files' bytes) and
# per server (the files' bytes over every live session; env LAB_UPLOADS_MB). A parsed
# tokenizer costs several times its file, so four 27 MB uploads once took +2.56 GB.
SESSION_UPLOADS = 8
SESSION_UPLOAD_BYTES = 64 * 2**20
SERVER_UPLOAD_BYTES = setting("LAB_UPLOADS_MB", 256, 1, 2**20, "MB", whole=True) * 2**20
_held = weakref.WeakSet()  # the FileSources every live session holds (gone with it)
_held_lock = threading.Lock()
# A ranks file holds no split pattern: a known one (by sha256) brings its owner's, any
# other is split by the one picked before upload: label -> pattern
TIKTOKEN_PATTERNS = {"GPT-4's (gpt4)": "gpt4", "GPT-2's (gpt2)": "gpt2",
                     "GPT-4o's (gpt4o)": "gpt4o",
                     "None: the whole text (a Basic tokenizer)": ranks.WHOLE_TEXT_PATTERN}


@dataclass(frozen=True)
class FileSource:
    """An uploaded tokenizer's file(s): what lab/parity needs to ask the owner's library."""
    kind: str      # a key of bpe.formats.kinds.KINDS ("ranks", "sentencepiece", ...),
                   # or "gpt2-pair" for GPT-2's two files
    files: tuple   # ((filename, bytes), ...)
    digest: str    # sha256 of the bytes, all files in order
    known: str = ""  # for ranks this lab knows by their sha256, their owner's name

    def data(self, i=0):
        return self.files[i][1]

    @property
    def size(self):
        """The files' bytes."""
        return sum(len(data) for _, data in self.files)


@dataclass(frozen=True)
class Entry:
    """One tokenizer the pickers offer: the label they show, the tokenizer, the reference
    key (of bpe.reference.REFERENCES; None for the session's own), its file if uploaded."""
    label: str
    tokenizer: object
    reference: str | None = None
    file: FileSource | None = None


@st.cache_resource(show_spinner="Loading GPT-4's vocabulary…")
def gpt4():
    """The one GPT4Tokenizer of this server. Shared: never mutate it."""
    return bpe.GPT4Tokenizer()


@st.cache_resource(show_spinner="Loading the reference vocabulary…")
def _reference(name):
    """The one reference tokenizer called name (a key of bpe.reference.REFERENCES). Shared."""
    return reference.load_reference(name)


@functools.lru_cache(maxsize=1)
def _reference_status():
    """label -> (name, None if available here else the reason), GPT-4 first."""
    reasons = reference.available_references()
    return {ref.label: (name, reasons[name]) for name, ref in reference.REFERENCES.items()}


def reference_names():
    """The labels of the reference tokenizers this server can load, GPT-4 first."""
    return [label for label, (_, reason) in _reference_status().items() if reason is None]


def unavailable_references():
    """label -> why it cannot be had offline, for the references that cannot."""
    return {label: reason for label, (_, reason) in _reference_status().items() if reason}


def session_tokenizers():
    """name -> Tokenizer for the tokenizers trained or loaded in this session."""
    return st.session_state.setdefault(SESSION_KEY, {})


def add_tokenizer(name, tok, *, select=True, file=None):
    """Keep tok in this session under name (made unique with a suffix); returns the name.
    select: the pickers that follow new tokenizers switch to it when next drawn. file: the
    FileSource it was loaded from. A tok still called by its class's default name is given
    the label as its name."""
    owned = session_tokenizers()
    name = (name or "").strip() or "tokenizer"
    taken = set(owned) | set(_reference_status())
    unique, n = name, 2
    while unique in taken:
        unique, n = f"{name} ({n})", n + 1
    owned[unique] = tok
    if getattr(tok, "name", None) in (None, "", type(tok).__name__.removesuffix("Tokenizer").lower()):
        tok.name = unique
    files = st.session_state.setdefault(FILES_KEY, {})
    if file is not None:
        files[unique] = file
        with _held_lock:
            _held.add(file)
    else:
        files.pop(unique, None)
    if select:
        serial = st.session_state.get(NEWEST, (0, None))[0] + 1
        st.session_state[NEWEST] = (serial, unique)
    return unique


def remove_tokenizer(name):
    """Forget the session's tokenizer called name (e.g. replaced by a reload)."""
    session_tokenizers().pop(name, None)
    st.session_state.setdefault(FILES_KEY, {}).pop(name, None)


def entry(label):
    """The Entry for a picker label: the tokenizer get_tokenizer gives, and what it is."""
    if label not in session_tokenizers() and label not in reference_names():
        label = GPT4_NAME  # a stale link: get_tokenizer gives GPT-4's too
    return Entry(label, get_tokenizer(label), reference_key(label), file_source(label))


def reference_key(label):
    """The reference key for a picker label ('Llama 3' -> 'llama3'); None for the session's."""
    status = _reference_status().get(label)
    return status[0] if status and label not in session_tokenizers() else None


def file_source(label):
    """The FileSource of the session's uploaded tokenizer called label, else None."""
    return st.session_state.get(FILES_KEY, {}).get(label)


def describe(label):
    """What the session's uploaded tokenizer called label was loaded from, as safe Markdown
    for a caption: its file(s) and their kind, and for a GGUF file llama.cpp's family and
    pre-tokenizer name (and, when llama.cpp's test vocabularies are not here, that they
    are not). '' for a reference or a tokenizer trained here."""
    source = file_source(label)
    if source is None:
        return ""
    files = " + ".join(md(name) for name, _ in source.files)
    if source.kind == "gguf":
        tok = session_tokenizers().get(label)
        missing = llama_cpp_ids.absent()
        return f"{files}: {gguf_summary(tok)}" + (f". {md(missing)}." if missing else "")
    kind = "GPT-2's vocabulary and merges" if source.kind == "gpt2-pair" else \
        kinds.KINDS.get(source.kind, source.kind)
    known = f", known as {md(source.known)}" if source.known else ""
    return f"{files}: {md(kind)}{known}"


def gguf_summary(tok):
    """'GGUF (llama.cpp): family `gpt2`, pre-tokenizer `llama-bpe`' for a tokenizer loaded
    from a GGUF file (its gguf_family and gguf_pre), as safe Markdown."""
    family = getattr(tok, "gguf_family", None)
    pre = getattr(tok, "gguf_pre", None)
    return (f"GGUF (llama.cpp): tokenizer family {code(family or 'not named')}, "
            f"pre-tokenizer {code(pre) if pre else 'not named'}")


def tokenizer_names():
    """Every name the picker offers: the references first (GPT-4 leading), then this
    session's in the order they were added."""
    return [*reference_names(), *session_tokenizers()]


def get_tokenizer(name):
    """The tokenizer called name; GPT-4's if the name is gone (e.g. a stale link)."""
    if name == GPT4_NAME:
        return gpt4()
    owned = session_tokenizers().get(name)
    if owned is not None:
        return owned
    ref, reason = _reference_status().get(name, (None, "unknown"))
    if reason is None:
        try:
            return _reference(ref)
        except ValueError as e:  # a damaged file: its sha256 did not match
            st.error(f"{md(name)} could not be loaded, so GPT-4 is used instead: {md(e)}")
    return gpt4()


def references_help():
    """One line per reference that cannot be loaded here, with its reason ('' if none)."""
    missing = unavailable_references()
    if not missing:
        return ""
    return ("Not installed here (nothing is downloaded at run time): "
            + "; ".join(f"{label}: {reason}" for label, reason in missing.items()))


def load_model_upload(uploaded, *, pattern=None):
    """Add a tokenizer from one uploaded file of any kind bpe.load opens (known by its
    content); returns its name. pattern: for a ranks file the lab does not know (a known
    one is split by its owner's; None: an error asking for one). ValueError with what is
    wrong (not a tokenizer file, a malformed line, a ranks file needing a pattern...)."""
    (name, error), = load_uploads([uploaded], pattern=pattern)
    if error:
        raise ValueError(error)
    return name


def load_uploads(uploads, *, pattern=None):
    """Add one tokenizer per uploaded file, GPT-2's two files (encoder.json + vocab.bpe, or
    vocab.json + merges.txt, known by content) making one. Returns (name, None) or (None,
    the error's message) for each, in upload order; one bad file does not stop the rest.
    Each file is read once, by bpe.loading.read_uploads."""
    files = [(u.name, upload_bytes(u)) for u in uploads]
    full = room_for(sum(len(data) for _, data in files), len(files))
    if full:
        return [(None, full)] * len(files)
    # the pattern asked before upload is for ranks the lab does not know
    return [(None, str(made)) if isinstance(made, ValueError) else _add_upload(made)
            for made in loading.read_uploads(files, unknown_pattern=pattern,
                                             before_build=_trial)]


def upload_bytes(upload):
    """An UploadedFile's bytes as Streamlit's upload manager holds them (its record, kept
    while the uploader shows the file), not a copy. The UploadedFile a script receives is a
    deep copy (Streamlit's register_widget deep-copies widget values, and BytesIO's
    __setstate__ writes the bytes into a buffer of its own), so its getvalue() was a second
    copy of the file, held by the session for as long as the tokenizer (issue 32: 3.5 MB of
    a 3.6 MB tokenizer.json). Outside a script run, once the manager no longer has the file,
    or for an upload that is no UploadedFile (a file-like with name and getvalue, as the
    lesson pages hand over), its own bytes are the same bytes, only not shared."""
    ctx, file_id = get_script_run_ctx(), getattr(upload, "file_id", None)
    records = ctx.uploaded_file_mgr.get_files(ctx.session_id, [file_id]) \
        if None not in (ctx, file_id) and ctx.uploaded_file_mgr is not None else []
    return records[0].data if records else bytes(upload.getvalue())


def held_upload_bytes():
    """The bytes of uploaded tokenizer files every live session of this server holds."""
    with _held_lock:
        return sum(source.size for source in list(_held))


def room_for(n_bytes, n_files=1):
    """None when this session and the server may hold n_bytes more of uploaded tokenizer
    files (n_files of them), else the sentence saying which cap is reached."""
    own = [source for source in st.session_state.get(FILES_KEY, {}).values()]
    own_bytes = sum(source.size for source in own)
    if len(own) + n_files > SESSION_UPLOADS or own_bytes + n_bytes > SESSION_UPLOAD_BYTES:
        return (f"This session holds {len(own)} uploaded tokenizer{'s' if len(own) != 1 else ''}"
                f" ({own_bytes / 2**20:,.1f} MB of files); a session may hold "
                f"{SESSION_UPLOADS} and {SESSION_UPLOAD_BYTES >> 20} MB. Reload the page (a new "
                "session) to load others.")
    server_bytes = held_upload_bytes()
    if server_bytes + n_bytes > SERVER_UPLOAD_BYTES:
        return (f"This server holds {server_bytes / 2**20:,.0f} MB of uploaded tokenizers for "
                f"its visitors, the most it holds ({SERVER_UPLOAD_BYTES >> 20} MB). Try again "
                "in a few minutes, when other visitors have left.")
    return None


def _trial(kind, chosen):
    """bpe runs a .model through sentencepiece in this process: a hostile one is first
    opened (and made to encode) in a worker with a memory cap and a time limit."""
    if kind == "sentencepiece":
        try:
            owner_check.trial({"kind": "sentencepiece", "files": chosen})
        except owner_check.OwnerFailed as e:
            raise ValueError(f"{chosen[0][0]}: {e}") from None


def _add_upload(made):
    """Add a bpe.loading.Upload to the session: (its name, None)."""
    names = [name for name, _ in made.files]
    stem = " + ".join(names) if len(names) > 1 else os.path.splitext(names[0])[0]
    return add_tokenizer(f"{stem} (uploaded)", made.tokenizer,
                         file=FileSource(made.kind, made.files, made.digest, made.known)), None
