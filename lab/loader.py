"""The sidebar's tokenizer loader: tokenizer files join the session, selected in the pickers.

Whatever bpe.load opens, known by content: a minbpe .model, a SentencePiece .model, tiktoken
ranks (.tiktoken, .tiktoken.gz, Llama 3's tokenizer.model), a tokenizer.json, a GGUF file
(llama.cpp's; its message names llama.cpp's tokenizer family and pre-tokenizer), or GPT-2's
two files uploaded together. A ranks file holds no split pattern: a known one (by sha256)
brings its owner's, and the question is skipped; any other is split by the pattern picked
above the uploader, which the message repeats. Changing the pattern loads the ranks files
again (replacing what they made). Files are loaded once; an error is shown on the page where
they were uploaded, not on every page after. Names and messages go through lab.safe.md.
"""
from dataclasses import dataclass, field

import streamlit as st

from lab import state
from lab.safe import md

UPLOAD = "app_model_upload"
PATTERN = "app_upload_pattern"
LOADED = "app_loaded_upload"   # Loaded: what the uploads made so far


@dataclass
class Loaded:
    """The uploads loaded so far: file id -> (name or None, error or None), the pattern
    label they were loaded with, and the page the last load ran on (errors show there)."""
    pattern: str
    results: dict = field(default_factory=dict)
    page: str = ""


def tokenizer_loader(page):
    """Draw the loader (in the sidebar); page: the url path of the page shown now."""
    with st.expander("Load a tokenizer file", expanded=bool(st.session_state.get(UPLOAD))):
        pattern = st.selectbox(
            "Split pattern, for .tiktoken files",
            list(state.TIKTOKEN_PATTERNS), key=PATTERN,
            help="A ranks file (.tiktoken) holds only the ranks, not the pattern that splits "
                 "text first. Files this lab knows by their content (tiktoken's encodings, "
                 "Llama 3 and 4) bring their own; for any other pick it here (changing it "
                 "reloads the file).")
        # no type= filter: files are known by content, and Streamlit would print the
        # types in caps, cut off in the sidebar
        uploads = st.file_uploader(
            "A tokenizer file: .model (minbpe or SentencePiece), tiktoken ranks, "
            "tokenizer.json, GGUF (llama.cpp), or GPT-2's encoder.json + vocab.bpe together",
            key=UPLOAD, accept_multiple_files=True)
        if not uploads:
            return
        loaded = st.session_state.get(LOADED)
        if loaded is None or (loaded.pattern != pattern and _pattern_matters(loaded)):
            for name, _ in (loaded.results.values() if loaded else ()):
                if name:
                    state.remove_tokenizer(name)  # replaced by the reload
            loaded = Loaded(pattern)
        loaded.pattern = pattern
        # new files, and with them the ones that failed before (half of GPT-2's pair
        # waits for the other); a failed file alone is not tried again on every run
        new = [u for u in uploads if u.file_id not in loaded.results]
        pending = [u for u in uploads if new and loaded.results.get(u.file_id, (None, "new"))[1]]
        if pending:
            results = state.load_uploads(pending, pattern=state.TIKTOKEN_PATTERNS[pattern])
            _record(loaded, pending, results)
            loaded.page = page
        st.session_state[LOADED] = loaded
        shown = {u.file_id for u in uploads}
        errors = {error for fid, (_, error) in loaded.results.items() if fid in shown and error}
        if errors and loaded.page == page:
            st.error(md("\n\n".join(sorted(errors))), icon=":material/error:")
        for name in dict.fromkeys(name for fid, (name, _) in loaded.results.items()
                                  if fid in shown and name):
            source = state.file_source(name)
            files = " + ".join(f for f, _ in source.files) if source else name
            split = ""
            if source and source.kind == "ranks":
                split = (f", with its owner's split pattern ({md(source.known)})" if source.known
                         else f", split by {md(pattern)}")
            elif source and source.kind == "gguf":
                split = f", {state.gguf_summary(state.session_tokenizers().get(name))}"
            st.success(f"Loaded {md(files)} as “{md(name)}”{split}; selected in the tokenizer "
                       "menus.", icon=":material/check_circle:")
        if state.unavailable_references():
            st.caption(md(state.references_help()))


def _record(loaded, pending, results):
    """Give each pending upload its result: the files of one tokenizer share its name
    (GPT-2's pair is one result for two files)."""
    by_name = {}
    for name, error in results:
        if name:
            by_name[name] = state.file_source(name)
    for upload in pending:
        made = next((n for n, src in by_name.items()
                     if src and upload.name in (f for f, _ in src.files)), None)
        if made:
            loaded.results[upload.file_id] = (made, None)
    errors = [error for _, error in results if error]
    for upload in pending:
        if upload.file_id not in loaded.results or loaded.results[upload.file_id][1]:
            mine = next((e for e in errors if e.startswith(upload.name)), None)
            loaded.results[upload.file_id] = (None, mine or (errors[0] if errors else "not loaded"))


def _pattern_matters(loaded):
    """Whether a new pattern changes what loaded files made: a ranks file, or an error
    (perhaps the one asking for a pattern)."""
    def unknown_ranks(name):
        source = state.file_source(name)
        return source is not None and source.kind == "ranks" and not source.known
    return any(error or unknown_ranks(name) for name, error in loaded.results.values())
