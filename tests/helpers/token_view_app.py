"""A bare page with one aligned pair view (lab.token_view with pair=), for browser tests
of the component alone: GPT-4's tokens above, fixed 3-byte pieces below, so the two cut
the text differently almost everywhere. With ?view=letters&text=... instead: one row of
that text cut into one token per character (as a small trained tokenizer cuts Arabic)."""
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

import streamlit as st  # noqa: E402

from bpe import GPT4Tokenizer  # noqa: E402
from lab.token_view import token_view  # noqa: E402
from viz.pair import pair_view  # noqa: E402
from viz.rows import view_row  # noqa: E402

TEXT = ("The merge rule picks the most frequent pair of adjacent ids and replaces every "
        "occurrence of it with a new id; tokenizers that learned different merges cut the "
        "same sentence in different places, and a reader compares them piece by piece. ") * 3

st.set_page_config(layout="centered")
if st.query_params.get("view") == "letters":
    letters = st.query_params.get("text", "")
    pieces = [ch.encode() for ch in letters]
    token_view([dict(view_row(pieces, list(range(len(pieces)))), text=letters)], key="letters")
    st.stop()
tok = GPT4Tokenizer()
ids = tok.encode_ordinary(TEXT)
raw = TEXT.encode()
row_a = view_row(tok.decode_tokens_bytes(ids), ids, caption="GPT-4")
thirds = [raw[i:i + 3] for i in range(0, len(raw), 3)]
row_b = view_row(thirds, list(range(len(thirds))), caption="3 bytes")
row_a["text"] = TEXT
token_view([], key="pair", pair=pair_view(row_a, row_b, raw))
