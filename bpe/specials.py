"""Special tokens in encode: what tiktoken's allowed_special / disallowed_special mean,
the regex that finds special-token text, and the error for text not allowed.

The Tokenizer base (bpe/base.py) calls these; the tokenizer keeps its own
`SpecialFinders` so one tokenizer's sets never fill another's. Registering special tokens
(ids, budgets) stays with the tokenizer; this file only reads its `special_tokens` dict.
"""
import regex

FINDERS_KEPT = 64  # distinct (set, group) finders kept per tokenizer; a caller inventing sets
NO_SPECIALS = frozenset()  # encode's default allowed_special: `is` tells it was not given


def minbpe_policy(policy, allowed_special=NO_SPECIALS, disallowed_special="all"):
    """(allowed_special, disallowed_special) in tiktoken's terms for minbpe's positional
    `encode(text, allowed_special)`: "all", "none", "none_raise", or a set whose special
    tokens are encoded as such while the others are ordinary text (minbpe never raises
    for those). TypeError if the policy is given twice.

    >>> minbpe_policy(("all",)), minbpe_policy(({"<|a|>"},))
    (('all', 'all'), ({'<|a|>'}, ()))
    """
    if len(policy) != 1 or allowed_special is not NO_SPECIALS or disallowed_special != "all":
        raise TypeError("encode takes one policy: encode(text, 'all') as in minbpe, or "
                        "encode(text, allowed_special=..., disallowed_special=...) as in "
                        "tiktoken, not both")
    allowed = policy[0]
    if allowed in ("all", "none_raise"):
        return allowed, "all"
    if allowed == "none":
        return NO_SPECIALS, ()
    if isinstance(allowed, str) or not isinstance(allowed, (set, frozenset, list, tuple)):
        raise ValueError(f"allowed_special={allowed!r} not understood; minbpe's encode takes "
                         "'all', 'none', 'none_raise' or a set of special-token strings")
    return set(allowed), ()


def special_policy(special_tokens, allowed_special, disallowed_special):
    """(allowed, disallowed): frozensets of special-token strings, tiktoken's meaning,
    with minbpe's spellings "all", "none" and "none_raise" for allowed_special.

    >>> specials = {"<|a|>": 300, "<|b|>": 301}
    >>> [sorted(x) for x in special_policy(specials, {"<|a|>"}, "all")]
    [['<|a|>'], ['<|b|>']]
    >>> special_policy(specials, "none", "all")
    (frozenset(), frozenset())
    """
    everything = frozenset(special_tokens)
    if allowed_special == "all":
        allowed = everything
    elif allowed_special == "none":
        allowed = frozenset()
        if disallowed_special == "all":
            disallowed_special = ()
    elif allowed_special == "none_raise":
        allowed = frozenset()
    elif isinstance(allowed_special, str) or not hasattr(allowed_special, "__iter__"):
        raise TypeError(f"allowed_special={allowed_special!r} is not understood; use "
                        "'all', a set of special-token strings, or minbpe's 'none' / "
                        "'none_raise'")
    else:
        allowed = frozenset(allowed_special) & everything  # tiktoken ignores unknown ones
    if disallowed_special == "all":
        disallowed = everything - allowed
    elif isinstance(disallowed_special, str) or not hasattr(disallowed_special, "__iter__"):
        raise TypeError(f"disallowed_special={disallowed_special!r} is not understood; "
                        "use 'all', a collection of special-token strings, or ()")
    else:
        disallowed = frozenset(disallowed_special)
    return allowed, disallowed


class SpecialFinders(dict):
    """(frozenset of special tokens, group) -> compiled regex matching any of them,
    longest first; group=True wraps it in one capture group (for regex.split)."""

    def find(self, specials, group=False):
        key = (specials, group)
        finder = self.get(key)
        if finder is None:
            alternatives = "|".join(regex.escape(s) for s in sorted(specials, key=len, reverse=True))
            # subtle: kept here, not in the regex module's cache (which would keep every
            # visitor's special tokens for the life of the server)
            finder = regex.compile(f"({alternatives})" if group else alternatives,
                                   cache_pattern=False)
            if len(self) > FINDERS_KEPT:
                self.clear()
            self[key] = finder
        return finder


def raise_disallowed(special):
    """The ValueError encode raises for special-token text it was not told how to treat:
    tiktoken's wording (so people can search for it), on one line (so a CLI or an app
    error box shows it whole)."""
    raise ValueError(
        f"Encountered text corresponding to disallowed special token {special!r}. "
        "If you want this text to be encoded as a special token, pass it to "
        f"`allowed_special`, e.g. `allowed_special={{{special!r}, ...}}`. "
        "If you want this text to be encoded as normal text, disable the check for this "
        f"token by passing `disallowed_special=(enc.special_tokens_set - {{{special!r}}})`. "
        "To disable this check for all special tokens, pass `disallowed_special=()`.")

