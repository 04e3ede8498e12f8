"""Hugging Face `tokenizer.json`, in and out: the one home of that format.

Out: a byte-level BPE with our merges and a Split pre-tokenizer carrying our pattern,
rewritten for HF's regex engine (Oniguruma: `hf_pattern`); every special token keeps its
id (it is written to the model's vocab as well as to added_tokens, which is how
`tokenizers` keeps an id that does not follow the vocabulary).
In: every tokenizer.json `tokenizers` builds with its BPE (byte-level in any id layout, or
SentencePiece style), WordPiece, Unigram and WordLevel models, their normalizers, pre-tokenizers,
decoders and post-processors (bpe.formats.hf_normalizers, hf_pre_tokenizers, hf_models,
hf_bytelevel, hf_decoders, hf_precompiled, run by hf_pipeline and hf_tokenizer), and added
tokens with their single_word / lstrip / rstrip / normalized flags (bpe.formats.hf_added).
Files in minbpe's layout, our own pipeline shape and plain added tokens come back as
Basic/RegexTokenizer, the rest as HFTokenizer. Ids equal `tokenizers`' own
(tests/bpe/test_hf*.py). Refused by name: BPE dropout, the ByteLevel
normalizer, a ByteLevel pre-tokenizer before a model other than BPE, and any component
tokenizers may add later. This file imports neither tokenizers nor tiktoken.
"""
import json
import os

from .. import budgets
from ..basic import BasicTokenizer
from ..patterns import PATTERNS
from ..regex import RegexTokenizer
from . import atomic
from .hf_added import FLAGS, AddedToken, AddedTokens
from .hf_bytelevel import ByteLevelBPE, bytes_to_unicode
from .hf_decoders import PostProcessor, decoder_from_json
from .hf_models import model_from_json, read_vocab
from .hf_parts import flatten
from .hf_parts import hf_pattern, pattern_from_hf  # noqa: F401 (re-exported)
from .hf_pipeline import Pipeline
from .hf_tokenizer import HFTokenizer  # noqa: F401 (re-exported)
from .ranks import mergeable_ranks


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


def tokenizer_from_hf(data, source="tokenizer.json"):
    """A tokenizer.json (a dict) -> our tokenizer, ids identical to `tokenizers`' own
    `encode(text).ids` (with allowed_special="all": HF always matches its added tokens;
    bpe.formats.hf_tokenizer says which calls match which). Models: BPE (byte-level in any
    id layout, or SentencePiece style), WordPiece, Unigram, WordLevel. Files we wrote come back as
    Basic/RegexTokenizer; others as an HFTokenizer. A component we do not implement
    exactly is refused with a ValueError naming it."""
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
        added, flags = _added_tokens(data)
        added_tokens = AddedTokens(flags, pipeline.normalize)
        post = PostProcessor.from_json(data.get("post_processor"))
        if pipeline.byte_level and model.get("type", "BPE") == "BPE":
            vocab, merges = model.get("vocab"), model.get("merges")
            if not isinstance(vocab, dict) or not isinstance(merges, list):
                fail("the BPE model needs a 'vocab' object (token -> id) and a 'merges' list")
            read_vocab(vocab, "BPE")
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
    # a split pattern not among the presets may skip text, which RegexTokenizer refuses
    # and tokenizers keeps as a piece of its own: such a file keeps tokenizers' pipeline
    covers = not pipeline.pattern or pipeline.pattern in PATTERNS.values()
    ours = isinstance(hf_model, ByteLevelBPE) and hf_model.is_ours() and pipeline.is_ours() \
        and covers and added_tokens.is_plain() and not post.before and not post.after
    if ours:
        merges_ = hf_model.merges_in_order()
        if pipeline.pattern:
            tok = RegexTokenizer.from_merges(merges_, pattern=pipeline.pattern)
        else:
            tok = BasicTokenizer.from_merges(merges_)
    else:
        tok = HFTokenizer(pipeline, hf_model, name=source, document=data, added=added_tokens,
                          rebuild=rebuild_hf,
                          decoder=decoder, post=post, added_ids=set(added.values()))
    try:
        tok.register_special_tokens(added)
    except ValueError as e:
        fail(str(e))
    for content, idx in _ids_tokenizers_gives(hf_model.vocab, added, size).items():
        if added[content] != idx:
            fail(f"added token {content[:40]!r} has id {added[content]}, but tokenizers reads "
                 f"it as id {idx} (it ignores the id written there: it takes the token's id "
                 f"from the model's vocab, else counts on from the vocab's size, "
                 f"{size}); add {content[:40]!r} to the model's vocab with id "
                 f"{added[content]}")
    return tok


def _ids_tokenizers_gives(vocab, added, size=None):
    """{content: id} as tokenizers numbers a file's added tokens when it reads it (its
    added_vocabulary.add_tokens): the vocab's id, else the next after the vocab, in order.

    >>> _ids_tokenizers_gives({"a": 0, "b": 1}, {"<x>": 7, "b": 1, "<y>": 9})
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


def rebuild_hf(document, name, special_tokens):
    """An HFTokenizer again from its tokenizer.json and special tokens (for pickle)."""
    tok = tokenizer_from_hf(document, source=name)
    tok.register_special_tokens(special_tokens)
    return tok
