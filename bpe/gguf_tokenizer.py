"""A GGUF file's tokenizer: the object that gives llama.cpp's ids, built from the
tokenizer.json that bpe.formats.gguf_families writes for it.

`tokenizer_from_gguf(info)` takes the data bpe.formats.gguf reads (a GGUFTokenizer),
has it mapped to a tokenizer.json (gguf_families.document: a BPE model's vocab and
merges read from the packed arrays a slice at a time) and builds that with
bpe.hf_tokenizer, then puts back what a tokenizer.json cannot say of llama.cpp: a t5
file's Unigram runs as llama.cpp runs it (bpe.sentencepiece_unigram), and the tokenizer
carries `gguf_family` and `gguf_pre` for the app to show. A llama file's merges rank by
the made piece's score (equal scores equal): its document's merges are a ScorePairs, which
the BPE model looks up by text and keeps no table of. A llama or t5 file's tokenizer keeps
the file's arrays (which it holds anyway: the vocab shares the tokens' text) to make its
document again, not the document's compressed text. `rebuild_gguf` and `rebuild_kept` are
the same builds again, for pickle. It reads no file (bpe.loading opens them) and parses no
GGUF bytes.
"""
import dataclasses
import functools
import os
from array import array

from . import sentencepiece_unigram
from .formats.gguf_families import document
from .hf_tokenizer import tokenizer_from_hf


# the families whose model shares the file's token strings (a PieceIds over their text), so
# their tokenizer keeps the file's arrays anyway and makes its document from them when
# asked, rather than keeping its text too (issue 32: compressed, 0.8 x Llama 2's file and
# 0.6 x nomic-bert-moe's, and the compression at the load's peak). Not bert: its vocab is
# the tokens renamed ("##x"), so its arrays would be kept beside it (3.3 -> 3.9 x bert-bge)
KEPT_FAMILIES = ("llama", "t5")


def tokenizer_from_gguf(info, source="file"):
    """A GGUFTokenizer (bpe.formats.gguf: data) -> the tokenizer llama.cpp runs, with its
    family and split's name as gguf_family and gguf_pre (for the app to show)."""
    name = os.path.basename(source)
    if info.model in KEPT_FAMILIES:
        return rebuild_kept(kept_info(info), name, None)
    return rebuild_gguf(info.model, info.pre, document(info, name), name, None)


def rebuild_gguf(family, pre, document, name, special_tokens):
    """The tokenizer of a GGUF file from its tokenizer.json (gguf_families.tokenizer_json),
    family and pre: what tokenizer_from_gguf builds for the families that keep their
    document's text (a gpt2 file's merges are not the model's), and what pickle calls to
    build it again (HFTokenizer.__reduce__ hands it the document, name and specials)."""
    tok = tokenizer_from_hf(document, source=name)
    return _as_gguf(tok, family, pre, name, special_tokens,
                    functools.partial(rebuild_gguf, family, pre))


def rebuild_kept(info, name, special_tokens):
    """The tokenizer of a GGUF file of KEPT_FAMILIES from its arrays (kept_info): what
    tokenizer_from_gguf builds, and what pickle calls to build it again (HFTokenizer.
    __reduce__ hands it rebuild_from, the arrays). Its document is made from them when
    asked (HFTokenizer.make_document), not kept. A t5 file's Unigram runs as llama.cpp
    runs it (bpe.sentencepiece_unigram), not as tokenizers does."""
    make = functools.partial(document, info, name)
    doc = make()
    tok = tokenizer_from_hf(doc, source=name, make_document=make)
    if info.model == "t5":
        sentencepiece_unigram.run_as_llama_cpp(tok, doc)
    tok.rebuild_from = info
    return _as_gguf(tok, info.model, info.pre, name, special_tokens, rebuild_kept)


def kept_info(info):
    """The GGUFTokenizer a KEPT_FAMILIES file's tokenizer keeps to make its document again:
    its token types a byte each (the file's are 4), no merges (these families have none)."""
    types = info.token_type
    if types is not None and all(-128 <= kind < 128 for kind in types):
        types = array("b", types)
    return dataclasses.replace(info, token_type=types, merges=None)


def _as_gguf(tok, family, pre, name, special_tokens, rebuild):
    if special_tokens:
        tok.register_special_tokens(special_tokens)
    tok.gguf_family, tok.gguf_pre = family, pre
    tok.made_from = "a GGUF file (llama.cpp)"
    tok.name = name
    tok.rebuild = rebuild
    return tok
