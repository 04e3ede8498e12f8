"""Token-budget chunking: cut a long text into pieces of at most N tokens, and pack them.

Cuts fall on token boundaries of the whole text's encoding that are also character
boundaries (a token may end inside a multi-byte character; a piece never does), as late
as the budget allows, or at the last line or sentence end inside the budget when asked to
prefer those. Each piece is then encoded on its own, as whoever uses it will, and a cut
is moved earlier if that count were over the budget. The pieces joined give back the
text exactly. No streamlit here: the page renders what these functions return.
"""
import io
import json
import zipfile
from dataclasses import asdict, dataclass

PREFER = {"tokens": "anywhere between tokens", "lines": "at line ends",
          "sentences": "at sentence or line ends"}
SENTENCE_END = ".!?…。！？"
FULL_WIDTH_END = "。！？"  # scripts that put no space after a sentence


@dataclass(frozen=True)
class Piece:
    index: int      # 1, 2, ...
    text: str
    n_tokens: int   # len(tok.encode(text)) for the piece on its own
    start: int      # character offsets in the whole text
    end: int
    cut: str        # where it ends: "sentence", "line", "token" or "end" (of the text)


def cut_kind(text, pos):
    """What kind of boundary character offset pos is in text: "end" of the text, "line"
    (just after a newline), "sentence" (just after . ! ? and before whitespace, or after
    a full-width 。！？) or just "token".

    >>> [cut_kind("Hi. Yo\\nx", p) for p in (3, 4, 7, 8)]
    ['sentence', 'token', 'line', 'end']
    """
    if pos >= len(text):
        return "end"
    before = text[pos - 1]
    if before == "\n":
        return "line"
    if before in SENTENCE_END and (text[pos].isspace() or before in FULL_WIDTH_END):
        return "sentence"
    return "token"


def _cuts(tok, text, allowed_special):
    """[(tokens before it, character offset)] for every place a cut may fall: between
    two tokens of the whole text's encoding and between two characters; the text's end last.
    One pass over the UTF-8 bytes: no table per character (an 11 MB text made one of 1 GB)."""
    data = text.encode("utf-8")
    ids = tok.encode(text, allowed_special=allowed_special)
    cuts, pos, chars = [], 0, 0
    for n, token in enumerate(tok.decode_tokens_bytes(ids), 1):
        end = pos + len(token)
        # characters started in data[pos:end]: the bytes that are not continuation bytes
        chars += len(token) - sum(1 for byte in token if byte & 0xC0 == 0x80)
        pos = end
        if pos == len(data) or (pos < len(data) and data[pos] & 0xC0 != 0x80):
            cuts.append((n, chars))
    return cuts


def _latest_within(window, fits, tries=2):
    """The latest cut in window for which fits(cut) holds: the last `tries` are tried in
    turn, then the distance back doubles and a binary search settles between the last
    cut that did not fit and the first that did, so a piece costs O(log window) encodes
    rather than one per cut (each encode is as long as the piece). None if none fits."""
    hi = len(window) - 1  # index of the latest cut not yet known to fail
    for _ in range(tries):
        if hi < 0:
            return None
        if fits(window[hi]):
            return window[hi]
        hi -= 1
    bad, step = hi + 1, 1  # window[bad] is known not to fit (or is past the end)
    while True:
        if hi <= 0:
            if bad == 0 or not fits(window[0]):
                return None
            ok = 0
            break
        if fits(window[hi]):
            ok = hi
            break
        bad, hi, step = hi, hi - step, 2 * step
    while bad - ok > 1:
        mid = (ok + bad) // 2
        if fits(window[mid]):
            ok = mid
        else:
            bad = mid
    return window[ok]


def chunk_text(tok, text, max_tokens, *, prefer="tokens", allowed_special="none"):
    """Cut text into Pieces of at most max_tokens tokens each (see the module docstring).
    A preferred cut (line or sentence end) is taken if one lies in the second half of
    the budget; otherwise the cut is as late as the budget allows.

    >>> from bpe import BasicTokenizer
    >>> [p.text for p in chunk_text(BasicTokenizer(), "ab\\ncd", 3, prefer="lines")]
    ['ab\\n', 'cd']
    """
    if not isinstance(max_tokens, int) or isinstance(max_tokens, bool) or max_tokens < 1:
        raise ValueError(f"max_tokens must be a whole number of at least 1, not {max_tokens!r}")
    if prefer not in PREFER:
        raise ValueError(f"prefer must be one of {', '.join(PREFER)}, not {prefer!r}")
    good = {"tokens": (), "lines": ("line",), "sentences": ("line", "sentence")}[prefer]
    cuts = _cuts(tok, text, allowed_special)
    pieces = []
    start = done = k = 0  # character offset, tokens before it, index of the next cut

    def count(start, end):
        return len(tok.encode(text[start:end], allowed_special=allowed_special))
    while start < len(text):
        window = []
        j = k
        while j < len(cuts) and cuts[j][0] - done <= max_tokens:
            window.append(cuts[j])
            j += 1
        if not window:
            raise ValueError(f"no cut within {max_tokens} tokens of offset {start} "
                             f"({text[start:start + 8]!r}…) falls between two characters (the "
                             "tokens there end inside a character); raise the budget")
        preferred = [cut for cut in window if 2 * (cut[0] - done) >= max_tokens
                     and cut_kind(text, cut[1]) in good]
        # latest first; re-encoded alone, a piece may take more tokens than in the whole
        # encoding, so a cut that turns out over budget gives way to an earlier one
        counted = {}

        def fits(cut):
            counted[cut] = count(start, cut[1])
            return counted[cut] <= max_tokens
        chosen = _latest_within(preferred, fits) if preferred else None
        if chosen is None:
            chosen = _latest_within(window, fits)
        if chosen is None:
            raise ValueError(f"no cut after offset {start} keeps the piece within "
                             f"{max_tokens} tokens when it is encoded on its own; raise the "
                             "budget")
        n, end = chosen
        n_tokens = counted[chosen]
        pieces.append(Piece(len(pieces) + 1, text[start:end], n_tokens, start, end,
                            cut_kind(text, end)))
        k += window.index((n, end)) + 1
        start, done = end, n
    return pieces


def summary(pieces):
    """Numbers for the page: how many pieces, their largest and total token counts."""
    counts = [p.n_tokens for p in pieces]
    return {"pieces": len(pieces), "largest": max(counts, default=0), "tokens": sum(counts)}


def to_jsonl(pieces):
    """One JSON object per line: index, text, n_tokens, start, end, cut."""
    return "".join(json.dumps(asdict(p), ensure_ascii=False) + "\n" for p in pieces)


def to_zip(pieces, stem="piece"):
    """A zip (bytes) with one UTF-8 text file per piece: piece_0001.txt, piece_0002.txt, ..."""
    width = max(4, len(str(len(pieces))))
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as zf:
        for p in pieces:
            zf.writestr(f"{stem}_{p.index:0{width}d}.txt", p.text.encode("utf-8"))
    return buffer.getvalue()
