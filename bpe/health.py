"""Vocabulary health: what in a tokenizer's vocabulary is broken, wasted or redundant.

For any tokenizer (trained, loaded, GPT-4, GPT-4o, extended) it finds
- tokens that are not valid UTF-8 on their own (bytes of a cut character);
- tokens no text can ever produce: byte-level BPE makes a token only inside one chunk
  of the split pattern, so a token whose text the pattern cuts in two never appears,
  nor one whose own bytes encode to other ids (the "glitch token" test), nor a byte
  that valid UTF-8 never contains (0xC0, 0xC1, 0xF5-0xFF);
- tokens never used on a corpus you choose (and how often the others are);
- near-duplicates: tokens that differ only by case or leading spaces;
- the longest tokens;
- for trained tokenizers, merges whose pair occurred fewer than a threshold of times;
- with a corpus, leftover tokens (LiteToken's residue, bpe.methods.residue): merged tokens
  the corpus makes mostly on the way to bigger ones (R = final / (final + intermediate)
  below bpe.methods.residue.LEFTOVER_R, a threshold this lab chose).
Each finding lists its tokens and, where one fits, how to retrain without them.
Pure: no Streamlit; progress through a callback. It never changes the tokenizer.
Tokens are written into the findings by `render` (bytes -> str): bpe's render_token by
default; the app passes viz's display text, so its tables show tokens as every other
page does (· for a space, ↵ for a newline, hex for part of a character).
"""
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from typing import Callable, NamedTuple, Optional

from .base import render_token
from .evaluate import residue_or_why
from .methods.residue import LEFTOVER_R, leftover_share

NEVER_IN_UTF8 = frozenset([0xC0, 0xC1, *range(0xF5, 0x100)])
# Text put around a token the split pattern cuts when alone: a longer chunk may still hold
# it whole (GPT-4o cuts " I'" alone, but keeps " I'll" whole, and BPE may leave " I'").
PROBE_BEFORE = ("", " ", "a", "A", "1", "\n", ".")
PROBE_AFTER = ("", "s", "m", "ll", "x", "X", " ", "1", ".", "\n")
PROGRESS_EVERY = 5000  # tokens between two progress reports
# The unreachable-token check encodes every token (~3 µs a byte): past this many token
# bytes it is not run (GPT-4o's 200k tokens total ~1.5 MB; a Basic tokenizer trained to
# 30k merges on 1 MB of text, ~67 MB and 3 minutes).
MAX_CHECKED_BYTES = 4 << 20
SHOWN_BYTES = 200  # bytes of one token written into a row (Basic's reach 28 KB)


class HealthProgress(NamedTuple):
    stage: str   # what is being checked
    done: int
    total: int


@dataclass
class Finding:
    kind: str      # "invalid_utf8", "unreachable", "unused", "residue", "near_duplicates",
    #                "longest", "low_count"
    title: str     # one line, with the number found
    why: str       # what it means
    rows: list = field(default_factory=list)  # one dict per token (or group), for a table
    hint: str = ""  # how to retrain without them, where that fits
    checked: bool = True  # False: not looked for (no data, or over a budget); title says why


def token_row(tok, idx, render=render_token, **extra):
    """A finding's row for one token; its bytes in hex too when they are not UTF-8 (they
    would all show as U+FFFD). Past SHOWN_BYTES, only the first are written, then " …"."""
    token = tok.vocab[idx]
    shown = token[:SHOWN_BYTES]
    more = " …" if len(token) > SHOWN_BYTES else ""
    row = {"id": idx, "token": render(shown) + more, "bytes": len(token)}
    try:
        token.decode("utf-8")
    except UnicodeDecodeError:
        row["hex"] = shown.hex(" ") + more
    return {**row, **extra}


def _ordinary_ids(tok):
    specials = set(tok.special_tokens.values())
    return [idx for idx in sorted(tok.vocab) if idx not in specials]


def _report(progress, stage, done, total):
    if progress is not None:
        progress(HealthProgress(stage, done, total))


def is_whole_utf8(token: bytes) -> bool:
    """True if the token's bytes are valid UTF-8 on their own (whole characters): the one
    definition the Vocabulary and Health pages both count with. A lone byte 0x80-0xFF is
    not: it is part of a character.

    >>> is_whole_utf8("é".encode()), is_whole_utf8("é".encode()[:1]), is_whole_utf8(b"a")
    (True, False, True)
    """
    try:
        token.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def _why_not_utf8(token):
    try:
        token.decode("utf-8")
    except UnicodeDecodeError as e:
        return e.reason
    return ""


def invalid_utf8(tok, render=render_token):
    """Tokens (not special ones) whose bytes are not valid UTF-8 on their own
    (is_whole_utf8), merged ones first, then the lone bytes 0x80-0xFF."""
    rows, lone = [], 0
    for idx in sorted(_ordinary_ids(tok), key=lambda idx: (len(tok.vocab[idx]) == 1, idx)):
        token = tok.vocab[idx]
        if not is_whole_utf8(token):
            rows.append(token_row(tok, idx, render, reason=_why_not_utf8(token)))
            lone += len(token) == 1
    which = "all of them single bytes" if lone == len(rows) else f"{lone} of them single bytes"
    return Finding("invalid_utf8", f"{len(rows)} tokens are not valid UTF-8 on their own "
                   f"({which})",
                   "Each holds part of a character (or parts of two), so it only ever appears "
                   "next to the rest of that character; shown alone it decodes to U+FFFD. The "
                   "single bytes 0x80-0xFF are expected: a byte-level vocabulary needs them "
                   "all, so any text can be encoded. Merged ones are the ones to look at.",
                   rows)


def unreachable(tok, progress=None, render=render_token):
    """Tokens that encoding no text can produce (see the module docstring). Not checked
    (a finding that says why) when the tokens total more than MAX_CHECKED_BYTES."""
    rows = []
    ids = _ordinary_ids(tok)
    size = sum(len(tok.vocab[idx]) for idx in ids)
    if size > MAX_CHECKED_BYTES:
        return Finding("unreachable", f"not checked: the tokens total {size / 2**20:,.1f} MB, "
                       f"over the {MAX_CHECKED_BYTES >> 20} MB this check encodes",
                       "This check encodes every token on its own, which would take minutes "
                       "here. Long tokens like these come from training without a split "
                       "pattern (Basic) or to a large vocab size with min frequency 1.",
                       hint="Retrain with a split pattern (Regex) or a higher min frequency, "
                       "or check a smaller vocabulary.", checked=False)
    split, encode_chunk = tok.split, tok.encode_chunk
    for n, idx in enumerate(ids):
        if n % PROGRESS_EVERY == 0:
            _report(progress, "unreachable tokens", n, len(ids))
        token = tok.vocab[idx]
        if len(token) == 1:
            if token[0] in NEVER_IN_UTF8:
                rows.append(token_row(tok, idx, render,
                                      reason="this byte never occurs in UTF-8 text"))
            continue
        try:
            text = token.decode("utf-8")
        except UnicodeDecodeError:
            text = None  # part of a character: the split cannot be checked on its own
        if text is not None:
            chunks = split(text)
            if len(chunks) != 1:
                if _witness(tok, idx, text) is None:
                    cut = " | ".join(render(chunk.encode("utf-8")) for chunk in chunks)
                    rows.append(token_row(tok, idx, render,
                                          reason=f"the split pattern cuts it into "
                                          f"{cut}, and no text tried around it kept it whole"))
                continue
        chunk_ids = encode_chunk(token)
        if chunk_ids != [idx]:
            rows.append(token_row(tok, idx, render, reason=f"its own bytes encode to {chunk_ids}"))
    _report(progress, "unreachable tokens", len(ids), len(ids))
    return Finding("unreachable", f"{len(rows)} tokens can never be produced",
                   "No text encodes to them: the split pattern cuts them apart, or BPE reaches "
                   "their bytes another way. Their embedding rows are never trained: such "
                   "ids are what the 'glitch token' studies look for.",
                   rows, hint="Retrain with the split pattern you encode with (a vocabulary "
                   "trained without a split, then used with one, is full of these).")


def _witness(tok, idx, text):
    """A text whose encoding holds idx, among the token with a little text around it; None
    if none does (so the token is unreachable unless some rarer context keeps it)."""
    for before in PROBE_BEFORE:
        for after in PROBE_AFTER:
            probe = before + text + after
            if idx in tok.encode_ordinary(probe):
                return probe
    return None


def unused(tok, corpus, progress=None, top=20, render=render_token):
    """Tokens the corpus never uses, and how often the used ones occur."""
    _report(progress, "encoding the corpus", 0, 1)
    counts = Counter(tok.encode_ordinary(corpus))
    _report(progress, "encoding the corpus", 1, 1)
    ids = _ordinary_ids(tok)
    rows = [token_row(tok, idx, render) for idx in ids if idx not in counts]
    used = len(ids) - len(rows)
    most = ", ".join(f"'{render(tok.vocab[idx])}' {count}"
                     for idx, count in counts.most_common(top))
    return Finding("unused", f"{len(rows)} of {len(ids)} tokens never occur in the corpus "
                   f"({used} do)",
                   f"The corpus ({len(corpus):,} characters, {sum(counts.values()):,} tokens) "
                   f"never needs them. Most used: {most}.", rows,
                   hint="If this corpus is what the tokenizer will see, retrain on text like it "
                   f"with a smaller vocab_size (about {256 + used} covers what it used).")


def leftovers(tok, corpus, progress=None, render=render_token, threshold=LEFTOVER_R):
    """The merged tokens the corpus makes mostly as parts of bigger tokens (LiteToken's
    residue): a row per leftover (R below threshold), lowest R first (the most
    intermediate uses first among equals), with its final and intermediate counts and R;
    the title gives their share of all merged tokens made. Not checked for a tokenizer
    without merges."""
    _report(progress, "leftover tokens", 0, 1)
    # subtle: not tok.merges first, which GPT-4o's ranks recover in seconds
    found, why = residue_or_why(tok, [corpus])
    if found is None:
        return Finding("residue", f"Leftover tokens: not checked: {why}", RESIDUE_WHY,
                       checked=False)
    vocab = tok.vocab
    data = {idx: counts for idx, counts in found.items()
            if idx in vocab}  # not a token Picky BPE dropped: it is gone already
    _report(progress, "leftover tokens", 1, 1)
    low = sorted((idx for idx, (_, _, r) in data.items() if r < threshold),
                 key=lambda idx: (data[idx][2], -data[idx][1], idx))
    rows = [token_row(tok, idx, render, final=final, intermediate=inter, R=round(r, 4))
            for idx in low for final, inter, r in [data[idx]]]
    return Finding("residue", f"{len(low)} of the {len(data)} merged tokens the corpus makes "
                   f"are leftovers (R < {threshold}): {leftover_share(data, threshold):.1%}",
                   RESIDUE_WHY, rows)


RESIDUE_WHY = (
    "LiteToken's residue (Sun et al. 2026): for each merged token, how often encoding the "
    "corpus leaves it standing as a token (final) and how often it makes it only to merge "
    "it further (intermediate); R = final / (final + intermediate). A token with a low R is "
    "scaffolding: learned on the way to bigger tokens, rarely used itself, so its embedding "
    "is under-trained. The table lists the leftovers, lowest R first. "
    f"The cut-off R < {LEFTOVER_R} is this lab's own choice, not a figure from the paper "
    "(which also filters by neighbour entropy); the paper's 5-10% of leftovers in o200k, "
    "Llama 3 and Qwen is over a large web corpus. On a small corpus many tokens are made "
    "only a few times, so the share here runs higher.")


def near_duplicates(tok, render=render_token):
    """Groups of tokens equal but for case and leading spaces, largest group first."""
    groups = defaultdict(list)
    for idx in _ordinary_ids(tok):
        try:
            text = tok.vocab[idx].decode("utf-8")
        except UnicodeDecodeError:
            continue
        key = text.lstrip(" ").casefold()
        if key.strip():
            groups[key].append(idx)
    found = sorted((ids for ids in groups.values() if len(ids) > 1), key=len, reverse=True)
    rows = [{"id": ids[0], "variants": len(ids),
             "tokens": " · ".join(f"'{render(tok.vocab[idx])}'" for idx in ids),
             "ids": ", ".join(map(str, ids))} for ids in found]
    return Finding("near_duplicates", f"{len(rows)} groups of tokens differ only by case or "
                   f"leading spaces ({sum(map(len, found))} tokens)",
                   "Byte-level BPE learns ' the', 'the', 'The' and ' The' separately; each is "
                   "a row the model must learn on its own. Normal, but costly in a small "
                   "vocabulary.", rows)


def longest(tok, top=20, render=render_token):
    ids = sorted(_ordinary_ids(tok), key=lambda idx: (-len(tok.vocab[idx]), idx))[:top]
    rows = [token_row(tok, idx, render) for idx in ids]
    return Finding("longest", f"the {len(rows)} longest tokens",
                   "Very long tokens often come from boilerplate repeated in the training data "
                   "(licences, separators, markup).", rows)


def low_count(tok, threshold, render=render_token):
    """Merges learned from a pair that occurred fewer than threshold times."""
    counts = getattr(tok, "merge_counts", None) or {}
    if not counts and len(_ordinary_ids(tok)) > 256:  # (tok.merges may be slow to recover)
        return Finding("low_count", "not checked: this tokenizer keeps no merge counts",
                       "Only tokenizers trained in this lab (or extended here) know how often "
                       "each merged pair occurred; a loaded file or GPT-4's ranks do not "
                       "say.", checked=False)
    rows = [token_row(tok, idx, render, count=count) for idx, count in counts.items()
            if count < threshold]
    return Finding("low_count", f"{len(rows)} merges occurred fewer than {threshold} times",
                   "A merge made from a handful of occurrences is noise of the training text. "
                   "(Only trained tokenizers keep counts.)", rows,
                   hint=f"Retrain with min_frequency={threshold}: training stops at the first "
                   "such merge, and counts never rise again, so exactly these go." if rows else "")


def health_report(tok, corpus=None, *, low_count_below=2, top=20,
                  progress: Optional[Callable[[HealthProgress], None]] = None,
                  render: Callable[[bytes], str] = render_token):
    """Every finding for tok, as a list of Finding. corpus (a str) adds the unused tokens;
    render writes a token's bytes into the rows and messages.

    >>> from bpe import RegexTokenizer
    >>> tok = RegexTokenizer().train("the cat. The cat.", 260)
    >>> [f.kind for f in health_report(tok, "the cat")]
    ['invalid_utf8', 'unreachable', 'unused', 'residue', 'near_duplicates', 'longest', 'low_count']
    """
    findings = [invalid_utf8(tok, render), unreachable(tok, progress, render)]
    if corpus:
        findings.append(unused(tok, corpus, progress, top, render))
        findings.append(leftovers(tok, corpus, progress, render))
    _report(progress, "near-duplicates and lengths", 0, 1)
    findings += [near_duplicates(tok, render), longest(tok, top, render),
                 low_count(tok, low_count_below, render)]
    _report(progress, "near-duplicates and lengths", 1, 1)
    return findings
