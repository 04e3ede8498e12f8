"""Small widget groups that several pages share."""
import streamlit as st

from viz.samples import DEFAULT_SAMPLE, SAMPLES


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
