"""How one token was built: its merge tree from raw bytes, as data and as Graphviz DOT.

Leaves are bytes; every inner node is a merge, with its step k (the token made by merge
k has id 255 + k in a trained tokenizer; GPT-4's ids are its ranks, so the same holds)
and the pair's count when it was merged, where the tokenizer recorded counts. A token
that occurs twice in a tree ("aa" in "aaaa") is drawn twice, so the picture stays a tree.

The DOT text is built here, with every label escaped for DOT; the page hands it to
st.graphviz_chart, which lays it out in the browser. Nothing here imports streamlit.
"""
from collections import deque
from dataclasses import dataclass
from typing import Optional

from viz.vocab import visible

MAX_NODES = 255  # boxes drawn at first; the page's "show more" raises it
SHOWN_BYTES = 64  # bytes of a token written in a box or a table cell
# fills light enough for TEXT_COLOR, on a transparent background: read on light and dark
TEXT_COLOR = "#1f1f1f"
LINE_COLOR = "#8a8a8a"
FOLDED_COLOR = "#f3f3f3"
LEAF_COLOR = "#e8e8e8"
MERGE_COLOR = "#c7d7fb"
ROOT_COLOR = "#fde2a7"
# inputs a user may paste from the tables, whose markers stand for whitespace
MARKER_TEXT = {"·": " ", "↵": "\n", "→": "\t"}


def merged_vocab(tok):
    """idx -> bytes for every token tok has or once made: tok.vocab, plus the tokens a
    method dropped again after merging them (Picky BPE's tok.removed), whose bytes come
    from their pair. Their merges still build the tokens above them, so trees and replays
    pass through them. Shared: never mutate it.

    >>> from bpe import BasicTokenizer
    >>> merged_vocab(BasicTokenizer().train("aaabdaaabac", 257))[256]
    b'aa'
    """
    if not getattr(tok, "removed", None):
        return tok.vocab
    vocab = dict(tok.vocab)
    for (p0, p1), idx in tok.merges.items():  # in order: a pair's parts come first
        if idx not in vocab:
            vocab[idx] = vocab[p0] + vocab[p1]
    return vocab


def dropped_note(tok, idx):
    """' (dropped)' for a token the method removed after making it (Picky BPE), else ''."""
    return " (dropped)" if idx in (getattr(tok, "removed", None) or ()) else ""


@dataclass(frozen=True)
class TreeNode:
    idx: int
    left: Optional["TreeNode"] = None   # None for a byte (a leaf)
    right: Optional["TreeNode"] = None


def build_tree(idx, parents):
    """The merge tree of token idx; parents is idx -> pair (bpe.replay.merge_parents).
    Built bottom-up without recursion, one TreeNode per distinct token (a token used
    twice is the same node twice), so a chain thousands deep or a token doubled to 2^20
    bytes costs its distinct merges only.

    >>> t = build_tree(258, {256: (97, 97), 257: (256, 97), 258: (257, 98)})
    >>> t.left.left.idx, t.left.right.idx, t.right.idx
    (256, 97, 98)
    """
    built = {}
    stack = [idx]
    while stack:
        top = stack[-1]
        pair = parents.get(top)
        if pair is None:
            built[top] = TreeNode(top)
            stack.pop()
            continue
        waiting = [part for part in pair if part not in built]
        if waiting:
            stack.extend(waiting)
        else:
            built[top] = TreeNode(top, built[pair[0]], built[pair[1]])
            stack.pop()
    return built[idx]


def check_buildable(tok, idx, parents):
    """ValueError saying why idx has no merge tree: an unknown id, a special token, or a
    token of several bytes that no recorded merge made (a SentencePiece piece)."""
    if idx in tok.special_tokens.values():
        raise ValueError(f"id {idx} is the special token "
                         f"{tok.inverse_special_tokens[idx]!r}: it is added whole, "
                         "not built by merges, so it has no merge tree")
    if idx in (getattr(tok, "removed", None) or ()):
        raise ValueError(f"token {idx} was dropped by this tokenizer's training (Picky BPE "
                         "removes a token used mostly inside a bigger one): it is no longer "
                         "in the vocabulary, though the trees of the tokens made from it "
                         "show it, marked (dropped)")
    if idx not in tok.vocab:
        raise ValueError(f"no token with id {idx}: pick an id from 0 to "
                         f"{max(tok.vocab)} (the Vocabulary page lists them)")
    if idx not in parents and len(tok.vocab[idx]) > 1:
        raise ValueError(f"token {idx} is not made by any merge this tokenizer records "
                         "(a SentencePiece model keeps no merges), so there is no tree "
                         "to draw; pick a tokenizer trained here, or GPT-4")


def find_token(tok, text):
    """The id of the token whose bytes are exactly text's UTF-8; the markers · ↵ → are
    read as space, newline and tab when the text as typed is not a token.
    ValueError if no token has those bytes.

    >>> from bpe import BasicTokenizer
    >>> find_token(BasicTokenizer().train("aaabdaaabac", 259), "aaa")
    257
    """
    by_bytes = {token: idx for idx, token in tok.vocab.items()}
    for candidate in (text, "".join(MARKER_TEXT.get(ch, ch) for ch in text)):
        idx = by_bytes.get(candidate.encode("utf-8"))
        if idx is not None:
            return idx
    raise ValueError(f"no single token is {text!r}; type the exact text of one token "
                     "(spaces count), or pick one from the tokens of a text below")


def merge_steps(tok, idx, parents):
    """The merges that build idx, first merge first, each once: dicts of merge (step k),
    id, token, pair (visible texts) and count (None if not recorded).

    >>> from bpe import BasicTokenizer
    >>> from bpe.replay import merge_parents
    >>> tok = BasicTokenizer().train("aaabdaaabac", 259)
    >>> [(s["merge"], s["pair"], s["count"]) for s in merge_steps(tok, 258, merge_parents(tok))]
    [(1, 'a + a', 4), (2, 'aa + a', 2), (3, 'aaa + b', 2)]
    """
    seen = set()
    stack = [idx]
    while stack:
        top = stack.pop()
        if top in parents and top not in seen:
            seen.add(top)
            stack.extend(parents[top])
    vocab = merged_vocab(tok)
    return [{"merge": node - 255, "id": node,
             "token": short(vocab[node]) + dropped_note(tok, node),
             "pair": " + ".join(short(vocab[p]) for p in parents[node]),
             "count": tok.merge_counts.get(node)}
            for node in sorted(seen)]


def dot_escape(text):
    """text inside a double-quoted DOT string, shown literally: backslashes and quotes
    escaped (a bare backslash would start DOT's \\n, \\l or \\N escapes).

    >>> print(dot_escape('say "\\\\N"'))
    say \\"\\\\N\\"
    """
    return text.replace("\\", "\\\\").replace('"', '\\"')


def short(token, limit=SHOWN_BYTES):
    """visible(token), only its first `limit` bytes and its length past them.

    >>> short(b"a" * 50, 4)
    'aaaa… (50 bytes)'
    """
    if len(token) <= limit:
        return visible(token)
    return f"{visible(token[:limit])}… ({len(token):,} bytes)"


def node_label(tok, node):
    """A node's label lines (unescaped): the token's text and what it is."""
    token = merged_vocab(tok)[node.idx]
    if node.left is None:
        byte = f"byte 0x{token.hex()}"
        return [visible(token), byte if node.idx == token[0] else f"{byte}, id {node.idx}"]
    count = tok.merge_counts.get(node.idx)
    return [short(token) + dropped_note(tok, node.idx), f"id {node.idx} · merge {node.idx - 255:,}",
            f"count {count:,}" if count is not None else "count not recorded"]


def tree_dot(tok, idx, parents, max_nodes=MAX_NODES):
    """Graphviz DOT source of idx's merge tree: bytes at the bottom, idx on top; drawn top
    down, at most max_nodes boxes, the parts below them folded into one "…" box each
    (a merge tree of a token of L bytes has 2L - 1 boxes). ValueError if idx is a special
    token or unknown. Colors read on a light and a dark page (transparent background).

    >>> from bpe import BasicTokenizer
    >>> from bpe.replay import merge_parents
    >>> tok = BasicTokenizer().train("aaabdaaabac", 259)
    >>> dot = tree_dot(tok, 257, merge_parents(tok))
    >>> dot.count("->"), 'label="aaa\\\\nid 257 · merge 2\\\\ncount 2"' in dot
    (4, True)
    """
    check_buildable(tok, idx, parents)
    vocab = merged_vocab(tok)
    # ordering=in keeps each merge's left part drawn left of its right part
    lines = ["digraph merges {", "  rankdir=BT;", "  ordering=in;", '  bgcolor="transparent";',
             '  node [shape=box, style="rounded,filled", fontname="monospace", '
             f'fontsize=14, color="{LINE_COLOR}", fontcolor="{TEXT_COLOR}"];',
             f'  edge [color="{LINE_COLOR}", arrowsize=0.6];']
    queue = deque([(idx, None)])  # (token, the box it is a part of), breadth first
    drawn = 0
    while queue:
        node, above = queue.popleft()
        name = f"n{drawn}"
        drawn += 1
        pair = parents.get(node)
        if pair is not None and drawn + len(queue) + 2 > max_nodes:
            boxes = 2 * len(vocab[node]) - 1
            label = "\\n".join(dot_escape(line) for line in (
                short(vocab[node], 12), f"… {boxes:,} boxes not drawn"))
            lines.append(f'  {name} [label="{label}", fillcolor="{FOLDED_COLOR}", '
                         'style="rounded,filled,dashed"];')
        else:
            label = "\\n".join(dot_escape(line)
                                for line in node_label(tok, TreeNode(node, *(pair or ()))))
            color = (ROOT_COLOR if above is None else
                     LEAF_COLOR if pair is None else MERGE_COLOR)
            lines.append(f'  {name} [label="{label}", fillcolor="{color}"];')
            queue.extend((part, name) for part in pair or ())
        if above is not None:  # edges point from the parts up to the token they make
            lines.append(f"  {name} -> {above};")
    lines.append("}")
    return "\n".join(lines)


def tree_size(tok, idx):
    """How many boxes idx's whole merge tree has (a byte is one; L bytes, 2L - 1)."""
    return 2 * len(tok.vocab[idx]) - 1
