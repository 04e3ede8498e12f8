"""Split patterns, their one home: the presets by name (GPT-2's r50k, GPT-4's cl100k and
GPT-4o's o200k, as tiktoken writes them) and the labels people read, `compile_pattern`
(a preset name or a regex -> compiled, a custom one checked first), and `trial` (a
custom pattern tried on the start of a corpus under a time limit before a training
starts). The budgets and the time limit themselves live in patterns/safety.py; GPT-4's
fast pure-Python split in patterns/gpt4_split.py.

It imports no tokenizer, so the counting code (bpe/counting) can know a preset without a
circle.
"""
import regex

from . import safety

GPT2_SPLIT_PATTERN = (
    r"""'(?:[sdmt]|ll|ve|re)| ?\p{L}++| ?\p{N}++| ?[^\s\p{L}\p{N}]++|\s++$|\s+(?!\S)|\s"""
)
GPT4_SPLIT_PATTERN = (
    r"""'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+| ?[^\s\p{L}\p{N}]++[\r\n]*+"""
    r"""|\s++$|\s*[\r\n]|\s+(?!\S)|\s"""
)
GPT4O_SPLIT_PATTERN = "|".join([
    r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
    r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
    r"""\p{N}{1,3}""",
    r""" ?[^\s\p{L}\p{N}]+[\r\n/]*""",
    r"""\s*[\r\n]+""",
    r"""\s+(?!\S)""",
    r"""\s+""",
])
PATTERNS = {"gpt2": GPT2_SPLIT_PATTERN, "gpt4": GPT4_SPLIT_PATTERN, "gpt4o": GPT4O_SPLIT_PATTERN}
LABELS = {"gpt2": "GPT-2 (r50k_base)", "gpt4": "GPT-4 (cl100k_base)",
          "gpt4o": "GPT-4o (o200k_base)"}  # preset name -> what a person reads
TRIAL_CHARS = 200_000  # a custom pattern is tried on this much of the corpus...
TRIAL_SECONDS = 2.0    # ...and refused if that takes longer (catastrophic regex)


def label(pattern):
    """What to call a pattern: a preset's label (by name or by its regex), else the regex.

    >>> label("gpt4"), label(GPT2_SPLIT_PATTERN), label(r"\\w+")
    ('GPT-4 (cl100k_base)', 'GPT-2 (r50k_base)', '\\\\w+')
    """
    for name, preset in PATTERNS.items():
        if pattern in (name, preset):
            return LABELS[name]
    return pattern


# A custom pattern (a visitor's or a file's) is bounded before it compiles and split under
# a time limit (catastrophic backtracking, e.g. "(a|a)+$"): both are bpe.patterns.safety's, the one
# home of those budgets. The presets are ours, compiled as they are and run with no limit.


def compile_pattern(pattern):
    """A preset name or a regex string -> (pattern string, compiled regex). A regex that
    is not a preset goes through bpe.patterns.safety.compile_checked: bounded before it compiles,
    kept out of the regex module's cache, capture groups made non-capturing (the pattern
    string returned is still the one given).

    >>> compile_pattern("gpt2")[1].findall("Hello world!!")
    ['Hello', ' world', '!!']
    >>> compile_pattern(r"(\\w+)|(\\W+)")[1].findall("hi!")
    ['hi', '!']
    """
    if pattern is None:
        pattern = "gpt4"
    if not isinstance(pattern, str):
        raise TypeError(f"pattern must be a str (a regex or one of {sorted(PATTERNS)}), "
                        f"not {type(pattern).__name__}")
    pattern = PATTERNS.get(pattern, pattern)
    if not pattern:
        raise ValueError(f"the split pattern is empty; give a regex or one of {sorted(PATTERNS)}"
                         ", or use BasicTokenizer for no split at all")
    if pattern in PATTERNS.values():
        return pattern, regex.compile(pattern)
    return pattern, safety.compile_checked(pattern)



def trial(pattern, text, *, chars=TRIAL_CHARS, seconds=TRIAL_SECONDS):
    """ValueError if a custom pattern is refused by safety (too big to compile,
    backreferences...) or splitting the start of the text with it takes over `seconds`
    of CPU time: a regex that backtracks catastrophically would otherwise keep a worker
    busy until cancelled. Presets are fast and skip the trial.

    >>> trial("gpt4", "hello world")
    >>> trial(r"(a|a)+$|.", "a" * 40 + "b", seconds=0.2)
    Traceback (most recent call last):
    ValueError: split pattern '(a|a)+$|.' took more than 0.2 s of CPU time on 41 characters, so it was stopped: it backtracks catastrophically (nested or overlapping repeats such as (a|a)+ or (a+)+); simplify it, or pick a preset (gpt2, gpt4, gpt4o)
    """
    if pattern in PATTERNS or pattern in PATTERNS.values():
        return
    safety.findall_within(safety.compile_checked(pattern), text[:chars], seconds, pattern=pattern)
