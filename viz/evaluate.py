"""The Evaluate page's tables and charts, shaped from bpe.evaluate's rows and records.

Pure: pandas and altair, no streamlit, no disk. The figures themselves (and the word
rule) are bpe/evaluate.py's; this file only arranges them.
"""
import altair as alt
import pandas as pd

from bpe import evaluate


def report_frame(rows, references=()):
    """The report card (bpe.evaluate.report) as a DataFrame, one row per tokenizer and
    text, "vs" columns in percent (empty where a row is its own reference)."""
    return pd.DataFrame(evaluate.report(rows, references))


def leftover_frame(rows):
    """bpe.evaluate.leftovers' rows as a table: the share in percent, and a note where a
    tokenizer has none (no merges).

    >>> leftover_frame([{"tokenizer": "t", "merged": 3, "leftovers": 2, "share": 2 / 3, "why": ""}]).values.tolist()
    [['t', 3, 2, '66.7%', '']]
    """
    frame = pd.DataFrame(rows, columns=["tokenizer", "merged", "leftovers", "share", "why"])
    frame["share"] = [None if v is None or v != v else f"{v:.1%}" for v in frame["share"]]
    for column in ("merged", "leftovers"):
        frame[column] = frame[column].astype("Int64")
    return frame


def csv_text(frame):
    """The report as CSV text, for a download."""
    return frame.to_csv(index=False)


def markdown_text(frame):
    """The report as a Markdown table (bpe.evaluate.markdown_table), for a download."""
    records = [{k: (None if pd.isna(v) else v) for k, v in r.items()}
               for r in frame.to_dict("records")]
    return evaluate.markdown_table(records)


def bytes_per_token_chart(rows):
    """Grouped horizontal bars: bytes per token of each tokenizer on each text, the
    total last."""
    data = pd.DataFrame([{"text": r.file, "tokenizer": r.tokenizer,
                          "bytes per token": r.bytes_per_token,
                          "tokens per word": r.tokens_per_word} for r in rows])
    order = list(dict.fromkeys(r.file for r in rows))
    names = list(dict.fromkeys(r.tokenizer for r in rows))
    return alt.Chart(data).mark_bar().encode(
        y=alt.Y("text:N", sort=order, title=None),
        yOffset=alt.YOffset("tokenizer:N", sort=names),
        x=alt.X("bytes per token:Q", title="bytes per token (higher packs more text per token)"),
        color=alt.Color("tokenizer:N", sort=names, scale=alt.Scale(scheme="tableau10"),
                        legend=alt.Legend(orient="top", title=None, columns=2, labelLimit=260)),
        tooltip=["text:N", "tokenizer:N", alt.Tooltip("bytes per token:Q", format=".2f"),
                 alt.Tooltip("tokens per word:Q", format=".2f")],
    ).properties(height=alt.Step(9))


def script_frame(shares_by_name):
    """name -> {script: share} as long rows (tokenizer, script, share) for the chart."""
    return pd.DataFrame([{"tokenizer": name, "script": script, "share": share}
                         for name, shares in shares_by_name.items()
                         for script, share in shares.items()])


def script_chart(shares_by_name):
    """One stacked bar per tokenizer: the share of its vocabulary in each script."""
    data = script_frame(shares_by_name)
    return alt.Chart(data).mark_bar().encode(
        y=alt.Y("tokenizer:N", sort=list(shares_by_name), title=None),
        x=alt.X("share:Q", stack="normalize", axis=alt.Axis(format="%"),
                title="share of the vocabulary"),
        color=alt.Color("script:N", scale=alt.Scale(scheme="tableau20"),
                        legend=alt.Legend(orient="top", title=None, columns=3, labelLimit=140)),
        order=alt.Order("share:Q", sort="descending"),
        tooltip=["tokenizer:N", "script:N", alt.Tooltip("share:Q", format=".1%")],
    ).properties(height=alt.Step(28))


def throughput_line(n_bytes, seconds, corpus_bytes=evaluate.PILE_BYTES):
    """One sentence: MB/s here and the time it would take for corpus_bytes (the Pile).

    >>> throughput_line(2_000_000, 1.0)
    '2.00 MB/s on this machine: 825 GB (the Pile) would take 4 d 18 h 35 min.'
    """
    rate = n_bytes / seconds if seconds > 0 else float("inf")
    left = evaluate.pile_time(rate, corpus_bytes)
    return (f"{rate / 1e6:.2f} MB/s on this machine: {corpus_bytes / 1e9:,.0f} GB (the Pile) "
            f"would take {_duration(left)}.")


def _duration(seconds):
    minutes = int(seconds // 60)
    days, minutes = divmod(minutes, 24 * 60)
    hours, minutes = divmod(minutes, 60)
    parts = [f"{days} d"] * bool(days) + [f"{hours} h"] * bool(hours or days) + [f"{minutes} min"]
    return " ".join(parts) if seconds >= 60 else f"{seconds:.0f} s"
