"""Pure presentation logic for the pages: token spans, escaped HTML, diff alignment and
chart data. Nothing here imports streamlit, so all of it is unit-tested directly."""
