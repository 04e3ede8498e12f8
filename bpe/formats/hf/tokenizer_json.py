"""Hugging Face `tokenizer.json`, in and out: the one home of that format.

Out: a byte-level BPE with our merges and a Split pre-tokenizer carrying our pattern,
rewritten for HF's regex engine (Oniguruma: `hf_pattern`); every special token keeps its
id (it is written to the model's vocab as well as to added_tokens, which is how
`tokenizers` keeps an id that does not follow the vocabulary).
In: every tokenizer.json `tokenizers` builds with its BPE (byte-level in any id layout, or
SentencePiece style), WordPiece, Unigram and WordLevel models, their normalizers, pre-tokenizers,
decoders and post-processors (bpe.formats.hf.normalizers, pre_tokenizers, models, bytelevel,
decoders, precompiled, run by pipeline), and added tokens with their single_word / lstrip /
rstrip / normalized flags (bpe.formats.hf.added_tokens), read into a `Document`: data, not a
tokenizer. bpe.hf_tokenizer.tokenizer_from_hf builds from it (Basic/RegexTokenizer for files in
minbpe's layout, otherwise bpe.hf_tokenizer.HFTokenizer). Ids equal `tokenizers`' own
(tests/bpe/test_hf*.py). Refused by name: BPE dropout, the ByteLevel
normalizer, a ByteLevel pre-tokenizer before a model other than BPE, and any component
tokenizers may add later. This file imports neither tokenizers nor tiktoken.
"""
import json
import os
from dataclasses import dataclass

from ... import budgets
from ...patterns import PATTERNS
from .. import atomic
from .added_tokens import FLAGS, AddedToken, AddedTokens
from .bpe_model import BPE
from .bytelevel import ByteLevelBPE, bytes_to_unicode
from .decoders import PostProcessor, decoder_from_json
from .models import Unigram, WordLevel, WordPiece
from .parts import flatten
from .parts import hf_pattern, pattern_from_hf  # noqa: F401 (re-exported)
from .pipeline import Pipeline
from .vocabs import is_list, is_object, read_piece_ids
from ..ranks import mergeable_ranks


def hf_json(tok):
    """tok as a Hugging Face tokenizer.json (a dict; json.dump it)."""
    if getattr(tok, "document_json", None) is not None:  # an HFTokenizer: its own file again
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
    doc = tok.document  # a fresh parse of its file: ours to change
    known = {added.get("content") for added in doc.get("added_tokens") or []}
    new = {special: idx for special, idx in tok.special_tokens.items() if special not in known}
    if not new:
        return doc
    doc["added_tokens"] = list(doc.get("added_tokens") or []) + [
        {"id": idx, "content": special, "single_word": False, "lstrip": False,
         "rstrip": False, "normalized": False, "special": True}
        for special, idx in new.items()]
    vocab = doc["model"]["vocab"]
    if isinstance(vocab, list):  # Unigram: a piece's id is its place in the list
        pieces = {entry[0] for entry in vocab}
        for special, idx in tok.special_tokens.items():
            if special not in pieces:
                if idx != len(vocab):
                    raise ValueError(f"special token {special!r} has id {idx}, but a Unigram "
                                     f"tokenizer.json can only give a new token the next id, "
                                     f"{len(vocab)}; register it with id {len(vocab)}")
                vocab.append([special, 0.0])
        return doc
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


@dataclass
class Document:
    """A tokenizer.json read into its parts, the pipeline description a tokenizer runs:
    pipeline (normalizer, pre-tokenizer), model, added ({content: id}) and added_tokens (how
    they match), post (the post-processor), decoder (None: byte-level's own), size (the
    model's id count, where tokenizers numbers added tokens from). bpe.loading builds the
    tokenizer from it."""
    data: dict
    pipeline: Pipeline
    model: object
    added: dict
    added_tokens: AddedTokens
    post: PostProcessor
    decoder: object
    size: int

    def is_ours(self):
        """Whether the file is in minbpe's layout: our pipeline shape, a byte-level BPE
        with bytes 0-255 first, plain added tokens, no post-processor, and a split that is
        none or a preset: another split may skip text, which RegexTokenizer refuses and
        tokenizers keeps as a piece of its own, so such a file keeps tokenizers' pipeline."""
        pattern = self.pipeline.pattern
        covers = not pattern or pattern in PATTERNS.values()
        return isinstance(self.model, ByteLevelBPE) and self.model.is_ours() \
            and self.pipeline.is_ours() and covers and self.added_tokens.is_plain() \
            and not self.post.before and not self.post.after

    def check_added_ids(self, source="tokenizer.json"):
        """ValueError when an added token's id is not the one tokenizers reads it as."""
        for content, idx in ids_tokenizers_gives(self.model.vocab, self.added, self.size).items():
            if self.added[content] != idx:
                raise ValueError(
                    f"{source}: added token {content[:40]!r} has id {self.added[content]}, but "
                    f"tokenizers reads it as id {idx} (it ignores the id written there: it "
                    f"takes the token's id from the model's vocab, else counts on from the "
                    f"vocab's size, {self.size}); add {content[:40]!r} to the model's vocab "
                    f"with id {self.added[content]}")


def read_document(data, source="tokenizer.json"):
    """A tokenizer.json (a dict) -> its Document: every component read and checked, so a
    component we do not implement exactly is refused here with a ValueError naming it.
    Models: BPE (byte-level in any id layout, or SentencePiece style), WordPiece, Unigram,
    WordLevel."""
    def fail(what):
        raise ValueError(f"{source}: {what}")
    if not isinstance(data, dict):
        fail("expected a JSON object (a tokenizer.json)")
    model = data.get("model")
    if not isinstance(model, dict):
        # subtle: worded as before WordPiece/Unigram opened; tests and pages quote it
        fail("expected a tokenizer.json with a BPE model ('model': {'type': 'BPE', ...})")
    try:
        pipeline = Pipeline.from_json(data)
        added, flags = added_tokens_of(data)
        added_tokens = AddedTokens(flags, pipeline.normalize)
        post = PostProcessor.from_json(data.get("post_processor"))
        if pipeline.byte_level and model.get("type", "BPE") == "BPE":
            vocab, merges = model.get("vocab"), model.get("merges")
            if not is_object(vocab) or not is_list(merges):
                fail("the BPE model needs a 'vocab' object (token -> id) and a 'merges' list")
            vocab = read_piece_ids(vocab, "BPE")
            hf_model = ByteLevelBPE(vocab, merges, model, set(added.values()))
            decoders = flatten(data.get("decoder"), "decoders")
            # no decoder at all is not a ByteLevel one: tokenizers joins the token strings
            # with spaces ('a Ġb'), and so does decoder_from_json(None)
            plain = decoders and all(step.get("type") == "ByteLevel" for step in decoders)
            decoder = None if plain else decoder_from_json(data.get("decoder"), hf_model.inverse)
            size = len(vocab)
        else:
            if any(step.get("type") == "ByteLevel"
                   for step in flatten(data.get("pre_tokenizer"), "pretokenizers")):
                fail("a ByteLevel pre-tokenizer needs a tokenizer.json with a BPE model (only "
                     f"byte-level BPE reads bytes here); this one's is {model.get('type')!r}")
            hf_model = model_from_json(model)
            decoder = decoder_from_json(data.get("decoder"),
                                        {ch: b for b, ch in bytes_to_unicode().items()})
            size = len(getattr(hf_model, "scores", hf_model.vocab))
    except ValueError as e:
        if str(e).startswith(source):
            raise
        fail(str(e))
    return Document(data, pipeline, hf_model, added, added_tokens, post, decoder, size)


def ids_tokenizers_gives(vocab, added, size=None):
    """{content: id} as tokenizers numbers a file's added tokens when it reads it (its
    added_vocabulary.add_tokens): the vocab's id, else the next after the vocab, in order.

    >>> ids_tokenizers_gives({"a": 0, "b": 1}, {"<x>": 7, "b": 1, "<y>": 9})
    {'<x>': 2, 'b': 1, '<y>': 3}
    """
    out, next_id = {}, len(vocab) if size is None else size
    for content in added:
        if content in vocab:
            out[content] = vocab[content]
        else:
            out[content] = next_id
            next_id += 1
    return out


def added_tokens_of(data):
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


def model_from_json(model):
    """A non-byte-level "model" of a tokenizer.json -> a Model (BPE, WordPiece, Unigram,
    WordLevel)."""
    kind = model.get("type")
    if kind is None:  # tokenizers guesses from the fields
        kind = "Unigram" if is_list(model.get("vocab")) else (
            "BPE" if "merges" in model else "WordPiece")
    if kind == "BPE":
        return BPE(model)
    if kind == "WordPiece":
        return WordPiece(model)
    if kind == "Unigram":
        return Unigram(model)
    if kind == "WordLevel":
        return WordLevel(model)
    raise ValueError(f"the model {kind!r} is not implemented here (only BPE, WordPiece, "
                     "Unigram and WordLevel are)")
