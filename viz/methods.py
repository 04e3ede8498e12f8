"""What the Methods page shows about tokenizers made by different methods, as data: the
report card (one row per method), the blame table (bpe.methods.blame's charges, one row
per vocabulary entry), and, for a method without merges (Unigram, WordPiece), its pieces
and scores in place of a merge table.

The report card's measures, on one text:
- bytes/token: UTF-8 bytes of the text per token;
- tokens/word: tokens per word, a word being a run of letters and digits (\\w+);
- split words: the share of those words a token boundary cuts inside (a token starting
  after the word's first character);
- unique tokens: distinct ids the text uses;
- Gini: of tokens per byte across the Arena's languages (0: every language costs the
  same per byte; bpe.methods.parity.gini);
- residue share: the share of the merged tokens used on the text that are leftovers
  (R below bpe.methods.residue.LEFTOVER_R), for methods with merges.
Token boundaries come from the tokenizer's own spans where it has them (tokenizers that
normalize, as WordPiece lowercases, cannot be lined up by decoded bytes), else from the
decoded bytes of each token. Pure: no streamlit, no training.
"""
import re

import pandas as pd

from bpe import methods
from bpe.formats.hf.models import Unigram
from bpe.methods import unigram
from bpe.methods.parity import gini
from bpe.methods.residue import LEFTOVER_R, leftover_share
from viz.vocab import visible

WORD = re.compile(r"\w+")
CARD_COLUMNS = ("method", "bytes/token", "tokens/word", "split words", "unique tokens",
                "Gini across languages", "residue share")
CARD_HELP = {
    "bytes/token": "UTF-8 bytes of the measured text per token: higher packs more text "
                   "into each token",
    "tokens/word": "tokens per word (a run of letters and digits)",
    "split words": "the share of words a token boundary cuts inside",
    "unique tokens": "distinct tokens the measured text uses",
    "Gini across languages": "inequality of tokens per byte across the Arena's languages: "
                             "0 when every language costs the same per byte",
    "residue share": f"the share of the merged tokens used whose R (LiteToken) is below "
                     f"{LEFTOVER_R}: made mostly on the way to bigger tokens; empty for "
                     "a method without merges",
}


def has_merges(tok):
    """True if tok was built by merges (Unigram and WordPiece keep pieces instead)."""
    return len(tok.merge_columns()[0]) > 0  # a tokenizer.json's merges build no dict


def token_starts(tok, text):
    """(number of tokens, sorted character offsets in text where a non-empty token
    starts), for text encoded as ordinary text.

    >>> from bpe import BasicTokenizer
    >>> token_starts(BasicTokenizer(), "hé!")
    (4, [0, 1, 1, 2])
    """
    if hasattr(tok, "token_spans"):  # a normalizing tokenizer maps tokens to its input
        spans = tok.token_spans(text, allowed_special=set(), disallowed_special=())
        return len(spans), sorted(start for start, end in spans if end > start)
    ids = tok.encode_ordinary(text)
    char_at = []  # byte offset -> the character it belongs to
    for i, ch in enumerate(text):
        char_at.extend([i] * len(ch.encode("utf-8")))
    return len(ids), [char_at[b] for b in tok.token_byte_offsets(ids) if b < len(char_at)]


def split_words(starts, text):
    """(words, words cut inside) for the \\w+ words of text, given token starts.

    >>> split_words([0, 2, 3, 6], "hello you")
    (2, 1)
    """
    starts = sorted(set(starts))
    words = cut = 0
    i = 0
    for match in WORD.finditer(text):
        words += 1
        while i < len(starts) and starts[i] <= match.start():
            i += 1
        if i < len(starts) and starts[i] < match.end():
            cut += 1
    return words, cut


def tokens_per_byte(tok, text):
    n_bytes = len(text.encode("utf-8"))
    return len(tok.encode_ordinary(text)) / n_bytes if n_bytes else 0.0


def card_row(method, tok, text, arena):
    """One report card row for tok (trained by method), measured on text; the Gini
    over arena (label -> text), None without one."""
    n_tokens, starts = token_starts(tok, text)
    words, cut = split_words(starts, text)
    n_bytes = len(text.encode("utf-8"))
    costs = [tokens_per_byte(tok, sample) for sample in arena.values() if sample]
    return {
        "method": method,
        "bytes/token": n_bytes / n_tokens if n_tokens else 0.0,
        "tokens/word": n_tokens / words if words else None,
        "split words": cut / words if words else None,
        "unique tokens": len(set(tok.encode_ordinary(text))),
        "Gini across languages": gini(costs) if len(costs) > 1 else None,
        "residue share": leftover_share(methods.residue(tok, [text]))
        if has_merges(tok) else None,
    }


def report_card(toks, text, arena):
    """One row per method (toks: method -> tokenizer), measured on text, the Gini across
    arena (label -> text)."""
    if not text:
        raise ValueError("the report card needs some text to measure the tokenizers on")
    return [card_row(method, tok, text, arena) for method, tok in toks.items()]


def card_frame(card, seconds=None):
    """The report card as a table: one row per method, the measures rounded for reading,
    with each method's training time (CPU seconds) when seconds (method -> s) is given.

    >>> card_frame([{"method": "a", "bytes/token": 3.14159, "split words": 0.5}], {"a": 1.25}).to_dict("records")
    [{'method': 'a', 'bytes/token': 3.14, 'split words': '50.0%', 'training (CPU s)': 1.2}]
    """
    frame = pd.DataFrame(card)
    for column in ("bytes/token", "tokens/word"):
        if column in frame:
            frame[column] = frame[column].round(2)
    for column in ("split words", "residue share"):
        if column in frame:
            frame[column] = [None if v is None or v != v else f"{v:.1%}" for v in frame[column]]
    if "Gini across languages" in frame:
        frame["Gini across languages"] = frame["Gini across languages"].round(3)
    if seconds:
        frame["training (CPU s)"] = [round(seconds.get(m, 0.0), 1) for m in frame["method"]]
    return frame


def best_of(card):
    """column -> the method that does best on it (higher bytes/token; lower everything
    else but unique tokens, which has no better side), for the page to mark.

    >>> best_of([{"method": "a", "bytes/token": 3.0, "Gini across languages": 0.2},
    ...          {"method": "b", "bytes/token": 4.0, "Gini across languages": 0.1}])
    {'bytes/token': 'b', 'Gini across languages': 'b'}
    """
    best = {}
    for column in CARD_COLUMNS[1:]:
        if column == "unique tokens":
            continue
        rows = [r for r in card if r.get(column) is not None]
        if len(rows) < 2:
            continue
        pick = max if column == "bytes/token" else min
        best[column] = pick(rows, key=lambda r: r[column])["method"]
    return best


# ------------------------------------------------------------------ blame
def blame_rows(result, name_a="A", name_b="B", limit=None):
    """The charges of a bpe.methods.blame result, largest first: which vocabulary entry,
    whose it is, what the other side must do with it, and the tokens it is charged.

    >>> from collections import namedtuple
    >>> B = namedtuple("B", "difference charges spans")
    >>> blame_rows(B(3, {("B", b" the"): 4, ("A", b"ing"): -1}, []), "x", "y")[0]
    {'entry': '·the', 'in': 'y', 'charged': 4, 'meaning': 'x splits it: 4 more tokens for x'}
    """
    rows = []
    for (side, token), charge in result.charges.items():
        owner, other = (name_b, name_a) if side == "B" else (name_a, name_b)
        extra = abs(charge)
        rows.append({"entry": visible(token), "in": owner, "charged": charge,
                     "meaning": f"{other} splits it: {extra:,} more token"
                                f"{'s' if extra != 1 else ''} for {other}"})
    rows.sort(key=lambda r: (-abs(r["charged"]), r["entry"]))
    return rows[:limit] if limit else rows


def blame_sum(result):
    """(sum of the charges, the token difference, whether they agree): the check the page
    shows under the blame table.

    >>> from collections import namedtuple
    >>> blame_sum(namedtuple("B", "difference charges spans")(3, {("B", b"a"): 4, ("A", b"b"): -1}, []))
    (3, 3, True)
    """
    total = sum(result.charges.values())
    return total, result.difference, total == result.difference


# ------------------------------------------------------------------ no merges
def pieces_rows(tok, limit=None):
    """A tokenizer's pieces for the pages that show merges: id, piece, and score where its
    model keeps one. A Unigram's learned pieces come best first, by score (their log
    probability, bpe.methods.unigram.piece_scores), without <unk>, the special tokens and
    the 256 byte-fallback pieces; any other tokenizer's pieces come in id order."""
    if isinstance(getattr(tok, "model", None), Unigram):  # a tokenizer.json's Unigram
        ids = {token: idx for idx, token in tok.vocab.items()}
        rows = [{"id": ids[piece.encode("utf-8")], "piece": visible(piece.encode("utf-8")),
                 "score": round(score, 4)}
                for piece, score in unigram.piece_scores(tok).items()
                if piece.encode("utf-8") in ids]
        return rows[:limit] if limit is not None else rows
    return [{"id": idx, "piece": visible(tok.vocab[idx])}
            for idx in sorted(tok.vocab)[:limit]]


def no_merges_message(name):
    """What Merge replay and Merge tree say about a tokenizer without merges."""
    return (f"{name} has no merges: it was not built pair by pair (a Unigram model keeps "
            "pieces with scores and picks the most likely split; WordPiece takes the "
            "longest piece it knows), so there is nothing to replay or draw as a tree. "
            "Its pieces, and their scores where it has them, are listed instead.")


__all__ = ["CARD_COLUMNS", "CARD_HELP", "best_of", "card_frame", "blame_rows", "blame_sum", "card_row",
           "has_merges", "no_merges_message", "pieces_rows", "report_card", "split_words",
           "token_starts", "tokens_per_byte"]
