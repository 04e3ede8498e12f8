"""A GGUF file's tokenizer: the object that gives llama.cpp's ids, built from the
tokenizer.json that bpe.formats.gguf_families writes for it.

`tokenizer_from_gguf(info)` takes the data bpe.formats.gguf reads (a GGUFTokenizer),
has it mapped to a tokenizer.json (gguf_families.document: a BPE model's vocab and
merges read from the packed arrays a slice at a time) and builds that with
bpe.hf_tokenizer, then puts back what a tokenizer.json cannot say of llama.cpp: a t5
file's Unigram runs as llama.cpp runs it (bpe.sentencepiece_unigram), and the tokenizer
carries `gguf_family` and `gguf_pre` for the app to show. A llama file's merges rank by
the made piece's score (equal scores equal): its document's merges are a ScorePairs, which
the BPE model looks up by text and keeps no table of, and the tokenizer keeps the file's
arrays (which it holds anyway: the vocab shares the tokens' text) to make its document
again, not the document's compressed text. `rebuild_gguf` and `rebuild_llama` are the same
builds again, for pickle. It reads no file (bpe.loading opens them) and parses no GGUF
bytes.
"""
import dataclasses
import functools
import os
from array import array

from . import sentencepiece_unigram
from .formats.gguf_families import document
from .hf_tokenizer import tokenizer_from_hf


def tokenizer_from_gguf(info, source="file"):
    """A GGUFTokenizer (bpe.formats.gguf: data) -> the tokenizer llama.cpp runs, with its
    family and split's name as gguf_family and gguf_pre (for the app to show)."""
    name = os.path.basename(source)
    if info.model == "llama":
        return rebuild_llama(kept_info(info), name, None)
    return rebuild_gguf(info.model, info.pre, document(info, name), name, None)


def rebuild_gguf(family, pre, document, name, special_tokens):
    """The tokenizer of a GGUF file from its tokenizer.json (gguf_families.tokenizer_json),
    family and pre: what tokenizer_from_gguf builds, and what pickle calls to build it again
    (HFTokenizer.__reduce__ hands it the document, name and specials)."""
    tok = tokenizer_from_hf(document, source=name)
    if family == "t5":  # llama.cpp's Unigram, not tokenizers' (bpe.sentencepiece_unigram)
        sentencepiece_unigram.run_as_llama_cpp(tok, document)
    return _as_gguf(tok, family, pre, name, special_tokens,
                    functools.partial(rebuild_gguf, family, pre))


def rebuild_llama(info, name, special_tokens):
    """The tokenizer of a GGUF 'llama' file from its arrays (kept_info): what
    tokenizer_from_gguf builds, and what pickle calls to build it again (HFTokenizer.
    __reduce__ hands it rebuild_from, the arrays). Its document is made from them when
    asked (HFTokenizer.make_document), not kept (issue 32: 0.8 x Llama 2's file)."""
    make = functools.partial(document, info, name)
    tok = tokenizer_from_hf(make(), source=name, make_document=make)
    tok.rebuild_from = info
    return _as_gguf(tok, info.model, info.pre, name, special_tokens, rebuild_llama)


def kept_info(info):
    """The GGUFTokenizer a llama file's tokenizer keeps to make its document again: its
    token types a byte each (the file's are 4), nothing a llama document does not read."""
    types = info.token_type
    if types is not None and all(-128 <= kind < 128 for kind in types):
        types = array("b", types)
    return dataclasses.replace(info, token_type=types, merges=None, charsmap=None)


def _as_gguf(tok, family, pre, name, special_tokens, rebuild):
    if special_tokens:
        tok.register_special_tokens(special_tokens)
    tok.gguf_family, tok.gguf_pre = family, pre
    tok.made_from = "a GGUF file (llama.cpp)"
    tok.name = name
    tok.rebuild = rebuild
    return tok
