"""Merge replay: a text tokenized with only the first k merges, k from 0 (raw bytes) to
all of them, with the merge that step k applies named and outlined, a play button that
steps through, and the token count against k. Thin: ids from bpe.replay, the step and
the chart data from viz.replay, the tokens drawn by lab.token_view."""
import altair as alt
import streamlit as st

from lab.pages_guard import run_inside_frame

run_inside_frame()

from lab.widgets import sample_text
from lab import derived, state, widgets
from lab.memory import remember
from viz.samples import DEFAULT_SAMPLE, SAMPLES
from viz import replay
from lab.token_view import token_view
from lab.guard import guarded
from lab.safe import md
from bpe.replay import check_replayable

TICK = 0.7          # seconds between steps while playing
MAX_TICKS = 300     # a play stops by itself after this many steps
USED = "merges this text uses"
STRIDES = [USED, 1, 10, 100, 1000]
MAX_CHARS = 20_000  # text replayed; every step redraws it

st.title("Merge replay")
st.caption("Slide k: the text as it stands after the tokenizer's first k merges. k = 0 is "
           "the raw UTF-8 bytes; the last k is the tokenizer as it is. The tokens made by "
           "merge k are outlined in red.")

remember({"replay_tokenizer": state.GPT4_NAME, "replay_sample": DEFAULT_SAMPLE,
          "replay_text": SAMPLES[DEFAULT_SAMPLE]})
name, tok = widgets.tokenizer_picker("replay_tokenizer")
widgets.stop_without_merges(name, tok)  # Unigram, WordPiece, a SentencePiece model
parents = derived.parents(tok, wait=st.spinner)
n_merges = len(parents)
try:
    check_replayable(parents)
except ValueError as e:  # a tokenizer.json whose ids are laid out otherwise
    st.info(md(f"{name}: {e}. Merge tree draws its tokens."), icon=":material/info:")
    st.stop()
if getattr(tok, "removed", None):
    st.caption(md(f"{name} is a Picky BPE tokenizer: training dropped {len(tok.removed):,} "
                  "of the tokens it merged (marked “dropped”). The replay takes the final "
                  "tokens apart merge by merge, so a dropped token shows where a final "
                  "token was built from it; it does not replay the drops themselves."))

text = sample_text("replay", height=100, max_chars=MAX_CHARS)

ids = tok.encode_ordinary(text)
counts = derived.counts_by_merge(tok, text)
used = replay.used_steps(ids, parents)  # the steps that change this text

# k lives in two widgets (slider and exact number), kept equal by their callbacks;
# remembered across visits to other pages, as is the stride
ranges = replay.zoom_ranges(n_merges)
remember({"replay_k": min(n_merges, 100), "replay_stride": USED,
          "replay_zoom": ranges[min(1, len(ranges) - 1)]})
st.session_state.setdefault("replay_playing", False)
if st.session_state["replay_k"] > n_merges:  # a smaller tokenizer was picked
    st.session_state["replay_k"] = n_merges
st.session_state["replay_k_num"] = st.session_state["replay_k"]


def copy_k(source, target):
    st.session_state[target] = st.session_state[source]


def go_to(k):
    if k is not None:
        st.session_state["replay_k"] = st.session_state["replay_k_num"] = k


def toggle_play():
    st.session_state["replay_playing"] = not st.session_state["replay_playing"]
    st.session_state["replay_ticks"] = 0


# rows that wrap on a narrow window instead of cutting the labels short
play_row = st.container(horizontal=True, vertical_alignment="center")
play_row.button("Stop" if st.session_state["replay_playing"] else "Play",
                icon=":material/pause:" if st.session_state["replay_playing"] else
                ":material/play_arrow:", on_click=toggle_play, key="replay_play")
stride = play_row.selectbox("Merges per step", STRIDES, key="replay_stride",
                            label_visibility="collapsed", width=300,
                            format_func=lambda s: f"step through the {s}" if s == USED else
                            f"{s:,} merge{'s' if s != 1 else ''} per step")


@st.fragment(run_every=TICK if st.session_state["replay_playing"] else None)
@guarded
def replay_view():
    if st.session_state["replay_playing"]:
        ticks = st.session_state.get("replay_ticks", 0)
        k = st.session_state["replay_k"]
        if k >= n_merges or ticks >= MAX_TICKS:
            # the end (or the step budget): stop, and rerun the page so the timer goes
            st.session_state["replay_playing"] = False
            st.rerun()
        st.session_state["replay_ticks"] = ticks + 1
        go_to(min(n_merges, k + stride) if stride != USED else
              replay.next_step(used, k) or n_merges)

    # set, not only read: a new range makes a new slider, which would start again at 0
    k = st.session_state["replay_k"] = st.session_state["replay_k"]
    zoom = st.session_state["replay_zoom"] = replay.zoom_for(
        k, st.session_state["replay_zoom"], ranges)
    s1, s2 = st.columns([5, 1])
    s1.slider("k: merges applied", 0, zoom, key="replay_k",
              on_change=copy_k, args=("replay_k", "replay_k_num"))
    s2.number_input("exact k", 0, n_merges, step=1, key="replay_k_num",
                    on_change=copy_k, args=("replay_k_num", "replay_k"))
    remember({"replay_k": k, "replay_zoom": zoom})  # a play moves k in this fragment only
    step = replay.replay_step(tok, ids, k, parents)
    back, ahead = replay.previous_step(used, k), replay.next_step(used, k)
    jump_row = st.container(horizontal=True, vertical_alignment="center")
    jump_row.button("Previous merge it uses", icon=":material/skip_previous:",
                    key="replay_prev", on_click=go_to, args=(back,), disabled=back is None)
    jump_row.button("Next merge it uses", icon=":material/skip_next:", key="replay_next",
                    on_click=go_to, args=(ahead,), disabled=ahead is None)
    if len(ranges) > 1:  # the first merges do most of the work: let the slider span them
        jump_row.selectbox("Slider spans", ranges, key="replay_zoom", width=250,
                           label_visibility="collapsed",
                           format_func=lambda r: f"slider: all {r:,} merges" if r == n_merges
                           else f"slider: the first {r:,} merges")
    jump_row.caption(f"This text uses {len(used):,} of the {n_merges:,} merges; the token "
                     "count changes only at those steps.")

    view_col, chart_col = st.columns([3, 2])
    with view_col:
        m1, m2 = st.columns(2)
        m1.metric("Tokens at this k", f"{len(step.ids):,}",
                  f"{len(step.ids) - counts[0]:,} vs raw bytes" if k else None,
                  delta_color="inverse")
        m2.metric("With all merges", f"{counts[-1]:,}")
        if step.idx is None:
            st.write("Step 0: no merge yet, one token per byte.")
        else:
            st.write(f"Step {k:,} merges the pair {step.pair[0]} + {step.pair[1]} into "
                     f"token {step.idx}:")
            st.code(replay.merge_name(tok, step.idx, step.pair), language=None)
            recorded = (f"When it was learned the pair occurred {step.count:,} times. "
                        if step.count is not None else "")
            st.write(recorded + (f"It stands **{step.occurrences:,}** time"
                                 f"{'s' if step.occurrences != 1 else ''} in this text."
                                 if step.occurrences else
                                 "It does not occur in this text."))
        step.row["marks"] = {"outline": step.highlight}
        token_view([step.row], key="replay_view")
    with chart_col:
        data = replay.counts_frame(counts, keep=[k])
        # symlog: the first merges do most of the work, and a linear axis hides them
        log_like = n_merges > 1000
        x_scale = alt.Scale(type="symlog") if log_like else alt.Scale()
        # ticks at powers of ten, which a symlog axis does not pick by itself
        x_axis = alt.Axis(format=",d", values=[t for t in (0, 10, 100, 1000, 10_000, 100_000,
                                                          1_000_000) if t <= n_merges]) \
            if log_like else alt.Axis(format=",d")
        line = alt.Chart(data).mark_line().encode(
            x=alt.X("k:Q", title="merges applied (k)", scale=x_scale, axis=x_axis),
            y=alt.Y("tokens:Q", title="tokens", scale=alt.Scale(zero=False)),
            tooltip=["k", "tokens"])
        here = alt.Chart(data[data["k"] == k]).mark_point(color="#d62828", size=80,
                                                          filled=True).encode(
            x=alt.X("k:Q", scale=x_scale), y="tokens:Q", tooltip=["k", "tokens"])
        st.altair_chart((line + here).properties(height=260), width="stretch")
        st.caption("Token count of this text against k"
                   + (" (k on a log-like scale)" if log_like else "")
                   + ". Most of the drop comes from the first merges: the most frequent "
                   "pairs are merged first.")


replay_view()
