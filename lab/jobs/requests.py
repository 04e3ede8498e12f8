"""What a training is asked to do, as one typed, frozen request per kind of training,
checked once when it is made; and the app's limits on trainings, their one home.

A page builds a request from its form (`BpeRequest(kind="regex", pattern="gpt4",
vocab_size=1024, ...)`); a bad value raises ValueError with what to do, before any
worker starts. lab.train.training.start runs the worker function lab.train.training.KINDS gives for
the request's type (all of them in lab/jobs/workers.py), passing the request itself and the
text it reads; lab.train.training.Settings keeps the request, so the page reads the vocab size
it trained with from there. No second copy of the settings exists on the way.

The core's own check (bpe's `tok.check_train_args`) runs inside every request's check;
the limits added here are the app's, for a shared server and a browser: a vocab size of
at most VOCAB_MAX, a teaching page's at most TEACHING_VOCAB_MAX, Basic on at most
BASIC_MAX_BYTES, SentencePiece on at most SENTENCEPIECE_MAX_CHARS, SPECIAL_LIMIT special
tokens. It checks settings, not corpora: `check_text` is the one check that needs the
text (its size, a custom pattern's speed trial). Pure: no streamlit, so the worker and
the tests import it.

>>> BpeRequest(kind="regex", pattern="gpt4", vocab_size=300).min_frequency
1
>>> BpeRequest(kind="regex", pattern="gpt4", vocab_size=99)
Traceback (most recent call last):
ValueError: the vocab size must be a whole number from 256 (the 256 byte tokens, no merges) to 100,000 (as large as GPT-4's; larger vocabularies need far bigger corpora than a browser upload), not 99
"""
from dataclasses import dataclass

from bpe import BasicTokenizer, methods
from bpe.patterns import compile_pattern, label, trial
from bpe.tie_break import TIE_BREAKS

TOKENIZER_KINDS = ("regex", "basic")   # what BPE trains: split by a pattern, or raw bytes
VOCAB_MIN = 256         # the 256 byte tokens come first; training adds merges on top
VOCAB_MAX = 100_000     # cl100k's size: past it a browser table and chart get sluggish,
#                         and small corpora run out of pairs long before
TEACHING_VOCAB_MIN = 257     # the teaching pages (Tie rules, How much data) train at least
TEACHING_VOCAB_MAX = 20_000  # one merge, and at most this many tokens, three times or more
SPECIAL_LIMIT = 256     # special tokens a form may add
SENTENCEPIECE_MIN = 260  # sentencepiece needs room for its own pieces
SENTENCEPIECE_MAX_CHARS = 20_000_000  # sentencepiece holds every line in memory: keep it small
BASIC_MAX_BYTES = 10_000_000  # Basic training holds 25-200 bytes of state per corpus byte
# The other methods (bpe.methods) are pure Python trainers without bpe.train's fast
# chunk counting; BoundlessBPE's supermerges re-scan the documents (about 20 s for
# 184 KB at vocab 512 here), so they train on corpora of at most this many bytes here
METHOD_MAX_BYTES = 5_000_000
METHODS_MAX = 4         # methods the Methods page trains side by side in one job


# ------------------------------------------------------------------ the checks
def check_vocab_size(vocab_size, low=VOCAB_MIN, high=VOCAB_MAX):
    """ValueError saying why, unless vocab_size is a whole number in [low, high]; then
    the core's own check (bpe's check_train_args), so the app never allows what the core
    refuses.

    >>> check_vocab_size(1024)
    >>> check_vocab_size(300, low=257, high=200)
    Traceback (most recent call last):
    ValueError: the vocab size must be a whole number from 257 to 200, not 300
    """
    if isinstance(vocab_size, bool) or not isinstance(vocab_size, int) \
            or not low <= vocab_size <= high:
        if (low, high) == (VOCAB_MIN, VOCAB_MAX):
            raise ValueError(f"the vocab size must be a whole number from {VOCAB_MIN} (the "
                             f"256 byte tokens, no merges) to {VOCAB_MAX:,} (as large as "
                             "GPT-4's; larger vocabularies need far bigger corpora than a "
                             f"browser upload), not {vocab_size!r}")
        raise ValueError(f"the vocab size must be a whole number from {low:,} to {high:,}, "
                         f"not {vocab_size!r}")
    _core_check(vocab_size, 1)


def _core_check(vocab_size, min_frequency):
    BasicTokenizer().check_train_args(vocab_size, min_frequency)


def parse_special_tokens(text):
    """Special tokens from a text area, one per line; blank lines ignored.

    >>> parse_special_tokens("<|endoftext|>\\n\\n  <|pad|>  \\n")
    ['<|endoftext|>', '<|pad|>']
    """
    specials = [line.strip() for line in (text or "").splitlines() if line.strip()]
    check_special_tokens(specials)
    return specials


def check_special_tokens(specials):
    """ValueError if a special token is listed twice or there are more than SPECIAL_LIMIT."""
    seen = set()
    for special in specials:
        if not isinstance(special, str) or not special:
            raise ValueError(f"a special token is a non-empty string, not {special!r}")
        if special in seen:
            raise ValueError(f"the special token {special!r} is listed twice; list each once")
        seen.add(special)
    if len(specials) > SPECIAL_LIMIT:
        raise ValueError(f"{len(specials)} special tokens is more than the {SPECIAL_LIMIT} "
                         "this form takes; special tokens mark structure, a handful is usual")


def check_corpus(kind, n_bytes):
    """ValueError saying what to do if a corpus of n_bytes cannot be trained as kind."""
    if n_bytes == 0:
        raise ValueError("The corpus is empty: upload a text file or pick a sample corpus.")
    if kind == "basic" and n_bytes > BASIC_MAX_BYTES:
        raise ValueError(f"The corpus has {n_bytes / 1e6:.1f} MB; Basic training tracks "
                         "every byte of it (25 to 200 bytes of memory each), so on this "
                         f"shared server it takes at most {BASIC_MAX_BYTES / 1e6:.0f} MB. "
                         "Use Regex, which counts each distinct chunk once, or a smaller "
                         "corpus.")


def _check_pattern(pattern, *, empty_ok=False):
    """A preset name or a regex that compiles (a custom one bounded first); "" only when
    empty_ok (no split: Basic)."""
    if empty_ok and pattern == "":
        return
    compile_pattern(pattern)


def pattern_label(pattern):
    """How a summary line names a split: a preset's label, "custom regex", or "no split".

    >>> pattern_label("gpt2"), pattern_label(r"\\w+|\\W"), pattern_label("")
    ('GPT-2 (r50k_base)', 'custom regex', 'no split')
    """
    if not pattern:
        return "no split"
    named = label(pattern)
    return named if named != pattern else "custom regex"


# ------------------------------------------------------------------ the requests
@dataclass(frozen=True)
class BpeRequest:
    """Train a Basic or Regex tokenizer on text (lab.jobs.workers.train_bpe)."""
    kind: str                    # "regex" (split by pattern) or "basic" (raw bytes)
    pattern: str = "gpt4"        # a preset name or a regex; None for Basic
    vocab_size: int = 1024
    min_frequency: int = 1
    special_tokens: tuple = ()   # strings given ids right after the trained vocabulary
    tie_break: str = "first"     # a bpe.tie_break.TIE_BREAKS rule
    record_ties: bool = False    # fill tok.merge_ties (about 2x slower)

    def __post_init__(self):
        if self.kind not in TOKENIZER_KINDS:
            raise ValueError(f"kind must be one of {TOKENIZER_KINDS}, not {self.kind!r}")
        if self.kind == "basic":
            object.__setattr__(self, "pattern", None)
        else:
            _check_pattern(self.pattern)
        object.__setattr__(self, "special_tokens", tuple(self.special_tokens))
        check_vocab_size(self.vocab_size)
        _core_check(self.vocab_size, self.min_frequency)
        check_special_tokens(self.special_tokens)
        if self.tie_break not in TIE_BREAKS:
            raise ValueError(f"tie_break must be one of {TIE_BREAKS}, not {self.tie_break!r}")

    def check_text(self, text, n_bytes=None):
        """ValueError saying what to do if this request cannot train on text: an empty
        corpus, Basic on too big a one, a custom pattern that fails its speed trial on
        the start of it."""
        check_corpus(self.kind, len(text.encode("utf-8")) if n_bytes is None else n_bytes)
        if self.kind == "regex":
            trial(self.pattern, text)  # looks at the start only

    @property
    def split_label(self):
        return pattern_label(self.pattern)


@dataclass(frozen=True)
class CountsRequest(BpeRequest):
    """Train a Regex tokenizer on a counts file's chunk counts (lab.jobs.workers.train_counts).
    pattern: the one the file's header names (the worker splits by what the file holds)."""
    kind: str = "regex"


@dataclass(frozen=True)
class SentencePieceRequest:
    """A Llama-style SentencePiece BPE (lab.jobs.workers.train_sentencepiece)."""
    vocab_size: int

    def __post_init__(self):
        check_vocab_size(self.vocab_size)
        object.__setattr__(self, "vocab_size", max(self.vocab_size, SENTENCEPIECE_MIN))

    def check_text(self, text):
        if len(text) > SENTENCEPIECE_MAX_CHARS:
            raise ValueError(f"SentencePiece takes corpora of at most "
                             f"{SENTENCEPIECE_MAX_CHARS:,} characters here; use a smaller "
                             "corpus.")


@dataclass(frozen=True)
class PairRequest:
    """A Regex and a Basic tokenizer on the same text (lab.jobs.workers.train_pair)."""
    vocab_size: int
    pattern: str = "gpt4"

    def __post_init__(self):
        check_vocab_size(self.vocab_size)
        _check_pattern(self.pattern)


@dataclass(frozen=True)
class TieRulesRequest:
    """One corpus trained under every tie rule (lab.jobs.workers.train_tie_rules)."""
    vocab_size: int
    pattern: str = "gpt4"        # a preset or regex; "" for no split (Basic)

    def __post_init__(self):
        check_vocab_size(self.vocab_size, TEACHING_VOCAB_MIN, TEACHING_VOCAB_MAX)
        _check_pattern(self.pattern, empty_ok=True)


@dataclass(frozen=True)
class SufficiencyRequest:
    """Training on growing shares of a corpus (lab.jobs.workers.data_sufficiency_job)."""
    vocab_size: int
    pattern: str = "gpt4"

    def __post_init__(self):
        check_vocab_size(self.vocab_size, TEACHING_VOCAB_MIN, TEACHING_VOCAB_MAX)
        _check_pattern(self.pattern, empty_ok=True)


@dataclass(frozen=True)
class SweepRequest:
    """Vocab sizes x split patterns (lab.jobs.workers.sweep_job). patterns: ((label, preset
    name or regex), ...), "" for no split."""
    vocab_sizes: tuple
    patterns: tuple

    def __post_init__(self):
        object.__setattr__(self, "vocab_sizes", tuple(sorted(self.vocab_sizes)))
        object.__setattr__(self, "patterns", tuple(tuple(p) for p in self.patterns))
        if not self.vocab_sizes or not self.patterns:
            raise ValueError("pick at least one vocabulary size and one split pattern")
        for size in self.vocab_sizes:
            check_vocab_size(size, TEACHING_VOCAB_MIN, TEACHING_VOCAB_MAX)
        for _label, pattern in self.patterns:
            _check_pattern(pattern, empty_ok=True)

    def check_text(self, text):
        """A custom pattern's speed trial on the start of the corpus."""
        for _label, pattern in self.patterns:
            if pattern:
                trial(pattern, text)


@dataclass(frozen=True)
class ExtendRequest:
    """New merges on top of a base tokenizer (lab.jobs.workers.extension_job)."""
    num_merges: int
    min_frequency: int = 2

    def __post_init__(self):
        if isinstance(self.num_merges, bool) or not isinstance(self.num_merges, int) \
                or self.num_merges < 1:
            raise ValueError(f"the number of new merges must be a whole number of at least "
                             f"1, not {self.num_merges!r}")
        if isinstance(self.min_frequency, bool) or not isinstance(self.min_frequency, int) \
                or self.min_frequency < 1:
            raise ValueError(f"the minimum pair count must be a whole number of at least 1, "
                             f"not {self.min_frequency!r}")


def _method_options(method, options):
    """options as a sorted tuple of (name, value) pairs, checked by bpe.methods.check
    (on a stand-in corpus: the corpus is checked by check_text)."""
    if method not in methods.METHODS:
        raise ValueError(f"unknown method {method!r}; choose one of: "
                         f"{', '.join(methods.METHODS)}")
    options = dict(options)
    if "progress" in options:
        raise ValueError("progress is the worker's to give, not a request option")
    if "special_tokens" in options:
        options["special_tokens"] = tuple(options["special_tokens"])
        check_special_tokens(options["special_tokens"])
    return tuple(sorted(options.items()))


def method_texts(method, languages, arena=None):
    """What bpe.methods.train takes for method from languages (label -> text; one corpus
    is one label): the texts as documents, or for parity the dict itself, joined by
    arena's languages (label -> text) when it holds one language only: parity balances
    several, and with one it is plain BPE.

    >>> method_texts("bpe", {"a": "x", "b": "y"}), method_texts("parity", {"a": "x"}, {"b": "y"})
    (['x', 'y'], {'a': 'x', 'b': 'y'})
    """
    if method != "parity":
        return list(languages.values())
    if len(languages) == 1 and arena:
        return {**languages, **arena}
    return dict(languages)


def _check_method_corpus(method, vocab_size, options, languages):
    n_bytes = sum(len(text.encode("utf-8")) for text in languages.values())
    check_corpus("method", n_bytes)
    if n_bytes > METHOD_MAX_BYTES:
        raise ValueError(f"The corpus has {n_bytes / 1e6:.1f} MB; {method} trains in pure "
                         f"Python here, on at most {METHOD_MAX_BYTES / 1e6:.0f} MB. Pick a "
                         "smaller corpus, or train it with python -m bpe train --method.")
    methods.check(method, method_texts(method, languages), vocab_size, **dict(options))


@dataclass(frozen=True)
class MethodRequest:
    """Train one of bpe.methods' methods (lab.jobs.workers.train_method). options: its own
    (bpe.methods.OPTIONS: tau, transition, tie_break) and min_frequency and
    special_tokens, as ((name, value), ...) or a dict; stored sorted."""
    method: str
    vocab_size: int = 1024
    options: tuple = ()

    def __post_init__(self):
        object.__setattr__(self, "options", _method_options(self.method, self.options))
        check_vocab_size(self.vocab_size)
        methods.check(self.method, method_texts(self.method, {"": "a"}), self.vocab_size,
                      **dict(self.options))

    @property
    def min_frequency(self):
        return dict(self.options).get("min_frequency", 1)

    def check_languages(self, languages):
        """ValueError/TypeError saying what to do if this request cannot train on
        languages (label -> text; one corpus is one label): empty, too big."""
        _check_method_corpus(self.method, self.vocab_size, self.options, languages)


@dataclass(frozen=True)
class MethodsRequest:
    """Train several methods on one corpus at one vocab size, side by side, then measure
    them (lab.jobs.workers.train_methods; the Methods page). options: method -> its options,
    as ((method, ((name, value), ...)), ...) or a dict; every method gets min_frequency."""
    methods: tuple
    vocab_size: int = 1024
    options: tuple = ()

    def __post_init__(self):
        names = tuple(self.methods)
        if len(names) < 2 or len(set(names)) != len(names):
            raise ValueError("pick two or more different methods to train side by side")
        if len(names) > METHODS_MAX:
            raise ValueError(f"pick at most {METHODS_MAX} methods: each one trains in turn "
                             "in one job on this shared server")
        given = dict(self.options)
        stray = set(given) - set(names)
        if stray:
            raise ValueError(f"options given for {', '.join(sorted(stray))}, which is not "
                             "among the methods picked")
        requests = tuple(MethodRequest(m, self.vocab_size, given.get(m, ())) for m in names)
        object.__setattr__(self, "methods", names)
        object.__setattr__(self, "options", tuple((r.method, r.options) for r in requests))

    def requests(self):
        """One MethodRequest per method, in order."""
        return [MethodRequest(m, self.vocab_size, opts) for m, opts in self.options]

    def check_languages(self, languages):
        for asked in self.requests():
            asked.check_languages(languages)


__all__ = ["BpeRequest", "CountsRequest", "MethodRequest", "MethodsRequest", "ExtendRequest", "PairRequest", "SentencePieceRequest", "SufficiencyRequest", "SweepRequest",
           "TieRulesRequest", "check_corpus", "check_special_tokens", "check_vocab_size",
           "method_texts", "parse_special_tokens", "pattern_label"]


@dataclass(frozen=True)
class RecoverRequest:
    """Recover GPT-4's merges from its ranks, then check each (lab.jobs.workers.recover_gpt4;
    the Rebuild GPT-4 lesson). Nothing to choose: GPT-4's ranks are the input."""
    check_every: int = 2000      # merges checked between two progress reports
