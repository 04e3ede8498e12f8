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
    vocabulary can hold 100k long HTML-shaped pieces and each is escaped when drawn.

    The table is kept for as long as its tokenizer (lab.derived), so its columns are as
    narrow as their values allow (issue 32): 32-bit ids, lengths and children when they
    fit, nullable 32-bit pairs and merges, 64-bit counts: about 42 bytes a token, 18 when
    it has no merges (see _nullable).

    >>> from bpe import BasicTokenizer
    >>> frame = vocab_numbers(BasicTokenizer().train("aaabdaaabac", 259))
    >>> frame.loc[256:, ["left", "right", "merge", "children"]].to_dict("list")
    {'left': [97, 256, 257], 'right': [97, 97, 98], 'merge': [1, 2, 3], 'children': [1, 1, 0]}
    """
    keys = sorted(tok.vocab)  # the vocab's own int objects: a list, not 100k new ints
    narrow = np.int32 if not keys or keys[-1] < 2**31 else np.int64
    ids = np.array(keys, dtype=narrow)
    lengths = np.fromiter((len(tok.vocab[idx]) for idx in keys), dtype=np.int32,
                          count=len(keys))
    whole = np.fromiter((is_whole_utf8(tok.vocab[idx]) for idx in keys), dtype=bool,
                        count=len(keys))
    del keys
    special = np.isin(ids, np.fromiter(tok.special_tokens.values(), dtype=np.int64))
    # each merged token's row, and the rows of its two halves (a merge whose token or halves
    # are not in the vocabulary has no row to show it on, as before)
    # columns, not a dict and a tuple per merge (issue 32: a visitor's 100,000 merges cost
    # ~30 MB here that way, the page's peak)
    made, lefts, rights = (np.frombuffer(column, dtype=np.int64) if len(column) else
                           np.zeros(0, dtype=np.int64) for column in tok.merge_columns())
    at, found = _positions(ids, made)
    made_at, lefts, rights = at[found], lefts[found], rights[found]
    has_pair = np.zeros(len(ids), dtype=bool)
    has_pair[made_at] = True
    left = np.zeros(len(ids), dtype=narrow)
    right = np.zeros(len(ids), dtype=narrow)
    left[made_at], right[made_at] = lefts, rights
    counted = np.fromiter(tok.merge_counts, dtype=np.int64, count=len(tok.merge_counts))
    count_at, count_found = _positions(ids, counted)
    counts = np.zeros(len(ids), dtype=np.int64)
    counts[count_at[count_found]] = np.fromiter(tok.merge_counts.values(), dtype=np.int64,
                                                count=len(counted))[count_found]
    has_count = np.zeros(len(ids), dtype=bool)
    has_count[count_at[count_found]] = True
    # a token used as both halves of one pair ("a" + "a") has one child there, not two
    halves = np.concatenate([lefts, rights[rights != lefts]])
    half_at, half_found = _positions(ids, halves)
    children = np.bincount(half_at[half_found], minlength=len(ids)).astype(np.int32)
    index = pd.Index(ids, name="idx")
    return pd.DataFrame({
        "id": ids, "length": lengths,
        "left": _nullable(left, has_pair), "right": _nullable(right, has_pair),
        "merge": _nullable((ids - 255).astype(narrow), has_pair),
        "count": _nullable(counts, has_count),
        "children": children, "whole_chars": whole, "special": special}, index=index,
        copy=False)  # the arrays are this function's own: no second copy at the peak


def _nullable(values, present):
    """A nullable integer column of values where present. One with no value at all (a
    vocabulary without merges has no pairs; most files record no counts) is a read-only
    view of one 0 and one "missing" rather than n of each: the table is shared and never
    written, and such a column would be 24 of its 42 bytes a token for a Unigram file."""
    if not present.any():
        return pd.arrays.IntegerArray(np.broadcast_to(values.dtype.type(0), len(values)),
                                      np.broadcast_to(True, len(values)))
    return pd.arrays.IntegerArray(values, ~present)


def _positions(ids, wanted):
    """(where each of wanted would sit in the sorted ids, whether it is there): a lookup by
    binary search, so the shared table's index never builds pandas' hash table (2 MB for
    100k ids, kept on the table for as long as it lives)."""
    wanted = np.asarray(wanted, dtype=np.int64)
    at = np.searchsorted(ids, wanted)
    found = np.zeros(len(wanted), dtype=bool)
    inside = at < len(ids)
    found[inside] = ids[at[inside]] == wanted[inside]
    return at, found


def has_token(frame, idx):
    """Whether frame (indexed by id, in id order) has a row for token idx."""
    return bool(_positions(frame["id"].to_numpy(), [idx])[1][0])


def rows_of(frame, ids):
    """frame's rows for ids, in that order (frame indexed by id, in id order), found by
    binary search rather than frame.loc (see _positions). KeyError for an id not in it."""
    at, found = _positions(frame["id"].to_numpy(), ids)
    if not found.all():
        idx = int(np.asarray(ids)[~found][0])
        raise KeyError(f"no token with id {idx}: ids run from {frame.index.min()} to "
                       f"{frame.index.max()}")
    return frame.iloc[at]


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


def sort_tokens(frame, by="id", descending=False, limit=None):
    """frame sorted by "id", "length" or "merge count"; tokens without a count go last.
    limit: only the first limit rows of that order (what a page shows), taken without
    sorting a copy of the whole frame: a frame already in id order is sliced, any other
    order is an argsort of one column, and only the rows kept are copied.

    >>> from bpe import BasicTokenizer
    >>> frame = vocab_frame(BasicTokenizer().train("aaabdaaabac", 259))
    >>> sort_tokens(frame, "length", descending=True)["id"].tolist()[:2]
    [258, 257]
    >>> sort_tokens(frame, "merge count", descending=True, limit=3)["id"].tolist()
    [256, 257, 258]
    """
    if by not in SORTS:
        raise ValueError(f"sort by one of {sorted(SORTS)}, not {by!r}")
    if limit is not None and (isinstance(limit, bool) or not isinstance(limit, int)
                              or limit < 0):
        raise ValueError(f"limit must be a whole number of rows, 0 or more, not {limit!r}")
    key = frame[SORTS[by]]
    if by == "id" and not descending and key.is_monotonic_increasing:
        return frame if limit is None else frame.iloc[:limit]
    # what pandas' stable sort_values does, on numpy: missing keys last, equal keys in the
    # frame's order (ids ascending), descending included
    missing = key.isna().to_numpy()
    values = key.to_numpy(dtype=np.int64, na_value=0)
    order = np.lexsort((-values if descending else values, missing))
    return frame.iloc[order if limit is None else order[:limit]]


def token_detail(frame, idx, tok=None):
    """One token's row as a dict of plain values (None where missing) plus "built_on":
    the rows of the tokens made from it (as frame has them: with_text them to show).
    A frame without display text (vocab_numbers) gets this one row's from tok.
    KeyError with the valid range for an id not in the vocabulary."""
    row = rows_of(frame, [idx])
    # plain Python values: None for a missing pair or count, int rather than numpy ints
    detail = {name: None if pd.isna(value) else
              value.item() if hasattr(value, "item") else value
              for name, value in with_text(tok, row).iloc[0].items()}
    built_on = (frame["left"].eq(idx) | frame["right"].eq(idx)).to_numpy(dtype=bool,
                                                                          na_value=False)
    detail["built_on"] = frame[built_on]
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
    # the used rows only: sorted by how often, then id, before any row is copied
    ranked = sorted(uses, key=lambda idx: (-uses[idx], idx))
    used = rows_of(frame, ranked).copy()
    used["uses"] = [uses[idx] for idx in ranked]
    ordinary = int((~frame["special"]).sum())
    return used, ordinary - len(uses)
