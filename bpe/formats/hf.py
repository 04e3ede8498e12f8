"""Hugging Face `tokenizer.json`, in and out: the one home of that format.

Out: a byte-level BPE with our merges and a Split pre-tokenizer carrying our pattern,
rewritten for HF's regex engine (Oniguruma: `hf_pattern`); every special token keeps its
id (it is written to the model's vocab as well as to added_tokens, which is how
`tokenizers` keeps an id that does not follow the vocabulary).
In: any byte-level BPE file, whatever its id layout, with the normalizers and
pre-tokenizers such files use (run by bpe.formats.hf_pipeline), and added tokens with their
single_word / lstrip / rstrip / normalized flags (cut out by bpe.formats.hf_added); files in
minbpe's layout, our own pipeline shape and plain added tokens come back as
Basic/RegexTokenizer, the rest as HFTokenizer. Ids equal `tokenizers`' own
(tests/test_hf.py, tests/test_hf_added.py). This file imports neither tokenizers nor tiktoken.
"""
import json
import os
from itertools import chain

from .. import budgets
from ..base import CACHE_LIMIT, Tokenizer, raise_disallowed
from ..basic import BasicTokenizer
from ..encode import apply_merges
from ..regex import RegexTokenizer
from ..text import clean_text
from . import atomic
from .hf_added import FLAGS, AddedToken, AddedTokens
from .hf_pipeline import Pipeline, hf_pattern, pattern_from_hf  # noqa: F401 (re-exported)
from .ranks import mergeable_ranks


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
    new = {special: idx for special, idx in tok.special_tokens.items() if special not in known}
    if not new:
        return doc
    doc["added_tokens"] = list(doc.get("added_tokens") or []) + [
        {"id": idx, "content": special, "single_word": False, "lstrip": False,
         "rstrip": False, "normalized": False, "special": True}
        for special, idx in new.items()]
    vocab = doc["model"]["vocab"]
    for special, idx in tok.special_tokens.items():
        # as in hf_json: keeps the id in tokenizers. subtle: the file's own added tokens
        # too, which tokenizers numbers on from the vocab's size, which this just changed
        vocab.setdefault(special, idx)
    return doc


def save_hf(tok, path):
    """Write tok as a Hugging Face tokenizer.json to path, atomically (bpe.formats.atomic: the old
    file stays whole if the write fails)."""
    doc = hf_json(tok)  # before opening, so a refused export leaves no file
    atomic.write_files({os.fspath(path): json.dumps(doc, ensure_ascii=False)})


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
    if not isinstance(vocab, dict) or not isinstance(merges, list):
        fail("the BPE model needs a 'vocab' object (token -> id) and a 'merges' list")
    owners = {}
    for token, idx in vocab.items():
        budgets.check_id(idx, f'{source} "vocab" {token[:40]!r}')
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
        added, flags = _added_tokens(data)
        added_tokens = AddedTokens(flags, pipeline.normalize)
        layout = _Layout(vocab, merges, model, set(added.values()))
    except ValueError as e:
        fail(str(e))
    if layout.is_ours() and pipeline.is_ours() and added_tokens.is_plain():
        merges_ = layout.merges_in_order()
        if pipeline.pattern:
            tok = RegexTokenizer.from_merges(merges_, pattern=pipeline.pattern)
        else:
            tok = BasicTokenizer.from_merges(merges_)
    else:
        tok = HFTokenizer(pipeline, layout, name=source, document=data, added=added_tokens)
    try:
        tok.register_special_tokens(added)
    except ValueError as e:
        fail(str(e))
    for content, idx in _ids_tokenizers_gives(vocab, added).items():
        if added[content] != idx:
            fail(f"added token {content[:40]!r} has id {added[content]}, but tokenizers reads "
                 f"it as id {idx} (it ignores the id written there: it takes the token's id "
                 f"from the model's vocab, else counts on from the vocab's size, "
                 f"{len(vocab)}); add {content[:40]!r} to the model's vocab with id "
                 f"{added[content]}")
    return tok


def _ids_tokenizers_gives(vocab, added):
    """{content: id} as tokenizers numbers a file's added tokens when it reads it (its
    added_vocabulary.add_tokens): the vocab's id, else the next after the vocab, in order.

    >>> _ids_tokenizers_gives({"a": 0, "b": 1}, {"<x>": 7, "b": 1, "<y>": 9})
    {'<x>': 2, 'b': 1, '<y>': 3}
    """
    out, next_id = {}, len(vocab)
    for content in added:
        if content in vocab:
            out[content] = vocab[content]
        else:
            out[content] = next_id
            next_id += 1
    return out


def _added_tokens(data):
    """added_tokens -> ({content: id}, {content: AddedToken}: how tokenizers matches it).
    A flag left out counts as false (tokenizers itself would refuse such a file)."""
    added, flags = {}, {}
    for token in budgets.expect(data.get("added_tokens") or [], list, '"added_tokens"'):
        if not isinstance(token, dict) or not isinstance(token.get("content"), str) \
                or not isinstance(token.get("id"), int) or isinstance(token.get("id"), bool):
            raise ValueError(f"added token {str(token)[:60]} needs 'content' and 'id'")
        budgets.check_id(token["id"], f'"added_tokens" {token["content"][:40]!r}')
        if token["content"] in added:
            raise ValueError(f'"added_tokens": {token["content"][:40]!r} appears twice')
        for flag in FLAGS:
            if not isinstance(token.get(flag, False), bool):
                raise ValueError(f"added token {token['content'][:40]!r} has "
                                 f"{flag}={str(token[flag])[:20]}; expected true or false")
        added[token["content"]] = token["id"]
        flags[token["content"]] = AddedToken(*(token.get(flag, False) for flag in FLAGS))
    return added, flags


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
            if not isinstance(unk, str) or unk not in vocab:
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
    or saved as a .model file; export it again with save_hf.
    Its added tokens are cut out of the text as tokenizers cuts them, flags and all
    (single_word, lstrip, rstrip, normalized: bpe.formats.hf_added)."""

    def __init__(self, pipeline, layout, name="tokenizer.json", document=None, added=None):
        self.pipeline = pipeline
        self.layout = layout
        self.name = name
        self.document = document  # the tokenizer.json it came from, for export
        self.added = added or AddedTokens({}, pipeline.normalize)
        # read by bpe.formats.ranks: tiktoken has no normalizers, prefix spaces or stripping tokens
        self.not_tiktoken = (f"{name} is a Hugging Face pipeline (normalizers, "
                             "pre-tokenizers, added-token flags) that tiktoken ranks cannot "
                             "express; export it as tokenizer.json")
        self.pattern = ""
        Tokenizer.__init__(self)
        self.pattern = pipeline.pattern or ""

    def __reduce__(self):
        # its pipeline holds closures, which pickle cannot carry: rebuild from the file
        return _rebuild_hf, (self.document, self.name, dict(self.special_tokens))

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

    def split(self, text):
        return self.pipeline.pieces(text)

    def encode(self, text, *policy, allowed_special=frozenset(), disallowed_special="all"):
        """Tokenizer.encode's policy (tiktoken's), with the added tokens cut out as
        tokenizers cuts them: allowed_special="all" gives tokenizers' own
        encode(text, add_special_tokens=False). A disallowed token raises only where it
        would be cut out (a single_word token inside a word is ordinary text there too).

        subtle: only the allowed tokens are looked for, as tiktoken does; tokenizers has no
        such subset (it looks for all and can skip specials), so with a subset a skipped
        token cannot hide an allowed one that overlaps it.
        """
        if policy:
            return Tokenizer.encode(self, text, *policy)  # its TypeError says how to write it
        text = clean_text(text)
        allowed, disallowed = self._policy(allowed_special, disallowed_special)
        if disallowed:
            for special, _ in self._cut(text, allowed | disallowed, specials_only=True):
                if special in disallowed:
                    raise_disallowed(special)
        if not allowed:
            return self.encode_ordinary(text)
        cache = self._cache
        if len(cache) > CACHE_LIMIT:
            cache.clear()
        ids = []
        for special, piece in self._cut(text, allowed):
            if special is None:
                ids += chain.from_iterable(map(cache.__getitem__,
                                               self.pipeline.pre_tokenize(piece)))
            else:
                ids.append(self.special_tokens[special])
        return ids

    def _cut(self, text, specials, specials_only=False):
        return self.added.cut(text, specials, self.pipeline.normalize, self._special_finder,
                              specials_only)

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


def _rebuild_hf(document, name, special_tokens):
    """An HFTokenizer again from its tokenizer.json and special tokens (for pickle)."""
    tok = tokenizer_from_hf(document, source=name)
    tok.register_special_tokens(special_tokens)
    return tok


_BYTE_CHARS = bytes_to_unicode()
def load_hf_bytes(data, source="tokenizer.json"):
    """tokenizer_from_hf on a file's bytes; ValueError naming the file for anything that is
    not a tokenizer.json we can read (not UTF-8, not JSON, nested too deep, a wrong shape)."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise ValueError(f"{source} is not UTF-8 text, so not a tokenizer.json file") from None
    parsed = budgets.parse_json(text, source)
    try:
        return tokenizer_from_hf(parsed, source=source)
    except (TypeError, AttributeError, KeyError, IndexError, RecursionError) as e:
        # a shape no check above foresaw: still one message naming the file, no traceback
        raise ValueError(f"{source}: not a tokenizer.json this lab can read "
                         f"({type(e).__name__}: {str(e)[:80]})") from None
