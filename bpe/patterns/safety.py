"""The split-pattern safety checks: a pattern from a visitor or a file is bounded before it
is compiled and matched under a CPU-time limit. Part of bpe.patterns, the one home of split
patterns (presets, labels, checks, the speed trial).

- `check_pattern(pattern)` bounds a regex *before* it is compiled: the `regex` module
  unrolls counted repeats, so `c{10000000}|[\\s\\S]` (20 bytes) compiles to a 2.5 GB
  program and `a{1000000000}` compiles for minutes; timeouts only cover matching.
  Capture groups are rewritten to non-capturing ones (findall would return tuples);
  backreferences, recursion and fuzzy matching are refused.
- `compile_checked(pattern)` compiles a checked pattern outside the module's cache
  (the cache keeps up to 500 programs alive for the life of the server).
- `findall_within(compiled, text)` / `finditer_within` / `sub_within` match under a
  CPU-time limit, on any thread, and `runaway` words the error: the one home of that
  limit (bpe.regex, bpe.formats.hf.pipeline and the app's pattern pages call it; the
  presets run unlimited).
- `action(seconds)`: one budget for one visitor action (a page run, one encode), shared
  by every match inside it, so a pattern that is slow on each of many pieces stops the
  whole action once instead of costing the per-call limit again on every piece. Actions
  nest: an inner one gets at most what the outer one has left.

It knows no file format and no tokenizer.
"""
import contextlib
import contextvars
import re
import time

import regex

MAX_PATTERN_CHARS = 10_000   # a real split pattern is < 1,000 characters
PATTERN_BUDGET = 50_000      # units of compiled program (~250 bytes each at most)
# subtle: the regex module's timeout counts the process's CPU time (C clock()), not the
# wall clock: the right measure of what a visitor costs, but on a loaded machine the
# error arrives later in wall time (measured: a 2 s limit ended after 11 s at load 20)
MATCH_SECONDS = 1.0          # CPU seconds for one findall over a text of up to 1 MB
MATCH_SECONDS_PER_MB = 1.0   # and this much more per MB (a sane pattern runs at >10 MB/s)
# and a pass of a file's steps this much more per MB: the steps are Python loops over the
# pieces (an honest 3-step Sequence took 3.9-6.6 s of CPU on 1.1 MB under load, and its
# 2.2 s budget stopped it as if it backtracked); backtracking blows up on tens of
# characters, not per MB. In the app lab.guard's 10 s page action still bounds it all.
STEPS_SECONDS_PER_MB = 10.0

_PRESET_HINT = "or pick a preset (gpt2, gpt4, gpt4o)"
_QUANTIFIER = re.compile(r"\{(\d*)(?:,(\d*))?\}")
_RECURSION = re.compile(r"\(\?(?:R|&|[+-]?[0-9])")
_ALLOWED_FLAGS = set("aimsuwLf")  # ascii, ignorecase, multiline, dotall, unicode, word, locale, fullcase


def short(pattern, limit=60):
    """A pattern as messages show it: repr, cut at limit characters."""
    return repr(pattern if len(pattern) <= limit else pattern[:limit] + "…")


class _Scanner:
    """One left-to-right pass over a pattern: the weight of its compiled program and
    the same pattern with every capture group made non-capturing.

    Weight: an atom weighs the length of its source (a class `[abc]` weighs 5), a
    group weighs its contents, a counted repeat {m,n} multiplies the item before it by
    max(m, n) (the regex module unrolls it), and * + ? multiply by 1 (they loop)."""

    def __init__(self, pattern, what="split pattern"):
        self.p = pattern
        self.what = what
        self.i = 0
        self.out = []
        self.stack = [[0, 0]]  # per open group: [weight so far, weight of last item]

    def refuse(self, what, fix, invalid=False):
        # "invalid": the regex module would refuse it too; otherwise it is our limit
        if "preset" not in fix and self.what == "split pattern":
            fix += ", " + _PRESET_HINT
        raise ValueError(f"{'invalid ' if invalid else ''}{self.what} {short(self.p)}: "
                         f"{what} (at character {self.i}); {fix}")

    def item(self, text, weight):
        self.out.append(text)
        frame = self.stack[-1]
        frame[0] += weight
        frame[1] = weight
        self.check_budget()

    def repeat(self, text, factor):
        frame = self.stack[-1]
        if factor > 1:
            frame[0] += frame[1] * (factor - 1)
            frame[1] *= factor
        self.out.append(text)
        self.check_budget()

    def check_budget(self):
        # the open groups' weights add up to what the whole pattern costs so far
        if sum(frame[0] for frame in self.stack) > PATTERN_BUDGET:
            self.refuse(f"its repeats would compile to more than {PATTERN_BUDGET:,} units "
                        f"of regex program (the regex module unrolls every {{m,n}})",
                        "use + or * instead of large counted repeats, " + _PRESET_HINT)

    def run(self):
        p = self.p
        while self.i < len(p):
            ch = p[self.i]
            if ch == "\\":
                self.escape()
            elif ch == "[":
                self.char_class()
            elif ch == "(":
                self.open_group()
            elif ch == ")":
                if len(self.stack) == 1:
                    self.refuse("a ')' closes no group", "remove it or write \\)", invalid=True)
                weight = self.stack.pop()[0]
                self.i += 1
                self.item(")", weight)
            elif ch == "{":
                m = _QUANTIFIER.match(p, self.i)
                if not m or m.group(0) == "{}" or m.group(0) == "{,}":
                    self.refuse("a '{' that is not a counted repeat {m,n} (the regex module "
                                "reads some as fuzzy matching, which can run for minutes)",
                                "write \\{ for a literal brace")
                # subtle: int() of 5,000 digits raises its own ValueError; cap first
                factor = max(int(d[:10] or 0) for d in (m.group(1), m.group(2) or "", "1"))
                self.i = m.end()
                self.repeat(m.group(0), factor)
            elif ch in "*+?":
                self.i += 1
                self.repeat(ch, 1)
            elif ch == "|":
                self.i += 1
                self.out.append(ch)
                self.stack[-1][1] = 0
            else:
                self.i += 1
                self.item(ch, 1)
        if len(self.stack) > 1:
            self.refuse("a '(' is never closed", "close it with ')' or write \\(", invalid=True)
        return "".join(self.out), self.stack[0][0]

    def escape(self):
        p, start = self.p, self.i
        if start + 1 >= len(p):
            self.refuse("the pattern ends with a lone backslash", "write \\\\ for a backslash", invalid=True)
        nxt = p[start + 1]
        if nxt in "123456789" or nxt in "gk":
            self.refuse("a backreference (\\1, \\g<name>, \\k<name>) can make matching "
                        "exponentially slow", "remove it; split patterns never need one")
        end = start + 2
        if nxt in "pPNxuUo" and end < len(p) and p[end] == "{":
            close = p.find("}", end)
            if close < 0:
                self.refuse(f"\\{nxt}{{ is never closed", "close it with '}'", invalid=True)
            end = close + 1
        self.i = end
        self.item(p[start:end], end - start)

    def char_class(self):
        p, start = self.p, self.i
        j = start + 1
        if j < len(p) and p[j] == "^":
            j += 1
        if j < len(p) and p[j] == "]":  # a ']' first is literal
            j += 1
        while j < len(p) and p[j] != "]":
            if p[j] == "\\":
                j += 2
                if j < len(p) and p[j - 1] in "pPNxuUo" and p[j] == "{":
                    close = p.find("}", j)
                    j = len(p) if close < 0 else close + 1
            elif p.startswith("[:", j) and p.find(":]", j + 2) > 0:
                j = p.find(":]", j + 2) + 2
            elif p[j] == "[":
                self.i = j
                self.refuse("a '[' inside a character class (nested sets are VERSION1 "
                            "syntax, which split patterns do not support)", "write \\[")
            else:
                j += 1
        if j >= len(p):
            self.refuse("a '[' is never closed", "close the class with ']' or write \\[", invalid=True)
        self.i = j + 1
        self.item(p[start:j + 1], j + 1 - start)

    def open_group(self):
        p, start = self.p, self.i
        rest = p[start + 1:start + 3]
        if not rest.startswith("?"):
            if rest.startswith("*"):
                self.refuse("backtracking verbs like (*SKIP) are not supported",
                            "remove them")
            self.push(start + 1)  # a capture group: made non-capturing
            return
        kind = p[start + 2:start + 3]
        if kind in (":", ">", "=", "!", "|"):
            self.push(start + 3, p[start:start + 3])
        elif p.startswith("(?<=", start) or p.startswith("(?<!", start):
            self.push(start + 4, p[start:start + 4])
        elif kind == "#":
            close = p.find(")", start)
            if close < 0:
                self.refuse("a (?# comment is never closed", "close it with ')'", invalid=True)
            self.i = close + 1  # comments compile to nothing
        elif kind in ("<", "'") or p.startswith("(?P<", start):
            name = re.compile(r"\(\?P?(?:<(\w+)>|'(\w+)')").match(p, start)
            if not name:
                self.refuse("a malformed named group", "write (?:...) instead")
            self.push(name.end())  # a named capture group: made non-capturing
        elif not kind:
            self.refuse("the pattern ends inside '(?'", "finish the group or write \\(", invalid=True)
        elif kind == "(" or _RECURSION.match(p, start) or p.startswith(("(?P=", "(?P>"), start):
            self.refuse("conditionals, recursion and references to groups are not "
                        "supported", "rewrite it with plain alternatives (a|b)")
        else:
            m = re.compile(r"\(\?([a-zA-Z0-9]*)(?:-([a-zA-Z]*))?([:)])").match(p, start)
            flags = (m.group(1) + (m.group(2) or "")) if m else None
            if not m or not flags or set(flags) - _ALLOWED_FLAGS:
                self.refuse("an unsupported group or flag (verbose (?x), VERSION1, fuzzy "
                            "and POSIX flags are refused)",
                            "use only the flags a, i, m, s, u, w, L, f")
            if m.group(3) == ":":
                self.push(m.end(), m.group(0))
            else:
                self.i = m.end()
                self.out.append(m.group(0))

    def push(self, end, text="(?:"):
        if len(self.stack) > 200:
            self.refuse("groups nest more than 200 deep", "flatten the pattern")
        self.out.append(text)
        self.stack.append([0, 0])
        self.i = end


def check_pattern(pattern, what="split pattern"):
    """A user's split pattern (or any regex: `what` names it in messages), bounded and with capture groups made non-capturing;
    ValueError naming the pattern and what to do if it is too big or unsupported.
    Nothing is compiled here.

    >>> check_pattern(r"(\\w+)|(?P<rest>\\W+)")
    '(?:\\\\w+)|(?:\\\\W+)'
    >>> check_pattern(r"c{10000000}|[\\s\\S]")
    Traceback (most recent call last):
    ...
    ValueError: split pattern 'c{10000000}|[\\\\s\\\\S]': its repeats would compile to more than 50,000 units of regex program (the regex module unrolls every {m,n}) (at character 11); use + or * instead of large counted repeats, or pick a preset (gpt2, gpt4, gpt4o)
    """
    if not isinstance(pattern, str):
        raise TypeError(f"a {what} must be a str, not {type(pattern).__name__}")
    if len(pattern) > MAX_PATTERN_CHARS:
        raise ValueError(f"{what} {short(pattern)} is {len(pattern):,} characters "
                         f"long; the limit is {MAX_PATTERN_CHARS:,}: shorten it, "
                         + _PRESET_HINT)
    if "\x00" in pattern:
        raise ValueError(f"{what} {short(pattern)} contains a NUL character; "
                         "write \\x00 instead")
    rewritten, _ = _Scanner(pattern, what).run()
    return rewritten


def pattern_weight(pattern):
    """The budget units a pattern's compiled program costs (see _Scanner).

    >>> pattern_weight(r"\\p{N}{1,3}"), pattern_weight("(?:ab){10}")
    (15, 20)
    """
    return _Scanner(pattern).run()[1]


def compile_checked(pattern, flags=0, what="split pattern"):
    """check_pattern, then compile outside the regex module's cache; the compiled
    pattern has no capture groups (so findall returns strings).

    >>> compile_checked(r"(\\w+)|(\\W+)").findall("hi you")
    ['hi', ' ', 'you']
    """
    checked = check_pattern(pattern, what)
    try:
        # subtle: cache_pattern=False, or every distinct visitor pattern stays alive in
        # the module's cache (500 entries) for the life of the server
        compiled = regex.compile(checked, flags, cache_pattern=False)
    except (regex.error, OverflowError, RecursionError, MemoryError) as e:
        raise ValueError(f"invalid {what} {short(pattern)}: {e}; fix the regex, "
                         + _PRESET_HINT) from None
    if compiled.groups:  # the scanner missed a group: refuse rather than return tuples
        raise ValueError(f"{what} {short(pattern)} has capture groups; "
                         "write (?:...) instead of (...)")
    return compiled


_deadline = contextvars.ContextVar("bpe_action_deadline", default=None)  # (cpu time, budget)


@contextlib.contextmanager
def action(seconds):
    """Run the block as one action of at most `seconds` of CPU time for every limited
    match inside it (nested: at most what the enclosing action has left).

    >>> with action(0.2):
    ...     findall_within(compile_checked(r"(a|a)+$|."), "a" * 40 + "b", 5, pattern="(a|a)+$|.")
    Traceback (most recent call last):
    ...
    ValueError: split pattern '(a|a)+$|.' took more than 0.2 s of CPU time on 41 characters, so it was stopped: it backtracks catastrophically (nested or overlapping repeats such as (a|a)+ or (a+)+); simplify it, or pick a preset (gpt2, gpt4, gpt4o)
    """
    now = time.process_time()
    end = now + seconds
    outer = _deadline.get()
    if outer is not None and outer[0] < end:
        end, seconds = outer[0], outer[1]
    token = _deadline.set((end, seconds))
    try:
        yield
    finally:
        _deadline.reset(token)


def _limit(seconds, n_chars):
    """(timeout for one call, the budget to name if it runs out): the call's own limit,
    cut to what the current action has left."""
    if seconds is None:
        seconds = match_seconds(n_chars)
    current = _deadline.get()
    if current is None:
        return seconds, seconds
    left = current[0] - time.process_time()
    if left < seconds:
        return max(left, 0.001), current[1]
    return seconds, seconds


def findall_within(compiled, text, seconds=None, what="split pattern", pattern=None):
    """compiled.findall(text), or ValueError if matching takes longer than seconds of
    CPU time (default: match_seconds(len(text))). Works on any thread (the regex module
    checks the clock while it matches, and releases nothing it holds when it stops).
    pattern: the text to name in the message (the user's, before check_pattern's rewrite).

    >>> findall_within(compile_checked(r"(a|a)+$|."), "a" * 40 + "b", 0.2, pattern="(a|a)+$|.")
    Traceback (most recent call last):
    ...
    ValueError: split pattern '(a|a)+$|.' took more than 0.2 s of CPU time on 41 characters, so it was stopped: it backtracks catastrophically (nested or overlapping repeats such as (a|a)+ or (a+)+); simplify it, or pick a preset (gpt2, gpt4, gpt4o)
    """
    timeout, budget = _limit(seconds, len(text))
    try:
        # concurrent: other threads (a server's other sessions) run while this matches
        return compiled.findall(text, concurrent=True, timeout=timeout)
    except TimeoutError:
        raise runaway(pattern or compiled.pattern, budget, len(text), what) from None


def finditer_within(compiled, text, seconds=None, what="split pattern", pattern=None):
    """compiled.finditer(text) as a list of matches, under the same limit as findall_within.

    >>> [m.span() for m in finditer_within(compile_checked(r"\\w+"), "hi you")]
    [(0, 2), (3, 6)]
    """
    timeout, budget = _limit(seconds, len(text))
    try:
        return list(compiled.finditer(text, concurrent=True, timeout=timeout))
    except TimeoutError:
        raise runaway(pattern or compiled.pattern, budget, len(text), what) from None


def sub_within(compiled, repl, text, seconds=None, what="regex", pattern=None):
    """compiled.sub(repl, text) under the same limit as findall_within (a file's Replace
    normalizer runs at load too, on its added tokens).

    >>> sub_within(compile_checked("b+"), "-", "abba")
    'a-a'
    """
    timeout, budget = _limit(seconds, len(text))
    try:
        return compiled.sub(repl, text, concurrent=True, timeout=timeout)
    except TimeoutError:
        raise runaway(pattern or compiled.pattern, budget, len(text), what) from None


def runaway(pattern, seconds, n_chars, what="split pattern"):
    """The ValueError for a pattern stopped by its time limit (one wording everywhere)."""
    return ValueError(f"{what} {short(pattern)} took more than {seconds:g} s of CPU time on "
                      f"{n_chars:,} characters, so it was stopped: it backtracks "
                      "catastrophically (nested or overlapping repeats such as (a|a)+ or "
                      "(a+)+); simplify it, " + _PRESET_HINT)


def steps_seconds(n_chars):
    """The time every limited match of one pass of a file's steps (a normalizer or
    pre-tokenizer Sequence, a decoder) may take together over a text of n_chars: twice one
    match's, as honest steps each run far below it (>10 MB/s) and a file has few of them,
    plus STEPS_SECONDS_PER_MB for each MB, as the steps' own Python runs inside the budget too.

    >>> steps_seconds(100), steps_seconds(1_000_000)
    (2.001, 12.0)
    """
    return 2 * match_seconds(n_chars) + STEPS_SECONDS_PER_MB * n_chars / 1_000_000


def match_seconds(n_chars):
    """The time a user pattern may take over a text of n_chars: backtracking blows up
    exponentially on tens of characters, while honest matching grows with the text.

    >>> match_seconds(100), match_seconds(10_000_000)
    (1.0, 10.0)
    """
    return MATCH_SECONDS + MATCH_SECONDS_PER_MB * max(0, n_chars - 1_000_000) / 1_000_000
