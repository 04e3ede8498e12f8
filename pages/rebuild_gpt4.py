"""Rebuild GPT-4 from its ranks: minbpe's exercise, step 3, done step by step.

1. recover the merges from the ranks alone (a worker job, with progress);
2. one token's recovery, and its merge tree;
3. the byte shuffle minbpe needs, and why our encoder needs none;
4. a merges-based tokenizer, proved equal to tiktoken on whatever is typed.
Thin: the work is lab/jobs/rebuild.py's (over bpe), the tree viz/tree.py's, the badge
lab/parity.py's.
"""
import streamlit as st

from lab.pages_guard import run_inside_frame

run_inside_frame()

from bpe.ranks_tokenizer import GPT4_SPECIAL_TOKENS
from bpe.patterns import GPT4_SPLIT_PATTERN
from lab import lessons, parity, state
from lab.jobs import rebuild
from lab.train import job_view
from lab.train import training
from lab.memory import remember
from lab.jobs.requests import RecoverRequest
from lab.safe import code, md
from lab.token_view import token_view
from lab.widgets import figures
from lab.guard import guarded
from viz import tree
from viz.marks import tokens_row
from viz.vocab import visible

SLOT = "rebuild_gpt4"
MAX_CHARS = 50_000
DEFAULT_TEXT = ("The rebuilt tokenizer applies 100,000 merges in the order they were "
                "learned; tiktoken merges by rank. Same ids?   🦙 tokenization\n")


def start_recovery():
    job_view.start(SLOT, "Recover GPT-4's merges",
                   "GPT-4's 100,256 ranks → minbpe-style merges, then every merge checked",
                   RecoverRequest, {})


def typed():
    sent = st.session_state["rebuild_view"].get("text") or {}
    st.session_state["rebuild_text"] = sent.get("text", "")
    st.session_state["rebuild_echo"] = sent.get("seq")
    st.session_state["rebuild_typed"] = True


st.title("Rebuild GPT-4 from its ranks")
st.caption("GPT-4's tokenizer ships as ranks: every token's bytes and its id, nothing "
           "about how the tokens were merged. minbpe's exercise asks for the merges back, "
           "then a tokenizer built from them that gives tiktoken's ids exactly.")
lessons.lesson_pages("pages/rebuild_gpt4.py")
remember({"rebuild_word": " hello world, tokenization!"})
gpt4 = state.gpt4()

st.header("1. Recover the merges from the ranks", divider="gray")
st.markdown("A token of rank *r* was made by one merge of two tokens of lower rank. Which "
            "two? Run BPE on its bytes allowing only ranks below *r*: it stops with exactly "
            "two parts, and those are the pair. Doing that for every multi-byte token gives "
            "the merges, `(id, id) -> id`, as minbpe keeps them. It runs in a worker process.")
if training.get(SLOT) is None:
    start_recovery()  # the first visit: the lesson starts with its result on the way
run = job_view.finished(SLOT, "Recover the merges to go on.")
if run is not None and not training.running(SLOT):
    st.button("Recover again", icon=":material/replay:", on_click=start_recovery,
              key="rebuild_again")
if run is None:
    st.stop()
rebuilt = run.outcome.value
figures(("Ranks in the file", f"{rebuilt.n_ranks:,}"),
        ("Single bytes", f"{rebuilt.n_ranks - len(rebuilt.merges):,}"),
        ("Merges recovered", f"{len(rebuilt.merges):,}",
         "one per token of two or more bytes"),
        ("Merges checked", f"{rebuilt.checked:,}",
         "each merge's two parts join into its token's bytes"),
        ("Recovery time", f"{rebuilt.seconds:.2f} s", "bpe.formats.ranks_merges.recover_merges, in the worker"))
parents = {idx: pair for pair, idx in rebuilt.merges.items()}

st.header("2. One token's recovery", divider="gray")
word = st.text_input("Type some text; pick one of its GPT-4 tokens", key="rebuild_word",
                     max_chars=200)
ids = gpt4.encode_ordinary(word)
multi = [i for i in ids if i in parents]
if not multi:
    st.info("Every token of this text is a single byte; type a word.")
else:
    idx = st.pills("Token", sorted(set(multi), key=multi.index), key="rebuild_token",
                   format_func=lambda i: md(visible(gpt4.vocab[i]))) or \
        max(multi, key=lambda i: len(gpt4.vocab[i]))
    token = gpt4.vocab[idx]
    parts = rebuild.lower_rank_parts(gpt4.ranks, token)
    st.markdown(
        f"Token {code(visible(token))} has rank **{idx:,}**. BPE over its "
        f"{len(token)} bytes, allowed only ranks below {idx:,}, stops at "
        + " + ".join(f"{code(visible(gpt4.vocab[p]))} (id {p:,})" for p in parts)
        + f". The recovered merges hold `{tuple(parents[idx])} -> {idx}`"
        + (" — the same pair." if tuple(parts) == parents[idx] else " — a different pair!"))
    st.graphviz_chart(tree.tree_dot(gpt4, idx, parents), width="stretch")

st.header("3. The byte shuffle", divider="gray")
shuffle = gpt4.byte_shuffle
kept = sum(1 for b, idx in shuffle.items() if b == idx)
st.markdown(
    "In GPT-4's ranks the 256 single bytes are ids 0 to 255, but not in byte order: "
    f"`!` (byte 0x21) is id {shuffle[0x21]}, `a` (0x61) is id {shuffle[0x61]}, a space (0x20) "
    f"is id {shuffle[0x20]}; {kept} of the 256 bytes keep their own value as id.\n\n"
    "**minbpe** keeps the recovered merges in these ids, but its encoder starts from the "
    "text's raw byte values (byte *b* is id *b*). So it must permute every byte of every "
    "text before encoding, and permute back when decoding: that is the byte shuffle.\n\n"
    "**Ours** (`bpe.GPT4Tokenizer`) needs none: it encodes over the ranks themselves, so a "
    "byte's id is looked up, not assumed. For the merges-based tokenizer below we move "
    "the shuffle into the table once: merge parts that are single bytes are written as the "
    "bytes themselves, so the text's bytes go in untouched, and only a token that is still "
    "a lone byte at the end gets its GPT-4 id.")
st.dataframe([{"byte": f"0x{b:02x}", "character": visible(bytes([b])), "GPT-4 id": shuffle[b]}
              for b in (0x20, 0x21, 0x30, 0x41, 0x61, 0x7a, 0xe2)],
             hide_index=True, width="content")

st.header("4. A merges-based tokenizer equals tiktoken", divider="gray")
st.markdown("`bpe.RegexTokenizer.from_merges(merges, pattern=GPT-4's, special_tokens=GPT-4's)`"
            " applies the merges in the order they were learned; tiktoken merges whichever "
            "pair has the lowest rank. Type anything: the badge compares the ids with "
            "tiktoken's, live.")
if st.session_state.get("rebuild_built") is not rebuilt:  # once per recovery
    st.session_state["rebuild_tok"] = rebuild.merges_tokenizer(
        rebuilt.merges, shuffle, GPT4_SPLIT_PATTERN, GPT4_SPECIAL_TOKENS)
    st.session_state["rebuild_built"] = rebuilt


@st.fragment
@guarded
def live_check(merges_tok):
    """The box, the rebuilt tokenizer's tokens and the badges; typing reruns only this."""
    st.session_state.setdefault("rebuild_text", DEFAULT_TEXT)
    text = st.session_state["rebuild_text"][:MAX_CHARS]
    rebuilt_ids = rebuild.gpt4_ids(merges_tok.encode_ordinary(text), shuffle)
    badges = st.container(horizontal=True)
    typing = st.session_state.pop("rebuild_typed", False)
    rows = [tokens_row(gpt4, rebuilt_ids, caption=f"Rebuilt from merges: "
                                                  f"{len(rebuilt_ids):,} tokens")] if text else []
    token_view(rows, key="rebuild_view", lists=True, on_text_change=typed,
               editor={"text": None if typing else text, "version": 0,
                       "echo": st.session_state.get("rebuild_echo"), "height": 120,
                       "placeholder": "Type anything: the ids are checked against tiktoken's.",
                       "max_chars": MAX_CHARS, "status": "" if text else "Type some text."})
    with badges:
        parity.draw_badge(parity.reference_check("cl100k_base", text, gpt4, rebuilt_ids))
        same = rebuilt_ids == gpt4.encode_ordinary(text)
        st.badge(f"ids {'==' if same else '!='} bpe.GPT4Tokenizer (ranks)",
                 color="green" if same else "red",
                 icon=f":material/{'check' if same else 'close'}:")


live_check(st.session_state["rebuild_tok"])
