"""How much data is enough, which vocabulary size, and what an extension buys: as data.

Three runnable pieces (they train; run them in the worker) and their Altair charts:
- data_sufficiency: train on 1%, 5%, 25%, 100% of a corpus -> how many of the full
  vocabulary's tokens each learned, and bytes/token on held-out text;
- sweep: vocab sizes x split patterns -> bytes/token on held-out text;
- extension_curve: bytes/token on domain and general text as an extension's K grows.
The sizes cost one training each: BPE with fewer merges is a prefix of BPE with more, so
bpe.replay counts the tokens of every prefix from one encoding of the held-out text.
"""
from collections import Counter
from itertools import accumulate

import altair as alt
import pandas as pd

from bpe import BasicTokenizer, RegexTokenizer, PATTERNS
from bpe.replay import token_counts_by_merge
from viz.corpus import split_held_out

FRACTIONS = (0.01, 0.05, 0.25, 1.0)
PATTERN_LABELS = {"GPT-2": PATTERNS["gpt2"], "GPT-4": PATTERNS["gpt4"],
                  "GPT-4o": PATTERNS["gpt4o"]}
CURVE_POINTS = 200  # points per extension curve at most


def _tokenizer(pattern):
    return RegexTokenizer(pattern) if pattern else BasicTokenizer()


def _phase(progress, name):
    """Tell a lab.jobs progress reporter what the work does now (others have no phase)."""
    if progress is not None and hasattr(progress, "phase"):
        progress.phase(name)


def bytes_per_token(n_bytes, n_tokens):
    return n_bytes / n_tokens if n_tokens else 0.0


def data_sufficiency(text, held_out, vocab_size, pattern="gpt4", fractions=FRACTIONS,
                     progress=None):
    """One row per fraction of text (a prefix): characters trained on, the share of the
    full text's learned tokens this training also learned, and bytes/token on held_out.
    progress(stage, done, total)."""
    runs = {}
    for fraction in sorted(set(fractions) | {1.0}):
        part = text[:max(1, round(len(text) * fraction))]
        tok = _tokenizer(pattern).train(part, vocab_size, progress=progress)
        runs[fraction] = tok
    full = {tok_bytes for idx, tok_bytes in runs[1.0].vocab.items() if idx >= 256}
    n_bytes = len(held_out.encode("utf-8"))
    rows = []
    for fraction, tok in runs.items():
        learned = {tok.vocab[idx] for idx in tok.merges.values()}
        rows.append({"fraction": fraction, "characters": len(text[:max(1, round(len(text) * fraction))]),
                     "merges": len(tok.merges),
                     "share of the full vocabulary": len(learned & full) / len(full) if full else 1.0,
                     "bytes/token": bytes_per_token(n_bytes, len(tok.encode_ordinary(held_out)))})
    return rows


def sweep(text, held_out, vocab_sizes, patterns=None, progress=None):
    """One row per (pattern, vocab size): bytes/token on held_out. patterns: label ->
    pattern (a preset, a regex, or "" for none); GPT-2, GPT-4 and GPT-4o by default.
    One training per pattern, at the largest size."""
    patterns = patterns or PATTERN_LABELS
    top = max(vocab_sizes)
    n_bytes = len(held_out.encode("utf-8"))
    rows = []
    for label, pattern in patterns.items():
        tok = _tokenizer(pattern).train(text, top, progress=progress)
        counts = token_counts_by_merge(tok, held_out)
        for size in sorted(vocab_sizes):
            k = min(size - 256, len(counts) - 1)  # training may have run out of pairs
            rows.append({"pattern": label, "vocab size": size, "merges": k,
                         "bytes/token": bytes_per_token(n_bytes, counts[k])})
    return rows


def extension_counts(ext, text):
    """counts[k] = tokens text takes with the base plus the first k new merges."""
    parents = {idx: pair for pair, idx in ext.new_merges.items()}
    need = Counter(idx for idx in ext.encode_ordinary(text) if idx in parents)
    # subtle: as in bpe.replay.merge_applications, a new token's parts have smaller ids,
    # so walking the new ids downwards hands each its parts' counts first; base ids stop it
    for idx in sorted(parents, reverse=True):
        times = need.get(idx)
        if times:
            for part in parents[idx]:
                if part in parents:
                    need[part] += times
    done = [need.get(idx, 0) for idx in parents]
    n_base = len(ext.base.encode_ordinary(text))
    return [n_base - d for d in accumulate(done, initial=0)]


def extension_curve(ext, texts, points=CURVE_POINTS):
    """Rows (K, text label, bytes/token) for K = 0..len(ext.new_merges), thinned to about
    `points` values of K. texts: label -> text (e.g. domain and general held-out text)."""
    rows = []
    for label, text in texts.items():
        counts = extension_counts(ext, text)
        n_bytes = len(text.encode("utf-8"))
        step = max(1, len(counts) // points)
        ks = sorted(set(range(0, len(counts), step)) | {len(counts) - 1})
        rows += [{"new merges": k, "text": label,
                  "bytes/token": bytes_per_token(n_bytes, counts[k])} for k in ks]
    return rows


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
def extension_run(base, domain, general, num_merges, min_frequency=2, progress=None):
    """Extend base on the domain text minus its held-out end, then measure bytes/token on
    that held-out end and on general text as K grows. -> (extended tokenizer, curve rows).
    progress gets the MergeProgress of the new merges."""
    from bpe.extend import extend_vocabulary
    train, held = split_held_out(domain)
    ext = extend_vocabulary(base, train, num_merges, min_frequency=min_frequency,
                            progress=progress)
    _phase(progress, "measuring")
    texts = {"domain (held out)": held or train, "general": general}
    return ext, extension_curve(ext, {label: text for label, text in texts.items() if text})


def new_tokens_rows(ext):
    """One row per new token: id, the token, its two parts, how often its pair occurred."""
    from bpe import render_token
    vocab = ext.vocab
    return [{"id": idx, "token": render_token(vocab[idx]),
             "parts": f"'{render_token(vocab[a])}' + '{render_token(vocab[b])}'",
             "count": ext.merge_counts.get(idx)} for (a, b), idx in ext.new_merges.items()]


def extension_downloads(ext):
    """format -> (file name, file text, None) or (file name, None, why it cannot hold it)."""
    import json
    from bpe.formats.hf import hf_json
    from bpe.formats.ranks import tiktoken_text
    makers = {".tiktoken": ("extended.tiktoken", tiktoken_text),
              "tokenizer.json": ("tokenizer.json",
                                 lambda tok: json.dumps(hf_json(tok), ensure_ascii=False)),
              ".model": ("extended.model", lambda tok: tok.model_text())}
    out = {}
    for fmt, (file_name, make) in makers.items():
        try:
            out[fmt] = (file_name, make(ext), None)
        except ValueError as e:
            out[fmt] = (file_name, None, str(e))
    return out


# ------------------------------------------------------- jobs, run in the worker
# lab.jobs calls these as function(progress, **args) in a worker process.
def sufficiency_job(progress, *, text, vocab_size, pattern="gpt4"):
    train, held = split_held_out(text)
    if not held:
        raise ValueError("this corpus is too small to hold text out; pick a bigger one")
    return data_sufficiency(train, held, vocab_size, pattern, progress=progress)


def sweep_job(progress, *, text, vocab_sizes, patterns):
    train, held = split_held_out(text)
    if not held:
        raise ValueError("this corpus is too small to hold text out; pick a bigger one")
    return sweep(train, held, vocab_sizes, patterns, progress=progress)


def extension_job(progress, *, base, domain, general, num_merges, min_frequency=2):
    """base: a tokenizer, or the name of a reference one (bpe.reference), loaded here so
    GPT-4's ranks need not travel to the worker. -> the new merges and their counts, the
    curve rows and the downloads; the page rebuilds the tokenizer on its own base."""
    if isinstance(base, str):
        from bpe.reference import load_reference
        base = load_reference(base)
    ext, rows = extension_run(base, domain, general, num_merges, min_frequency, progress)
    _phase(progress, "measuring")
    return {"new_merges": ext.new_merges, "merge_counts": ext.merge_counts,
            "stop_reason": ext.stop_reason, "rows": rows,
            "downloads": extension_downloads(ext)}
