"""Merge trees: leaves spell the token, one inner node per merge, DOT labels escaped."""
import re

import pytest

from bpe import BasicTokenizer
from bpe.replay import merge_parents
from viz.tree import (SHOWN_BYTES, build_tree, dot_escape, find_token, merge_steps, node_label,
                      tree_dot)

# a quoted DOT string: anything but a quote or backslash, or a backslash and any character
QUOTED = r'"((?:[^"\\]|\\.)*)"'


def leaves(node):
    if node.left is None:
        return [node]
    return leaves(node.left) + leaves(node.right)


def inner(node):
    if node.left is None:
        return []
    return [node] + inner(node.left) + inner(node.right)


def undot(text):
    """Read a DOT quoted string back (the escapes this project writes: \\\\, \\", \\n)."""
    return re.sub(r"\\(.)", lambda m: "\n" if m.group(1) == "n" else m.group(1), text)


@pytest.fixture(scope="module")
def tok(small_tok):
    text = 'say "\\N" and "\\n"\\\\ then say "\\N" again, \\l "quote" "quote"\n' * 20
    return small_tok(text, 256 + 60, kind="basic")


def test_leaves_spell_the_token_and_every_merge_is_a_node(gpt4, tok):
    for t in (gpt4, tok):
        parents = merge_parents(t)
        for idx in list(parents)[::997] + [max(parents)]:
            tree = build_tree(idx, parents)
            assert b"".join(t.vocab[leaf.idx] for leaf in leaves(tree)) == t.vocab[idx]
            assert all(len(t.vocab[leaf.idx]) == 1 for leaf in leaves(tree))
            assert len(inner(tree)) == len(leaves(tree)) - 1
            for node in inner(tree):
                assert parents[node.idx] == (node.left.idx, node.right.idx)


def test_merge_steps_are_the_distinct_merges_in_order(gpt4):
    parents = merge_parents(gpt4)
    idx = find_token(gpt4, " tokenizer")
    steps = merge_steps(gpt4, idx, parents)
    assert [s["id"] for s in steps] == sorted({n.idx for n in inner(build_tree(idx, parents))})
    assert steps[-1]["id"] == idx and steps[-1]["token"] == "·tokenizer"
    assert steps[-1]["merge"] == idx - 255 and steps[-1]["count"] is None
    assert steps[-1]["pair"] == "·token + izer"


def test_dot_has_one_node_per_tree_node_and_edges_up(gpt4):
    parents = merge_parents(gpt4)
    idx = find_token(gpt4, " tokenizer")
    dot = tree_dot(gpt4, idx, parents)
    tree = build_tree(idx, parents)
    n_nodes = len(inner(tree)) + len(leaves(tree))
    assert len(re.findall(r"^  n\d+ \[label=", dot, re.M)) == n_nodes
    assert len(re.findall(r"^  n\d+ -> n\d+;$", dot, re.M)) == 2 * len(inner(tree))
    assert dot.startswith("digraph") and dot.rstrip().endswith("}")
    assert "count not recorded" in dot  # GPT-4 keeps no counts
    assert "byte 0x20, id 220" in dot   # GPT-4's byte ids are shuffled


def test_dot_labels_are_escaped(tok):
    parents = merge_parents(tok)
    tricky = [idx for idx in parents if any(c in tok.vocab[idx] for c in b'"\\')]
    assert tricky, "the training text should make tokens with quotes and backslashes"
    for idx in tricky:
        dot = tree_dot(tok, idx, parents)
        labels = re.findall(r"label=" + QUOTED, dot)
        # every label is one well-formed quoted string, ending before ", fillcolor"
        assert len(labels) == dot.count("label=")
        assert all(re.fullmatch(r'  n\d+ \[label=' + QUOTED + r', fillcolor="#[0-9a-f]{6}"'
                                r'(, style="[a-z,]+")?\];',
                                line) for line in dot.splitlines() if "label=" in line)
        root = undot(labels[0]).split("\n")
        text = tok.vocab[idx].decode().replace(" ", "·").replace("\n", "↵")
        if len(tok.vocab[idx]) <= SHOWN_BYTES:
            assert root[0] == text
        else:  # a long token's box shows its start and its length
            assert root[0].startswith(text[:SHOWN_BYTES // 2])
            assert root[0].endswith(f"… ({len(tok.vocab[idx]):,} bytes)")
    assert dot_escape('a"b\\c') == 'a\\"b\\\\c'


def test_partial_characters_show_their_hex_never_a_bare_replacement(gpt4):
    # a GPT-4 token made of two pieces of one emoji's bytes: every node is distinct
    parents = merge_parents(gpt4)
    idx = next(i for i, pair in parents.items() if gpt4.vocab[i].startswith(b"\xf0\x9f")
               and len(gpt4.vocab[i]) == 3)
    labels = [undot(label).split("\n")[0]
              for label in re.findall(r"label=" + QUOTED, tree_dot(gpt4, idx, parents))]
    assert len(labels) == 5  # the token, its two parts, and the bytes under the merged part
    assert not any("\ufffd" in label for label in labels)
    assert labels[0] == "⟨" + gpt4.vocab[idx].hex(" ") + "⟩"
    assert all(label.startswith("⟨") for label in labels)


def test_counts_recorded_by_training_are_shown(tok):
    parents = merge_parents(tok)
    dot = tree_dot(tok, 256, parents)
    assert f"count {tok.merge_counts[256]:,}" in dot and "merge 1\\n" in dot


def test_specials_and_unknown_ids_have_no_tree(gpt4):
    parents = merge_parents(gpt4)
    with pytest.raises(ValueError, match="special token '<\\|endoftext\\|>'"):
        tree_dot(gpt4, 100257, parents)
    with pytest.raises(ValueError, match="no token with id"):
        tree_dot(gpt4, 100262, parents)


def test_a_byte_is_a_tree_of_one_leaf(gpt4):
    parents = merge_parents(gpt4)
    idx = gpt4.encode("a")[0]
    assert build_tree(idx, parents).left is None
    assert node_label(gpt4, build_tree(idx, parents)) == ["a", f"byte 0x61, id {idx}"]
    assert "->" not in tree_dot(gpt4, idx, parents)


def test_find_token(gpt4):
    assert find_token(gpt4, " the") == gpt4.encode(" the")[0]
    assert find_token(gpt4, "·the") == gpt4.encode(" the")[0]   # markers read as spaces
    assert find_token(gpt4, "↵") == gpt4.encode("\n")[0]
    with pytest.raises(ValueError, match="no single token"):
        find_token(gpt4, " antidisestablishmentarianism")


def test_a_tokenizer_without_merges_has_trees_only_for_bytes():
    tok = BasicTokenizer()
    tok.vocab = {**tok.vocab, 300: b"piece"}  # a token no merge made, as SentencePiece has
    with pytest.raises(ValueError, match="not made by any merge"):
        tree_dot(tok, 300, {})
    assert "->" not in tree_dot(tok, 97, {})


def _doubling(k):
    """A tokenizer whose token 256 + i is b"a" * 2**(i+1): 2**(k+1) bytes at the top."""
    from bpe import BasicTokenizer
    tok = BasicTokenizer()
    tok.merges = {(97, 97): 256, **{(256 + i, 256 + i): 257 + i for i in range(k - 1)}}
    tok._reset()
    return tok


def test_a_doubled_token_draws_a_bounded_tree():
    tok = _doubling(20)  # 2^20 bytes: its whole tree has 2^21 - 1 boxes
    top = 256 + 19
    parents = merge_parents(tok)
    dot = tree_dot(tok, top, parents, max_nodes=100)
    assert dot.count("label=") <= 100 and "boxes not drawn" in dot
    assert len(dot) < 100 * 300  # each label short, never the token's megabyte
    assert len(tree_dot(tok, top, parents, max_nodes=400)) > len(dot)  # "show more"
    assert len(merge_steps(tok, top, parents)) == 20


def test_a_chain_thousands_deep_needs_no_recursion():
    from bpe import BasicTokenizer
    tok = BasicTokenizer()
    tok.merges = {(97, 98): 256, **{(256 + i, 97): 257 + i for i in range(2999)}}
    tok._reset()
    parents = merge_parents(tok)
    top = 256 + 2999
    dot = tree_dot(tok, top, parents)
    assert "boxes not drawn" in dot
    assert build_tree(top, parents).right.idx == 97
    assert len(merge_steps(tok, top, parents)) == 3000
