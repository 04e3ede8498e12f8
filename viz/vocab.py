"""A tokenizer's vocabulary as one table: search, sort, one token's details, and which
tokens a sample text uses.

`vocab_frame` walks the vocabulary once (100k tokens for GPT-4: a few tenths of a
second), so the page builds it once per tokenizer and caches it; everything after that
is vectorized pandas on the frame. Nothing here imports streamlit or renders HTML.

>>> from bpe import BasicTokenizer
>>> frame = vocab_frame(BasicTokenizer().train("aaabdaaabac", 259))
>>> [str(v) for v in frame.loc[258, ["token", "pair", "merge", "count"]]]
['aaab', 'aaa + b', '3', '2']
"""
import time
from collections import Counter

import numpy as np
import pandas as pd
import regex

from bpe.health import is_whole_utf8  # the one definition; the page reads it from here
from bpe.patterns import safety
from viz.display import display_text

SORTS = {"id": "id", "length": "length", "merge count": "count"}
SEARCH_TIMEOUT = 4.0  # CPU seconds a regex search may take over the whole vocabulary (GPT-4's
#                      100k tokens take about 1 s); CPU, not wall, so a busy machine does
#                      not turn an ordinary search into a timeout


def visible(token: bytes) -> str:
    """A token's text on one line, as the lab shows it everywhere (viz.display.display_text,
    the one renderer): spaces as ·, tab →, newline ↵, invisible and control characters
    as named markers, bytes that are part of a character as hex. What the tables and the
    merge tree print, so ' the' and 'the' differ at a glance.

    >>> visible(b" the\\n"), visible("😉".encode()[:2]), visible(b"a\\x00")
    ('·the↵', '⟨f0 9f⟩', 'a⟨NUL⟩')
    """
    # display_text keeps a real line break after ↵ for running text; a cell is one line
    return display_text(token, whitespace="markers").replace("\n", "")


def vocab_numbers(tok):
    """One row per token, indexed by id, with no display text: id, length (bytes),
    left/right (the pair it was merged from), merge (its step k, from 1), count (pair
    occurrences when merged; <NA> if not recorded), children (tokens built on it),
    whole_chars, special. What a page needs for every token (figures, sort, filters); the
    text of a token is added only to the rows shown (with_text), since a visitor's
    vocabulary can hold 100k long HTML-shaped pieces and each is escaped when drawn."""
    parents = {idx: pair for pair, idx in tok.merges.items()}
    specials = set(tok.special_tokens.values())
    ids = sorted(tok.vocab)
    frame = pd.DataFrame({"id": ids, "length": [len(tok.vocab[idx]) for idx in ids],
                          "whole_chars": [is_whole_utf8(tok.vocab[idx]) for idx in ids]},
                         index=pd.Index(ids, name="idx"))
    frame["special"] = frame["id"].isin(specials)
    pairs = pd.DataFrame.from_dict(parents, orient="index", columns=["left", "right"])
    frame = frame.join(pairs.astype("Int64"))
    frame["merge"] = (frame["id"] - 255).where(frame["left"].notna()).astype("Int64")
    frame["count"] = pd.Series(tok.merge_counts, dtype="Int64").reindex(frame.index)
    # a token used as both halves of one pair ("a" + "a") has one child there, not two
    merged = frame.loc[frame["left"].notna(), ["left", "right"]]
    children = pd.concat([merged["left"],
                          merged["right"][merged["right"] != merged["left"]]]).value_counts()
    frame["children"] = children.reindex(frame.index, fill_value=0).astype(int)
    return frame[["id", "length", "left", "right", "merge", "count", "children",
                  "whole_chars", "special"]]


COLUMNS = ["id", "token", "text", "length", "hex", "left", "right", "pair", "merge", "count",
           "children", "whole_chars", "special"]


def with_text(tok, frame):
    """frame's rows (from vocab_numbers) with their display columns added, each token
    escaped once: token (visible), text (decoded, for search), hex, pair (visible).
    Costs one visible() per row and per distinct half of a pair, so a page calls it on
    the rows it shows, not on the vocabulary."""
    if "token" in frame.columns:
        return frame
    if tok is None:
        raise TypeError("this frame has no display text (vocab_numbers): pass tok")
    halves = {int(i) for column in ("left", "right") for i in frame[column].dropna()}
    shown = {idx: visible(tok.vocab[idx]) for idx in halves.union(frame.index)}
    out = frame.copy()
    # object columns: a pyarrow string column costs more to build than the rows shown
    out["token"] = pd.Series([shown[idx] for idx in frame.index], index=frame.index,
                             dtype=object)
    out["text"] = pd.Series([tok.vocab[idx].decode("utf-8", errors="replace")
                             for idx in frame.index], index=frame.index, dtype=object)
    out["hex"] = pd.Series([tok.vocab[idx].hex(" ") for idx in frame.index],
                           index=frame.index, dtype=object)
    out["pair"] = pd.Series([f"{shown[int(a)]} + {shown[int(b)]}" if pd.notna(a) else ""
                             for a, b in zip(frame["left"], frame["right"])],
                            index=frame.index, dtype=object)
    return out[COLUMNS + [c for c in frame.columns if c not in COLUMNS]]  # e.g. "uses"


def vocab_frame(tok):
    """Every token with its display text: vocab_numbers(tok) with with_text on all rows.
    Columns: id, token (visible), text (decoded, for search), length (bytes), hex,
    left/right, pair (visible), merge, count, children, whole_chars, special."""
    return with_text(tok, vocab_numbers(tok))


# characters that only the token column shows (markers for space, tab, newline, CR, and
# the ⟨⟩ around invisible characters' names and partial characters' hex)
MARKERS = frozenset("·→↵␍⟨⟩")


def search_column(query):
    """Which column a query is matched against: "token" (as the table shows it) when
    it holds a marker (· for a space, say), else "text" (the decoded token, so a typed
    space, \\n or \\s finds whitespace).

    >>> search_column("^·[a-z]{3}$"), search_column("^ [a-z]{3}$"), search_column("⟨NUL")
    ('token', 'text', 'token')
    """
    return "token" if MARKERS.intersection(query) else "text"


def search_tokens(frame, query, mode="substring", case=True, timeout=SEARCH_TIMEOUT, tok=None):
    """The rows whose token contains query ("substring") or matches the regex query
    anywhere ("regex"), as it is displayed: a query with a marker in it (· ↵ → ␍ ⟨⟩) is
    matched against the token column as shown, else against the decoded text (see
    search_column). An empty query keeps every row. A frame without display text
    (vocab_numbers) is searched through tok's vocabulary, one row at a time.
    ValueError for an invalid regex, TimeoutError if the regex takes longer than timeout
    CPU seconds over the whole vocabulary (catastrophic backtracking).

    >>> from bpe import BasicTokenizer
    >>> frame = vocab_frame(BasicTokenizer().train("aaabdaaabac", 259))
    >>> search_tokens(frame, "a{3}", "regex")["id"].tolist()
    [257, 258]
    >>> search_tokens(frame, "^·$", "regex")["id"].tolist()  # the space byte, shown as ·
    [32]
    """
    if not query:
        return frame
    column = _search_texts(frame, search_column(query), tok)
    if mode == "substring":
        if not case:
            query = query.casefold()
        return frame[np.array([query in (text if case else text.casefold()) for text in column],
                              dtype=bool)]
    if mode != "regex":
        raise ValueError(f"mode must be 'substring' or 'regex', not {mode!r}")
    try:
        # a visitor's regex: bounded before it compiles, kept out of regex's cache
        compiled = safety.compile_checked(query, 0 if case else regex.IGNORECASE, what="regex")
    except ValueError as e:
        raise ValueError(f"{e}. Fix it, or switch to substring search to find the text as "
                         "typed.") from None
    # the budget is this thread's CPU time (the server's other sessions run in their own
    # threads); regex's own per-call timeout is wall time, so it can only stop a call sooner
    deadline = time.thread_time() + timeout
    mask = []
    for text in column:
        left = deadline - time.thread_time()
        if left <= 0:
            raise TimeoutError("regex timed out")
        # concurrent: the server's other sessions run while this one searches
        mask.append(compiled.search(text, concurrent=True, timeout=left) is not None)
    return frame[np.array(mask, dtype=bool)]


def _search_texts(frame, name, tok):
    """The strings a search runs over: frame[name] when the frame has it, else each row's
    token as decoded text ("text") or as shown ("token"), made as the search walks."""
    if name in frame.columns:
        return frame[name]
    if tok is None:
        raise TypeError("this frame has no display text (vocab_numbers): pass tok= to search it")
    if name == "text":
        return (tok.vocab[idx].decode("utf-8", errors="replace") for idx in frame.index)
    return (visible(tok.vocab[idx]) for idx in frame.index)


def empty_columns(frame):
    """The columns with nothing to show for this tokenizer: "count" when no merge counts
    were recorded (GPT-4, .model files), and the merge columns when it has no merges at
    all (a SentencePiece model), so the table does not show a column of "None".

    >>> from bpe import BasicTokenizer
    >>> empty_columns(vocab_frame(BasicTokenizer()))
    ['count', 'pair', 'merge', 'children']
    """
    empty = [] if frame["count"].notna().any() else ["count"]
    if frame["merge"].isna().all():
        empty += ["pair", "merge", "children"]
    return empty


def sort_tokens(frame, by="id", descending=False):
    """frame sorted by "id", "length" or "merge count"; tokens without a count go last.

    >>> from bpe import BasicTokenizer
    >>> frame = vocab_frame(BasicTokenizer().train("aaabdaaabac", 259))
    >>> sort_tokens(frame, "length", descending=True)["id"].tolist()[:2]
    [258, 257]
    """
    if by not in SORTS:
        raise ValueError(f"sort by one of {sorted(SORTS)}, not {by!r}")
    # a stable sort keeps ids ascending among equal keys, so the order is reproducible
    return frame.sort_values(SORTS[by], ascending=not descending, kind="stable",
                             na_position="last")


def token_detail(frame, idx, tok=None):
    """One token's row as a dict of plain values (None where missing) plus "built_on":
    the rows of the tokens made from it (as frame has them: with_text them to show).
    A frame without display text (vocab_numbers) gets this one row's from tok.
    KeyError with the valid range for an id not in the vocabulary."""
    if idx not in frame.index:
        raise KeyError(f"no token with id {idx}: ids run from {frame.index.min()} to "
                       f"{frame.index.max()}")
    # plain Python values: None for a missing pair or count, int rather than numpy ints
    detail = {name: None if pd.isna(value) else
              value.item() if hasattr(value, "item") else value
              for name, value in with_text(tok, frame.loc[[idx]]).loc[idx].items()}
    built_on = (frame["left"] == idx) | (frame["right"] == idx)
    detail["built_on"] = frame[built_on.fillna(False)]
    return detail


def text_usage(tok, frame, text):
    """Which tokens text uses: (frame of the used tokens with a "uses" column, most used
    first; the number of ordinary tokens the text never touches).

    >>> from bpe import BasicTokenizer
    >>> tok = BasicTokenizer().train("aaabdaaabac", 259)
    >>> used, untouched = text_usage(tok, vocab_frame(tok), "aaab")
    >>> used["uses"].to_dict(), untouched
    ({258: 1}, 258)
    """
    uses = Counter(tok.encode_ordinary(text))
    used = frame.loc[list(uses)].copy()
    used["uses"] = [uses[idx] for idx in used.index]
    used = used.sort_values(["uses", "id"], ascending=[False, True], kind="stable")
    ordinary = int((~frame["special"]).sum())
    return used, ordinary - len(uses)
