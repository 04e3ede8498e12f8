"""Compare: one text, two tokenizers, aligned by byte position.

Reads the two pickers and the text, lets viz.compare align the tokenizations, and
draws them as one view (the token view's pair mode: the text once, A's cuts above, B's
below), the numbers, and bytes per token on every sample domain against GPT-4. With no
tokenizer of the session's own it offers to train a small Regex and Basic pair on the
shipped Shakespeare sample (the textbook comparison) in the worker, with progress and
Cancel (lab.train.training.start_quick_pair); app.py puts the pair in A and B when it ends.
"""
import streamlit as st

from lab.pages_guard import run_inside_frame

run_inside_frame()

from bpe import reference
from lab import share, state, widgets
from lab.train import corpora
from lab.train import training
from lab.lessons import lesson_link
from lab.memory import remember
from lab.safe import code, md
from lab.share import Field
from lab.token_view import live_box, set_text
from lab.train.panels import progress_panel
from viz import compare as cmp
from viz.samples import DEFAULT_SAMPLE, SAMPLES
from viz.rows import VIEW_TOKEN_LIMIT

MAX_TEXT = 1_000_000  # characters; both tokenizers encode it and the view aligns them
DEFAULTS = {"compare_text": SAMPLES[DEFAULT_SAMPLE], "compare_a": None, "compare_b": None}
LINK = {"text": Field("compare_text", "text"), "a": Field("compare_a", "tokenizer"),
        "b": Field("compare_b", "tokenizer")}  # what a link carries (lab/share.py)
CROSS_HELP = ("Tokens whose characters mix letters, digits, punctuation and whitespace (a "
              "word's one leading space does not count). A split pattern prevents them.")


def _train_quick_pair():
    """Start Regex and Basic on the shipped Shakespeare sample in the worker; when they
    end, app.py's collect_finished picks them for A and B."""
    try:
        training.start_quick_pair(corpora.shakespeare())
    except ValueError as e:  # lab.jobs.Busy: too many trainings running
        st.error(md(str(e)), icon=":material/error:")
    else:
        st.rerun()


def _load_sample():
    name = st.session_state["compare_sample"]
    if name:
        set_text("compare_text", SAMPLES[name])


def _quick_pair_offer(alone):
    """No tokenizer of the session's own yet: say where one comes from, or make two now.
    alone: GPT-4 is the only tokenizer at all, so there is nothing to compare yet."""
    lead = ("Comparing needs a second tokenizer." if alone else
            "No tokenizer of your own yet: the reference tokenizers are compared below.")
    st.info(f"{lead} Train one on the **Train** page or load a tokenizer file in the "
            "sidebar, or train the textbook pair right here: a Regex tokenizer (GPT-4's split "
            "pattern) and a Basic one (no split), both on the same 100 KB of Shakespeare "
            f"with a vocabulary of {training.QUICK_VOCAB}.", icon=":material/compare_arrows:")
    if training.running(training.QUICK_PAIR):
        progress_panel(training.QUICK_PAIR)
        return
    with st.container(horizontal=True, vertical_alignment="center"):
        if st.button(f"Train Regex and Basic ({training.QUICK_VOCAB}) on Shakespeare",
                     type="primary", icon=":material/bolt:", key="compare_quick_train"):
            _train_quick_pair()
        st.page_link("pages/train.py", label="Go to Train", icon=":material/model_training:")


def _comparison(default_b):
    """The pickers, the text, both aligned views, the numbers and the domain table."""
    pick_a, pick_b = st.columns(2)
    with pick_a:
        name_a, tok_a = widgets.tokenizer_picker("compare_a", label="Tokenizer A",
                                                 default=state.GPT4_NAME, follow_new=False)
    with pick_b:
        name_b, tok_b = widgets.tokenizer_picker("compare_b", label="Tokenizer B", default=default_b)

    st.session_state["compare_sample"] = next(
        (s for s, t in SAMPLES.items() if t == st.session_state["compare_text"]), None)
    st.pills("Samples", list(SAMPLES), key="compare_sample", on_change=_load_sample)
    share.notes(received, share.write(LINK, DEFAULTS))
    text = st.session_state["compare_text"]
    said = st.container()  # what the page says about the text, above the box
    # the box sits in the same place on every run, whatever is said above it, so the
    # browser keeps it (and its focus) while the visitor types
    slot = st.container(border=True)

    def box(pair=None, status="", note=None):
        """The live text box, with the aligned view under it once there is one."""
        with slot:
            live_box("compare_text", "compare_view", pair=pair, note=note, editor={
                "label": "Text to compare", "height": 140, "max_chars": MAX_TEXT,
                "status": status,
                "placeholder": "Type or paste text here: both tokenizations follow as you type."})

    if name_a == name_b:
        said.info("A and B are the same tokenizer, so everything agrees; pick another one for B.")
    if not text:
        box(status="Type or paste some text, or pick a sample, to compare the tokenizations.")
        return
    if len(text) > MAX_TEXT:
        box(status=f"{len(text):,} characters: Compare takes up to {MAX_TEXT:,}.")
        return
    found = sorted({s for t in (tok_a, tok_b) for s in t.special_tokens if s in text})
    if found:
        said.caption(f"Special-token text ({md(', '.join(found))}) is compared as ordinary text.")

    try:
        result = cmp.compare(tok_a, tok_b, text)
    except ValueError as e:  # e.g. a custom split pattern that skips characters
        said.error(md(e))
        box()
        return
    stats = result.stats

    said.markdown(f"**A** {code(name_a)} cuts above the text, **B** {code(name_b)} below: "
                  f"{stats['only_a']:,} cuts only A makes, {stats['only_b']:,} only B makes. "
                  "Hover a token to light up the tokens of the other side it overlaps.")
    if stats["tokens_a"] + stats["tokens_b"] > VIEW_TOKEN_LIMIT:
        box(note=f"{stats['tokens_a'] + stats['tokens_b']:,} tokens in all: the view draws "
                 f"up to {VIEW_TOKEN_LIMIT:,}; the figures below cover them all.")
    else:
        box(cmp.aligned(tok_a, tok_b, result, name_a, name_b))

    # a row that wraps on a narrow window rather than cutting the figures short
    with st.container(horizontal=True, gap="large"):
        st.metric("Tokens A", f"{stats['tokens_a']:,}", width="content")
        st.metric("Tokens B", f"{stats['tokens_b']:,}", width="content",
                  delta=f"{stats['tokens_b'] - stats['tokens_a']:+,} vs A",
                  delta_color="inverse")
        st.metric("Boundaries shared", f"{stats['shared_pct']:.1f}%", width="content",
                  help=f"{stats['shared']:,} of the {stats['union']:,} places where A or B "
                       f"starts a new token (inside the text) are cut by both; "
                       f"{stats['only_a']:,} only by A, {stats['only_b']:,} only by B "
                       "(the red marks).")
        st.metric("Cross a category (A)", f"{stats['cross_a']:,}", help=CROSS_HELP,
                  width="content")
        st.metric("Cross a category (B)", f"{stats['cross_b']:,}", help=CROSS_HELP,
                  width="content")

    st.subheader("Bytes per token on each sample")
    tokenizers = {state.GPT4_NAME: state.gpt4(), name_a: tok_a, name_b: tok_b}
    frame = cmp.domain_frame(tokenizers)
    st.dataframe(cmp.domain_styler(frame, state.GPT4_NAME), width="stretch")
    st.caption("Bytes of UTF-8 per token on each sample text: higher packs more text into each "
               "token. ▲ green: more than GPT-4; ▼ red: fewer.")


received = share.read_once("compare", LINK, DEFAULTS)  # a link's text and picks first
# pickers: None lets tokenizer_picker choose its default the first time
remember(DEFAULTS)
st.title("Compare")
lesson_link("pages/compare.py")
st.caption("The same text through two tokenizers, aligned by byte position: the text once, "
           "A's tokens in a band above it and B's below. A red mark is a cut only one side makes; "
           "grey bands are tokens both make the same.")

names = state.tokenizer_names()
own = list(state.session_tokenizers())
if own and st.session_state.get("compare_latest_seen") != own[-1]:
    st.session_state["compare_b"] = own[-1]  # something new was trained or loaded: show it
st.session_state["compare_latest_seen"] = own[-1] if own else None
if not own:
    _quick_pair_offer(alone=len(names) < 2)
if len(names) >= 2:
    # B: the most recently trained or loaded tokenizer, else GPT-4o (GPT-4's successor)
    gpt4o = reference.REFERENCES["o200k_base"].label
    _comparison(default_b=own[-1] if own else gpt4o if gpt4o in names else names[1])
