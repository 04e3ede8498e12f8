"""What the Arena shows, as data: one text through many tokenizers, and bytes per token
of every tokenizer on every sample (a table with the best per row marked, and a chart).

The samples are the files in samples/arena/ (see its README for where each comes from),
in the order of ARENA_SAMPLES. Pure: pandas and altair, no streamlit.
"""
import functools
from dataclasses import dataclass
from pathlib import Path

import altair as alt
import pandas as pd

from viz.rows import view_row

ARENA_DIR = Path(__file__).resolve().parent.parent / "samples" / "arena"
ARENA_SAMPLES = {  # label -> file in samples/arena/
    "English": "english.txt", "French": "french.txt", "German": "german.txt",
    "Russian": "russian.txt", "Arabic": "arabic.txt", "Hindi": "hindi.txt",
    "Chinese": "chinese.txt", "Japanese": "japanese.txt", "Korean": "korean.txt",
    "Python code": "code.txt", "JSON": "json.txt", "HTML": "html.txt",
    "Numbers": "numbers.txt", "Emoji": "emoji.txt",
}
BEST = "★"  # marks the best bytes per token in a row of the table


@functools.lru_cache(maxsize=1)
def _read_samples():
    return tuple((label, (ARENA_DIR / name).read_text(encoding="utf-8"))
                 for label, name in ARENA_SAMPLES.items())


def arena_samples():
    """label -> text of the shipped samples, in ARENA_SAMPLES order (a fresh dict)."""
    return dict(_read_samples())


@dataclass(frozen=True)
class Lane:
    """One tokenizer's take on the text."""
    name: str
    ids: list
    token_bytes: list
    n_bytes: int

    @property
    def n_tokens(self):
        return len(self.ids)

    @property
    def bytes_per_token(self):
        return self.n_bytes / len(self.ids) if self.ids else 0.0


def lane(name, tok, text):
    """text through tok, special-token text treated as text (as every owner's library
    does by default)."""
    ids = tok.encode(text, allowed_special="none")
    return Lane(name, ids, tok.decode_tokens_bytes(ids), len(text.encode("utf-8")))


def lane_row(lane, text):
    """The token view's row for a lane (lab/token_view/__init__.py), its hover cards over text."""
    row = view_row(lane.token_bytes, lane.ids)
    row["text"] = text
    return row


def bytes_per_token_frame(tokenizers, samples):
    """Bytes per token: one row per sample (label -> text), one column per tokenizer
    (name -> Tokenizer), in the given orders. An empty text gives 0.0."""
    data = {name: [lane(name, tok, text).bytes_per_token for text in samples.values()]
            for name, tok in tokenizers.items()}
    return pd.DataFrame(data, index=pd.Index(list(samples), name="sample"))


def best_marked(frame):
    """The frame as text, two decimals, the best (highest) value of each row marked ★.

    >>> f = pd.DataFrame({"a": [4.0, 2.0], "b": [3.5, 2.5]}, index=["x", "y"])
    >>> best_marked(f).values.tolist()
    [['★ 4.00', '3.50'], ['2.00', '★ 2.50']]
    """
    shown = frame.map(lambda v: f"{v:.2f}")
    for sample, row in frame.iterrows():
        if len(row) and row.max() > 0:
            for name in row.index[row == row.max()]:
                shown.at[sample, name] = f"{BEST} {shown.at[sample, name]}"
    return shown


def bytes_per_token_chart(frame):
    """Grouped horizontal bars: for each sample, each tokenizer's bytes per token."""
    data = (frame.reset_index().melt(id_vars="sample", var_name="tokenizer",
                                     value_name="bytes per token"))
    best = frame.max(axis=1)
    data["best"] = [value > 0 and value == best[sample]
                    for sample, value in zip(data["sample"], data["bytes per token"])]
    order = list(frame.index)
    return alt.Chart(data).mark_bar().encode(
        y=alt.Y("sample:N", sort=order, title=None),
        yOffset=alt.YOffset("tokenizer:N", sort=list(frame.columns)),
        x=alt.X("bytes per token:Q", title="bytes per token (higher packs more text per token)"),
        color=alt.Color("tokenizer:N", sort=list(frame.columns),
                        scale=alt.Scale(scheme="tableau10"),
                        legend=alt.Legend(orient="top", title=None, columns=2, labelLimit=260)),
        opacity=alt.condition("datum.best", alt.value(1.0), alt.value(0.55)),
        tooltip=["sample:N", "tokenizer:N", alt.Tooltip("bytes per token:Q", format=".2f"),
                 alt.Tooltip("best:N", title="best in row")],
    ).properties(height=alt.Step(9))
