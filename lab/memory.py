"""Pages remember their widgets for the whole session: the one helper every page uses.

Streamlit forgets the value of a widget that a run does not draw, so a visit to another
page resets every input of the page left behind. `remember(defaults)` is called at the
top of a page, before its widgets are drawn, with the page's widget keys and defaults:

    remember({"train_vocab_size": 512, "train_kind": "Regex"})

On every run it copies each key's current value into a shadow kept under a non-widget
key (which Streamlit never forgets), and gives a widget that Streamlit forgot the value
its shadow holds, else the default. The widget is then drawn with `key=` only: never pass
`value=`/`index=` as well, Streamlit would warn that both set it.

Files from `st.file_uploader` cannot be given back to the widget; a page keeps the bytes
it read from them in session state itself.
"""
import streamlit as st

SHADOW = "_remembered"  # widget key -> last value seen, for the whole session


def remember(defaults):
    """Restore (or default) each widget key in defaults, then shadow its current value."""
    shadow = st.session_state.setdefault(SHADOW, {})
    for key, default in defaults.items():
        if key not in st.session_state:
            st.session_state[key] = shadow.get(key, default)
        shadow[key] = st.session_state[key]


def forget(*keys):
    """Drop what is remembered for keys, so they start again from their defaults."""
    shadow = st.session_state.setdefault(SHADOW, {})
    for key in keys:
        shadow.pop(key, None)
        st.session_state.pop(key, None)

