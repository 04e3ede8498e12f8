"""How much data, which vocabulary size, and what an extension buys: the charts and the
tables of what the worker measured.

lab/workers.py trains and measures (data_sufficiency, sweep and the extension curve
rows); this module only shapes those rows into Altair charts and tables. Pure: no
streamlit, no training.
"""
import altair as alt
import pandas as pd

from viz.vocab import visible  # the one renderer (viz.vocab.visible), on one line


# ------------------------------------------------------------------------ charts
def sweep_chart(rows):
    data = pd.DataFrame(rows)
    return alt.Chart(data).mark_line(point=True).encode(
        x=alt.X("vocab size:Q", scale=alt.Scale(type="log", base=2), title="vocabulary size"),
        y=alt.Y("bytes/token:Q", scale=alt.Scale(zero=False),
                title="bytes per token, held out"),
        color=alt.Color("pattern:N", title="split pattern"),
        tooltip=["pattern", "vocab size", "merges", alt.Tooltip("bytes/token:Q", format=".3f")],
    ).properties(height=320)


def sufficiency_charts(rows):
    """Two charts against the share of the corpus trained on: how much of the full
    vocabulary was found, and bytes/token on held-out text (each stretches to its column)."""
    data = pd.DataFrame(rows)
    x = alt.X("fraction:Q", scale=alt.Scale(type="log"), axis=alt.Axis(format="%"),
              title="share of the corpus trained on")
    tooltip = [alt.Tooltip("fraction:Q", format=".0%"), "characters", "merges"]
    return [alt.Chart(data).mark_line(point=True).encode(
        x=x, y=alt.Y(f"{measure}:Q", scale=alt.Scale(zero=False), title=title,
                     axis=alt.Axis(format=fmt)),
        tooltip=tooltip + [alt.Tooltip(f"{measure}:Q", format=".3f")],
    ).properties(height=260)
        for measure, title, fmt in (("share of the full vocabulary",
                                     "tokens shared with the full training", "%"),
                                    ("bytes/token", "bytes per token, held out", ".2f"))]


def extension_charts(rows):
    """One chart per held-out text (domain and general sit far apart, so each gets its own
    y scale; separate charts, not a facet, so each can stretch to the page's width)."""
    data = pd.DataFrame(rows)
    colors = dict(zip(data["text"].unique(), ["#1f77b4", "#d62728", "#2ca02c", "#9467bd"]))
    return [alt.Chart(data[data["text"] == text]).mark_line(color=color).encode(
        x=alt.X("new merges:Q", title="new merges K"),
        y=alt.Y("bytes/token:Q", scale=alt.Scale(zero=False), title="bytes per token"),
        tooltip=["text", "new merges", alt.Tooltip("bytes/token:Q", format=".3f")],
    ).properties(height=180, title=text) for text, color in colors.items()]


# ------------------------------------------------------------------ extension
def new_tokens_rows(ext):
    """One row per new token: id, the token, its two parts, how often its pair occurred,
    each token shown as every table of the lab shows it (viz.vocab.visible)."""
    vocab = ext.vocab
    return [{"id": idx, "token": visible(vocab[idx]),
             "parts": f"'{visible(vocab[a])}' + '{visible(vocab[b])}'",
             "count": ext.merge_counts.get(idx)} for (a, b), idx in ext.new_merges.items()]

