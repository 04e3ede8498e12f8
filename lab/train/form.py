"""The Train page's form, and starting a training from what it holds.

`train_form(...)` draws the settings (method, kind, split pattern, vocab size, minimum
frequency, special tokens, tie rule, whether to record ties, a method's own options,
name) and returns them as a Form; `request(form)` turns a Form into the one typed
request the worker gets (lab.jobs.requests.BpeRequest, CountsRequest for a counts file, or
MethodRequest for another method of bpe.methods), which checks itself;
`start(...)` checks it against the corpus and starts a lab.train.training.Training in the
worker; `start_methods(...)` does the same for the Methods page's side-by-side run. Every problem is a ValueError that says what to do. The limits themselves are
lab/jobs/requests.py's, the split patterns' labels bpe.patterns'.
"""
from typing import NamedTuple

import streamlit as st

from bpe.methods import METHODS, OPTIONS, unigram
from bpe.patterns import LABELS, PATTERNS
from bpe.tie_break import TIE_BREAKS
from lab.jobs.corpus_text import corpus_fingerprint, split_held_out
from lab.jobs.requests import (VOCAB_MAX, VOCAB_MIN, BpeRequest, CountsRequest, MethodRequest,
                               MethodsRequest, parse_special_tokens)
from lab.safe import code, md
from lab.train import training
from lab.train.panels import TRAIN
from viz.arena import arena_samples
from viz.ties import RULE_LABELS

CUSTOM = "custom"
KIND_HELP = ("Regex first splits the text into chunks (words, numbers, punctuation, "
             "spaces) so merges never cross them, as GPT-2/4 do. Basic merges over the raw "
             "bytes of the whole text, across word boundaries.")
CHOICE_LABELS = {**LABELS, CUSTOM: "Custom regex…"}  # the split pattern picker's
TIES_UP_TO = 4096  # "auto" records ties up to this vocab size
RECORD_TIES = {"auto": f"Up to vocab size {TIES_UP_TO:,}", "on": "Always", "off": "Never"}
CLASSIC = "bpe"  # the lab's own trainer: Regex or Basic, every tie rule, recorded ties
TAU_HELP = ("Picky BPE's IoS threshold: after a merge, a parent token is dropped when the "
            "new pair makes up at least this share of the parent's uses. 1 is plain BPE; "
            "the paper uses 0.6 to 0.9.")
TRANSITION_HELP = ("SuperBPE's transition: ordinary BPE (merges stay inside words) up to "
                   "this vocab size, then merges may cross spaces into superword tokens. "
                   "From 256 to the vocab size; the vocab size itself is plain BPE.")
PARITY_NOTE = ("Parity balances languages, so it trains on your corpus as one language and "
               "the Arena's {n} samples as the others; with one language it is plain BPE.")
DEFAULTS = {"train_method": CLASSIC, "train_tau": 0.9, "train_transition": 768,
            "train_kind": "Regex", "train_pattern": "gpt4", "train_custom_pattern": "",
            "train_vocab_size": 1024, "train_min_frequency": 2, "train_specials": "",
            "train_name": "", "train_tie_break": "first", "train_record_ties": "auto"}


class Form(NamedTuple):
    submitted: bool
    kind: str            # "Regex" or "Basic"
    preset: str          # a key of PATTERNS, or CUSTOM
    custom: str          # the custom regex
    vocab_size: int
    min_frequency: int
    specials_text: str
    name: str
    tie_break: str       # a bpe.tie_break.TIE_BREAKS rule
    record_ties: str     # a key of RECORD_TIES
    tau: float = 1.0     # picky's
    transition: int = 0  # superbpe's
    method: str = CLASSIC  # a name of bpe.methods.METHODS; CLASSIC is the lab's trainer

    def method_options(self):
        """The options of a MethodRequest for this form's method."""
        own = OPTIONS[self.method]
        options = {"min_frequency": self.min_frequency,
                   "special_tokens": tuple(parse_special_tokens(self.specials_text))}
        if not options["special_tokens"]:
            del options["special_tokens"]  # each method keeps its own (WordPiece's [UNK])
        for name, value in (("tie_break", self.tie_break), ("tau", self.tau),
                            ("transition", self.transition)):
            if name in own:
                options[name] = value
        return options

    def records_ties(self):
        return self.record_ties == "on" or (self.record_ties == "auto"
                                            and self.vocab_size <= TIES_UP_TO)


def default_name(corpus_label, kind, vocab_size, counts=None):
    """The name a training gets when the Name field is left empty (kind: Regex, Basic,
    or a method's name)."""
    return f"{corpus_label} {'counts' if counts else kind.lower()} {int(vocab_size)}"


def method_choice(counts):
    """The method picker and its one-line explanation; CLASSIC for a counts file (which
    holds chunk counts that only the lab's own trainer reads)."""
    if counts is not None:
        return CLASSIC
    method = st.selectbox("Method", list(METHODS), key="train_method",
                          help="How the vocabulary is made. bpe is the lab's own exact "
                               "trainer with every option below; the others are the "
                               "methods of bpe.methods, compared side by side on the "
                               "Methods page.")
    st.caption(md(METHODS[method]))
    if method == "parity":
        st.caption(PARITY_NOTE.format(n=len(arena_samples())))
    if method == "unigram":
        unigram_differences()
    return method


def unigram_differences():
    """Where the lab's Unigram differs from sentencepiece's, and why
    (bpe.methods.unigram.DIFFERENCES), folded: the Train and Methods pages show it."""
    with st.expander("Where this Unigram differs from sentencepiece's, and why",
                     icon=":material/compare_arrows:"):
        st.markdown("\n".join(f"- {md(line)}" for line in unigram.DIFFERENCES))


def train_form(corpus_label, *, counts=None, ready=True, running=False):
    """Draw the form; its values as a Form. counts: the counts file the corpus is, whose
    split pattern is fixed and which trains with bpe.counting.stream (with the same tie options)."""
    # Not an st.form: the browser holds a form's values until it is submitted, so a Kind
    # chosen just before visiting another page was never seen by the server, and lost.
    # Each widget here reruns the page (cheap: the corpus is cached), and lab.memory
    # keeps its value for the session.
    with st.container(border=True, key="train_form"):
        method = method_choice(counts)
        left, right = st.columns(2)
        tau, transition = 1.0, 0
        if method != CLASSIC:
            kind, preset, custom, record_ties = method, None, "", "off"
            tie_break = _tie_rule(left) if "tie_break" in OPTIONS[method] else "first"
            if "tau" in OPTIONS[method]:
                tau = left.number_input("τ (IoS threshold)", min_value=0.01, max_value=1.0,
                                        step=0.05, key="train_tau", help=TAU_HELP)
            if "transition" in OPTIONS[method]:
                transition = left.number_input("Transition vocab size", min_value=256,
                                               step=64, key="train_transition",
                                               help=TRANSITION_HELP)
        elif counts is None:
            kind = left.radio("Kind", ["Regex", "Basic"], horizontal=True, key="train_kind",
                              help=KIND_HELP)
            # GPT-4's first, then any other preset bpe has, then a regex of one's own
            preset = left.selectbox("Split pattern (Regex only)",
                                    ["gpt4", *(p for p in PATTERNS if p != "gpt4"), CUSTOM],
                                    format_func=lambda p: CHOICE_LABELS.get(p, p),
                                    key="train_pattern")
            custom = left.text_input(
                "Custom regex (used when the split pattern is “Custom regex…”)",
                key="train_custom_pattern",
                placeholder=r"e.g. \p{L}+|\p{N}+|\s+|[^\s\p{L}\p{N}]+")
        else:
            kind, preset, custom = "Regex", None, ""
            left.markdown(f"**Regex**, split by the counts file's pattern "
                          f"{code(counts.pattern)}")
            left.caption("A counts file keeps its chunks in order of first occurrence, so "
                         "every tie rule gives the merges (and ties) of training on the "
                         "text it counts.")
        if method == CLASSIC:
            tie_break, record_ties = _tie_settings(left)
        vocab_size = right.number_input(
            "Vocab size", min_value=VOCAB_MIN, max_value=VOCAB_MAX, step=256,
            key="train_vocab_size",
            help=f"Tokens in the vocabulary: 256 bytes plus one per merge. From "
                 f"{VOCAB_MIN} to {VOCAB_MAX:,} (GPT-4's size); a small corpus runs "
                 "out of pairs long before, and training then stops early and says so.")
        min_frequency = right.number_input(
            "Minimum pair frequency", min_value=1, max_value=1_000_000, step=1,
            key="train_min_frequency",
            help="Stop once the most frequent pair occurs fewer times than this. 1 merges "
                 "pairs seen only once, as minbpe's textbook loop does.")
        specials_text = right.text_area(
            "Special tokens, one per line (optional)", key="train_specials", height=80,
            placeholder="<|endoftext|>", help="Given the ids right after the trained vocabulary.")
        name = st.text_input("Name", key="train_name",
                             placeholder=default_name(corpus_label, kind, vocab_size, counts),
                             help="How the tokenizer is listed on the other pages.")
        submitted = st.button(
            "Train", type="primary", icon=":material/model_training:", key="train_submit",
            disabled=running or not ready,
            help="A training is running: wait or cancel it" if running else
            None if ready else "Pick or upload a corpus first")
    return Form(submitted, kind, preset, custom, int(vocab_size), int(min_frequency),
                specials_text, name, tie_break, record_ties, float(tau), int(transition),
                method)


def _tie_rule(column):
    return column.selectbox(
        "Tie rule", TIE_BREAKS, key="train_tie_break",
        format_func=lambda rule: f"{rule}: {RULE_LABELS[rule]}",
        help="Which pair is merged when several share the top count (ties are "
             "common). minbpe takes the pair met first, rustbpe the smallest ids, "
             "CS336's assignment the greatest bytes: the merges differ from the "
             "first tie on.")


def _tie_settings(column):
    """The lab trainer's tie rule and whether to record ties, drawn in column."""
    tie_break = _tie_rule(column)
    record_ties = column.selectbox(
        "Record ties", list(RECORD_TIES), key="train_record_ties",
        format_func=RECORD_TIES.get,
        help="Note, at every merge, the other pairs that had the same top count, and "
             "mark those merges in the merge table. It roughly doubles the training "
             f"time, so by default only vocab sizes up to {TIES_UP_TO:,} record them.")
    return tie_break, record_ties


def request(form, counts=None):
    """The typed request a Form asks for (it checks itself: ValueError with what to
    do). counts: the counts file the corpus is, whose pattern the request takes."""
    if form.method != CLASSIC and counts is None:
        return MethodRequest(form.method, form.vocab_size, form.method_options())
    common = dict(vocab_size=form.vocab_size, min_frequency=form.min_frequency,
                  special_tokens=tuple(parse_special_tokens(form.specials_text)),
                  tie_break=form.tie_break, record_ties=form.records_ties())
    if counts is not None:
        return CountsRequest(pattern=counts.pattern, **common)
    kind = form.kind.lower()
    if kind == "basic":
        return BpeRequest(kind, None, **common)
    if form.preset == CUSTOM and not form.custom.strip():
        raise ValueError("Pick a split pattern, or type a regex in “Custom regex”.")
    return BpeRequest(kind, form.custom if form.preset == CUSTOM else form.preset, **common)


def start(form, text, n_bytes, corpus_label, counts=None):
    """Check form against the corpus (text of n_bytes, or a counts file) and start the
    training in the worker; ValueError saying what to do if it cannot start."""
    asked = request(form, counts)
    if isinstance(asked, MethodRequest):
        return _start_method(form, asked, text, corpus_label)
    name = form.name.strip()
    rule_text = (f"tie rule {asked.tie_break}"
                 f"{', ties recorded' if asked.record_ties else ''}")
    if counts is not None:
        return training.start(TRAIN, training.Settings(
            asked, name=name or default_name(corpus_label, "", asked.vocab_size, counts),
            summary=f"Regex (the counts file's pattern), vocab size {asked.vocab_size:,}, "
                    f"{rule_text}, on the chunk counts of {counts.name}",
            corpus=counts.fingerprint, corpus_label=counts.name, named_by_size=not name),
            data=counts.data, file_name=counts.name)
    asked.check_text(text, n_bytes)
    train_text, held_out = split_held_out(text)
    return training.start(TRAIN, training.Settings(
        asked, name=name or default_name(corpus_label, asked.kind, asked.vocab_size),
        summary=f"{form.kind} ({asked.split_label}), vocab size {asked.vocab_size:,}, "
                f"{rule_text}, on {len(train_text):,} characters of {corpus_label}",
        held_chars=len(held_out), corpus=corpus_fingerprint(text),
        corpus_label=corpus_label, named_by_size=not name),
        text=train_text, held_out=held_out or None)


def _start_method(form, asked, text, corpus_label):
    """Start a MethodRequest on text (its held-out end measured once at the end)."""
    train_text, held_out = split_held_out(text)
    languages = {corpus_label: train_text}
    asked.check_languages(languages)
    options = ", ".join(f"{k} {v}" for k, v in asked.options
                        if k in ("tau", "transition", "tie_break"))
    name = form.name.strip()
    return training.start(TRAIN, training.Settings(
        asked, name=name or default_name(corpus_label, asked.method, asked.vocab_size),
        summary=f"{asked.method}{f' ({options})' if options else ''}, vocab size "
                f"{asked.vocab_size:,}, on {len(train_text):,} characters of {corpus_label}",
        held_chars=len(held_out), corpus=corpus_fingerprint(text),
        corpus_label=corpus_label, named_by_size=not name),
        languages=languages, held_out=held_out or None,
        arena=arena_samples() if asked.method == "parity" else None)


METHODS_SLOT = "methods"  # the slot of the Methods page's side-by-side training
ARENA_CORPUS = "The Arena's languages"  # the Methods page's multilingual corpus


def start_methods(picked, vocab_size, options, corpus_label, text=None):
    """Start the Methods page's run: every method of picked trained on one corpus at
    vocab_size (options: method -> its options), then measured. text: the corpus, or
    None for the Arena's languages (then trained on whole and measured on itself).
    ValueError saying what to do if it cannot start."""
    asked = MethodsRequest(tuple(picked), vocab_size, options)
    arena = arena_samples()
    if text is None:
        languages, held_out = arena, ""
    else:
        train_text, held_out = split_held_out(text)
        languages = {corpus_label: train_text}
    asked.check_languages(languages)
    names = tuple(f"{m} {vocab_size} ({corpus_label})" for m in asked.methods)
    return training.start(METHODS_SLOT, training.Settings(
        asked, name=f"{', '.join(asked.methods)} on {corpus_label}", names=names,
        summary=f"{len(asked.methods)} methods side by side, vocab size {vocab_size:,}, on "
                f"{corpus_label}", held_chars=len(held_out), corpus_label=corpus_label),
        languages=languages, held_out=held_out or None, arena=arena)
