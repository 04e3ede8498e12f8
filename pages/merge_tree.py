"""Merge tree: how one token was built from raw bytes, merge by merge. Thin: the tree and
its DOT source are viz.tree's; st.graphviz_chart lays the DOT out in the browser (no
Graphviz install needed). ?token=ID (and &tokenizer=NAME) opens a token directly."""
import re

import streamlit as st

from lab.pages_guard import run_inside_frame

run_inside_frame()

from lab import derived, state, widgets
from lab.lessons import lesson_link
from lab.memory import remember
from viz import tree
from lab.safe import code, md
from viz.vocab import visible

HOW = ["From a text", "By id", "By its text"]
DEFAULT_TEXT = "Byte pair encoding glues bytes into tokenizers' tokens."
MAX_CHARS = 300  # the text's tokens are drawn as buttons
MAX_LINK_DIGITS = 8  # ids go up to bpe.budgets.MAX_ID, 10 million
LINK_ID = re.compile(rf"[0-9]{{1,{MAX_LINK_DIGITS}}}")
MAX_SHOWN_NODES = 4095  # "show more" stops here: Graphviz lays out every box in the browser

st.title("Merge tree")
lesson_link("pages/merge_tree.py")
st.caption("Pick a token and see how BPE built it: bytes at the bottom, each box above "
           "them one merge, with its step k (the k-th merge learned) and, where the "
           "tokenizer recorded it, how often the pair occurred when it was merged.")

# a link (?token=ID&tokenizer=NAME, e.g. from the Vocabulary page) opens that token once
params = dict(st.query_params)
if params.get("token") and st.session_state.get("tree_applied_link") != params:
    st.session_state["tree_applied_link"] = params
    if params.get("tokenizer") in state.tokenizer_names():
        st.session_state["tree_tokenizer"] = params["tokenizer"]
    if LINK_ID.fullmatch(params["token"]):  # ASCII digits only: "²".isdigit() is True
        st.session_state["tree_how"] = "By id"
        st.session_state["tree_id"] = int(params["token"])
    else:
        st.warning(f"The link's token={code(params['token'][:40])} is not a token id: "
                   f"give up to {MAX_LINK_DIGITS} digits 0-9, as in ?token=1000.",
                   icon=":material/link_off:")

remember({"tree_tokenizer": state.GPT4_NAME, "tree_how": HOW[0], "tree_id": None,
          "tree_text": "ing", "tree_sample": DEFAULT_TEXT})
name, tok = widgets.tokenizer_picker("tree_tokenizer")
widgets.stop_without_merges(name, tok)  # Unigram, WordPiece, a SentencePiece model
parents = derived.parents(tok, wait=st.spinner)
if (st.session_state["tree_id"] or 0) > max(tok.vocab):  # from a link, or another tokenizer
    st.warning(f"{md(name)} has no id {st.session_state['tree_id']:,}; its ids go up to "
               f"{max(tok.vocab):,}.", icon=":material/link_off:")
    st.session_state["tree_id"] = max(tok.vocab)

how = st.radio("Pick the token", HOW, key="tree_how", horizontal=True)
idx = None
if how == "By id":
    if st.session_state["tree_id"] is None:  # the first visit: a token half way up
        made = [idx for idx in sorted(parents) if idx in tok.vocab]  # not Picky's dropped
        st.session_state["tree_id"] = made[len(made) // 2] if made else 97
    idx = int(st.number_input("Token id", min_value=0, max_value=max(tok.vocab), step=1,
                              key="tree_id"))
elif how == "By its text":
    typed = st.text_input("The token's exact text (spaces count; · ↵ → stand for space, "
                          "newline and tab)", key="tree_text")
    try:
        idx = tree.find_token(tok, typed)
    except ValueError as e:
        st.error(md(e))
else:
    sample = st.text_input("A short text", key="tree_sample", max_chars=MAX_CHARS)
    ids = tok.encode_ordinary(sample)
    if not ids:
        st.info("Type some text to pick one of its tokens.")
    else:
        # the longest token first: it has the most interesting tree
        default = max(range(len(ids)), key=lambda i: len(tok.vocab[ids[i]]))
        picked = st.session_state.get("tree_pick")
        if picked is None or picked >= len(ids):  # unclicked, or the text got shorter
            st.session_state["tree_pick"] = default
        pick = st.pills(
            "Click a token of the text", range(len(ids)), key="tree_pick",
            format_func=lambda i: md(visible(tok.vocab[ids[i]])))
        idx = ids[pick if pick is not None else default]

if idx is not None:
    try:
        more = st.session_state.get("tree_max_nodes")  # (token, boxes) after "Show more"
        shown = more[1] if more and more[0] == idx else tree.MAX_NODES
        dot = tree.tree_dot(tok, idx, parents, max_nodes=shown)
    except ValueError as e:
        st.error(md(e))
    else:
        # the URL names the token shown, so it can be shared; marked applied so the next
        # run does not take it for a new link
        st.query_params["token"] = str(idx)
        st.query_params["tokenizer"] = name
        st.session_state["tree_applied_link"] = dict(st.query_params)
        steps = tree.merge_steps(tok, idx, parents)
        token = tok.vocab[idx]
        st.markdown(f"Token **{idx}**: {len(token)} byte{'s' if len(token) != 1 else ''}, "
                    f"{len(steps)} distinct merge{'s' if len(steps) != 1 else ''}.")
        if not tok.merge_counts:
            st.caption("This tokenizer has no merge counts recorded (reference "
                       "vocabularies such as GPT-4's and .model files do not keep them).")
        st.graphviz_chart(dot, width="stretch")
        size = tree.tree_size(tok, idx)
        if size > shown:
            st.caption(f"Drawn from the top: {shown:,} of its {size:,} boxes; a dashed box "
                       "stands for the parts below it.")
            if shown < MAX_SHOWN_NODES and st.button(
                    "Show more", icon=":material/unfold_more:", key="tree_more"):
                st.session_state["tree_max_nodes"] = (idx, min(MAX_SHOWN_NODES, shown * 4))
                st.rerun()
        st.write("The merges that build it, in the order they were learned:")
        st.dataframe(steps, hide_index=True,
                     column_order=["merge", "pair", "token", "id"]
                     + (["count"] if tok.merge_counts else []),  # no column of "None"
                     column_config={"merge": "merge k", "pair": "pair merged",
                                    "token": "makes"})
        with st.expander("DOT source"):
            st.code(dot, language="dot")
