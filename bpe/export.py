"""Tokenizers out to tiktoken and Hugging Face formats, and back in.

- tiktoken ranks (`.tiktoken`: one "base64(token bytes) rank" per line), read by
  `tiktoken.load.load_tiktoken_bpe`; with `tiktoken_kwargs(tok)` it makes a
  `tiktoken.Encoding` whose ids are ours.
- Hugging Face `tokenizer.json`: a byte-level BPE with our merges and a Split
  pre-tokenizer carrying our pattern, rewritten for HF's regex engine (Oniguruma).
- `load_bytes` reads any of .model, .tiktoken and tokenizer.json back into our classes.

tiktoken does not apply merges in the order they were learned, as ours do: it merges
whichever adjacent pair's concatenated bytes has the lowest rank, and takes a chunk that
is a whole token as that token at once. The two rules give the same ids exactly when
every token, encoded on its own, comes out as itself (see check_rank_consistent), so
export checks that and refuses otherwise. This file imports neither tiktoken nor
tokenizers; it writes and reads their files.
"""
import json
import os

from .base import MODEL_VERSION
from .basic import BasicTokenizer
from .regex import PATTERNS, RegexTokenizer



# ------------------------------------------------------------------ tiktoken ranks
# the format lives in ranks.py; these names stay importable from here for old callers
from .ranks import (WHOLE_TEXT_PATTERN, check_rank_consistent, mergeable_ranks,  # noqa: E402,F401
                    parse_ranks as parse_tiktoken_ranks, save_tiktoken, tiktoken_kwargs,
                    tiktoken_pattern, tiktoken_text)


def tokenizer_from_ranks(ranks, pattern="gpt4", special_tokens=None, source="ranks"):
    """A tokenizer over tiktoken ranks: a RegexTokenizer (BasicTokenizer for the whole-text
    pattern) with the merges recovered when the bytes have ids 0-255 and the ranks run on
    without gaps, as ours do; otherwise a RanksTokenizer, which encodes by rank directly."""
    from .gpt4 import RanksTokenizer
    from .ranks import recover_merges
    pattern = PATTERNS.get(pattern, pattern)
    ours = (all(ranks[bytes([b])] == b for b in range(256))
            and sorted(ranks.values()) == list(range(len(ranks))))
    if not ours:
        return RanksTokenizer(ranks, pattern, special_tokens, name=source)
    try:
        merges = recover_merges(ranks)
    except ValueError:  # recover_merges found a token it cannot build
        merges = None
    if merges is None or len(merges) != len(ranks) - 256:
        raise ValueError(f"{source}: some token cannot be built by merging two tokens of lower "
                         "rank, so this is not a byte-pair-encoding ranks file")
    tok = BasicTokenizer() if pattern in ("", WHOLE_TEXT_PATTERN) else RegexTokenizer(pattern)
    tok.merges = dict(sorted(merges.items(), key=lambda item: item[1]))
    tok._reset()
    if special_tokens:
        tok.register_special_tokens(dict(special_tokens))
    return tok


# --------------------------------------------------------------- Hugging Face JSON
def bytes_to_unicode():
    """GPT-2's byte-level alphabet: byte -> a printable character standing for it. Printable
    Latin-1 bytes stand for themselves; the rest take the characters from U+0100 on, in order.

    >>> bytes_to_unicode()[ord(" ")], bytes_to_unicode()[ord("a")]
    ('Ġ', 'a')
    """
    keep = [*range(ord("!"), ord("~") + 1), *range(ord("¡"), ord("¬") + 1),
            *range(ord("®"), ord("ÿ") + 1)]
    table, extra = {}, 0
    for b in range(256):
        if b in keep:
            table[b] = chr(b)
        else:
            table[b] = chr(256 + extra)
            extra += 1
    return table


def hf_pattern(pattern):
    """Our regex (Python's `regex` module) rewritten so Oniguruma, HF's engine, splits alike:
    `$` -> `\\Z` and `^` -> `\\A` (Oniguruma's `$`/`^` are line anchors), and possessive
    intervals `X{m,n}+` -> `(?>X{m,n})` (Oniguruma reads the `+` as a repeat of the interval).

    >>> hf_pattern(r"\\p{N}{1,3}+|\\s++$")
    '(?>\\\\p{N}{1,3})|\\\\s++\\\\Z'
    """
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
            out.append(pattern[i:j])
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
            if pattern[j:j + 1] == "+":
                out[atom:] = ["(?>" + "".join(out[atom:]) + pattern[i:j] + ")"]
                j += 1
            else:
                out.append(pattern[i:j])
            atom = None
            i = j
        elif c in "$^":
            out.append("\\Z" if c == "$" else "\\A")
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


def _pattern_from_hf(hf):
    """Undo hf_pattern: Oniguruma's \\Z, \\A back to our $ and ^ (atomic groups stay)."""
    return hf.replace("\\Z", "$").replace("\\A", "^")


def hf_json(tok):
    """tok as a Hugging Face tokenizer.json (a dict; json.dump it)."""
    mergeable_ranks(tok)  # the same check: HF also merges by the concatenated token
    if hasattr(tok, "ranks") and any(tok.ranks[bytes([b])] != b for b in range(256)):
        raise ValueError("this tokenizer's byte ids are not 0-255 (GPT-4's are shuffled); "
                         "export it as tiktoken ranks instead")
    table = bytes_to_unicode()

    def as_str(token):
        return "".join(table[b] for b in token)
    specials = set(tok.special_tokens.values())
    vocab = {as_str(token): idx for idx, token in sorted(tok.vocab.items()) if idx not in specials}
    merges = [f"{as_str(tok.vocab[p0])} {as_str(tok.vocab[p1])}"
              for (p0, p1), idx in sorted(tok.merges.items(), key=lambda item: item[1])]
    byte_level = {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": False,
                  "use_regex": False}
    pre = [byte_level]
    if tok.pattern:
        pre.insert(0, {"type": "Split", "pattern": {"Regex": hf_pattern(tok.pattern)},
                       "behavior": "Isolated", "invert": False})
    return {
        "version": "1.0",
        "truncation": None,
        "padding": None,
        "added_tokens": [{"id": idx, "content": special, "single_word": False, "lstrip": False,
                          "rstrip": False, "normalized": False, "special": True}
                         for special, idx in tok.special_tokens.items()],
        "normalizer": None,
        "pre_tokenizer": {"type": "Sequence", "pretokenizers": pre},
        "post_processor": None,
        "decoder": {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": False,
                    "use_regex": False},
        "model": {"type": "BPE", "dropout": None, "unk_token": None,
                  "continuing_subword_prefix": None, "end_of_word_suffix": None,
                  "fuse_unk": False, "byte_fallback": False, "ignore_merges": False,
                  "vocab": vocab, "merges": merges},
    }


def save_hf(tok, path):
    """Write tok as a Hugging Face tokenizer.json to path."""
    doc = hf_json(tok)  # before opening, so a refused export leaves no file
    with open(os.fspath(path), "w", encoding="utf-8") as f:
        json.dump(doc, f, ensure_ascii=False)


def tokenizer_from_hf(data, source="tokenizer.json"):
    """A tokenizer.json (a dict) written by save_hf, or any byte-level BPE whose byte tokens
    have ids 0-255 and whose merges make ids 256, 257, ... in order -> Basic/RegexTokenizer."""
    def fail(what):
        raise ValueError(f"{source}: {what}")
    model = data.get("model") if isinstance(data, dict) else None
    if not isinstance(model, dict) or model.get("type", "BPE") != "BPE":
        fail("expected a tokenizer.json with a BPE model ('model': {'type': 'BPE', ...})")
    vocab, merges = model.get("vocab"), model.get("merges")
    if not isinstance(vocab, dict) or not isinstance(merges, list):
        fail("the BPE model needs a 'vocab' object and a 'merges' list")
    if model.get("byte_fallback") or model.get("continuing_subword_prefix") \
            or model.get("end_of_word_suffix"):
        fail("only byte-level BPE (GPT-2 style) can be imported, not byte_fallback or "
             "subword prefixes/suffixes (SentencePiece or WordPiece style)")
    inverse = {ch: b for b, ch in bytes_to_unicode().items()}
    for b, ch in bytes_to_unicode().items():
        if vocab.get(ch) != b:
            fail(f"byte {b} ({ch!r}) has id {vocab.get(ch)!r}, not {b}; only tokenizers whose "
                 "256 byte tokens have ids 0-255 (as ours and minbpe's) can be imported")
    ids = {}
    for k, merge in enumerate(merges):
        pair = merge.split(" ") if isinstance(merge, str) else merge
        if not isinstance(pair, list) or len(pair) != 2 or not all(isinstance(p, str) for p in pair):
            fail(f"merge {k} is {merge!r}; expected 'left right' or [left, right]")
        if pair[0] not in vocab or pair[1] not in vocab or pair[0] + pair[1] not in vocab:
            fail(f"merge {k} {pair} uses or makes a token that is not in the vocab")
        if vocab[pair[0] + pair[1]] != 256 + k:
            fail(f"merge {k} {pair} makes id {vocab[pair[0] + pair[1]]}, not {256 + k}; only "
                 "merges that make ids 256, 257, ... in order can be imported")
        if not all(ch in inverse for ch in pair[0] + pair[1]):
            fail(f"merge {k} {pair} has characters outside the byte-level alphabet")
        ids[(vocab[pair[0]], vocab[pair[1]])] = 256 + k
    pattern = ""
    pre = data.get("pre_tokenizer") or {}
    for step in pre.get("pretokenizers", [pre]):
        if isinstance(step, dict) and step.get("type") == "Split":
            regex_ = (step.get("pattern") or {}).get("Regex")
            if not isinstance(regex_, str):
                fail("the Split pre-tokenizer needs a {'Regex': ...} pattern")
            pattern = _pattern_from_hf(regex_)
    for name, preset in PATTERNS.items():
        if pattern == _pattern_from_hf(hf_pattern(preset)):
            pattern = preset  # a preset again, so it splits on all cores
    try:
        tok = RegexTokenizer(pattern) if pattern else BasicTokenizer()
    except ValueError as e:
        fail(str(e))
    tok.merges = ids
    tok._reset()
    specials = {}
    for added in data.get("added_tokens") or []:
        if not isinstance(added, dict) or not isinstance(added.get("content"), str) \
                or not isinstance(added.get("id"), int):
            fail(f"added token {added!r} needs 'content' and 'id'")
        specials[added["content"]] = added["id"]
    try:
        tok.register_special_tokens(specials)
    except ValueError as e:
        fail(str(e))
    return tok


# ------------------------------------------------------------------- any format in
FORMATS = {".model": "minbpe .model", ".tiktoken": "tiktoken ranks", ".json": "tokenizer.json"}


def load_bytes(data, filename, *, pattern="gpt4", special_tokens=None):
    """A tokenizer from a file's bytes, by its name's ending: .model (minbpe), .tiktoken
    (ranks; pattern and special_tokens say what the format cannot hold) or .json
    (Hugging Face). ValueError saying what is wrong for anything else or malformed."""
    from .model import load
    ext = os.path.splitext(filename)[1].lower()
    if ext not in FORMATS:
        raise ValueError(f"{filename}: unknown kind of file; expected one of "
                         f"{', '.join(FORMATS)} ({', '.join(FORMATS.values())})")
    if ext == ".tiktoken":
        return tokenizer_from_ranks(parse_tiktoken_ranks(data, filename), pattern,
                                    special_tokens, source=filename)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise ValueError(f"{filename} is not UTF-8 text, so not a {FORMATS[ext]} file") from None
    if ext == ".model":
        if not text.startswith(MODEL_VERSION):
            raise ValueError(f"{filename} line 1: expected {MODEL_VERSION!r}; is this a .model "
                             "file written by save() or minbpe?")
        return load(text=text, source=filename)
    try:
        parsed = json.loads(text)
    except json.JSONDecodeError as e:
        raise ValueError(f"{filename} is not valid JSON ({e.msg} at line {e.lineno})") from None
    return tokenizer_from_hf(parsed, source=filename)


def load_file(path, **kwargs):
    """load_bytes on the file at path."""
    with open(os.fspath(path), "rb") as f:
        return load_bytes(f.read(), os.path.basename(os.fspath(path)), **kwargs)
