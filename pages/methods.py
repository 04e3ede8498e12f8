"""Methods: train two or more ways of making a tokenizer (bpe.methods) on one corpus at
one vocab size, side by side in the worker, then compare them: the report card, the
aligned tokens of any two, and the blame view (which vocabulary entries make A need
more tokens than B on a text, adding up exactly to the difference).

The run is lab.train.form.start_methods (one MethodsRequest, lab.jobs.workers.train_methods);
the numbers are viz.methods', the aligned view viz.compare's as on Compare. The trained
tokenizers join the session, so every other page can pick them too.
"""
import streamlit as st

from lab.pages_guard import run_inside_frame

run_inside_frame()

from bpe.methods import METHODS, OPTIONS
from bpe.methods.blame import blame
from lab.train import corpora
from lab.train import training
from lab.lessons import lesson_link
from lab.memory import remember
from lab.jobs.requests import METHODS_MAX, VOCAB_MAX
from lab.safe import code, md
from lab.token_view import live_box
from lab.train.form import (ARENA_CORPUS, METHODS_SLOT, TAU_HELP, TRANSITION_HELP, start_methods,
                            unigram_differences)
from lab.train.panels import progress_panel
from viz import compare as cmp
from viz import methods as vm
from viz.rows import VIEW_TOKEN_LIMIT
from viz.samples import DEFAULT_SAMPLE, SAMPLES

MAX_TEXT = 100_000  # characters of the aligned and blame text
DEFAULTS = {"methods_pick": ["bpe", "picky"],
            "methods_corpus": next(iter(corpora.sample_corpora())),
            "methods_vocab_size": 512, "methods_min_frequency": 2, "methods_tau": 0.9,
            "methods_transition": 384, "methods_text": SAMPLES[DEFAULT_SAMPLE]}
remember(DEFAULTS)

st.title("Methods")
lesson_link("pages/methods.py")
st.caption("Byte-pair encoding is one way to make a vocabulary among several. Pick two or "
           "more, train them on the same corpus at the same vocab size, and see what each "
           "buys: how much text a token holds, how evenly languages are served, and which "
           "vocabulary entries make the difference on a text of yours.")
t = training.get(METHODS_SLOT)
running = t is not None and t.running

# ------------------------------------------------------------------ the settings
with st.container(border=True, key="methods_form"):
    picked = st.multiselect("Methods", list(METHODS), key="methods_pick",
                            max_selections=METHODS_MAX,
                            help=f"Two to {METHODS_MAX}; they train one after the other.")
    for method in picked:
        st.caption(f"{code(method)} {md(METHODS[method])}")
    if "unigram" in picked:
        unigram_differences()
    samples = [*corpora.sample_corpora(), ARENA_CORPUS]
    left, right = st.columns(2)
    corpus = left.selectbox("Corpus", samples, key="methods_corpus",
                            help="The Arena's languages: its 14 short samples, each a "
                                 "language (parity balances them), trained on whole.")
    vocab_size = right.number_input("Vocab size", min_value=257, max_value=VOCAB_MAX,
                                    step=128, key="methods_vocab_size")
    min_frequency = left.number_input("Minimum pair frequency", min_value=1, step=1,
                                      key="methods_min_frequency")
    options = {m: {"min_frequency": int(min_frequency)} for m in picked}
    if "picky" in picked:
        options["picky"]["tau"] = right.number_input(
            "τ (Picky)", min_value=0.01, max_value=1.0, step=0.05, key="methods_tau",
            help=TAU_HELP)
    if "superbpe" in picked:
        options["superbpe"]["transition"] = right.number_input(
            "Transition vocab size (SuperBPE)", min_value=256, step=64,
            key="methods_transition", help=TRANSITION_HELP)
    if "parity" in picked and corpus != ARENA_CORPUS:
        st.caption("Parity trains on this corpus as one language plus the Arena's samples "
                   "as the others (with one language it is plain BPE); the other methods "
                   "train on this corpus only. Pick the Arena's languages to give them all "
                   "the same text.")
    clicked = st.button("Train side by side", type="primary", icon=":material/model_training:",
                 key="methods_train", disabled=running or len(picked) < 2,
                 help="A run is going: wait or cancel it" if running else
                 None if len(picked) >= 2 else "Pick two or more methods")
    if clicked:
        try:
            label = corpus.split(" (")[0].removesuffix(".txt")
            text = None if corpus == ARENA_CORPUS else corpora.load_sample(corpus)[0]
            start_methods(picked, int(vocab_size),
                          {m: o for m, o in options.items()
                           if set(o) <= {"min_frequency", *OPTIONS[m]}}, label, text)
        except (ValueError, TypeError) as e:
            st.error(md(str(e)), icon=":material/error:")
        else:
            st.rerun()

if running:
    progress_panel(METHODS_SLOT)
    st.stop()
if t is None:
    st.info("Pick two or more methods and a corpus, then train them side by side.",
            icon=":material/science:")
    st.stop()
if t.outcome.cancelled:
    st.warning("Cancelled. Train again when you like.", icon=":material/cancel:")
    st.stop()
if t.outcome.error:
    st.error(f"The run failed: {md(t.outcome.error)}", icon=":material/error:")
    st.stop()

# ------------------------------------------------------------------ the report card
value, s = t.outcome.value, t.settings
names = dict(zip(value.toks, t.outcome.added))  # method -> its name in the session
st.subheader("Report card", anchor="report-card")
st.caption(f"{md(s.summary)}. Measured on "
           + (f"the last {s.held_chars:,} characters of the corpus, held out of training"
              if s.held_chars else "the training text itself (too small to hold text out)")
           + "; the Gini on the Arena's 14 samples. Added to this session as "
           + ", ".join(f"**{md(n)}**" for n in t.outcome.added) + ".")
st.dataframe(vm.card_frame(value.card, value.seconds), hide_index=True, width="stretch",
             column_config={c: st.column_config.Column(c, help=h)
                            for c, h in vm.CARD_HELP.items()})
st.caption(" · ".join(f"best {md(column)}: {code(m)}"
                      for column, m in vm.best_of(value.card).items()))

# ------------------------------------------------------------------ any two, aligned
st.subheader("Any two, aligned")
trained = list(value.toks)
pick_a, pick_b = st.columns(2)
method_a = pick_a.selectbox("A", trained, key="methods_a")
method_b = pick_b.selectbox("B", trained, index=min(1, len(trained) - 1), key="methods_b")
tok_a, tok_b = value.toks[method_a], value.toks[method_b]
text = st.session_state["methods_text"]
slot = st.container(border=True)


def box(pair=None, status=""):
    with slot:
        live_box("methods_text", "methods_view", pair=pair, editor={
            "label": "Text to compare", "height": 120, "max_chars": MAX_TEXT,
            "status": status, "placeholder": "Type or paste text to see both cut it."})


if not text:
    box(status="Type or paste some text to compare the two.")
    st.stop()
try:
    result = cmp.compare(tok_a, tok_b, text)
    blamed = blame(tok_a, tok_b, text)
except ValueError as e:  # WordPiece lowercases: its tokens do not line up with the text
    box(status="")
    st.error(f"{md(method_a)} and {md(method_b)} cannot be lined up on this text: "
             f"{md(str(e))}. Pick two methods that keep the text as it is.",
             icon=":material/error:")
    st.stop()
stats = result.stats
too_many = stats["tokens_a"] + stats["tokens_b"] > VIEW_TOKEN_LIMIT
box(None if too_many else cmp.aligned(tok_a, tok_b, result, method_a, method_b),
    status=f"{stats['tokens_a'] + stats['tokens_b']:,} tokens: the view draws up to "
           f"{VIEW_TOKEN_LIMIT:,}" if too_many else "")
st.markdown(f"**A** {code(method_a)}: {stats['tokens_a']:,} tokens · **B** {code(method_b)}: "
            f"{stats['tokens_b']:,} tokens · {stats['shared_pct']:.1f}% of boundaries shared")

# ------------------------------------------------------------------ blame
st.subheader("Blame: why one needs more tokens")
total, difference, agrees = vm.blame_sum(blamed)
st.caption(f"Where the two cut the text differently, each stretch charges its extra tokens "
           f"to the longest vocabulary entry there: a piece one has that the other must "
           f"split. {code(method_a)} takes {difference:+,} tokens against {code(method_b)}.")
rows = vm.blame_rows(blamed, method_a, method_b)
if rows:
    st.dataframe(rows, hide_index=True, width="stretch", height=min(420, 38 + 35 * len(rows)))
else:
    st.info("The two cut this text into the same number of tokens at every stretch.")
(st.success if agrees else st.error)(
    f"The charges add up to {total:+,}; the token difference is {difference:+,}: "
    + ("they agree exactly." if agrees else "they differ, which is a bug to report."),
    icon=":material/check_circle:" if agrees else ":material/error:")
