"""The special-token sandbox's logic: read the user's special tokens, register them on a
copy of a tokenizer, and encode one text under each allowed_special policy.

The tokenizer the user picked may be the server's shared GPT-4 object, so it is never
touched: `with_specials` asks it for a copy (Tokenizer.with_special_tokens) whose
mutable parts are its own, sharing only the read-only ranks and merges — copying
GPT-4's 100k-entry tables would cost a third of a second on every rerun. Nothing here imports streamlit.
"""
from dataclasses import dataclass
from typing import Optional

from bpe import budgets

POLICIES = ("all", "none", "none_raise")
WHY_NONE_RAISE = (
    "Special tokens are control signals: `<|endoftext|>` tells a model that a document "
    "ended. If text typed by a user (or scraped from the web) contains the characters "
    "`<|endoftext|>` and encoding turned them into the control token, that user could "
    "end the document, or fake a turn of the conversation — an injection. So the "
    "default, **none_raise**, refuses such text with an error, and the program must "
    "decide: `allowed_special='none'` encodes it as ordinary characters (safe for "
    "untrusted text), a set or `'all'` lets the named tokens through (only for text the "
    "program wrote itself). These are minbpe's names; in tiktoken's, none_raise is the "
    "default (`allowed_special=set()`) and 'none' is `disallowed_special=()`; a set lets "
    "its tokens through and still refuses the other special tokens.")


def parse_specials(text, registered, first_id):
    """Read special tokens from lines of "<token>" or "<token> <id>". A token without an id
    keeps its id if registered (str -> int) has it, else gets the next free id from
    first_id on. Blank lines are skipped. ValueError naming the line if an id is not a
    non-negative integer or a token is listed twice.

    >>> parse_specials("<|endoftext|>\\n<|im_start|> 900\\n\\n<|im_end|>", {}, 300)
    {'<|endoftext|>': 300, '<|im_start|>': 900, '<|im_end|>': 301}
    >>> parse_specials("<|endoftext|>", {"<|endoftext|>": 7}, 300)
    {'<|endoftext|>': 7}
    """
    specials = {}
    for lineno, line in enumerate(text.splitlines(), 1):
        line = line.strip()
        if not line:
            continue
        name, _, idx = line.rpartition(" ")
        if not name:
            name, idx = idx, None
        elif idx.isdigit():  # any script's digits; parse_id says if they are not ASCII
            name, idx = name.strip(), budgets.parse_id(idx, f"line {lineno}")
        else:
            raise ValueError(f"line {lineno}: {line!r} should be a token, optionally "
                             "followed by a space and a non-negative integer id, "
                             "e.g. <|endoftext|> 100257")
        if name in specials:
            raise ValueError(f"line {lineno}: {name!r} is listed twice; keep one line")
        specials[name] = idx if idx is not None else registered.get(name)
    # subtle: ids given explicitly are taken first, so an automatic id never steals one
    taken = set(registered.values()) | {i for i in specials.values() if i is not None}
    next_id = first_id
    for name, idx in specials.items():
        if idx is None:
            while next_id in taken:
                next_id += 1
            specials[name] = next_id
            taken.add(next_id)
    return specials


def with_specials(tok, specials):
    """A copy of tok with specials registered too; tok itself is left as it was.
    ValueError (from register_special_tokens) if an id is taken.

    >>> from bpe import BasicTokenizer
    >>> tok = BasicTokenizer()
    >>> with_specials(tok, {"<|x|>": 300}).special_tokens, tok.special_tokens
    ({'<|x|>': 300}, {})
    """
    return tok.with_special_tokens(specials)


@dataclass
class Outcome:
    policy: str                   # the arguments after allowed_special= as written in code:
    #                               "'none_raise'", or "{'<|x|>'}, disallowed_special=()"
    ids: Optional[list] = None    # None when encode raised
    error: Optional[str] = None   # the ValueError's message
    specials: int = 0             # how many of ids are special tokens


def encode_policies(tok, text, chosen=()):
    """Encode text under "all", "none", "none_raise" and the set chosen; an Outcome each.
    A ValueError from encode is the expected outcome for "none_raise", kept as its
    message. The set is passed with disallowed_special=(), tiktoken's way to say "only
    these become special tokens, other special-token text is ordinary text" (a set alone
    still refuses the others, as in tiktoken).

    >>> from bpe import BasicTokenizer
    >>> tok = with_specials(BasicTokenizer(), {"<|x|>": 300})
    >>> [(o.policy, o.ids, o.error is not None) for o in encode_policies(tok, "a<|x|>")][::2]
    [("'all'", [97, 300], False), ("'none_raise'", None, True)]
    """
    special_ids = set(tok.special_tokens.values())
    outcomes = []
    for policy in (*POLICIES, set(chosen)):
        kwargs = {"allowed_special": policy}
        if isinstance(policy, str):
            label = repr(policy)
        else:
            kwargs["disallowed_special"] = ()
            label = ("{" + ", ".join(repr(s) for s in sorted(policy)) + "}" if policy
                     else "set()") + ", disallowed_special=()"
        try:
            ids = tok.encode(text, **kwargs)
        except ValueError as e:
            outcomes.append(Outcome(label, error=str(e)))
        else:
            outcomes.append(Outcome(label, ids, specials=sum(i in special_ids for i in ids)))
    return outcomes
