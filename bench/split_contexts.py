"""Which contexts tests/browser/test_browser_encoder.py needs to try each code point in,
found by mutation: would the test notice if the browser's split pattern put one code point
in the wrong character class?

The browser's patterns (JS_TEMPLATES in lab/token_view/browser_vocab.py) spell every class
out as code point ranges ({L}, {N}, {S}, {Lu}, ..., {ci:'s}); a wrong range is the error
the every-code-point test exists for. For each preset and each class X of its template,
and for one code point c of every kind (its ASCII value if any, whether it is astral,
and its membership of \\p{L},
\\p{N}, \\s, \\p{Lu}, \\p{Ll}, \\p{Lt}, \\p{Lm}, \\p{Lo}, \\p{M} and of each contraction
letter's case-insensitive class), this script builds the template with c's membership of X
flipped, runs it with Python's `regex` on the context with c put in, and compares the
chunk lengths with the unflipped template's: a difference is a mutant the context catches.
A shorter context is as good as a longer one when it catches every mutant the longer one
catches. Nothing is timed; it prints the mutants each context misses.

    python bench/split_contexts.py                 # the test's context against the old one
    python bench/split_contexts.py --search --context CONTEXT  # shorten it, losing nothing

Does not run Chromium: the browser side is the test's business; this only argues which
contexts the test needs (bench/results/ci.md).
"""
import argparse
import functools
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

import regex

from bpe.reference import load_reference
from lab.token_view import browser_vocab

OLD_CONTEXT = "{c}a{c}A{c}b {c} 1{c}2'{c}'s\n{c}\r\n{c} \n{c}{c}  {c}x'{c}\t{c}"
PRESETS = ["r50k_base", "cl100k_base", "o200k_base", "llama3", "tekken"]
PLACEHOLDER = regex.compile(r"\{(ci:[^}]*|S|" + "|".join(browser_vocab.PROPERTIES) + r")\}")
KINDS = [r"\p{L}", r"\p{N}", r"\s", r"\p{Lu}", r"\p{Ll}", r"\p{Lt}", r"\p{Lm}", r"\p{Lo}",
         r"\p{M}"] + [f"(?i:{ch})" for ch in "sdmtlver"]


@functools.cache
def class_of(name):
    """Python's class `name` in regex's VERSION1 syntax, fit inside [...]: "S" is \\s,
    "ci:x" the letter x case-insensitively (spelled out, as browser_vocab does)."""
    if name.startswith("ci:"):
        found = regex.findall(f"(?i:{regex.escape(name[3:])})", browser_vocab.all_code_points())
        return "".join(f"\\U{ord(c):08x}" for c in found)
    return r"\s" if name == "S" else rf"\p{{{name}}}"


def flipped(name, cp):
    """Class `name` with cp taken out if it is in, else put in (a set operation, so the
    mutant compiles as fast as the original)."""
    body = class_of(name)
    if regex.fullmatch(f"(?V1)[{body}]", chr(cp)):
        return f"[[{body}]--[\\U{cp:08x}]]"
    return f"{body}\\U{cp:08x}"


def fill(template, bodies):
    """The template as a Python (VERSION1) pattern, each placeholder its class."""
    def one(m):
        key = m.group(1)
        if key.startswith("ci:"):  # as browser_vocab: one class per letter, ' as itself
            return "".join("[" + bodies[f"ci:{ch}"] + "]" if ch.isalpha() else regex.escape(ch)
                           for ch in key[3:])
        return bodies[key]
    return "(?V1)" + PLACEHOLDER.sub(one, template)


def representatives():
    kinds = [regex.compile(k) for k in KINDS]
    reps = {}
    for cp in range(0x110000):
        if 0xD800 <= cp <= 0xDFFF:
            continue
        ch = chr(cp)
        key = (cp if cp < 128 else -1, cp > 0xFFFF) + tuple(bool(k.fullmatch(ch))
                                                             for k in kinds)
        reps.setdefault(key, cp)
    return sorted(reps.values())


def mutants(reps):
    """[(preset, class name, cp, original pattern, flipped pattern)]."""
    out = []
    for name in PRESETS:
        template = browser_vocab.JS_TEMPLATES[load_reference(name).pattern]
        names = set()
        for m in PLACEHOLDER.finditer(template):
            key = m.group(1)
            names.update(f"ci:{ch}" for ch in key[3:] if ch.isalpha()) if \
                key.startswith("ci:") else names.add(key)
        bodies = {n: class_of(n) for n in sorted(names)}
        original = regex.compile(fill(template, bodies))
        for n in sorted(names):
            for cp in reps:
                mutant = regex.compile(fill(template, {**bodies, n: flipped(n, cp)}))
                out.append((name, n, cp, original, mutant))
    return out


def caught(context, all_mutants):
    """The set of mutants (indices) whose split of context differs from the original's."""
    hits = set()
    for i, (_, _, cp, original, mutant) in enumerate(all_mutants):
        text = context.replace("{c}", chr(cp))
        if list(map(len, original.findall(text))) != list(map(len, mutant.findall(text))):
            hits.add(i)
    return hits


def describe(indices, all_mutants):
    return ", ".join(f"{all_mutants[i][0]} {all_mutants[i][1]} U+{all_mutants[i][2]:04X}"
                     for i in sorted(indices)) or "none"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--search", action="store_true",
                        help="drop the context's {c}s, then its other characters, one at a time "
                             "while no mutant it catches is lost")
    parser.add_argument("--context", help="a context to judge (default: the test's)")
    args = parser.parse_args(argv)
    sys.path.insert(0, str(ROOT / "tests" / "browser"))
    from test_browser_encoder import CONTEXT
    context = args.context or CONTEXT
    reps = representatives()
    all_mutants = mutants(reps)
    old = caught(OLD_CONTEXT, all_mutants)
    print(f"{len(reps)} kinds of code point, {len(all_mutants)} mutants (one class of one "
          f"preset flipped for one code point)")
    print(f"old context {OLD_CONTEXT!r}: {len(old)} caught, missed: "
          f"{describe(set(range(len(all_mutants))) - old, all_mutants)}")
    if args.search:
        parts = context.split("{c}")
        target = caught(context, all_mutants)
        dropped = True
        while dropped:
            dropped = False
            for i in range(1, len(parts)):
                trial = parts[:i - 1] + [parts[i - 1] + parts[i]] + parts[i + 1:]
                if caught("{c}".join(trial), all_mutants) >= target:
                    parts, dropped = trial, True
                    break
        context = "{c}".join(parts)
        # then the characters around them, one at a time
        pieces = regex.findall(r"\{c\}|.", context, flags=regex.S)
        dropped = True
        while dropped:
            dropped = False
            for i, piece in enumerate(pieces):
                trial = pieces[:i] + pieces[i + 1:]
                if piece != "{c}" and caught("".join(trial), all_mutants) >= target:
                    pieces, dropped = trial, True
                    break
        context = "".join(pieces)
    now = caught(context, all_mutants)
    print(f"context {context!r} ({context.count('{c}')} times c, {len(context)} characters "
          f"with c): {len(now)} caught; caught by the old one, not by it: "
          f"{describe(old - now, all_mutants)}; missed by both: "
          f"{describe(set(range(len(all_mutants))) - old - now, all_mutants)}")
    return 1 if old - now else 0


if __name__ == "__main__":
    sys.exit(main())
