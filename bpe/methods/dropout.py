"""BPE-dropout (Provilkov, Emelianenko and Voita, ACL 2020, arXiv 1910.13267).

Encoding as usual, except that at every merge step each merge that could apply is
dropped with probability p for that step; the best of the ones left is applied, and the
chunk is done when every candidate of a step was dropped. One text then has many
segmentations, all of which decode back to it (merges only join bytes).

Works on any tokenizer whose encode is merges within chunks: RegexTokenizer and
BasicTokenizer (merges by pair, minbpe's rule), RanksTokenizer / GPT4Tokenizer / the
bpe.reference ones (tiktoken's rule: the adjacent pair whose joined bytes have the
lowest rank), and the variants SuperBPE and BoundlessBPE (each stage as its encode runs
it). Picky BPE's removals are not merges, so a Picky tokenizer that removed tokens is
refused, and so is a Hugging Face pipeline (hf-bpe, any tokenizer.json), whose
pre-tokens and ids this loop does not replay. Special-token text is encoded as ordinary text. p = 0 runs the same loop
without dropping and gives exactly tok.encode_ordinary (the tests prove it).

>>> from bpe import RegexTokenizer
>>> tok = RegexTokenizer().train("aaabdaaabac", 259)
>>> dropout_encode(tok, "aaab", 0.0) == tok.encode("aaab")
True
"""
import random

from ..base import Tokenizer
from ..ranks_tokenizer import RanksTokenizer
from ..reference import LlamaTokenizer, llama_pieces
from ..text import clean_text
from .boundless import BoundlessTokenizer, lines
from .picky import PickyTokenizer
from .superbpe import SuperBPETokenizer, rank_of, stage2_words


def dropout_encode(tok, text, p, *, seed=None):
    """The ids of text with each applicable merge skipped with probability p per step."""
    if isinstance(p, bool) or not isinstance(p, (int, float)) or not 0 <= p < 1:
        raise ValueError(f"p must be a number in [0, 1): the chance of skipping each merge "
                         f"(0 is the ordinary encoding; 1 would never merge), not {p!r}")
    if not isinstance(text, str):
        raise TypeError(f"text must be a str, not {type(text).__name__}")
    if not isinstance(tok, Tokenizer):
        raise TypeError("dropout_encode needs a bpe tokenizer with merges (a RegexTokenizer, "
                        f"a RanksTokenizer, a SuperBPE or Boundless one), not {type(tok).__name__}")
    if has_pipeline(tok):
        raise ValueError(f"{tok.name} encodes through a Hugging Face pipeline (its own "
                         "pre-tokens, byte alphabet and ids), which BPE-dropout here does not "
                         "replay; for hf-bpe, save it as tokenizer.json and load it in "
                         "tokenizers with BPE(dropout=p), or train with the bpe method")
    if isinstance(tok, PickyTokenizer) and tok.removed:
        raise ValueError("this Picky BPE tokenizer removed tokens, and BPE-dropout drops merges "
                         "only; train it with tau=1 (plain BPE) to use dropout")
    rng = random.Random(seed)

    def merge(ids, rank):
        return dropout_merges(ids, rank, p, rng)

    text = clean_text(text)
    if isinstance(tok, SuperBPETokenizer):
        stage1 = rank_of({pair: i for pair, i in tok.merges.items() if i < tok.transition})
        stage2 = rank_of({pair: i for pair, i in tok.merges.items() if i >= tok.transition})
        ids = []
        for word in stage2_words(tok.split(text)):
            part = [i for chunk in word for i in merge(list(chunk.encode("utf-8")), stage1)]
            ids.extend(merge(part, stage2))
        return ids
    if isinstance(tok, BoundlessTokenizer):
        rank = rank_of(tok.merges)
        ids = []
        for line in lines(tok.split(text)):
            run = []
            for chunk in line:
                unit = merge(list(chunk.encode("utf-8")), rank)
                if len(unit) == 1 and len(line) > 1:
                    run.append(unit[0])
                    continue
                ids.extend(merge(run, rank) if run else [])
                run = []
                ids.extend(unit)
            ids.extend(merge(run, rank) if run else [])
        return ids
    byte_ids, rank = chunk_rule(tok)
    pieces = llama_pieces(text) if isinstance(tok, LlamaTokenizer) else [text]
    return [idx for piece in pieces for chunk in tok.split(piece)
            for idx in merge([byte_ids[b] for b in chunk.encode("utf-8")], rank)]


def has_pipeline(tok):
    """True for a tokenizer that encodes through a Hugging Face pipeline (hf-bpe,
    WordPiece, Unigram, any tokenizer.json or GGUF file): its pre-tokens and ids are the
    pipeline's, not merges over GPT-4's chunks of UTF-8 bytes."""
    return getattr(tok, "pipeline", None) is not None


def chunk_rule(tok):
    """(the id of each byte, rank_of(a, b)) by which tok merges within a chunk: tiktoken's
    rule for ranks (joined bytes' rank), minbpe's for merges (the pair's id)."""
    if isinstance(tok, RanksTokenizer):
        ranks, vocab = tok.ranks, tok.vocab

        def rank(a, b):
            return ranks.get(vocab[a] + vocab[b])
        return [ranks[bytes([b])] for b in range(256)], rank
    return list(range(256)), rank_of(tok.merges)


def dropout_merges(ids, rank_of, p, rng, on_merge=None):
    """Merge ids lowest rank first (leftmost on equal ranks), each candidate merge of a
    step dropped with probability p; stops when a step has none left. on_merge, if
    given, is called with each id made (residue counts them)."""
    ids = list(ids)
    while len(ids) >= 2:
        best = None
        best_i = -1
        for i in range(len(ids) - 1):
            r = rank_of(ids[i], ids[i + 1])
            if r is None or (p and rng.random() < p):
                continue
            if best is None or r < best:
                best = r
                best_i = i
        if best is None:
            break
        ids[best_i:best_i + 2] = [best]
        if on_merge is not None:
            on_merge(best)
    return ids
