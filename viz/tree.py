"""How one token was built: its merge tree from raw bytes, as data and as Graphviz DOT.

Leaves are bytes; every inner node is a merge, with its step k (the token made by merge
k has id 255 + k in a trained tokenizer; GPT-4's ids are its ranks, so the same holds)
and the pair's count when it was merged, where the tokenizer recorded counts. A token
that occurs twice in a tree ("aa" in "aaaa") is drawn twice, so the picture stays a tree.

The DOT text is built here, with every label escaped for DOT; the page hands it to
st.graphviz_chart, which lays it out in the browser. Nothing here imports streamlit.
"""
from dataclasses import dataclass
from typing import Optional

from viz.vocab import visible

LEAF_COLOR = "#e8e8e8"
MERGE_COLOR = "#c7d7fb"
ROOT_COLOR = "#fde2a7"
# inputs a user may paste from the tables, whose markers stand for whitespace
MARKER_TEXT = {"·": " ", "↵": "\n", "→": "\t"}


@dataclass(frozen=True)
class TreeNode:
    idx: int
    left: Optional["TreeNode"] = None   # None for a byte (a leaf)
    right: Optional["TreeNode"] = None


def build_tree(idx, parents):
    """The merge tree of token idx; parents is idx -> pair (bpe.replay.merge_parents).

    >>> t = build_tree(258, {256: (97, 97), 257: (256, 97), 258: (257, 98)})
    >>> t.left.left.idx, t.left.right.idx, t.right.idx
    (256, 97, 98)
    """
    pair = parents.get(idx)
    if pair is None:
        return TreeNode(idx)
    return TreeNode(idx, build_tree(pair[0], parents), build_tree(pair[1], parents))


def check_buildable(tok, idx, parents):
    """ValueError saying why idx has no merge tree: an unknown id, a special token, or a
    token of several bytes that no recorded merge made (a SentencePiece piece)."""
    if idx in tok.special_tokens.values():
        raise ValueError(f"id {idx} is the special token "
                         f"{tok.inverse_special_tokens[idx]!r}: it is added whole, "
                         "not built by merges, so it has no merge tree")
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
    return [{"merge": node - 255, "id": node, "token": visible(tok.vocab[node]),
             "pair": " + ".join(visible(tok.vocab[p]) for p in parents[node]),
             "count": tok.merge_counts.get(node)}
            for node in sorted(seen)]


def dot_escape(text):
    """text inside a double-quoted DOT string, shown literally: backslashes and quotes
    escaped (a bare backslash would start DOT's \\n, \\l or \\N escapes).

    >>> print(dot_escape('say "\\\\N"'))
    say \\"\\\\N\\"
    """
    return text.replace("\\", "\\\\").replace('"', '\\"')


def node_label(tok, node):
    """A node's label lines (unescaped): the token's text and what it is."""
    token = tok.vocab[node.idx]
    if node.left is None:
        byte = f"byte 0x{token.hex()}"
        return [visible(token), byte if node.idx == token[0] else f"{byte}, id {node.idx}"]
    count = tok.merge_counts.get(node.idx)
    return [visible(token), f"id {node.idx} · merge {node.idx - 255:,}",
            f"count {count:,}" if count is not None else "count not recorded"]


def tree_dot(tok, idx, parents):
    """Graphviz DOT source of idx's merge tree: bytes at the bottom, idx on top.
    ValueError if idx is a special token or unknown.

    >>> from bpe import BasicTokenizer
    >>> from bpe.replay import merge_parents
    >>> tok = BasicTokenizer().train("aaabdaaabac", 259)
    >>> dot = tree_dot(tok, 257, merge_parents(tok))
    >>> dot.count("->"), 'label="aaa\\\\nid 257 · merge 2\\\\ncount 2"' in dot
    (4, True)
    """
    check_buildable(tok, idx, parents)
    # ordering=in keeps each merge's left part drawn left of its right part
    lines = ["digraph merges {", "  rankdir=BT;", "  ordering=in;",
             '  node [shape=box, style="rounded,filled", fontname="monospace", '
             'fontsize=14, color="#888888"];',
             '  edge [color="#888888", arrowsize=0.6];']
    counter = iter(range(10**9))

    def emit(node):
        name = f"n{next(counter)}"
        label = "\\n".join(dot_escape(line) for line in node_label(tok, node))
        color = (ROOT_COLOR if name == "n0" else
                 LEAF_COLOR if node.left is None else MERGE_COLOR)
        lines.append(f'  {name} [label="{label}", fillcolor="{color}"];')
        if node.left is not None:
            # edges point from the parts up to the token they make
            left, right = emit(node.left), emit(node.right)
            lines.append(f"  {left} -> {name};")
            lines.append(f"  {right} -> {name};")
        return name

    emit(build_tree(idx, parents))
    lines.append("}")
    return "\n".join(lines)
