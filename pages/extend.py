"""Extend a vocabulary: new merges learned from a domain corpus on top of any tokenizer
(GPT-4, GPT-4o, one trained or loaded here), every old id keeping its meaning. Shows
bytes/token on held-out domain text and on general text as K grows, the new tokens, and
the downloads each format can hold. Thin: bpe.extend learns and lab.jobs.workers measures, in
the worker (asked by lab.jobs.requests.ExtendRequest); viz.sweep draws."""
import streamlit as st

from lab.pages_guard import run_inside_frame

run_inside_frame()

from bpe.extend import ExtendedTokenizer
from lab import state
from lab.train import job_view
from lab.train.corpora import load_sample, sample_corpora
from lab.memory import remember
from lab.jobs.requests import ExtendRequest
from lab.safe import md
from lab.widgets import tokenizer_picker
from viz import sweep

SLOT = "extend"
ADDED = "extend_added"  # the slot's outcome already joined the session: its name
DOMAIN_LIMIT = 4_000_000   # characters of the domain corpus used
GENERAL_LIMIT = 200_000    # characters of general text measured

remember({"extend_domain": None, "extend_general": None, "extend_k": 1000,
          "extend_min_frequency": 2})

st.title("Extend a vocabulary")
st.caption("Add domain tokens to an existing vocabulary without changing a single id: the "
           "base encodes the domain text as always, BPE continues on its tokens, and the new "
           "tokens take ids after the base's last one (special tokens keep theirs). Text no "
           "new merge touches encodes exactly as before.")

corpora = sample_corpora()
names = list(corpora)
for key, default in (("extend_domain", 1 if len(names) > 1 else 0), ("extend_general", 0)):
    if st.session_state.get(key) not in corpora:
        st.session_state[key] = names[default]

base_name, base = tokenizer_picker("extend_base", label="Base tokenizer")
with st.container():
    c1, c2 = st.columns(2)
    c1.selectbox("Domain corpus (its last tenth is held out)", names, key="extend_domain")
    c2.selectbox("General text, to see what the extension costs elsewhere", names,
                 key="extend_general")
    c3, c4 = st.columns(2)
    c3.number_input("New merges K", min_value=1, max_value=50_000, step=100, key="extend_k")
    c4.number_input("Minimum pair count", min_value=1, max_value=1_000_000, key="extend_min_frequency",
                    help="Stop when the best pair occurs fewer times than this.")
    go = st.button("Extend", type="primary", icon=":material/add_circle:")

if go:
    domain, general = st.session_state["extend_domain"], st.session_state["extend_general"]
    k, min_frequency = int(st.session_state["extend_k"]), int(st.session_state["extend_min_frequency"])
    st.session_state.pop(ADDED, None)
    job_view.start(SLOT, f"{base_name} + {k}",
                   f"{base_name} + {k:,} merges learned from {domain}; general text: {general}",
                   ExtendRequest, dict(num_merges=k, min_frequency=min_frequency),
                   base=state.reference_key(base_name) or base,
                   domain=load_sample(domain)[0][:DOMAIN_LIMIT],
                   general=load_sample(general)[0][:GENERAL_LIMIT])
    st.session_state["extend_base_used"] = (base_name, base, domain, k, min_frequency)

run = job_view.finished(SLOT, "Pick a base, a domain corpus and K, then extend (in the "
                              "background).")
if run is None or "extend_base_used" not in st.session_state:
    st.stop()
value = run.outcome.value
base_name, base, domain, k, min_frequency = st.session_state["extend_base_used"]
ext = ExtendedTokenizer(base, value["new_merges"], value["merge_counts"], value["stop_reason"])
if ADDED not in st.session_state:  # join the session once, on the first run after the end
    st.session_state[ADDED] = state.add_tokenizer(
        f"{base_name} + {len(ext.new_merges)} ({domain})", ext)
rows = value["rows"]
st.success(f"{len(ext.new_merges):,} new tokens, ids {ext.new_idx_start:,} to "
           f"{ext.n_vocab - 1:,}, added to this session as “{md(st.session_state[ADDED])}”: "
           "pick it in any tokenizer menu.", icon=":material/check_circle:")
if len(ext.new_merges) < k:
    st.caption(f"Stopped early ({md(ext.stop_reason)}): no pair occurred "
               f"{min_frequency} times or more.")

by_text = {}
for row in rows:
    by_text.setdefault(row["text"], []).append(row["bytes/token"])
cols = st.columns(len(by_text))
for col, (label, values) in zip(cols, by_text.items()):
    col.metric(f"bytes/token, {label}", f"{values[-1]:.3f}", f"{values[-1] - values[0]:+.3f}",
               help="with all K new merges; the change is against the base")
for chart in sweep.extension_charts(rows):
    st.altair_chart(chart, width="stretch", height=sweep.element_height(chart))

st.subheader("New tokens")
st.dataframe(sweep.new_tokens_rows(ext), hide_index=True, width="stretch", height=360)

st.subheader("Download")
cols = st.columns(len(value["downloads"]))
for col, (fmt, (file_name, data, why)) in zip(cols, value["downloads"].items()):
    if data is None:
        col.button(fmt, disabled=True, key=f"extend_dl_{fmt}", width="stretch")
        col.caption(md(why))
    else:
        col.download_button(fmt, data, file_name=file_name, key=f"extend_dl_{fmt}",
                            icon=":material/download:", width="stretch")
st.caption("A .tiktoken file holds only the ranks: give tiktoken the base's split pattern "
           "and special tokens yourself.")
