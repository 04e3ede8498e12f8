"""Training on documents: texts that merges never cross, as rustbpe, Hugging Face
`tokenizers` and Stanford CS336 train.

A document is one item of `train_from_iterator`, or one stretch of `train(text, ...,
special_tokens=[...])`'s text between two special-token strings (the strings themselves
are not trained on). Each document is split on its own, so no chunk, and so no merge,
spans two of them; their chunk counts are added in order of first occurrence, which is
all the "first" tie rule needs (train.py). Special tokens named to train are registered
after training at the ids that follow the last merge, so vocab_size counts them (CS336's
and HF's meaning).

This file counts and cuts; it does not merge (train.py) nor read files (counting/stream.py).

>>> from bpe import RegexTokenizer
>>> tok = RegexTokenizer().train("ab<|eot|>ab<|eot|>ab", 258, special_tokens=["<|eot|>"])
>>> tok.merges, tok.special_tokens
({(97, 98): 256}, {'<|eot|>': 257})
"""
from collections import Counter

import regex

from .text import PIECE_CHARS, clean_text


def check_specials(tok, special_tokens, vocab_size):
    """The special tokens as a list of distinct str (order kept); ValueError or TypeError
    saying what to write otherwise. Forgets tok's own ids for them: train gives new ones."""
    if special_tokens is None:
        return []
    if isinstance(special_tokens, (str, bytes)) or not hasattr(special_tokens, "__iter__"):
        raise TypeError("special_tokens must be a list of str, e.g. ['<|endoftext|>']")
    specials = list(dict.fromkeys(special_tokens))
    for special in specials:
        if not isinstance(special, str) or not special:
            raise ValueError(f"special token {special!r} must be a non-empty str")
    if isinstance(vocab_size, int) and vocab_size - len(specials) < 256:
        raise ValueError(f"vocab_size {vocab_size} leaves no room: it counts the 256 byte "
                         f"tokens and the {len(specials)} special tokens; use at least "
                         f"{256 + len(specials)}")
    if any(s in tok.special_tokens for s in specials):
        tok.unregister_special_tokens(specials)
    return specials


def cut_at_specials(text, specials):
    """text cut into documents at every special-token string (longest first where two
    start at the same place); the strings are dropped, and so are empty documents.

    >>> cut_at_specials("a<|x|>b<|x|><|x|>c", ["<|x|>"])
    ['a', 'b', 'c']
    """
    if not specials:
        return [text] if text else []
    alternatives = "|".join(regex.escape(s) for s in sorted(specials, key=len, reverse=True))
    return [doc for doc in regex.split(alternatives, text) if doc]


def count_documents(tok, documents, limit=None):
    """Counter of the chunks of every document, each split on its own, in order of first
    occurrence. limit: the most characters a tokenizer that must hold its text (Basic, a
    custom pattern) may be given in all; ValueError past it."""
    counts = Counter()
    held = 0
    for doc in documents:
        doc = clean_text(doc)
        if tok.is_preset:
            # a preset splits a long document piece by piece (and in parallel when big)
            counts.update(tok.count_chunks(doc) if len(doc) > PIECE_CHARS else tok.split(doc))
            continue
        held += len(doc)
        if limit is not None and held > limit:
            what = ("BasicTokenizer trains on each text as one sequence"
                    if not tok.pattern else "a custom split pattern is split whole")
            raise ValueError(f"this input is over {limit >> 20} MiB and {what}, which needs "
                             "about 20 bytes of memory per byte of text; use a "
                             "RegexTokenizer with a preset pattern (gpt2, gpt4, gpt4o), "
                             "which counts in pieces")
        counts.update(tok.split(doc))
    return counts


def register_after_merges(tok, specials):
    """Give each special token the next id after tok's last merge, in the order given."""
    if specials:
        first = max(tok.vocab.keys() - tok.special_tokens.values()) + 1
        tok.register_special_tokens({s: first + i for i, s in enumerate(specials)})
    return tok
