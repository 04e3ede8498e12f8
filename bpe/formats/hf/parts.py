"""What every part of a tokenizer.json shares: a component or a Sequence of them as a flat
list, the Normalizer interface (and its per-character memo), Rust's white space, and
Oniguruma's regex flavour, `tokenizers`' engine: `pattern_from_hf` reads a file's regex for
Python's `regex` module (`pattern_of` compiles a Split/Replace pattern through
bpe.patterns.safety), `hf_pattern` writes ours for Oniguruma. It imports no other hf
module, so normalizers, pre-tokenizers and the pipeline all build on it without a circle.
"""
import regex

from ... import budgets
from ...patterns import safety

# Rust's char::is_whitespace: the Unicode White_Space property, which Strip trims
WHITE_SPACE = "\t\n\x0b\x0c\r \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006" \
              "\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000"


class Normalizer:
    """apply: str -> str; chunks: str -> [(start, end, replacement)] (see the module)."""

    def apply(self, text):
        return "".join(repl for _, _, repl in self.chunks(text))

    def chunks(self, text):
        raise NotImplementedError


class Memo(dict):
    __slots__ = ("fn",)

    def __init__(self, fn):
        super().__init__()
        self.fn = fn

    def __missing__(self, ch):
        out = self[ch] = self.fn(ch)
        return out


def flatten(component, key):
    """A component, or a Sequence of them (nested), as a flat list; [] for None.
    ValueError past budgets.MAX_STEPS components (each one runs over the whole text)."""
    out = []
    _flatten(component, key, out)
    return out


def _flatten(component, key, out):
    if component is None:
        return
    if not isinstance(component, dict):
        raise ValueError(f"expected a component object, found {str(component)[:40]!r}")
    if component.get("type") == "Sequence":
        for part in budgets.expect(component.get(key) or [], list, f'"{key}"'):
            _flatten(part, key, out)
    else:
        out.append(component)
        budgets.check_steps(len(out), f'the "{key}"')


def pattern_of(spec, kind):
    """A Split/Replace 'pattern' ({'String': s} or {'Regex': r}) compiled for `regex`,
    through bpe.patterns.safety (a file's regex is bounded before it compiles)."""
    pattern = spec.get("pattern")
    if isinstance(pattern, dict) and isinstance(pattern.get("String"), str):
        return safety.compile_checked(regex.escape(pattern["String"]), what=f"{kind} string")
    if isinstance(pattern, dict) and isinstance(pattern.get("Regex"), str):
        ours = None
        try:
            ours = pattern_from_hf(pattern["Regex"])
            return safety.compile_checked(ours, what="regex")
        except (ValueError, IndexError) as e:
            # limits names the rewritten regex; name the file's instead
            reason = str(e)
            if ours is not None:
                for head in ("invalid regex ", "regex "):
                    reason = reason.removeprefix(f"{head}{safety.short(ours)}: ")
            raise ValueError(f"the {kind} regex {pattern['Regex'][:60]!r} cannot be read: "
                             f"{reason}") from None
    raise ValueError(f"the {kind} needs a pattern {{'String': ...}} or {{'Regex': ...}}, "
                     f"found {str(pattern)[:40]!r}")


def hf_pattern(pattern):
    """Our regex (Python's `regex` module) rewritten so Oniguruma, HF's engine, splits alike:
    `$` -> `\\Z` and `^` -> `\\A` (Oniguruma's `$`/`^` are line anchors), and possessive
    intervals `X{m,n}+` -> `(?>X{m,n})` (Oniguruma reads the `+` as a repeat of the interval).

    >>> hf_pattern(r"\\p{N}{1,3}+|\\s++$")
    '(?>\\\\p{N}{1,3})|\\\\s++\\\\Z'
    """
    return _rewrite(pattern, escape=lambda piece: piece, anchor={"$": "\\Z", "^": "\\A"},
                    wrap=lambda interval, after: ("(?>", 1) if after == "+" else None)


def _rewrite(pattern, escape, anchor, wrap):
    """The walk both flavour rewrites share: pattern with each escape replaced by
    escape(piece), each `$`/`^` by anchor[c], and each interval `X{m,n}` followed by the
    character `after` turned into head + X{m,n} + ")" when wrap(interval, after) gives
    (head, skip) (skip: how many characters of after that eats; None keeps it as it is)."""
    out = []        # pieces of the rewritten pattern
    atom = None     # index in out where the last complete atom starts
    groups = []     # indexes in out where open groups start
    i, n = 0, len(pattern)
    while i < n:
        c = pattern[i]
        if c == "\\":
            j = i + 2
            if pattern[i + 1:i + 2] in ("p", "P", "x", "N") and pattern[j:j + 1] == "{":
                j = pattern.index("}", j) + 1
            atom = len(out)
            out.append(escape(pattern[i:j]))
            i = j
        elif c == "[":
            j = _class_end(pattern, i)
            atom = len(out)
            out.append(pattern[i:j])
            i = j
        elif c == "(":
            groups.append(len(out))
            out.append(c)
            i += 1
        elif c == ")":
            atom = groups.pop() if groups else len(out)
            out.append(c)
            i += 1
        elif c == "{" and atom is not None and _interval_end(pattern, i):
            j = _interval_end(pattern, i)
            how = wrap(pattern[i:j], pattern[j:j + 1])
            if how:
                head, skip = how
                out[atom:] = [head + "".join(out[atom:]) + pattern[i:j] + ")"]
                # what wrap left of after (a `+` or `?`) applies to the wrapped group
                atom = None if skip else len(out) - 1
                j += skip
            else:
                out.append(pattern[i:j])
                atom = None
            i = j
        elif c in "$^":
            out.append(anchor[c])
            atom = None
            i += 1
        else:
            atom = None if c in "|*+?" else len(out)
            out.append(c)
            i += 1
    return "".join(out)


def _class_end(pattern, i):
    """The index just past the character class that starts at pattern[i] == '['."""
    j = i + 1
    if pattern[j:j + 1] == "^":
        j += 1
    if pattern[j:j + 1] == "]":
        j += 1
    depth = 1
    while j < len(pattern):
        if pattern[j] == "\\":
            j += 2
            continue
        if pattern[j] == "[":
            depth += 1
        elif pattern[j] == "]":
            depth -= 1
            if depth == 0:
                return j + 1
        j += 1
    raise ValueError(f"unterminated character class at {i} in {pattern[:60]!r}")


def _interval_end(pattern, i):
    """If pattern[i:] starts with a {m}, {m,} or {m,n} quantifier, the index past it."""
    j = pattern.find("}", i)
    body = pattern[i + 1:j] if j > 0 else ""
    if body and all(part.isdigit() or part == "" for part in body.split(",")) \
            and body.count(",") <= 1 and body[0].isdigit():
        return j + 1
    return 0


def undo_hf_pattern(hf):
    """Undo hf_pattern: Oniguruma's \\Z, \\A back to our $ and ^ (atomic groups stay)."""
    return hf.replace("\\Z", "$").replace("\\A", "^")


def pattern_from_hf(onig):
    """An Oniguruma regex (as in tokenizer.json) rewritten for Python's `regex` module, so
    both match alike: `$`/`^` are line anchors there ((?m:$), (?m:^) here), `\\z` is `\\Z`
    here, and `X{m,n}+` is a repeat of the interval there (`(?:X{m,n})+` here).

    >>> pattern_from_hf(r"\\p{N}{1,3}+|\\s+$|\\z")
    '(?:\\\\p{N}{1,3})+|\\\\s+(?m:$)|\\\\Z'
    """
    # Oniguruma (Ruby syntax): {m,n}+ repeats the interval (not possessive), and {n}?
    # makes it optional (not lazy)
    return _rewrite(onig, escape=lambda piece: "\\Z" if piece == "\\z" else piece,
                    anchor={"$": "(?m:$)", "^": "(?m:^)"},
                    wrap=lambda interval, after: ("(?:", 0) if after == "+" or (
                        after == "?" and "," not in interval) else None)
