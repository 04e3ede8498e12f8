"""The widgets several pages share: the tokenizer picker and the sample-text box.

Session data behind them (which tokenizers exist) is lab/state.py's; the texts are
viz/samples.py's.
"""
import streamlit as st

from lab.lessons import page_link
from lab.safe import md
from lab.state import GPT4_NAME, NEWEST, get_tokenizer, references_help, tokenizer_names
from viz import methods as vm
from viz.samples import DEFAULT_SAMPLE, SAMPLES


def tokenizer_picker(key, label="Tokenizer", default=GPT4_NAME, help=None, follow_new=True):
    """A selectbox over tokenizer_names(); returns (name, tokenizer). Its help also says
    which reference tokenizers cannot be had offline, and why. follow_new: switch to a
    tokenizer loaded or trained since this picker was last drawn (once; the user's
    later pick stands)."""
    names = tokenizer_names()
    serial, newest = st.session_state.get(NEWEST, (0, None))
    seen = st.session_state.setdefault("lab_picker_seen", {})
    if follow_new and seen.get(key, 0) < serial and newest in names:
        st.session_state[key] = newest
    seen[key] = serial
    if st.session_state.get(key) not in names:
        st.session_state[key] = default if default in names else names[0]
    help = "\n\n".join(part for part in (help, references_help()) if part) or None
    name = st.selectbox(label, names, key=key, help=help)
    return name, get_tokenizer(name)


def sample_text(prefix, *, height, max_chars):
    """A sample picker over viz.samples and a text area it fills; returns the text.
    Picking another sample replaces the text; editing the text keeps the pick.
    Keys: {prefix}_sample, {prefix}_text."""
    sample = st.selectbox("Sample", list(SAMPLES), index=list(SAMPLES).index(DEFAULT_SAMPLE),
                          key=f"{prefix}_sample")
    if st.session_state.get(f"{prefix}_text_sample") != sample:
        st.session_state[f"{prefix}_text_sample"] = sample
        st.session_state[f"{prefix}_text"] = SAMPLES[sample]
    return st.text_area("Text", key=f"{prefix}_text", height=height, max_chars=max_chars)


def figures(*items):
    """A row of st.metric figures, each as wide as its own label and value, that wraps
    onto the next line on a narrow screen instead of cutting them short ("100,…"), as
    equal st.columns do. items: (label, value) or (label, value, help)."""
    with st.container(horizontal=True, gap="medium"):
        for label, value, *help in items:
            st.metric(label, value, help=help[0] if help else None, width="content")


def stop_without_merges(name, tok):
    """Merge replay's and Merge tree's answer for a tokenizer without merges (Unigram,
    WordPiece, a SentencePiece model): say so, list its pieces and scores, link to Methods,
    and end the page's run."""
    if vm.has_merges(tok):
        return
    st.info(md(vm.no_merges_message(name)), icon=":material/info:")
    st.dataframe(vm.pieces_rows(tok), hide_index=True, width="stretch", height=420)
    page_link("pages/methods.py", label="Methods: train Unigram, WordPiece and the BPE "
              "variants side by side", icon=":material/science:")
    st.stop()
