"""Hugging Face `tokenizer.json`, in and out: the one home of that format.

Out: a byte-level BPE with our merges and a Split pre-tokenizer carrying our pattern,
rewritten for HF's regex engine (Oniguruma: `hf_pattern`); every special token keeps its
id (it is written to the model's vocab as well as to added_tokens, which is how
`tokenizers` keeps an id that does not follow the vocabulary).
In: byte-level BPE files whose byte tokens have ids 0-255 and whose merges make ids
256, 257, ... in order. This file imports neither tokenizers nor tiktoken.
"""
import json
import os
import unicodedata

import regex

from .base import Tokenizer
from .basic import BasicTokenizer
from .encode import apply_merges
from .ranks import mergeable_ranks
from .regex import PATTERNS, RegexTokenizer, compile_pattern


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
    if getattr(tok, "document", None) is not None:  # an HFTokenizer: its own file again
        return _document_with_specials(tok)
    mergeable_ranks(tok)  # the same check: HF also merges by the concatenated token
    if hasattr(tok, "ranks") and any(tok.ranks[bytes([b])] != b for b in range(256)):
        raise ValueError("this tokenizer's byte ids are not 0-255 (GPT-4's are shuffled); "
                         "export it as tiktoken ranks instead")
    table = bytes_to_unicode()

    def as_str(token):
        return "".join(table[b] for b in token)
    specials = set(tok.special_tokens.values())
    vocab = {as_str(token): idx for idx, token in sorted(tok.vocab.items()) if idx not in specials}
    for special, idx in tok.special_tokens.items():
        if special in vocab:
            raise ValueError(f"special token {special!r} reads like the ordinary token "
                             f"{vocab[special]} in tokenizer.json's byte-level alphabet, so "
                             "tokenizers could not tell them apart; rename the special token")
        vocab[special] = idx  # subtle: without this, tokenizers renumbers the added token
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


def _document_with_specials(tok):
    """An HFTokenizer's source file, with the special tokens registered since added."""
    doc = json.loads(json.dumps(tok.document))
    known = {added.get("content") for added in doc.get("added_tokens") or []}
    doc["added_tokens"] = list(doc.get("added_tokens") or []) + [
        {"id": idx, "content": special, "single_word": False, "lstrip": False,
         "rstrip": False, "normalized": False, "special": True}
        for special, idx in tok.special_tokens.items() if special not in known]
    for special, idx in tok.special_tokens.items():
        if special not in known:
            doc["model"]["vocab"][special] = idx  # as in hf_json: keeps the id in tokenizers
    return doc


def save_hf(tok, path):
    """Write tok as a Hugging Face tokenizer.json to path."""
    doc = hf_json(tok)  # before opening, so a refused export leaves no file
    with open(os.fspath(path), "w", encoding="utf-8") as f:
        json.dump(doc, f, ensure_ascii=False)


def tokenizer_from_hf(data, source="tokenizer.json"):
    """A tokenizer.json (a dict) -> our tokenizer, ids identical to `tokenizers`' own
    `encode(text, add_special_tokens=False)` (with allowed_special="all": HF always matches
    its added tokens). Any byte-level BPE: byte tokens and merges may have any ids. Files
    we wrote come back as Basic/RegexTokenizer; others as an HFTokenizer. A component we
    do not implement exactly is refused with a ValueError naming it."""
    def fail(what):
        raise ValueError(f"{source}: {what}")
    if not isinstance(data, dict):
        fail("expected a JSON object (a tokenizer.json)")
    model = data.get("model")
    if not isinstance(model, dict):
        fail("expected a tokenizer.json with a BPE model ('model': {'type': 'BPE', ...})")
    if model.get("type", "BPE") != "BPE":
        fail(f"expected a tokenizer.json with a BPE model ('model': {{'type': 'BPE', ...}}); "
             f"this model is {model.get('type')!r}, and only byte-level BPE can be imported")
    vocab, merges = model.get("vocab"), model.get("merges")
    if not isinstance(vocab, dict) or not isinstance(merges, list) or not all(
            isinstance(k, str) and _is_id(v) for k, v in vocab.items()):
        fail("the BPE model needs a 'vocab' object (token -> id) and a 'merges' list")
    owners = {}
    for token, idx in vocab.items():
        if idx in owners:
            fail(f"id {idx} is given to both {owners[idx]!r} and {token!r} in the vocab")
        owners[idx] = token
    for option in ("byte_fallback", "continuing_subword_prefix", "end_of_word_suffix",
                   "dropout"):
        if model.get(option):
            fail(f"the BPE model's {option}={model[option]!r} is not byte-level BPE (it is "
                 "SentencePiece or WordPiece style, or random); it cannot be imported")
    try:
        pipeline = Pipeline.from_json(data)
        added = _added_tokens(data, pipeline)
        layout = _Layout(vocab, merges, model, set(added.values()))
    except ValueError as e:
        fail(str(e))
    if layout.is_ours() and pipeline.is_ours():
        merges_ = layout.merges_in_order()
        if pipeline.pattern:
            tok = RegexTokenizer.from_merges(merges_, pattern=pipeline.pattern)
        else:
            tok = BasicTokenizer.from_merges(merges_)
    else:
        tok = HFTokenizer(pipeline, layout, name=source, document=data)
    try:
        tok.register_special_tokens(added)
    except ValueError as e:
        fail(str(e))
    return tok


def _is_id(value):
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def _added_tokens(data, pipeline):
    """added_tokens -> {content: id}; refuses the options we do not implement."""
    added = {}
    for token in data.get("added_tokens") or []:
        if not isinstance(token, dict) or not isinstance(token.get("content"), str) \
                or not _is_id(token.get("id")):
            raise ValueError(f"added token {str(token)[:60]} needs 'content' and 'id'")
        for option in ("single_word", "lstrip", "rstrip"):
            if token.get(option):
                raise ValueError(f"added token {token['content']!r} has {option}=true, which "
                                 "this importer does not implement")
        if token.get("normalized") and pipeline.normalizers:
            raise ValueError(f"added token {token['content']!r} is matched after "
                             "normalization (normalized=true), which this importer does not "
                             "implement")
        added[token["content"]] = token["id"]
    return added


class _Layout:
    """The BPE model's ids: which id each byte has, and each merge's pair and result, in
    our internal ids (byte b is b, merge k makes 256 + k, so an id is also its priority)."""

    def __init__(self, vocab, merges, model, added_ids):
        self.vocab = vocab                        # token str -> HF id
        table = bytes_to_unicode()
        self.inverse = {ch: b for b, ch in table.items()}
        self.byte_ids = [vocab.get(table[b]) for b in range(256)]  # None: byte unknown
        self.unk = None
        unk = model.get("unk_token")
        if unk is not None:
            if unk not in vocab:
                raise ValueError(f"the unk_token {unk!r} is not in the vocab")
            self.unk = vocab[unk]
        self.fuse_unk = bool(model.get("fuse_unk"))
        self.ignore_merges = bool(model.get("ignore_merges"))
        self.added_ids = added_ids
        internal = {table[b]: b for b in range(256)}  # token str -> internal id
        pairs = []
        for k, merge in enumerate(merges):
            pair = merge.split(" ") if isinstance(merge, str) else merge
            if not isinstance(pair, list) or len(pair) != 2 or not all(
                    isinstance(p, str) and p for p in pair):
                raise ValueError(f"merge {k} is {merge!r:.40}; expected 'left right' or "
                                 "[left, right]")
            made = pair[0] + pair[1]
            if pair[0] not in vocab or pair[1] not in vocab or made not in vocab:
                raise ValueError(f"merge {k} {pair} uses or makes a token that is not in the "
                                 "vocab")
            if not all(ch in self.inverse for ch in made):
                raise ValueError(f"merge {k} {pair} has characters outside the byte-level "
                                 "alphabet, so this is not a byte-level BPE")
            if made in internal:
                raise ValueError(f"merge {k} {pair} makes {made!r}, which a byte or an earlier "
                                 "merge already makes; such files are not supported")
            internal[made] = 256 + k
            pairs.append(pair)
        self.merges = {}  # (internal id, internal id) -> internal id
        for k, (left, right) in enumerate(pairs):
            if left in internal and right in internal:  # else no merge can ever make it
                self.merges[(internal[left], internal[right])] = 256 + k
        # internal id -> HF id (None for a byte the vocab lacks)
        self.out = self.byte_ids + [vocab[left + right] for left, right in pairs]
        self.strings = {token: idx for token, idx in vocab.items()}

    def is_ours(self):
        """Bytes at ids 0-255 and merge k making id 256 + k: minbpe's layout."""
        return (self.byte_ids == list(range(256)) and self.unk is None
                and not self.ignore_merges
                and self.out[256:] == list(range(256, len(self.out)))
                and len(self.merges) == len(self.out) - 256)

    def merges_in_order(self):
        return dict(self.merges)

    def token_bytes(self, token):
        """The bytes a vocab string stands for (UTF-8 of it if it is not byte-level)."""
        if all(ch in self.inverse for ch in token):
            return bytes(self.inverse[ch] for ch in token)
        return token.encode("utf-8")


class HFTokenizer(Tokenizer):
    """A byte-level BPE from a tokenizer.json, with any id layout and its normalizers and
    pre-tokenizers: ids identical to `tokenizers`' encode(text, add_special_tokens=False).
    It merges as HF does (the pair of lowest merge rank, leftmost first), in internal ids
    where a merge's id is its rank, then maps them to the file's ids. It cannot be trained
    or saved as a .model file; export it again with save_hf."""

    def __init__(self, pipeline, layout, name="tokenizer.json", document=None):
        self.pipeline = pipeline
        self.layout = layout
        self.name = name
        self.document = document  # the tokenizer.json it came from, for export
        # read by bpe.ranks: tiktoken has no normalizers or prefix spaces
        self.not_tiktoken = (f"{name} is a Hugging Face pipeline (normalizers, "
                             "pre-tokenizers) that tiktoken ranks cannot express; export it "
                             "as tokenizer.json")
        self.pattern = ""
        Tokenizer.__init__(self)
        self.pattern = pipeline.pattern or ""

    @property
    def merges(self):
        """(int, int) -> int in this file's ids, in merge order."""
        out = self.layout.out
        return {(out[p0], out[p1]): out[idx] for (p0, p1), idx in self.layout.merges.items()}

    @merges.setter
    def merges(self, value):
        if value:
            raise ValueError(f"{self.name}'s merges come from its file and cannot be set")

    def _build_vocab(self):
        layout = self.layout
        vocab = {idx: layout.token_bytes(token) for token, idx in layout.vocab.items()
                 if idx not in layout.added_ids}
        for special, idx in self.special_tokens.items():
            vocab[idx] = special.encode("utf-8")
        return vocab

    def _split(self, text):
        return self.pipeline.pieces(text)

    def _encode_chunk(self, text_bytes):
        layout = self.layout
        if layout.ignore_merges:
            whole = layout.strings.get("".join(_BYTE_CHARS[b] for b in text_bytes))
            if whole is not None:
                return [whole]
        byte_ids = layout.byte_ids
        ids, run = [], []
        for b in text_bytes:
            if byte_ids[b] is not None:
                run.append(b)
            elif layout.unk is not None:  # as HF: the unknown byte becomes unk, not merged
                ids += self._merge_run(run)
                run = []
                if not (layout.fuse_unk and ids and ids[-1] == layout.unk):
                    ids.append(layout.unk)
            # else HF drops the byte, and its neighbours may merge across it
        return ids + self._merge_run(run)

    def _merge_run(self, run):
        if not run:
            return []
        merges, out = self.layout.merges, self.layout.out
        return [out[idx] for idx in apply_merges(run, lambda a, b: merges.get((a, b)))]

    def train(self, text, vocab_size, verbose=False, **kwargs):
        raise ValueError(f"{self.name} is pretrained and cannot be trained; train a "
                         "RegexTokenizer() instead")

    def save(self, file_prefix):
        raise ValueError(f"{self.name} cannot be saved as a .model file (its ids are not "
                         "minbpe's layout); export it as tokenizer.json instead")

    def load_text(self, text, source="model"):
        raise ValueError(f"{self.name} is built from a tokenizer.json; load a .model file "
                         "with bpe.load()")


_BYTE_CHARS = bytes_to_unicode()
# ByteLevel's own split (use_regex=true), as tokenizers writes it
BYTE_LEVEL_PATTERN = r"'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+"
# Rust's char::is_whitespace: the Unicode White_Space property, which Strip trims
WHITE_SPACE = "\t\n\x0b\x0c\r \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006" \
              "\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000"
SPLIT_BEHAVIORS = ("Removed", "Isolated", "MergedWithPrevious", "MergedWithNext", "Contiguous")


class Pipeline:
    """A tokenizer.json's normalizer and pre-tokenizer, run as `tokenizers` runs them:
    text -> normalized text -> pieces (each then byte-level encoded and merged). Only the
    components below are implemented; any other is refused by name:
    normalizers NFC, NFD, NFKC, NFKD, Lowercase, Strip, Replace, Prepend, Sequence;
    pre-tokenizers ByteLevel (add_prefix_space, use_regex), Split (String or Regex
    pattern, every behavior, invert), Digits, Sequence; decoders ByteLevel (or none);
    post-processors ByteLevel, TemplateProcessing (their added ids are not part of
    encode, which is HF's add_special_tokens=False)."""

    def __init__(self, normalizers, steps):
        self.normalizers = normalizers  # list of str -> str
        self.steps = steps              # list of (list of str) -> list of str
        self.pattern = None             # set by from_json when the file is one of ours

    @classmethod
    def from_json(cls, data):
        normalizers = [_normalizer(n) for n in _flatten(data.get("normalizer"), "normalizers")]
        pre = _flatten(data.get("pre_tokenizer"), "pretokenizers")
        steps, seen_byte_level = [], False
        for step in pre:
            kind = step.get("type") if isinstance(step, dict) else None
            if seen_byte_level and kind != "ByteLevel":
                raise ValueError(f"the pre-tokenizer {kind!r} comes after ByteLevel (so it "
                                 "would see byte-level characters); not supported")
            if kind == "ByteLevel":
                seen_byte_level = True
            steps.append(_pre_tokenizer(step))
        if not seen_byte_level and not _byte_level_decoder(data):
            raise ValueError("neither the pre-tokenizer nor the decoder is ByteLevel, so this "
                             "is not a byte-level BPE")
        _check_decoder(data.get("decoder"))
        _check_post_processor(data.get("post_processor"))
        pipeline = cls(normalizers, steps)
        pipeline.pattern = _our_pattern(normalizers, pre)
        return pipeline

    def is_ours(self):
        """The shape our export writes: no normalizer, [Split(Isolated)], ByteLevel plain."""
        return self.pattern is not None

    def normalize(self, text):
        for normalize in self.normalizers:
            text = normalize(text)
        return text

    def pieces(self, text):
        pieces = [self.normalize(text)] if text else []
        for step in self.steps:
            pieces = [piece for piece in step(pieces) if piece]
        return pieces


def _flatten(component, key):
    """A component, or a Sequence of them (nested), as a flat list; [] for None."""
    if component is None:
        return []
    if not isinstance(component, dict):
        raise ValueError(f"expected a component object, found {str(component)[:40]!r}")
    if component.get("type") == "Sequence":
        out = []
        for part in component.get(key) or []:
            out += _flatten(part, key)
        return out
    return [component]


def _normalizer(spec):
    kind = spec.get("type")
    if kind in ("NFC", "NFD", "NFKC", "NFKD"):
        return lambda text: unicodedata.normalize(kind, text)
    if kind == "Lowercase":
        # Rust lowercases char by char (no final-sigma rule, unlike str.lower())
        return lambda text: "".join(map(str.lower, text)) if not text.isascii() else text.lower()
    if kind == "Strip":
        left, right = spec.get("strip_left", True), spec.get("strip_right", True)

        def strip(text):
            if left:
                text = text.lstrip(WHITE_SPACE)
            if right:
                text = text.rstrip(WHITE_SPACE)
            return text
        return strip
    if kind == "Replace":
        find, content = _pattern_of(spec, "Replace"), spec.get("content", "")
        return lambda text: find.sub(lambda m: content, text)
    if kind == "Prepend":
        prefix = spec.get("prepend", "")
        return lambda text: prefix + text if text else text
    raise ValueError(f"the normalizer {kind!r} is not implemented here (only NFC, NFD, NFKC, "
                     "NFKD, Lowercase, Strip, Replace, Prepend and Sequence are)")


def _pattern_of(spec, kind):
    """A Split/Replace 'pattern' ({'String': s} or {'Regex': r}) compiled for `regex`."""
    pattern = spec.get("pattern")
    if isinstance(pattern, dict) and isinstance(pattern.get("String"), str):
        return regex.compile(regex.escape(pattern["String"]))
    if isinstance(pattern, dict) and isinstance(pattern.get("Regex"), str):
        try:
            return regex.compile(pattern_from_hf(pattern["Regex"]))
        except (regex.error, ValueError) as e:
            raise ValueError(f"the {kind} regex {pattern['Regex'][:60]!r} cannot be read: "
                             f"{e}") from None
    raise ValueError(f"the {kind} needs a pattern {{'String': ...}} or {{'Regex': ...}}")


def _pre_tokenizer(spec):
    kind = spec.get("type") if isinstance(spec, dict) else None
    if kind == "ByteLevel":
        prefix, use_regex = spec.get("add_prefix_space", True), spec.get("use_regex", True)
        split = _splitter(regex.compile(BYTE_LEVEL_PATTERN), "Isolated", False)

        def byte_level(pieces):
            if prefix:
                pieces = [p if p.startswith(" ") else " " + p for p in pieces]
            return split(pieces) if use_regex else pieces
        return byte_level
    if kind == "Split":
        behavior = spec.get("behavior")
        if behavior not in SPLIT_BEHAVIORS:
            raise ValueError(f"the Split behavior {behavior!r} is unknown; expected one of "
                             f"{', '.join(SPLIT_BEHAVIORS)}")
        return _splitter(_pattern_of(spec, "Split"), behavior, bool(spec.get("invert")))
    if kind == "Digits":
        digits = regex.compile(r"\p{N}" if spec.get("individual_digits") else r"\p{N}+")
        return _splitter(digits, "Isolated", False)
    raise ValueError(f"the pre-tokenizer {kind!r} is not implemented here (only ByteLevel, "
                     "Split, Digits and Sequence are)")


def _splitter(compiled, behavior, invert):
    """pieces -> pieces, cut where compiled matches, as tokenizers' split() with behavior."""
    def split(pieces):
        out = []
        for piece in pieces:
            spans, prev = [], 0  # (start, end, is_match), covering the piece
            for m in compiled.finditer(piece):
                if m.start() != prev:
                    spans.append([prev, m.start(), invert])
                spans.append([m.start(), m.end(), not invert])
                prev = m.end()
            if prev != len(piece):
                spans.append([prev, len(piece), invert])
            out += [piece[a:b] for a, b in _apply_behavior(spans, behavior)]
        return out
    return split


def _apply_behavior(spans, behavior):
    """tokenizers' SplitDelimiterBehavior on (start, end, is_match) spans -> kept spans."""
    if behavior == "Isolated":
        return [(a, b) for a, b, _ in spans]
    if behavior == "Removed":
        return [(a, b) for a, b, is_match in spans if not is_match]
    merged, previous = [], False
    if behavior == "MergedWithNext":
        for a, b, is_match in reversed(spans):
            if is_match and not previous and merged:
                merged[-1][0] = a
            else:
                merged.append([a, b])
            previous = is_match
        return merged[::-1]
    for a, b, is_match in spans:
        join = (is_match and not previous) if behavior == "MergedWithPrevious" \
            else is_match == previous  # Contiguous
        if join and merged:
            merged[-1][1] = b
        else:
            merged.append([a, b])
        previous = is_match
    return merged


def _byte_level_decoder(data):
    return any(d.get("type") == "ByteLevel" for d in _flatten(data.get("decoder"), "decoders"))


def _check_decoder(decoder):
    for step in _flatten(decoder, "decoders"):
        if step.get("type") != "ByteLevel":
            raise ValueError(f"the decoder {step.get('type')!r} is not implemented here (only "
                             "ByteLevel is)")


def _check_post_processor(post):
    for step in _flatten(post, "processors"):
        if step.get("type") not in ("ByteLevel", "TemplateProcessing"):
            raise ValueError(f"the post-processor {step.get('type')!r} is not implemented "
                             "here (only ByteLevel and TemplateProcessing are)")


def _our_pattern(normalizers, pre):
    """Our split pattern if the pipeline is exactly the shape save_hf writes ("" for
    ByteLevel alone), else None."""
    if normalizers or not pre:
        return None
    *splits, last = pre
    if last.get("type") != "ByteLevel" or last.get("add_prefix_space", True) \
            or last.get("use_regex", True) or len(splits) > 1:
        return None
    if not splits:
        return ""
    split = splits[0]
    hf_regex = (split.get("pattern") or {}).get("Regex")
    if split.get("type") != "Split" or split.get("behavior") != "Isolated" \
            or split.get("invert") or not isinstance(hf_regex, str):
        return None
    pattern = _pattern_from_hf(hf_regex)
    for preset in PATTERNS.values():
        if hf_regex == hf_pattern(preset):
            return preset  # a preset again, so it splits fast and on all cores
    try:
        compile_pattern(pattern)
    except ValueError:
        return None
    return pattern if hf_pattern(pattern) == hf_regex else None


def pattern_from_hf(onig):
    """An Oniguruma regex (as in tokenizer.json) rewritten for Python's `regex` module, so
    both match alike: `$`/`^` are line anchors there ((?m:$), (?m:^) here), `\\z` is `\\Z`
    here, and `X{m,n}+` is a repeat of the interval there (`(?:X{m,n})+` here).

    >>> pattern_from_hf(r"\\p{N}{1,3}+|\\s+$|\\z")
    '(?:\\\\p{N}{1,3})+|\\\\s+(?m:$)|\\\\Z'
    """
    out, atom, groups = [], None, []
    i, n = 0, len(onig)
    while i < n:
        c = onig[i]
        if c == "\\":
            j = i + 2
            if onig[i + 1:i + 2] in ("p", "P", "x", "N") and onig[j:j + 1] == "{":
                j = onig.index("}", j) + 1
            piece = onig[i:j]
            atom = len(out)
            out.append("\\Z" if piece == "\\z" else piece)
            i = j
        elif c == "[":
            j = _class_end(onig, i)
            atom = len(out)
            out.append(onig[i:j])
            i = j
        elif c == "(":
            groups.append(len(out))
            out.append(c)
            i += 1
        elif c == ")":
            atom = groups.pop() if groups else len(out)
            out.append(c)
            i += 1
        elif c == "{" and atom is not None and _interval_end(onig, i):
            j = _interval_end(onig, i)
            if onig[j:j + 1] == "+" or (onig[j:j + 1] == "?" and "," not in onig[i:j]):
                # Oniguruma (Ruby syntax): {m,n}+ repeats the interval (not possessive),
                # and {n}? makes it optional (not lazy)
                out[atom:] = ["(?:" + "".join(out[atom:]) + onig[i:j] + ")"]
                atom = len(out) - 1
                i = j
                continue
            out.append(onig[i:j])
            atom = None
            i = j
        elif c in "$^":
            out.append("(?m:$)" if c == "$" else "(?m:^)")
            atom = None
            i += 1
        else:
            atom = None if c in "|*+?" else len(out)
            out.append(c)
            i += 1
    return "".join(out)


def load_hf_bytes(data, source="tokenizer.json"):
    """tokenizer_from_hf on a file's bytes; ValueError if they are not UTF-8 JSON."""
    try:
        parsed = json.loads(data.decode("utf-8"))
    except UnicodeDecodeError:
        raise ValueError(f"{source} is not UTF-8 text, so not a tokenizer.json file") from None
    except json.JSONDecodeError as e:
        raise ValueError(f"{source} is not valid JSON ({e.msg} at line {e.lineno})") from None
    return tokenizer_from_hf(parsed, source=source)

