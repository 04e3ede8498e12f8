"""A report card for a tokenizer: the figures nanochat, CS336 and tokka-bench put on one.

For one text through one tokenizer (`measure`), and for several texts together (`total`):

- bytes per token: UTF-8 bytes / tokens (higher packs more text into each token);
- the relative difference in tokens from a reference, as nanochat prints it:
  (reference tokens - tokens) / reference tokens, so +10% means 10% fewer tokens;
- tokens per word ("fertility") and the share of words cut into two or more tokens;
- unique tokens used;
- the share of leftover tokens (`leftovers`: LiteToken's residue, bpe.methods.residue):
  merged tokens the texts make mostly on the way to bigger ones, R below LEFTOVER_R;
- and, for a whole vocabulary, the share of its tokens in each script (`script_shares`).

Words are counted by one rule, `count_words`: text is cut at whitespace, and inside each
piece every Han, Hiragana, Katakana or Hangul character is a word of its own (those
scripts do not put spaces between words, or, for Korean, between the syllables a
tokenizer sees), while each run of other characters between them is one word. So
"Hello, 世界!" is 4 words: "Hello,", "世", "界", "!".

Text is encoded with special-token text as ordinary text, as every owner's library does
by default. `throughput` times encoding on this machine and `pile_time` extrapolates it.
Pure: no streamlit, pandas or altair; it reads nothing from disk.

>>> from bpe import BasicTokenizer
>>> row = measure(BasicTokenizer(), "hi there", tokenizer="basic", file="t")
>>> row.bytes, row.tokens, row.words, row.bytes_per_token, row.words_split
(8, 8, 2, 1.0, 1.0)
"""
import time
from dataclasses import dataclass, field

import regex

from .methods import residue
from .methods.residue import LEFTOVER_R, leftover_share

# one word per character of these scripts; runs of anything else (not whitespace) are words
CJK = r"\p{Han}\p{Hiragana}\p{Katakana}\p{Hangul}"
WORD = regex.compile(rf"[{CJK}]|[^\s{CJK}]+")
PILE_BYTES = 825 * 10**9  # the Pile, as CS336 sizes it: 825 GB
# the scripts script_shares names, in the order it reports them; the rest are "Other"
SCRIPTS = ("Latin", "Cyrillic", "Greek", "Arabic", "Hebrew", "Devanagari", "Bengali",
           "Tamil", "Thai", "Han", "Hiragana", "Katakana", "Hangul")
_SCRIPT_RES = [(name, regex.compile(rf"\p{{Script={name}}}")) for name in SCRIPTS]
JSON_KEYS = ("tokenizer", "file", "bytes", "tokens", "words", "bytes_per_token",
             "tokens_per_word", "words_split", "unique_tokens")


def count_words(text):
    """The number of words in text by this module's rule (see the module docstring).

    >>> count_words("Hello, 世界!"), count_words("  two  words\\n"), count_words("")
    (4, 2, 0)
    """
    return sum(1 for _ in WORD.finditer(text))


def word_spans(text):
    """(start, end) byte offsets of each word in text's UTF-8 bytes, in order.

    >>> word_spans("ab 世界")
    [(0, 2), (3, 6), (6, 9)]
    """
    spans, pos, byte_pos = [], 0, 0
    for m in WORD.finditer(text):
        byte_pos += len(text[pos:m.start()].encode("utf-8", "surrogatepass"))
        end = byte_pos + len(m.group().encode("utf-8", "surrogatepass"))
        spans.append((byte_pos, end))
        pos, byte_pos = m.end(), end
    return spans


def count_split_words(spans, token_bytes):
    """How many word spans (byte offsets) are covered by two or more tokens (bytes each).

    >>> count_split_words([(0, 2), (3, 5)], [b"ab", b" c", b"d"])
    1
    """
    split, ends, end = 0, [], 0
    for token in token_bytes:
        end += len(token)
        ends.append(end)
    t = 0  # the first token that ends after the word's start
    for start, stop in spans:
        while t < len(ends) and ends[t] <= start:
            t += 1
        if t < len(ends) and ends[t] < stop:  # the token ends inside the word: cut
            split += 1
    return split


@dataclass
class Row:
    """One tokenizer on one text (or on several, from `total`)."""
    tokenizer: str
    file: str
    bytes: int
    tokens: int
    words: int
    split: int            # words covered by two or more tokens
    ids: set = field(default_factory=set, repr=False)  # the distinct ids used

    @property
    def bytes_per_token(self):
        return self.bytes / self.tokens if self.tokens else 0.0

    @property
    def tokens_per_word(self):
        return self.tokens / self.words if self.words else 0.0

    @property
    def words_split(self):
        """The share of words cut into two or more tokens, 0 to 1."""
        return self.split / self.words if self.words else 0.0

    @property
    def unique_tokens(self):
        return len(self.ids)

    def as_dict(self):
        """The row under JSON_KEYS, as `python -m bpe eval --json` prints it."""
        return {key: getattr(self, key) for key in JSON_KEYS}


def measure(tok, text, *, tokenizer, file):
    """Row of figures for text through tok (special-token text encoded as text).
    tokenizer and file are the names the row carries."""
    ids = tok.encode(text, allowed_special="none")
    token_bytes = tok.decode_tokens_bytes(ids)
    text_bytes = text.encode("utf-8", "surrogatepass")
    if b"".join(token_bytes) != text_bytes:
        raise ValueError(f"{tokenizer}'s tokens do not give back the text of {file}, so "
                         "its words cannot be matched to tokens; evaluate it on text it "
                         "round-trips (decode(encode(text)) == text)")
    return Row(tokenizer, file, len(text_bytes), len(ids), count_words(text),
               count_split_words(word_spans(text), token_bytes), set(ids))


def total(rows, *, file="total"):
    """One tokenizer's rows summed into one: bytes, tokens, words and split words added,
    unique tokens counted over all of them.

    >>> from bpe import BasicTokenizer
    >>> tok = BasicTokenizer()
    >>> t = total([measure(tok, "ab", tokenizer="b", file="1"),
    ...            measure(tok, "bc", tokenizer="b", file="2")])
    >>> t.bytes, t.tokens, t.unique_tokens
    (4, 4, 3)
    """
    rows = list(rows)
    if not rows:
        raise ValueError("total needs at least one row")
    ids = set().union(*(row.ids for row in rows))
    return Row(rows[0].tokenizer, file, sum(r.bytes for r in rows), sum(r.tokens for r in rows),
               sum(r.words for r in rows), sum(r.split for r in rows), ids)


def relative_diff(tokens, reference_tokens):
    """nanochat's relative difference: (reference - ours) / reference, in percent;
    positive when ours uses fewer tokens. 0.0 when the reference has none.

    >>> relative_diff(90, 100), relative_diff(110, 100)
    (10.0, -10.0)
    """
    return 100.0 * (reference_tokens - tokens) / reference_tokens if reference_tokens else 0.0


def evaluate(tokenizers, texts):
    """Every tokenizer (name -> tok) on every text (name -> str): a list of Rows,
    tokenizer by tokenizer, each tokenizer's texts in order followed by its total."""
    rows = []
    for name, tok in tokenizers.items():
        mine = [measure(tok, text, tokenizer=name, file=file) for file, text in texts.items()]
        rows += mine + ([total(mine)] if mine else [])
    return rows


def residue_or_why(tok, texts):
    """(bpe.methods.residue(tok, texts), "") or (None, a sentence saying why there is
    none): a tokenizer without merges (Unigram, WordPiece), or a SentencePiece model, whose
    merges are not applied chunk by chunk as residue replays them."""
    try:
        return residue(tok, list(texts)), ""
    except ValueError as e:  # no merges
        return None, str(e)
    except NotImplementedError:  # base.Tokenizer.split: a SentencePiece model
        return None, (f"{getattr(tok, 'name', 'this tokenizer')} is a SentencePiece model: "
                      "residue replays merges chunk by chunk, which it does not do")


def leftovers(tok, texts, *, tokenizer, threshold=LEFTOVER_R):
    """The leftover-token figures of tok over texts (an iterable of str): a dict of
    tokenizer, merged (merged tokens the texts make), leftovers (those with R below
    threshold) and share (leftovers / merged); merged, leftovers and share are None for
    a tokenizer without merges (Unigram, WordPiece), with why saying so.

    >>> from bpe import RegexTokenizer
    >>> tok = RegexTokenizer().train("aaabdaaabac", 259)
    >>> leftovers(tok, ["aaabdaaabac"], tokenizer="t")
    {'tokenizer': 't', 'merged': 3, 'leftovers': 2, 'share': 0.6666666666666666, 'why': ''}
    """
    data, why = residue_or_why(tok, texts)
    if data is None:
        return {"tokenizer": tokenizer, "merged": None, "leftovers": None, "share": None,
                "why": why}
    low = sum(1 for _, _, r in data.values() if r < threshold)
    return {"tokenizer": tokenizer, "merged": len(data), "leftovers": low,
            "share": leftover_share(data, threshold), "why": ""}


def script_of(token):
    """The script a token's characters belong to: a name of SCRIPTS, "Other" (another
    script), "Mixed" (letters of two scripts), "Digits", "Whitespace", "Symbols" (no
    letters or digits) or "Partial character" (bytes that are not whole UTF-8).

    >>> [script_of(t) for t in [b" the", b"\\xd0\\xbf\\xd1\\x80", b"123", b"\\xe6", b" ."]]
    ['Latin', 'Cyrillic', 'Digits', 'Partial character', 'Symbols']
    """
    try:
        text = token.decode("utf-8")
    except UnicodeDecodeError:
        return "Partial character"
    if not text.strip():
        return "Whitespace"
    found = set()
    for ch in text:
        if ch.isalpha():
            found.add(next((name for name, pattern in _SCRIPT_RES if pattern.match(ch)),
                           "Other"))
    if not found:
        return "Digits" if any(ch.isdigit() for ch in text) else "Symbols"
    return found.pop() if len(found) == 1 else "Mixed"


def script_shares(tok):
    """script -> share of tok's ordinary tokens (special tokens left out) in that script,
    largest first; the shares add up to 1.

    >>> from bpe import BasicTokenizer
    >>> shares = script_shares(BasicTokenizer())
    >>> round(shares["Partial character"], 2), round(sum(shares.values()), 6)
    (0.5, 1.0)
    """
    specials = set(tok.special_tokens.values())
    counts = {}
    for idx, token in tok.vocab.items():
        if idx not in specials:
            script = script_of(token)
            counts[script] = counts.get(script, 0) + 1
    n = sum(counts.values()) or 1
    return {script: count / n for script, count in
            sorted(counts.items(), key=lambda item: (-item[1], item[0]))}


def throughput(tok, text, *, repeat=1):
    """(bytes encoded, seconds taken): text encoded repeat times on this machine. The
    tokenizer's chunk cache works as in any long run (a corpus repeats its common
    chunks), so a text seen before measures faster: time text not yet encoded."""
    if repeat < 1:
        raise ValueError(f"repeat must be 1 or more, not {repeat}")
    n_bytes = len(text.encode("utf-8", "surrogatepass"))
    start = time.perf_counter()
    for _ in range(repeat):
        tok.encode(text, allowed_special="none")
    return n_bytes * repeat, time.perf_counter() - start


def pile_time(bytes_per_second, corpus_bytes=PILE_BYTES):
    """Seconds to encode corpus_bytes (the Pile's 825 GB by default) at that rate.

    >>> pile_time(1e6) / 3600
    229.16666666666666
    """
    if bytes_per_second <= 0:
        raise ValueError("bytes_per_second must be positive: time an encode first")
    return corpus_bytes / bytes_per_second


def report(rows, references=()):
    """The report card as records (one dict per row, keys in display order), the same
    table the Evaluate page shows and `python -m bpe eval` prints. references: tokenizer
    names among the rows; each adds a column "vs NAME", nanochat's relative difference
    (relative_diff) from that reference's row for the same file, on every other row.

    >>> from bpe import BasicTokenizer
    >>> rows = evaluate({"b": BasicTokenizer()}, {"t": "ab"})
    >>> report(rows)[0]["bytes/token"], len(report(rows))
    (1.0, 2)
    """
    tokens_of = {(row.tokenizer, row.file): row.tokens for row in rows}
    records = []
    for row in rows:
        record = {"tokenizer": row.tokenizer, "file": row.file, "bytes": row.bytes,
                  "tokens": row.tokens, "bytes/token": round(row.bytes_per_token, 3)}
        for ref in references:
            theirs = tokens_of.get((ref, row.file))
            record[f"vs {ref}"] = (None if ref == row.tokenizer or theirs is None
                                   else round(relative_diff(row.tokens, theirs), 1))
        record.update({"words": row.words, "tokens/word": round(row.tokens_per_word, 3),
                       "words split %": round(100 * row.words_split, 1),
                       "unique tokens": row.unique_tokens})
        records.append(record)
    return records


def markdown_table(records):
    """Records (dicts with the same keys) as a GitHub Markdown table; "|" in a cell is
    escaped, None is shown as "–" (no figure), a "vs" percentage with its sign.

    >>> print(markdown_table([{"a": 1, "vs x": 2.5}, {"a": "p|q", "vs x": None}]))
    | a | vs x |
    |---|---|
    | 1 | +2.5% |
    | p\\|q | – |
    """
    if not records:
        return ""
    keys = list(records[0])

    def cell(key, value):
        if value is None:
            return "–"
        if key.startswith("vs "):
            return f"{value:+.1f}%"
        if isinstance(value, int):
            return f"{value:,}"
        return str(value).replace("|", "\\|").replace("\n", " ")

    lines = ["| " + " | ".join(k.replace("|", "\\|") for k in keys) + " |",
             "|" + "---|" * len(keys)]
    lines += ["| " + " | ".join(cell(k, r.get(k)) for k in keys) + " |" for r in records]
    return "\n".join(lines)
