"""The Train page's panels: the live progress of a running training, and the result of
the last one (numbers, merge table, curves, downloads, the SentencePiece follow-up).

pages/train.py reads the corpus and the form and calls these; the training itself is a
lab.train.training.Training (slot TRAIN, and SENTENCEPIECE for the follow-up).
"""
import functools
import json

import streamlit as st

from bpe import RegexTokenizer
from bpe.formats import ranks
from bpe.formats.hf import tokenizer_json as hf
from lab import derived
from lab.guard import guarded
from lab.jobs.corpus_text import corpus_fingerprint, held_out_start
from lab.jobs.requests import SentencePieceRequest
from lab.lessons import page_link
from lab.safe import code, md
from lab.train import training
from lab.widgets import figures
from viz import methods as vm
from viz import train_result as vt
from viz.sweep import element_height

TRAIN = "train"                     # the slot of the page's BPE training
SENTENCEPIECE = "train_sentencepiece"  # the slot of its SentencePiece follow-up
POLL_EVERY = 0.5                    # seconds between progress redraws while training


def settings_line(s):
    return f"**Training “{md(s.name)}”** · {md(s.summary)}"


SCROLL_TOP = "train_scroll_top"  # set when a training starts: show the top of the page once
# our own constant scripts (never user text), run in the page by st.html; window.parent
# is the page itself there (it was the page around components.html's iframe)
_SCROLL_TOP = """<script>
for (const el of [window.parent, ...window.parent.document.querySelectorAll(
    '[data-testid="stMain"], [data-testid="stAppViewContainer"], section.main')]) {
  el.scrollTo({top: 0, behavior: "smooth"});
}
</script>"""
_SCROLL_TO = """<script>
setTimeout(() => window.parent.document.getElementById("%s")
    ?.scrollIntoView({behavior: "smooth"}), 300);
</script>"""


def scroll_to_top_once():
    """After Train was clicked (low on the page), bring the progress panel into view."""
    if st.session_state.pop(SCROLL_TOP, False):
        st.html(_SCROLL_TOP, unsafe_allow_javascript=True)


def scroll_to(anchor):
    """Bring the heading with this anchor (letters, digits and - only) into view."""
    st.html(_SCROLL_TO % "".join(ch for ch in anchor if ch.isalnum() or ch == "-"),
            unsafe_allow_javascript=True)


@st.fragment(run_every=POLL_EVERY)
@guarded
def progress_panel(slot=TRAIN):
    """Redrawn every POLL_EVERY s while the training in slot runs; once it has ended, a
    full rerun collects it and shows the result."""
    t = training.get(slot)
    if t is None or not t.running:
        return
    p = t.progress()
    if t.job is None or t.job.done:
        st.rerun()  # the whole app: collect_finished, the toast, the result
    with st.container(border=True, key=f"{slot}_progress"):
        st.markdown(settings_line(t.settings))
        if p.phase in ("starting", "counting"):
            st.progress(0.0, text="Splitting the corpus into chunks and counting pairs…")
        elif p.phase == "measuring":
            st.progress(1.0, text="Measuring compression on the held-out text…")
        elif p.phase == "training":
            st.progress(0.0, text="Training (this kind reports no progress until it ends)…")
        if p.total:
            if p.phase == "merging":
                st.progress(p.fraction, text=f"{p.done:,} of {p.total:,} "
                                             f"{md(p.label or 'merges')}")
            figures(("Merges done", f"{p.done:,}"),
                    ("Merges per second", f"{p.rate:,.0f}", "over the last few seconds"),
                    ("Time left", "…" if p.eta is None else vt.format_duration(p.eta),
                     "estimated from how the merge rate has changed so far (later merges "
                     "are cheaper), once 5% of the merges are done"),
                    ("Elapsed", vt.format_duration(p.elapsed)))
            if p.recent:
                st.caption("The latest merges, newest first")
                st.dataframe(vt.recent_merges_table(p.recent), hide_index=True,
                             width="stretch", height=250)
        st.button("Cancel", icon=":material/cancel:", on_click=training.cancel, args=(slot,),
                  key=f"{slot}_cancel")


def file_stem(name):
    return "".join(ch if ch.isalnum() or ch in "-_" else "_" for ch in name).strip("_") \
        or "tokenizer"


EXPORT_CHECK_BYTES = 4 << 20  # token bytes checked for tiktoken's rule (~3 µs a byte)


def token_bytes(tok):
    """The bytes of tok's ordinary tokens, all together: what exporting it costs."""
    specials = set(tok.special_tokens.values())
    return sum(len(token) for idx, token in tok.vocab.items() if idx not in specials)


def _exports(tok):
    """([(label, make(tok) -> the file, file name suffix, help)], [problem]): the formats
    tok can be saved in, checked once; make is called only when a download button is
    clicked. Kept in lab/derived.py's cache, so nothing here may hold tok."""
    files, problems = [], []
    if "\n" in tok.pattern or "\r" in tok.pattern:
        problems.append(md("The split pattern contains a line break, which a .model file "
                           "cannot hold; write it as \\n inside the regex to download it."))
    else:
        files.append((".model", type(tok).model_text, ".model",
                      "minbpe's format: loads with bpe.load(), minbpe, and this app's sidebar"))
    files.append((".vocab", type(tok).vocab_text, ".vocab", "for people to read"))
    size = token_bytes(tok)
    if size > EXPORT_CHECK_BYTES and getattr(tok, "ranks", None) is None:
        problems.append(
            f".tiktoken and tokenizer.json: this tokenizer's tokens total {size / 2**20:,.1f} "
            f"MB; checking that tiktoken's rule gives its ids stops at "
            f"{EXPORT_CHECK_BYTES >> 20} MB. Download the .model and convert it with "
            f"{code('python -m bpe export --format tiktoken -o out.tiktoken my.model')} "
            "(it takes minutes), or train with a smaller vocab size or a split pattern "
            "(Regex), whose tokens are short.")
        return files, problems
    try:
        ranks.mergeable_ranks(tok)  # the one slow check, shared by both formats
    except ValueError as e:
        problems.append(f".tiktoken and tokenizer.json: {md(str(e))}")
        return files, problems
    files.append((".tiktoken", ranks.tiktoken_text, ".tiktoken",
                  "tiktoken's ranks; the split pattern and special tokens are not part "
                  "of the format: pick the pattern when loading it"))
    files.append(("tokenizer.json",
                  lambda t: json.dumps(hf.hf_json(t), ensure_ascii=False), ".json",
                  "Hugging Face tokenizers' format"))
    return files, problems


def downloads(tok, stem):
    """[(label, make the data, file name, help or None)] for every format tok can be saved
    in, and [Markdown, user text escaped] for those it cannot (why, and what to do). The checks run once per
    tokenizer, bounded (EXPORT_CHECK_BYTES); the files are made only on a click."""
    files, problems = derived.remember(tok, "exports", lambda: _exports(tok))
    return [(label, functools.partial(make, tok), stem + suffix, help)
            for label, make, suffix, help in files], list(problems)


def download_buttons(tok, name, key):
    files, problems = downloads(tok, file_stem(name))
    row = st.container(horizontal=True)  # wraps on a narrow window: columns cut the labels
    for label, make, file_name, help in files:
        row.download_button(f"Download {label}", make, file_name=file_name,
                            mime="text/plain", icon=":material/download:", help=help,
                            on_click="ignore", key=f"{key}_download_{label}")
    for problem in problems:
        st.caption(problem)  # Markdown made safe where it was written


def result_panel(t, text_fingerprint):
    """The last training's result (t ended). text_fingerprint: the corpus on the page now,
    to say when the result came from another one."""
    s, o = t.settings, t.outcome
    if o.cancelled:
        st.info(f"Training “{md(s.name)}” was cancelled. Change the settings and train again.")
        return
    if o.error:
        st.error(f"Training “{md(s.name)}” failed: {md(o.error)}", icon=":material/error:")
        return
    tok, name = o.tok, o.added[0]
    if s.corpus != text_fingerprint:
        st.caption(f"Trained on {md(s.corpus_label)}, not on the corpus picked above.")
    if s.kind == "method":
        method_result(t, tok, name)
        return
    early, message = vt.stop_message(tok, s.request.vocab_size, s.request.min_frequency)
    (st.warning if early else st.success)(
        f"{message} Added to this session as **{md(name)}**: pick it on Tokenize, Compare "
        "and the other pages.", icon=":material/info:" if early else ":material/check_circle:")
    counts = o.value.held_out_counts
    compression = vt.compression_frame(counts) if counts else None
    shown = [("Merges", f"{len(tok.merges):,}"),
             ("Vocab size", f"{tok.n_vocab:,}",
              "256 bytes + merges + special tokens" if tok.special_tokens else None),
             ("Training time", vt.format_duration(o.elapsed),
              f"{o.rate:,.0f} merges per second" if o.rate else None)]
    if compression is not None:
        shown.append(("Bytes per token (held out)",
                      f"{compression['bytes_per_token'].iloc[-1]:.2f}",
                      "On the held-out end of the corpus, which training never saw"))
    figures(*shown)
    if tok.special_tokens:
        st.caption("Special tokens: " + ", ".join(f"{code(s_)} → {idx}"
                                                  for s_, idx in tok.special_tokens.items()))
    table = vt.merge_table(tok)
    merges_tab, frequency_tab, compression_tab = st.tabs(
        ["Merge table", "Merge frequency", "Compression"])
    with merges_tab:
        merge_table_view(table)
        st.caption(vt.ties_caption(tok, table))
        st.page_link("pages/ties.py", label="Tie rules: train one corpus under each rule "
                     "and see where they part", icon=":material/balance:")
    with frequency_tab:
        if len(tok.merges):
            chart = vt.merge_frequency_chart(table)
            st.altair_chart(chart, width="stretch", height=element_height(chart))
        else:
            st.info("No merges were made, so there is no curve to draw.")
    with compression_tab:
        if compression is None and s.kind == "counts":
            st.info("A counts file holds chunk counts, not text, so no slice of text was "
                    "held out and compression was not measured. Train on the text itself "
                    "to see this curve.")
        elif compression is None:
            st.info("The corpus was too small to hold out a slice, so compression was not "
                    "measured. Train on a bigger corpus to see this curve.")
        else:
            chart = vt.compression_chart(compression)
            st.altair_chart(chart, width="stretch", height=element_height(chart))
            st.caption(f"Measured on the last {s.held_chars:,} characters of the corpus, "
                       "held out of training, from this one training run: token counts for "
                       "every vocab size come from replaying its merges (bpe.replay), not "
                       "from training again.")
    st.markdown("**Download**")
    download_buttons(tok, name, TRAIN)


def merge_table_view(table):
    """A merge table (viz.train_result.merge_table) with its column help."""
    st.dataframe(table, hide_index=True, width="stretch", height=420,
                 column_config={
                     "rank": st.column_config.NumberColumn("rank", width="small"),
                     "id": st.column_config.NumberColumn("id", width="small"),
                     "from": st.column_config.TextColumn(
                         "from", help="the two tokens merged; · is a space, ↵ a newline"),
                     "count": st.column_config.NumberColumn("count", width="small"),
                     "tie": st.column_config.TextColumn(
                         "tie", width="large",
                         help="the other pairs that had the same top count at this "
                              "merge: the tie rule picked this one")})


def method_result(t, tok, name):
    """The result of a training by another method of bpe.methods (kind "method"): its
    numbers, its merges (or its pieces, for a method without merges), its download."""
    s, o = t.settings, t.outcome
    method = s.request.method
    st.success(f"Trained **{md(method)}** to {tok.n_vocab:,} tokens (asked for "
               f"{s.request.vocab_size:,}). Added to this session as **{md(name)}**: pick it "
               "on Tokenize, Compare and the other pages.", icon=":material/check_circle:")
    merged = vm.has_merges(tok)
    shown = [("Method", method), ("Vocab size", f"{tok.n_vocab:,}"),
             ("Merges", f"{len(tok.merges):,}" if merged else "none (pieces)"),
             ("Training time", vt.format_duration(o.elapsed))]
    if o.value.held_out_bytes_per_token:
        shown.append(("Bytes per token (held out)", f"{o.value.held_out_bytes_per_token:.2f}",
                      "On the held-out end of the corpus, which training never saw"))
    figures(*shown)
    if merged:
        st.markdown("**Merge table**")
        merge_table_view(vt.merge_table(tok))
    else:
        st.markdown("**Pieces**")
        st.caption(md(vm.no_merges_message(name)))
        st.dataframe(vm.pieces_rows(tok), hide_index=True, width="stretch", height=420)
    page_link("pages/methods.py", label="Methods: train several methods on one corpus and "
              "compare them side by side", icon=":material/science:")
    st.markdown("**Download**")
    if getattr(tok, "document_json", None) is not None:  # built from a tokenizer.json
        # its file's text as kept (json.dumps(tok.document, ensure_ascii=False)), unparsed
        st.download_button("Download tokenizer.json", lambda: tok.document_json.decode(
            "utf-8", "surrogatepass"), file_name=file_stem(name) + ".json",
            mime="application/json", icon=":material/download:", on_click="ignore",
            key=f"{TRAIN}_download_json", help="Hugging Face tokenizers' format")
    elif type(tok) is RegexTokenizer:  # plain merges: every format the lab writes
        download_buttons(tok, name, TRAIN)
    else:
        st.caption(f"{md(method)} encodes by more than a merge list (its stages or its "
                   "removals), which the lab's file formats do not hold yet; train it "
                   f"from the command line: {code(f'python -m bpe train --method {method}')}.")


def sentencepiece_panel(t, text):
    """Offer a Llama-style SentencePiece BPE on the same corpus, trained in the worker."""
    st.markdown("**Llama-style beside it.** SentencePiece BPE (as in Llama) merges characters, "
                "not bytes, and keeps a space inside the piece after it (▁the). Train one on "
                "the same corpus and vocab size, then set the two side by side on Compare.")
    sp = training.get(SENTENCEPIECE)
    if sp is not None and sp.running:
        progress_panel(SENTENCEPIECE)
        return
    if sp is not None and sp.outcome.ok and sp.settings.corpus == t.settings.corpus \
            and sp.settings.name.startswith(t.outcome.added[0]):
        st.success(f"Trained and added as **{md(sp.outcome.added[0])}**: pick it on Compare.",
                   icon=":material/add_circle:")
        return
    if sp is not None and sp.outcome.error:
        st.error(md(sp.outcome.error), icon=":material/error:")
    if st.button("Train a SentencePiece BPE on the same corpus", key="train_sentencepiece",
                 icon=":material/compare_arrows:"):
        try:
            start_sentencepiece(t, text)
        except ValueError as e:
            st.error(md(str(e)), icon=":material/error:")
        else:
            st.rerun()


def start_sentencepiece(t, text):
    """Start the SentencePiece follow-up on the part of text t was trained on."""
    if corpus_fingerprint(text) != t.settings.corpus:
        raise ValueError("The corpus on this page is not the one this tokenizer was trained "
                         "on any more; pick it again (or train again) first.")
    asked = SentencePieceRequest(t.settings.request.vocab_size)
    asked.check_text(text)
    name = f"{t.outcome.added[0]} · SentencePiece"
    training.start(SENTENCEPIECE,
                   training.Settings(asked, name=name, corpus=t.settings.corpus,
                                     summary=f"SentencePiece BPE, vocab size "
                                             f"{asked.vocab_size:,}",
                                     corpus_label=t.settings.corpus_label),
                   text=text[:held_out_start(text)])


@st.fragment(run_every=1.0)
@guarded
def sidebar_status():
    """In the sidebar of every page while a training runs: one line per training, and a
    full rerun when one has ended, so app.py collects it and toasts on this page."""
    running = [t for t in training.trainings().values() if t.running]
    if not running:
        return
    for t in running:
        p = t.progress()
        if t.job.done:
            st.rerun(scope="app")
        st.progress(p.fraction, text=f"Training “{md(t.settings.name)}”: "
                                     + (f"{p.fraction:.0%}" if p.total else md(p.phase)))
