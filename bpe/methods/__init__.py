"""bpe.methods: every way the lab makes a tokenizer, by name, trained on your text.

`METHODS` names each method with one line; `train(method, texts, vocab_size, **options)`
checks the arguments once, here, and hands them to the method's own module (one file
each). What comes back has the lab's usual API: encode, decode, vocab, name, and merges
where the method has merges (Unigram and WordPiece keep pieces instead).

>>> from bpe import methods
>>> tok = methods.train("bpe", ["aaabdaaabac"], 256 + 3)
>>> tok.decode(tok.encode("aaabdaaabac"))
'aaabdaaabac'

Options: min_frequency (every method), special_tokens (every method), tie_break (the
methods built on bpe.train: "first", "smallest_ids", "greatest_bytes"), transition
(superbpe: the vocab size at which merges start crossing whitespace), tau (picky: the
IoS threshold in (0, 1]), progress (a callable given a bpe.train.MergeProgress after
each step). `dropout_encode` and `residue` work on any tokenizer with merges; `blame`
says which vocabulary entries make one tokenizer need more tokens than another.
"""
from collections.abc import Mapping

from . import boundless, classic, hf_bpe, parity, picky, superbpe, unigram, wordpiece
from .blame import blame
from .dropout import dropout_encode
from .residue import residue  # subtle: the function's name hides its module's; import
#                               leftover_share and LEFTOVER_R from bpe.methods.residue

METHODS = {
    "bpe": "Byte-level BPE within GPT-4's split pattern, the lab's exact trainer (minbpe's tie rule by default).",
    "hf-bpe": "Hugging Face's BpeTrainer: byte-level pre-tokenizer, its alphabet, tie rule and id order, id for id.",
    "wordpiece": "BERT's WordPiece as Hugging Face's WordPieceTrainer makes it: lowercased words, ## continuations.",
    "unigram": "Unigram language model (Kudo 2018): a large seed vocabulary pruned by EM loss, with byte fallback.",
    "superbpe": "SuperBPE: plain BPE up to a transition size, then merges may cross spaces into superword tokens.",
    "boundless": "BoundlessBPE: BPE that may also merge two whole adjacent pretokens into one token.",
    "picky": "Picky BPE: after each merge, drops a parent token used mostly inside its child (IoS ≥ τ).",
    "parity": "Parity-aware BPE: each merge helps the language that is compressed worst so far.",
}

_MODULES = {
    "bpe": classic, "hf-bpe": hf_bpe, "wordpiece": wordpiece, "unigram": unigram,
    "superbpe": superbpe, "boundless": boundless, "picky": picky, "parity": parity,
}

# which options mean something to which method; every method takes these
COMMON_OPTIONS = {"min_frequency", "special_tokens", "progress"}
OPTIONS = {
    "bpe": {"tie_break"},
    "hf-bpe": set(),
    "wordpiece": set(),
    "unigram": set(),
    "superbpe": {"transition", "tie_break"},
    "boundless": {"tie_break"},
    "picky": {"tau", "tie_break"},
    "parity": {"tie_break"},
}

__all__ = ["METHODS", "OPTIONS", "train", "check", "dropout_encode", "residue", "blame"]


def train(method, texts, vocab_size, **options):
    """Train `method` (a name of METHODS) on texts to vocab_size tokens.

    texts: an iterable of documents (str); for "parity" a dict of language -> text.
    Every argument is checked before any work starts (see check)."""
    texts = check(method, texts, vocab_size, **options)
    return _MODULES[method].train(texts, vocab_size, **options)


def check(method, texts, vocab_size, **options):
    """ValueError/TypeError with a sentence that says what to do, for any argument no
    training can use; returns texts as a list (or, for parity, a dict) of str."""
    if method not in METHODS:
        raise ValueError(f"unknown method {method!r}; choose one of: {', '.join(METHODS)}")
    unknown = set(options) - COMMON_OPTIONS - OPTIONS[method]
    if unknown:
        allowed = sorted(COMMON_OPTIONS | OPTIONS[method])
        raise TypeError(f"{method} takes no option {', '.join(sorted(unknown))}; "
                        f"its options are: {', '.join(allowed)}")
    if not isinstance(vocab_size, int) or isinstance(vocab_size, bool) or vocab_size < 1:
        raise ValueError(f"vocab_size must be a positive int, not {vocab_size!r}")
    if "tau" in options:
        tau = options["tau"]
        if isinstance(tau, bool) or not isinstance(tau, (int, float)) or not 0 < tau <= 1:
            raise ValueError(f"tau must be a number in (0, 1] (1 is plain BPE), not {tau!r}")
    if "transition" in options:
        t = options["transition"]
        if isinstance(t, bool) or not isinstance(t, int) or not 256 <= t <= vocab_size:
            raise ValueError(f"transition must be an int from 256 to vocab_size "
                             f"({vocab_size}): the vocab size at which merges start to "
                             f"cross spaces, not {t!r}")
    min_frequency = options.get("min_frequency", 1)
    if isinstance(min_frequency, bool) or not isinstance(min_frequency, int) or min_frequency < 1:
        raise ValueError(f"min_frequency must be an int of at least 1, not {min_frequency!r}")
    if method == "parity":
        return _languages(texts)
    return _documents(texts, method)


def _languages(texts):
    if not isinstance(texts, Mapping):
        raise TypeError("parity trains on a dict of language -> text, e.g. "
                        "{'english': '...', 'hindi': '...'}, not "
                        f"a {type(texts).__name__}")
    bad = [lang for lang, text in texts.items() if not isinstance(text, str)]
    if bad:
        raise TypeError(f"parity: the text of {bad[0]!r} is not a str")
    texts = {lang: text for lang, text in texts.items() if text}
    if not texts:
        raise ValueError("parity: every language's text is empty; give at least one "
                         "language some text")
    return texts


def _documents(texts, method):
    if isinstance(texts, (str, bytes)):
        raise TypeError(f"{method} trains on an iterable of documents (str); wrap one "
                        "text in a list: [text]")
    if isinstance(texts, Mapping):
        raise TypeError(f"{method} trains on an iterable of documents; a dict of "
                        "languages is for parity (use list(texts.values()) here)")
    docs = list(texts)
    bad = next((d for d in docs if not isinstance(d, str)), None)
    if bad is not None:
        raise TypeError(f"{method}: every document must be a str, not {type(bad).__name__}")
    if not any(docs):
        raise ValueError(f"{method}: the corpus is empty; give at least one non-empty "
                         "document")
    return docs
