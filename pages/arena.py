"""Arena: the same text through any number of tokenizers, stacked; bytes per token of each
on the shipped samples (and the visitor's own); and what a chat costs in each model's
chat format. The numbers come from viz.arena and viz.chat; parity badges from lab.parity.
"""
import streamlit as st

from lab.pages_guard import run_inside_frame

run_inside_frame()

from lab import parity, share, state
from lab.lessons import lesson_link
from lab.memory import remember
from lab.safe import code, md
from lab.share import Field
from lab.token_view import live_box, set_text, token_view
from viz import arena, chat

SAMPLES = arena.arena_samples()
DEFAULT_PICKS = ["GPT-4 (cl100k_base)", "GPT-4o (o200k_base)", "Llama 3", "Mistral Tekken"]
MAX_TEXT = 100_000  # characters; every tokenizer encodes and draws it on each rerun
MAX_MESSAGES = 8
CHAT_DEFAULT = [("system", "You are a helpful assistant."),
                ("user", "What does a tokenizer do?"),
                ("assistant", "It cuts text into tokens, the units a language model reads."),
                ("user", "Show me one.")]
CHAT_SLOTS = CHAT_DEFAULT + [("user", "")] * (MAX_MESSAGES - len(CHAT_DEFAULT))

names = state.tokenizer_names()
DEFAULTS = {"arena_picks": [n for n in DEFAULT_PICKS if n in names],
            "arena_sample": "English", "arena_text": SAMPLES["English"],
            "arena_own_name": "", "arena_own_text": "", "arena_chat_n": len(CHAT_DEFAULT),
            **{f"arena_role_{i}": role for i, (role, _) in enumerate(CHAT_SLOTS)},
            **{f"arena_content_{i}": content for i, (_, content) in enumerate(CHAT_SLOTS)}}
# what a link carries (lab/share.py): the picks, the text and the chat; not own samples
LINK = {"picks": Field("arena_picks", "tokenizers"), "text": Field("arena_text", "text"),
        "sample": Field("arena_sample", choices=tuple(SAMPLES)),
        "n": Field("arena_chat_n", "int", choices=tuple(range(1, MAX_MESSAGES + 1))),
        **{f"r{i + 1}": Field(f"arena_role_{i}", choices=chat.ROLES) for i in range(MAX_MESSAGES)},
        **{f"m{i + 1}": Field(f"arena_content_{i}", "text") for i in range(MAX_MESSAGES)}}
received = share.read_once("arena", LINK, DEFAULTS)
remember(DEFAULTS)
st.session_state["arena_picks"] = [n for n in st.session_state["arena_picks"] if n in names]
own_samples = st.session_state.setdefault("arena_own_samples", {})  # label -> text

st.title("Arena")

lesson_link("pages/arena.py")
st.caption("One text, every tokenizer you pick, stacked: fewer tokens (more bytes per token) "
           "means the tokenizer packs this kind of text better.")
said = st.container()  # what the link did not bring, and what it cannot carry
picks = st.multiselect("Tokenizers", names, key="arena_picks",
                       placeholder="Pick one or more tokenizers")
if state.unavailable_references():
    st.caption(md(state.references_help()))


def _load_sample():
    set_text("arena_text", {**SAMPLES, **own_samples}[st.session_state["arena_sample"]])


def _add_own():
    """Keep the visitor's sample (before the run, so the Sample menu lists it at once)."""
    label = st.session_state["arena_own_name"].strip() or f"My sample {len(own_samples) + 1}"
    if not st.session_state["arena_own_text"].strip():
        said = ("error", "The sample has no text; paste some first.")
    elif label in SAMPLES:
        said = ("error", f"{md(label)} is a shipped sample's name; pick another name.")
    else:
        own_samples[label] = st.session_state["arena_own_text"]
        said = ("success", f"Added {md(label)}: it is in the table, the chart and the Sample menu.")
    st.session_state["arena_own_said"] = said


st.selectbox("Sample", [*SAMPLES, *own_samples], key="arena_sample", on_change=_load_sample)
live_box("arena_text", editor={"label": "Text for every tokenizer", "height": 140,
                                   "max_chars": MAX_TEXT, "placeholder": "Type or paste text "
                                   "here: every tokenizer below follows as you type."})
text = st.session_state["arena_text"][:MAX_TEXT]
tokenizers = {name: state.get_tokenizer(name) for name in picks}
if not picks:
    st.info("Pick at least one tokenizer above to see the text through it.")

for i, (name, tok) in enumerate(tokenizers.items()):
    lane = arena.lane(name, tok, text)
    with st.container(border=True):
        with st.container(horizontal=True, vertical_alignment="center"):
            st.markdown(f"**{md(name)}**")
            st.markdown(f"{lane.n_tokens:,} tokens · {lane.bytes_per_token:.2f} bytes/token")
            parity.show_badge(name, text, tok, lane.ids)
        token_view([arena.lane_row(lane, text)], key=f"arena_lane_{i}", box_height=160)

st.header("Bytes per token on the samples", divider="gray")
with st.expander("Add your own sample"):
    with st.form("arena_own_form", border=False):
        st.text_input("Name", key="arena_own_name", max_chars=40)
        st.text_area("Text", key="arena_own_text", height=100, max_chars=MAX_TEXT)
        st.form_submit_button("Add to the samples", icon=":material/add:", on_click=_add_own)
    kind, message = st.session_state.pop("arena_own_said", (None, None))
    if kind:
        getattr(st, kind)(message)
if tokenizers:
    frame = arena.bytes_per_token_frame(tokenizers, {**SAMPLES, **own_samples})
    st.altair_chart(arena.bytes_per_token_chart(frame), width="stretch")
    st.dataframe(arena.best_marked(frame), width="stretch", height=36 * (len(frame) + 1) + 3)
    st.caption(f"Bytes of UTF-8 per token (higher is better); {arena.BEST} marks the best "
               "tokenizer on each sample. Samples: samples/arena/ (written for this lab, "
               "public domain; see its README).")

st.header("Chat cost", divider="gray")
st.caption("A conversation in each model's chat format: the format's own tokens in grey, "
           "each message's content in its color. ChatML as tiktokenizer renders it for "
           "GPT-4 and GPT-4o; Llama's headers as llama_models' chat_format.py; Mistral's "
           "[INST] format as mistral_common. GPT-2 and your own tokenizers have none.")
n_messages = st.number_input("Messages", 1, MAX_MESSAGES, key="arena_chat_n")
messages = []
for i in range(n_messages):
    role_col, content_col = st.columns([2, 5], vertical_alignment="top")
    role = role_col.selectbox(f"Role {i + 1}", chat.ROLES, key=f"arena_role_{i}")
    with content_col:  # a live box: the costs below follow the typing
        live_box(f"arena_content_{i}", editor={
            "label": f"Message {i + 1}", "height": 68, "max_chars": MAX_TEXT,
            "placeholder": f"Message {i + 1}: type its content"})
    content = st.session_state[f"arena_content_{i}"][:MAX_TEXT]
    messages.append({"role": role, "content": content})

formatted = {name: state.reference_key(name) for name in picks
             if chat.chat_format(state.reference_key(name))}
summary = []
for name, ref in formatted.items():
    tok = tokenizers[name]
    parts = chat.chat_parts(ref, tok, messages)
    summary.append({"tokenizer": name, "format": chat.FORMAT_LABELS[chat.chat_format(ref)],
                    **chat.chat_summary(tok, parts, messages)})
    with st.expander(f"{md(name)}: {summary[-1]['tokens']:,} tokens, "
                     f"{summary[-1]['overhead']:,} of them the format's"):
        token_view([chat.chat_row(tok, parts)], key=f"arena_chat_{ref}", box_height=260)
        st.dataframe(chat.chat_cost(tok, parts, messages), hide_index=True, width="stretch")
if summary:
    st.dataframe(summary, hide_index=True, width="stretch")
elif picks:
    st.info("None of the picked tokenizers has a chat format; pick GPT-4, GPT-4o, Llama or "
            f"Mistral. ({', '.join(code(p) for p in picks)})")
with said:
    share.notes(received, share.write(LINK, DEFAULTS))
