"""Residue (LiteToken, Sun et al. 2026, arXiv 2602.04706): which tokens are mostly
scaffolding, made on the way to bigger tokens and rarely left standing.

For every merged token over a corpus: F_final, how often it is an output token, and
F_intermediate, how often encoding made it and then merged it further; the paper's
ratio R = F_final / (F_final + F_intermediate). Low R with many intermediate uses marks
an intermediate merge residue ("leftover" token).

How it counts: the texts are split into chunks, each distinct chunk is encoded once and
its count multiplies its tokens (o200k over samples/arena takes well under a second).
Every output token's merge tree is walked once per count, from the largest id down
(a token's parts always have smaller ids, in trained merges and in tiktoken ranks alike),
so a node's intermediate count is how often it was made minus how often it was output.
Tokenizers whose encode is not per chunk (SuperBPE, BoundlessBPE, Llama's cut) are
encoded text by text instead. Bytes are not merged tokens and get no R.

Threshold: the paper calls a token a residue when its R is low on a reference corpus
(it also filters by neighbor entropy). The exact cut-off could not be checked against
the paper's text here, so LEFTOVER_R = 0.1 is this lab's choice, named and passed
explicitly; its 5-10% share for o200k, Llama 3 and Qwen is over a large web corpus, not
the lab's small samples.

>>> from bpe import RegexTokenizer
>>> tok = RegexTokenizer().train("aaabdaaabac", 259)
>>> residue(tok, ["aaabdaaabac"])[256]
(0, 2, 0.0)
"""
from collections import Counter

from ..reference import LlamaTokenizer, llama_pieces
from .boundless import BoundlessTokenizer
from .dropout import chunk_rule, dropout_merges, has_pipeline
from .superbpe import SuperBPETokenizer

LEFTOVER_R = 0.1


def residue(tok, texts):
    """idx -> (final, intermediate, R) for every merged token used over texts (an
    iterable of str, or one str); R is None for a token never made."""
    if isinstance(texts, str):
        texts = [texts]
    final = Counter()
    if isinstance(tok, (SuperBPETokenizer, BoundlessTokenizer)) or has_pipeline(tok):
        # subtle: their encode is not merges within GPT-4's chunks (stages across chunks;
        # a Hugging Face pipeline's own pre-tokens and id layout), so the output tokens'
        # merge trees are walked instead of replaying each chunk
        if not tok.merges:
            raise ValueError(f"{tok.name} has no merges (WordPiece and Unigram keep pieces), "
                             "so no token is made on the way to another: residue needs BPE")
        for text in texts:
            final.update(tok.encode_ordinary(text))
        return _from_trees(final, {idx: pair for pair, idx in tok.merges.items()})
    # replay each distinct chunk once, counting every token made on the way
    made = Counter()
    chunks = Counter()
    for text in texts:
        pieces = llama_pieces(text) if isinstance(tok, LlamaTokenizer) else [text]
        for piece in pieces:
            chunks.update(tok.split(piece))
    byte_ids, rank = chunk_rule(tok)
    for chunk, count in chunks.items():
        seen = Counter()
        ids = dropout_merges([byte_ids[b] for b in chunk.encode("utf-8")], rank, 0, None,
                             lambda idx: seen.update((idx,)))
        for idx in ids:
            final[idx] += count
        for idx, n in seen.items():
            made[idx] += n * count
    return _table(final, made)


def _from_trees(final, parents):
    """made counts from the output tokens' merge trees (parts have smaller ids)."""
    made = Counter({idx: n for idx, n in final.items() if idx in parents})
    # subtle: largest id first, so a token's count reaches its parts before they are read
    for idx in _descending(made, parents):
        n = made[idx]
        for part in parents[idx]:
            if part in parents:
                made[part] += n
    return _table(final, made)


def _table(final, made):
    out = {}
    for idx in sorted(made):
        total = made[idx]
        if total:
            f = final.get(idx, 0)
            out[idx] = (f, total - f, f / total)
    return out


def _descending(made, parents):
    """The ids of made and every id below them in the merge trees, largest first; made
    grows as the walk goes, so the order is fixed up front from the trees."""
    seen = set()
    stack = list(made)
    while stack:
        idx = stack.pop()
        if idx in seen or idx not in parents:
            continue
        seen.add(idx)
        stack.extend(parents[idx])
    return sorted(seen, reverse=True)


def leftover_share(data, threshold=LEFTOVER_R):
    """The share of the merged tokens seen in data (residue's result) whose R is below
    threshold: the leftover intermediate tokens.

    >>> leftover_share({256: (0, 2, 0.0), 257: (5, 0, 1.0)})
    0.5
    """
    if not data:
        return 0.0
    return sum(1 for _, _, r in data.values() if r < threshold) / len(data)
