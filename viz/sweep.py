"""How much data, which vocabulary size, and what an extension buys: the charts and the
tables of what the worker measured.

lab/jobs/workers.py trains and measures (data_sufficiency, sweep and the extension curve
rows); this module only shapes those rows into Altair charts and tables. Pure: no
streamlit, no training.
"""
import textwrap

import altair as alt
import pandas as pd

from viz.vocab import visible  # the one renderer (viz.vocab.visible), on one line


# ------------------------------------------------------------------------ charts
# Streamlit fits a whole chart (title, axes and all) into the height it is given, and by
# default that is the plot's own height, so a 180 px plot drew 60 px tall: a page gives
# st.altair_chart(height=element_height(chart)), the plot plus room for the rest.
AXES_PX = 90        # the x axis: its labels and its title, and the padding
TITLE_LINE_PX = 22  # one line of a chart's title
TITLE_CHARS = 48    # a title is wrapped to lines this long
SUBTITLE_GREY = "#808495"
SUBTITLE_CHARS = 70  # its smaller type fits more in the ~500 px of a chart at 800 px


def _lines(text):
    if isinstance(text, list):
        return len(text)
    return text.count("\n") + 1 if text else 0


def element_height(chart):
    """The height, in pixels, st.altair_chart needs to draw chart's plot at its own height:
    the plot, the x axis, and every line of the title and subtitle.

    >>> element_height(alt.Chart().properties(height=200, title=wrapped_title("a b")))
    312
    """
    title = chart.to_dict(validate=False).get("title", "")
    if not isinstance(title, dict):
        title = {"text": title}
    lines = _lines(title.get("text", "")) + _lines(title.get("subtitle", ""))
    return chart.height + AXES_PX + TITLE_LINE_PX * lines


def wrapped_title(text, subtitle=""):
    """A chart title (and subtitle) wrapped to lines of TITLE_CHARS, left-aligned: Vega
    never wraps one, and a long one ran off a narrow chart. The subtitle is grey, a grey
    that reads on a light and a dark theme alike (Streamlit's dark theme drew it black)."""
    lines = textwrap.wrap(str(text), TITLE_CHARS) or [""]
    if not subtitle:
        return alt.TitleParams(lines, anchor="start")
    return alt.TitleParams(lines, anchor="start", subtitleColor=SUBTITLE_GREY,
                           subtitle=textwrap.wrap(subtitle, SUBTITLE_CHARS))


def identical_series(rows, series="pattern", x="vocab size", y="bytes/token", within=0.01):
    """Groups (two or more names) of series whose y differs by less than `within` at every
    x: lines drawn one over another, which a chart alone cannot tell apart.

    >>> identical_series([{"pattern": p, "vocab size": 300, "bytes/token": b}
    ...                   for p, b in (("a", 2.0), ("b", 2.5), ("c", 2.004))])
    [['a', 'c']]
    """
    curves = {}
    for row in rows:
        curves.setdefault(row[series], {})[row[x]] = row[y]
    groups = []  # [(the first curve, names)]
    for name, curve in curves.items():
        for first, names in groups:
            if first.keys() == curve.keys() and all(abs(first[k] - curve[k]) < within
                                                    for k in curve):
                names.append(name)
                break
        else:
            groups.append((curve, [name]))
    return [names for _, names in groups if len(names) > 1]


def sweep_chart(rows):
    """Bytes/token against vocab size, one line per pattern, each with its own dash too,
    so a line drawn over another still shows (identical_series names them)."""
    data = pd.DataFrame(rows)
    return alt.Chart(data).mark_line(point=True).encode(
        x=alt.X("vocab size:Q", scale=alt.Scale(type="log", base=2), title="vocabulary size",
                axis=alt.Axis(values=sorted(set(data["vocab size"])), format=",d")),
        y=alt.Y("bytes/token:Q", scale=alt.Scale(zero=False),
                title="bytes per token, held out", axis=alt.Axis(format=".2f")),
        # the legend draws each line's stroke, dash and all (a point hid the dash)
        color=alt.Color("pattern:N", title="split pattern",
                        legend=alt.Legend(symbolType="stroke", symbolStrokeWidth=3)),
        strokeDash=alt.StrokeDash("pattern:N", title="split pattern"),
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
    y scale; separate charts, not a facet, so each can stretch to the page's width). The
    y axis has three decimals: an extension moves bytes/token by hundredths, and a flat
    line's one tick was labelled 3.638726."""
    data = pd.DataFrame(rows)
    colors = dict(zip(data["text"].unique(), ["#1f77b4", "#d62728", "#2ca02c", "#9467bd"]))
    return [alt.Chart(data[data["text"] == text]).mark_line(color=color).encode(
        x=alt.X("new merges:Q", title="new merges K", axis=alt.Axis(format=",d")),
        y=alt.Y("bytes/token:Q", scale=alt.Scale(zero=False), title="bytes per token",
                axis=alt.Axis(format=".3f", tickCount=4)),
        tooltip=["text", "new merges", alt.Tooltip("bytes/token:Q", format=".3f")],
    ).properties(height=200, title=wrapped_title(f"bytes per token, {text}"))
        for text, color in colors.items()]


# ------------------------------------------------------------------ extension
def new_tokens_rows(ext):
    """One row per new token: id, the token, its two parts, how often its pair occurred,
    each token shown as every table of the lab shows it (viz.vocab.visible)."""
    vocab = ext.vocab
    return [{"id": idx, "token": visible(vocab[idx]),
             "parts": f"'{visible(vocab[a])}' + '{visible(vocab[b])}'",
             "count": ext.merge_counts.get(idx)} for (a, b), idx in ext.new_merges.items()]

