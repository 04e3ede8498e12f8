"""A GGUF file's tokenizer: the object that gives llama.cpp's ids, built from the
tokenizer.json that bpe.formats.gguf_families writes for it.

`tokenizer_from_gguf(info)` takes the data bpe.formats.gguf reads (a GGUFTokenizer),
has it mapped to a tokenizer.json (gguf_families.document: a BPE model's vocab and
merges read from the packed arrays a slice at a time) and builds that with
bpe.hf_tokenizer, then puts back what a tokenizer.json cannot say of llama.cpp: a t5
file's Unigram runs as llama.cpp runs it (bpe.sentencepiece_unigram), a llama file's
merges rank by the made piece's score (equal scores equal), and the tokenizer carries
`gguf_family` and `gguf_pre` for the app to show. `rebuild_gguf` is the same build from
the document, for pickle. It reads no file (bpe.loading opens them) and parses no GGUF
bytes.
"""
import functools
import os
from array import array

from . import sentencepiece_unigram
from .formats.gguf_families import document
from .formats.gguf_parts import by_score
from .hf_tokenizer import tokenizer_from_hf


def tokenizer_from_gguf(info, source="file"):
    """A GGUFTokenizer (bpe.formats.gguf: data) -> the tokenizer llama.cpp runs, with its
    family and split's name as gguf_family and gguf_pre (for the app to show)."""
    doc = document(info, os.path.basename(source))
    scores = info.scores if info.model == "llama" else None
    return rebuild_gguf(info.model, info.pre, scores, doc, os.path.basename(source), None)


def rebuild_gguf(family, pre, scores, document, name, special_tokens):
    """The tokenizer of a GGUF file from its tokenizer.json (gguf_families.tokenizer_json),
    family, pre and (llama family) scores: what tokenizer_from_gguf builds, and what pickle
    calls to build it again (HFTokenizer.__reduce__ hands it the document, name and specials)."""
    tok = tokenizer_from_hf(document, source=name)
    if family == "t5":  # llama.cpp's Unigram, not tokenizers' (bpe.sentencepiece_unigram)
        sentencepiece_unigram.run_as_llama_cpp(tok, document)
    if scores is not None:
        rank_by_score(tok.model, scores)
    if special_tokens:
        tok.register_special_tokens(special_tokens)
    tok.gguf_family, tok.gguf_pre = family, pre
    tok.made_from = "a GGUF file (llama.cpp)"
    tok.name = name
    tok.rebuild = functools.partial(rebuild_gguf, family, pre, scores)
    return tok


def rank_by_score(model, scores):
    """SentencePiece's merge order in an HF BPE model: a merge ranks by the score of the
    piece it makes, equal scores equal, so among them the leftmost merges first (llama.cpp's
    queue orders by score, then position), where a tokenizer.json ranks each pair apart.
    A score's rank is how many distinct scores of the file's tokens are higher, read off
    the ids in score order (gguf_parts.by_score: no set or dict of every score, which
    were 5 x Llama 2's file)."""
    rank_of, rank, last = array("i", bytes(4 * len(scores))), -1, None
    for idx in by_score(scores):
        score = scores[idx]
        if score != last:
            rank, last = rank + 1, score
        rank_of[idx] = rank
    model.ranks = array("i", map(rank_of.__getitem__, model.made))
