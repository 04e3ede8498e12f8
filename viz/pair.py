"""Two tokenizations of one text, aligned for the token view's pair mode (Compare).

`pair_view` cuts the text once at every span boundary of either row, so A's and B's cuts
share x positions, and marks pieces whose inner token cuts (inside a character or a
grapheme cluster) differ. Linear in the text: each row is walked once. Draws nothing.
"""
from viz.display import VIEW_MARKS, display_text


def pair_view(row_a, row_b, text_bytes, *, whitespace=None):
    """Two tokenizations of the same text, aligned: the text once, cut into pieces at
    every span boundary of either row, so A's and B's cuts share x positions.

    row_a, row_b: view_row results over the same text_bytes. Returns {"a": row_a,
    "b": row_b, "pieces": {...}} where pieces has, per piece: nb (bytes), nc (chars),
    sa / sb (the A and B span it belongs to) and show (display text). The view draws A's
    spans as a band above the pieces and B's below, and marks a cut that only one has.
    A piece is never cut inside a character, yet a tokenizer may cut inside one (an emoji
    over several tokens): pieces["inner"] maps a piece (str index) whose inner token cuts
    differ between A and B to [A's cuts, B's cuts], byte offsets within the piece; the
    view marks those pieces red like any cut only one side makes.

    >>> from viz.rows import view_row
    >>> a = view_row([b"ab", b"c"], [1, 2]); b = view_row([b"a", b"bc"], [3, 4])
    >>> p = pair_view(a, b, b"abc")["pieces"]
    >>> p["nb"], p["sa"], p["sb"], p["show"]
    ([1, 1, 1], [0, 0, 1], [0, 1, 1], ['a', 'b', 'c'])
    """
    def span_ends(row):
        ends, at, t = [], 0, 0
        for n in row["n"]:
            at += sum(row["nb"][t:t + n])
            t += n
            ends.append(at)
        return ends

    def token_ends(row):
        ends, at = [], 0
        for nb in row["nb"]:
            at += nb
            ends.append(at)
        return ends

    ends_a, ends_b = span_ends(row_a), span_ends(row_b)
    if ends_a[-1:] != ends_b[-1:] or (ends_a and ends_a[-1] != len(text_bytes)):
        raise ValueError("pair_view needs two rows over the same text")
    cuts = sorted(set(ends_a) | set(ends_b))
    pieces = {"nb": [], "nc": [], "sa": [], "sb": [], "show": [], "inner": {}}
    sa = sb = start = 0
    # the token cuts that are not piece boundaries: inside a character or cluster
    inner_a = sorted(set(token_ends(row_a)) - set(cuts))
    inner_b = sorted(set(token_ends(row_b)) - set(cuts))
    ia = ib = 0
    for p, end in enumerate(cuts):
        in_a, in_b = [], []
        while ia < len(inner_a) and inner_a[ia] < end:
            in_a.append(inner_a[ia] - start)
            ia += 1
        while ib < len(inner_b) and inner_b[ib] < end:
            in_b.append(inner_b[ib] - start)
            ib += 1
        if in_a != in_b:
            pieces["inner"][str(p)] = [in_a, in_b]
        piece = text_bytes[start:end]
        shown = piece.decode("utf-8", errors="surrogateescape")
        pieces["nb"].append(end - start)
        pieces["nc"].append(len(shown))
        pieces["sa"].append(sa)
        pieces["sb"].append(sb)
        pieces["show"].append(display_text(shown, whitespace=whitespace, marks=VIEW_MARKS))
        if end == ends_a[sa]:
            sa += 1
        if end == ends_b[sb]:
            sb += 1
        start = end
    return {"a": row_a, "b": row_b, "pieces": pieces}
