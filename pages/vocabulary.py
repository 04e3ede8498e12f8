"""Vocabulary explorer: search, sort and inspect every token of a tokenizer, and see which
tokens a sample text uses. Thin: the table and its queries are viz.vocab's."""
import streamlit as st

from lab.pages_guard import run_inside_frame

run_inside_frame()

from lab import derived, share, state, widgets
from lab.lessons import lesson_link
from lab.memory import remember
from lab.safe import md
from lab.share import Field
from lab.token_view import token_view
from viz import vocab
from viz.marks import tokens_row
from viz.samples import DEFAULT_SAMPLE, SAMPLES

TABLE_ROWS = 1000  # rows sent to the browser at once; the counts cover all matches
# A missing merge or count is drawn as Streamlit's grey "None": Streamlit 1.67 draws a null
# cell so whatever a pandas Styler's na_rep says (checked in Chromium), and a Styler renders
# every cell it is given (3.6 MB for the 1,000 rows of a visitor's vocabulary, issue 32), so
# the tables are sent without one, and the columns' help says what None means.


def token_chips(tok, ids, key):
    """Tokens drawn as the lab draws them everywhere (the token view), whitespace marked."""
    token_view([tokens_row(tok, ids)], key=key)


st.title("Vocabulary")


lesson_link("pages/vocabulary.py")
st.caption("Every token of a tokenizer: what it is, what pair it was merged from, what "
           "was built on top of it. Spaces show as ·, a newline as ↵, invisible characters by "
           "name (⟨NUL⟩) and parts of a character in hex (⟨f0 9f⟩); a search with such a "
           "marker in it matches the token column as shown.")

DEFAULTS = {"vocab_tokenizer": state.GPT4_NAME, "vocab_query": "", "vocab_mode": "substring",
            "vocab_sort": "id", "vocab_desc": False, "vocab_partial": False,
            "vocab_sample": DEFAULT_SAMPLE, "vocab_text": SAMPLES[DEFAULT_SAMPLE]}
MODES = ("substring", "regex")
# what a link carries (lab/share.py): the search, the token shown and the text
LINK = {"tokenizer": Field("vocab_tokenizer", "tokenizer"), "q": Field("vocab_query"),
        "mode": Field("vocab_mode", choices=MODES),
        "sort": Field("vocab_sort", choices=tuple(vocab.SORTS)),
        "desc": Field("vocab_desc", "flag"), "partial": Field("vocab_partial", "flag"),
        "id": Field("vocab_id", "int"), "text": Field("vocab_text", "text")}
received = share.read_once("vocabulary", LINK, DEFAULTS)
remember(DEFAULTS)
said = st.container()  # what the link did not bring, and what it cannot carry
name, tok = widgets.tokenizer_picker("vocab_tokenizer")
frame = derived.vocab_table(tok, wait=st.spinner)
counts_recorded = bool(tok.merge_counts)

widgets.figures(
    ("Tokens", f"{len(frame):,}"),
    ("Merges", f"{int(frame['merge'].notna().sum()):,}"),
    ("Special tokens", f"{int(frame['special'].sum()):,}"),
    ("Not whole UTF-8 characters", f"{int((~frame['whole_chars']).sum()):,}",
     "Tokens whose bytes end or start inside a character (part of an emoji, say): they "
     "never decode on their own."))
if not counts_recorded:
    st.info("This tokenizer has no merge counts recorded (reference vocabularies such as "
            "GPT-4's, .model files and SentencePiece models do not keep them), so the table "
            "has no count column.")

# ------------------------------------------------------------------ search and sort
# one row that wraps on a narrow screen, rather than squeezing "substring" onto two lines
search_row = st.container(horizontal=True, gap="medium", vertical_alignment="bottom")
with search_row.container(width="stretch"):
    query = st.text_input("Search tokens", key="vocab_query",
                          placeholder="e.g.  token   or, as a regex,  ^·[A-Z]")
with search_row.container(width=190):
    mode = st.radio("Match", MODES, key="vocab_mode", horizontal=True)
with search_row.container(width=160):
    sort_by = st.selectbox("Sort by", list(vocab.SORTS), key="vocab_sort")
with search_row.container(width="content"):
    descending = st.toggle("Descending", key="vocab_desc")
only_partial = st.checkbox("Only tokens that are not whole UTF-8 characters",
                           key="vocab_partial")

try:
    found = vocab.search_tokens(frame, query, mode, tok=tok)
except ValueError as e:
    st.error(md(e))
    found = frame.iloc[:0]
except TimeoutError:
    st.error(f"The regex took more than {vocab.SEARCH_TIMEOUT:g} s of CPU over the vocabulary and "
             "was stopped; simplify it (avoid nested repeats like (a+)+).")
    found = frame.iloc[:0]
if only_partial:
    found = found[~found["whole_chars"]]
# the rows sent only, in the order asked: no sorted copy of a 100k-row table per run
top = vocab.sort_tokens(found, sort_by, descending, limit=TABLE_ROWS)

st.caption(f"{len(found):,} matching token{'s' if len(found) != 1 else ''}"
           + (f"; showing the first {TABLE_ROWS:,}" if len(found) > TABLE_ROWS else "")
           + ". Select a row to see it in detail.")
# display text for the rows sent only: a visitor's 100k HTML-shaped pieces are not all escaped
shown = vocab.with_text(tok, top)
empty = vocab.empty_columns(frame)
columns = [c for c in ("id", "token", "length", "hex", "pair", "merge", "count", "children",
                       "whole_chars") if c not in empty]
event = st.dataframe(
    shown[columns], width="stretch",
    hide_index=True, height=380, on_select="rerun", selection_mode="single-row",
    key="vocab_table",
    column_config={
        "id": st.column_config.NumberColumn("id", width="small"),
        "token": st.column_config.TextColumn("token", width="medium"),
        "length": st.column_config.NumberColumn("bytes", width="small"),
        "hex": st.column_config.TextColumn("hex", width="small"),
        "pair": st.column_config.TextColumn("merged from", width="medium"),
        "merge": st.column_config.NumberColumn("merge k", help="Made by the k-th merge; None for "
                                               "a byte or a special token, which no merge "
                                               "made", width="small"),
        "count": st.column_config.NumberColumn("count", help="How often the pair occurred "
                                               "when it was merged; None where not recorded",
                                               width="small"),
        "children": st.column_config.NumberColumn("built on it", width="small"),
        "whole_chars": st.column_config.CheckboxColumn("whole UTF-8", width="medium"),
    })

# ------------------------------------------------------------------ one token
rows = event.selection.rows if event else []
if rows:
    picked = int(shown.iloc[rows[0]]["id"])
    # a new selection moves the id box; typing an id afterwards still works
    if st.session_state.get("vocab_selected") != picked:
        st.session_state["vocab_selected"] = picked
        st.session_state["vocab_id"] = picked
DEFAULTS["vocab_id"] = 256 if vocab.has_token(frame, 256) else int(frame.index[0])
if st.session_state.get("vocab_id", 0) > int(frame.index.max()):  # e.g. a link's id
    received.append(f"token id {st.session_state['vocab_id']:,} is past this vocabulary's "
                    f"last id, {int(frame.index.max()):,}; it shows token "
                    f"{DEFAULTS['vocab_id']:,}")
    del st.session_state["vocab_id"]
st.session_state.setdefault("vocab_id", DEFAULTS["vocab_id"])

st.subheader("One token")
detail_col, children_col = st.columns([1, 1])
idx = detail_col.number_input("Token id", min_value=0, max_value=int(frame.index.max()),
                              step=1, key="vocab_id")
try:
    detail = vocab.token_detail(frame, int(idx), tok)
except KeyError as e:
    detail_col.error(md(e.args[0]))
    detail = None
if detail is not None:
    with detail_col:
        token_chips(tok, [detail["id"]], "vocab_token_view")
        st.markdown(f"id **{detail['id']}** · {detail['length']} byte"
                    f"{'s' if detail['length'] != 1 else ''} · hex `{detail['hex']}`")
        if detail["special"]:
            st.write("A special token: added whole, never made by a merge.")
        elif detail["left"] is None:
            st.write("A single byte: one of the 256 tokens every byte-level BPE starts with.")
        else:
            count = detail["count"]
            st.write(f"Made by merge **{detail['merge']:,}** from the pair "
                     f"{detail['left']} + {detail['right']}:")
            token_chips(tok, [detail["left"], detail["right"]], "vocab_pair_view")
            st.write(f"The pair occurred **{count:,}** times when it was merged."
                     if count is not None else "Its count at merge time was not recorded.")
        if not detail["whole_chars"]:
            st.warning("Not whole UTF-8 characters: this token holds part of a character.")
        if not detail["special"]:
            st.page_link("pages/merge_tree.py", label="See its merge tree",
                         icon=":material/account_tree:",
                         query_params={"token": str(detail["id"]), "tokenizer": name})
    with children_col:
        children = detail["built_on"]
        st.write(f"**{len(children):,}** token{'s' if len(children) != 1 else ''} "
                 "built on top of it" + (":" if len(children) else "."))
        if len(children):
            st.dataframe(vocab.with_text(tok, children.head(TABLE_ROWS))[
                             [c for c in ("id", "token", "pair", "merge") if c not in empty]],
                         hide_index=True, height=300)

# ------------------------------------------------------------------ a sample text
st.subheader("Which tokens does a text use?")
text = widgets.sample_text("vocab", height=120, max_chars=None)
used, untouched = vocab.text_usage(tok, frame, text)
ordinary = len(frame) - int(frame["special"].sum())
widgets.figures(
    ("Tokens in the text", f"{int(used['uses'].sum()):,}"),
    ("Distinct tokens used", f"{len(used):,}"),
    ("Vocabulary never touched", f"{untouched:,}",
     f"Of the {ordinary:,} ordinary tokens, this text uses {len(used) / ordinary:.2%}; the "
     f"other {untouched / ordinary:.2%} it never touches."))
if len(used) > TABLE_ROWS:
    st.caption(f"Showing the {TABLE_ROWS:,} most used of the {len(used):,} tokens.")
st.dataframe(vocab.with_text(tok, used.head(TABLE_ROWS))[
                 [c for c in ("id", "token", "uses", "pair", "merge", "whole_chars")
                  if c not in empty]],
             hide_index=True, height=300,
             column_config={"whole_chars": st.column_config.CheckboxColumn("whole UTF-8")})
with said:
    share.notes(received, share.write(LINK, DEFAULTS))
