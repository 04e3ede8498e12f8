"""Budgets for everything a visitor or a file controls, checked before the work starts.

A split pattern, a .model, a ranks file or a tokenizer.json can come from anyone. This
file holds the pure checks the loaders and RegexTokenizer call first, so a hostile input
ends in one ValueError that says what to do, instead of gigabytes or a hung thread:

- `check_pattern(pattern)` bounds a regex *before* it is compiled: the `regex` module
  unrolls counted repeats, so `c{10000000}|[\\s\\S]` (20 bytes) compiles to a 2.5 GB
  program and `a{1000000000}` compiles for minutes; timeouts only cover matching.
  Capture groups are rewritten to non-capturing ones (findall would return tuples);
  backreferences, recursion and fuzzy matching are refused.
- `compile_pattern(pattern)` compiles a checked pattern outside the module's cache
  (the cache keeps up to 500 programs alive for the life of the server).
- `findall_within(compiled, text)` / `finditer_within` match under a CPU-time limit, on
  any thread, and `runaway` words the error: the one home of that limit (bpe.regex,
  bpe.hf_pipeline and the app's pattern pages call it; the presets run unlimited).
- `parse_id`, `check_special_ids`, `MergeTable`, `VocabBudget`: ids are ASCII digits
  and bounded, merges and ids unique, the whole vocabulary bounded in bytes,
  computed incrementally so a chained file is refused before it is built; special
  tokens bounded in number, length and total length (encode compiles them to a regex).
- `parse_json`, `expect`: a tokenizer.json's structure checked before use.

It does not read files or know any format beyond that: the loaders call it.
"""
import json
import re

import regex

MAX_PATTERN_CHARS = 10_000   # a real split pattern is < 1,000 characters
PATTERN_BUDGET = 50_000      # units of compiled program (~250 bytes each at most)
# subtle: the regex module's timeout counts the process's CPU time (C clock()), not the
# wall clock: the right measure of what a visitor costs, but on a loaded machine the
# error arrives later in wall time (measured: a 2 s limit ended after 11 s at load 20)
MATCH_SECONDS = 1.0          # CPU seconds for one findall over a text of up to 1 MB
MATCH_SECONDS_PER_MB = 1.0   # and this much more per MB (a sane pattern runs at >10 MB/s)
MAX_ID = 10_000_000          # the largest vocabularies in use hold ~1M ids
# A token itself has no limit of its own: Basic training past the point where every pair
# occurs once makes one token longer each merge (27 KB at 36k merges of tinyshakespeare),
# and a file we save must load back. The total bounds memory, and the app's trainings stop
# at the same total (bpe.train's max_vocab_bytes), so what they make always loads.
MAX_VOCAB_BYTES = 64 << 20   # o200k's tokens total ~1.5 MB
MAX_SPECIAL_LENGTH = 4096    # characters in one special token; real ones are < 30
MAX_SPECIAL_TOKENS = 10_000  # Llama 3 reserves 256; encode compiles them into one regex
# ...so their total length is bounded too (measured: 1,000 tokens of 4 KB took 22 s and
# 1.1 GB to compile; 128 K characters take ~0.6 s and ~25 MB; Llama 3's are ~8 K)
MAX_SPECIAL_CHARS = 128 * 1024
MAX_JSON_DEPTH = 64          # a tokenizer.json nests ~6 deep

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


def compile_pattern(pattern, flags=0, what="split pattern"):
    """check_pattern, then compile outside the regex module's cache; the compiled
    pattern has no capture groups (so findall returns strings).

    >>> compile_pattern(r"(\\w+)|(\\W+)").findall("hi you")
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


def findall_within(compiled, text, seconds=None, what="split pattern", pattern=None):
    """compiled.findall(text), or ValueError if matching takes longer than seconds of
    CPU time (default: match_seconds(len(text))). Works on any thread (the regex module
    checks the clock while it matches, and releases nothing it holds when it stops).
    pattern: the text to name in the message (the user's, before check_pattern's rewrite).

    >>> findall_within(compile_pattern(r"(a|a)+$|."), "a" * 40 + "b", 0.2, pattern="(a|a)+$|.")
    Traceback (most recent call last):
    ...
    ValueError: split pattern '(a|a)+$|.' took more than 0.2 s of CPU time on 41 characters, so it was stopped: it backtracks catastrophically (nested or overlapping repeats such as (a|a)+ or (a+)+); simplify it, or pick a preset (gpt2, gpt4, gpt4o)
    """
    if seconds is None:
        seconds = match_seconds(len(text))
    try:
        # concurrent: other threads (a server's other sessions) run while this matches
        return compiled.findall(text, concurrent=True, timeout=seconds)
    except TimeoutError:
        raise runaway(pattern or compiled.pattern, seconds, len(text), what) from None


def finditer_within(compiled, text, seconds=None, what="split pattern", pattern=None):
    """compiled.finditer(text) as a list of matches, under the same limit as findall_within.

    >>> [m.span() for m in finditer_within(compile_pattern(r"\\w+"), "hi you")]
    [(0, 2), (3, 6)]
    """
    if seconds is None:
        seconds = match_seconds(len(text))
    try:
        return list(compiled.finditer(text, concurrent=True, timeout=seconds))
    except TimeoutError:
        raise runaway(pattern or compiled.pattern, seconds, len(text), what) from None


def runaway(pattern, seconds, n_chars, what="split pattern"):
    """The ValueError for a pattern stopped by its time limit (one wording everywhere)."""
    return ValueError(f"{what} {short(pattern)} took more than {seconds:g} s of CPU time on "
                      f"{n_chars:,} characters, so it was stopped: it backtracks "
                      "catastrophically (nested or overlapping repeats such as (a|a)+ or "
                      "(a+)+); simplify it, " + _PRESET_HINT)


def match_seconds(n_chars):
    """The time a user pattern may take over a text of n_chars: backtracking blows up
    exponentially on tens of characters, while honest matching grows with the text.

    >>> match_seconds(100), match_seconds(10_000_000)
    (1.0, 10.0)
    """
    return MATCH_SECONDS + MATCH_SECONDS_PER_MB * max(0, n_chars - 1_000_000) / 1_000_000


# ------------------------------------------------------------------ ids and vocab
_ASCII_DIGITS = re.compile(r"[0-9]+\Z")


def parse_id(text, where, *, limit=MAX_ID):
    """An id or rank written in ASCII digits, at most limit; ValueError naming where.
    (str.isdigit() and int() also accept '٣' and '²'.)

    >>> parse_id("42", "x.model line 5")
    42
    >>> parse_id("٣", "x.model line 5")
    Traceback (most recent call last):
    ...
    ValueError: x.model line 5: expected an id in ASCII digits 0-9, found '٣'
    """
    if not isinstance(text, str) or not _ASCII_DIGITS.match(text):
        raise ValueError(f"{where}: expected an id in ASCII digits 0-9, found {text!r:.40}")
    if len(text) > len(str(limit)) or int(text) > limit:
        raise ValueError(f"{where}: id {text[:20]}{'…' if len(text) > 20 else ''} is larger "
                         f"than {limit:,}, the largest id this lab accepts")
    return int(text)


def check_id(value, where, *, limit=MAX_ID):
    """An int id from a parsed file (JSON): an int (not bool), 0 <= value <= limit.

    >>> check_id(-1, "tokenizer.json vocab 'a'")
    Traceback (most recent call last):
    ...
    ValueError: tokenizer.json vocab 'a': id -1 must be an integer from 0 to 10,000,000
    """
    if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value <= limit:
        raise ValueError(f"{where}: id {value!r:.40} must be an integer from 0 to {limit:,}")
    return value


def check_special_ids(special_tokens, ordinary_ids=(), where="special tokens"):
    """special_tokens (str -> int) checked: non-empty str keys, ids in range, no id
    used twice and none equal to an ordinary token's id. Returns special_tokens.

    >>> check_special_ids({'<a>': 300, '<b>': 300})
    Traceback (most recent call last):
    ...
    ValueError: special tokens: '<a>' and '<b>' both have id 300; give each special token its own id
    """
    if len(special_tokens) > MAX_SPECIAL_TOKENS:
        raise ValueError(f"{where}: {len(special_tokens):,} special tokens; the limit is "
                         f"{MAX_SPECIAL_TOKENS:,}")
    total = sum(len(special) for special in special_tokens if isinstance(special, str))
    if total > MAX_SPECIAL_CHARS:
        raise ValueError(f"{where}: the special tokens hold {total:,} characters in all; the "
                         f"limit is {MAX_SPECIAL_CHARS:,} (encode compiles them into one "
                         "regex)")
    owners = {}
    ordinary_ids = ordinary_ids if hasattr(ordinary_ids, "__contains__") else set(ordinary_ids)
    for special, idx in special_tokens.items():
        if not isinstance(special, str) or not special:
            raise ValueError(f"{where}: {special!r:.40} must be a non-empty str")
        if len(special) > MAX_SPECIAL_LENGTH:
            raise ValueError(f"{where}: {special[:40]!r}… is {len(special):,} characters; a "
                             f"special token may have at most {MAX_SPECIAL_LENGTH:,}")
        check_id(idx, f"{where}: {special!r:.40}")
        if idx in owners:
            raise ValueError(f"{where}: {owners[idx]!r:.40} and {special!r:.40} both have id "
                             f"{idx}; give each special token its own id")
        if idx in ordinary_ids:
            raise ValueError(f"{where}: id {idx} for special token {special!r:.40} is already an "
                             "ordinary token; pick an id past the vocabulary")
        owners[idx] = special
    return special_tokens


class MergeTable:
    """The merges of a file, one at a time, checked: ids defined before use, no pair
    merged twice, token lengths and total vocab bytes within budget (computed from
    lengths, so a chained file is refused before any token is built).

    >>> table = MergeTable()
    >>> table.add((97, 97), 256, "line 4"); table.add((97, 97), 257, "line 5")
    Traceback (most recent call last):
    ...
    ValueError: line 5: merge (97, 97) already made id 256; a pair is merged once
    """

    def __init__(self, budget=None):
        self.merges = {}  # (int, int) -> int
        self.budget = budget or VocabBudget()

    def add(self, pair, idx, where):
        p0, p1 = pair
        if idx in self.budget.lengths:
            raise ValueError(f"{where}: id {idx} is defined twice; each id once")
        for p in pair:
            if p not in self.budget.lengths:
                raise ValueError(f"{where}: merge ({p0}, {p1}) uses id {p}, which is not "
                                 f"defined before id {idx}")
        if pair in self.merges:
            raise ValueError(f"{where}: merge ({p0}, {p1}) already made id "
                             f"{self.merges[pair]}; a pair is merged once")
        self.budget.add(idx, self.budget.lengths[p0] + self.budget.lengths[p1], where)
        self.merges[pair] = idx


class VocabBudget:
    """A running total of a vocabulary's bytes, at most max_total_bytes: a file whose
    merges chain ever longer tokens is refused at the line that would pass it, before
    the tokens are built. The 256 byte tokens are there from the start.

    >>> b = VocabBudget(max_total_bytes=261)
    >>> b.add(256, 2, "line 4"); b.add(257, 4, "line 5")
    Traceback (most recent call last):
    ...
    ValueError: line 5: the vocabulary would exceed 261 bytes of token bytes; the limit keeps one file from exhausting the server's memory
    """

    def __init__(self, max_total_bytes=MAX_VOCAB_BYTES):
        self.max_total_bytes = max_total_bytes
        self.lengths = dict.fromkeys(range(256), 1)  # idx -> token length in bytes
        self.total = 256

    def add(self, idx, n_bytes, where):
        self.total += n_bytes
        if self.total > self.max_total_bytes:
            limit = self.max_total_bytes
            shown = f"{limit >> 20} MB" if limit >= 1 << 20 else f"{limit:,} bytes"
            raise ValueError(f"{where}: the vocabulary would exceed {shown} of token bytes; "
                             "the limit keeps one file from exhausting the server's memory")
        self.lengths[idx] = n_bytes


# ---------------------------------------------------------------------- json
def parse_json(text, where):
    """json.loads with one clear ValueError for malformed or too deeply nested input
    (100,000 nested '[' would otherwise raise RecursionError).

    >>> parse_json("[" * 100_000, "tokenizer.json")
    Traceback (most recent call last):
    ...
    ValueError: tokenizer.json: nests deeper than 64 levels; is it a tokenizer.json?
    """
    deepest = _json_depth(text)
    if deepest > MAX_JSON_DEPTH:
        raise ValueError(f"{where}: nests deeper than {MAX_JSON_DEPTH} levels; is it a "
                         "tokenizer.json?")
    try:
        return json.loads(text)
    except RecursionError:
        raise ValueError(f"{where}: nests too deeply; is it a tokenizer.json?") from None
    except json.JSONDecodeError as e:
        raise ValueError(f"{where} is not valid JSON ({e.msg} at line {e.lineno})") from None


_JSON_TOKENS = re.compile(r'"(?:[^"\\]|\\.)*"|[\[\]{}]')


def _json_depth(text):
    """The deepest nesting of [ and { outside strings."""
    depth = deepest = 0
    for m in _JSON_TOKENS.finditer(text):
        ch = m.group(0)
        if ch in "[{":
            depth += 1
            if depth > deepest:
                deepest = depth
                if deepest > MAX_JSON_DEPTH:
                    break
        elif ch in "]}":
            depth -= 1
    return deepest


def expect(value, kind, where):
    """value if it is of type kind (a type or tuple of types), else ValueError saying
    what was expected where.

    >>> expect(5, list, 'tokenizer.json "added_tokens"')
    Traceback (most recent call last):
    ...
    ValueError: tokenizer.json "added_tokens": expected a list, found int 5
    """
    if not isinstance(value, kind) or (isinstance(value, bool) and bool not in _types(kind)):
        names = " or ".join(_NAMES.get(t, t.__name__) for t in _types(kind))
        raise ValueError(f"{where}: expected {names}, found {type(value).__name__} "
                         f"{json.dumps(value, default=str)[:40]}")
    return value


_NAMES = {list: "a list", dict: "an object", str: "a string", int: "an integer",
          float: "a number", bool: "true or false"}


def _types(kind):
    return kind if isinstance(kind, tuple) else (kind,)
