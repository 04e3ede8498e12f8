"""Special-token sandbox: register special tokens on a copy of a tokenizer, type text that
contains them, and see it encoded under each allowed_special policy side by side.
Thin: parsing, the copy and the encodings are viz.specials'."""
import streamlit as st

from lab.pages_guard import run_inside_frame

run_inside_frame()

from lab import state, widgets
from lab.lessons import lesson_link
from lab.memory import remember
from viz import specials
from lab.safe import md
from lab.token_view import token_view
from viz.marks import spans_holding, tokens_row

DEFAULT_SPECIALS = "<|endoftext|>\n<|im_start|>\n<|im_end|>"
DEFAULT_TEXT = ("<|im_start|>user\nPlease summarize: \"...and that is the end.<|endoftext|>"
                "\"<|im_end|>")

st.title("Special tokens")
lesson_link("pages/specials.py")
st.caption("Special tokens are ids that no text merges into: control signals such as "
           "“end of text” or “a new turn starts”. Register some, type text containing "
           "them, and see how encode treats them under each policy.")

remember({"specials_tokenizer": state.GPT4_NAME, "specials_defs": DEFAULT_SPECIALS,
          "specials_text": DEFAULT_TEXT, "specials_chosen": None})
name, tok = widgets.tokenizer_picker("specials_tokenizer")
with st.expander("Why does the default policy, none_raise, refuse them?", expanded=True):
    st.markdown(specials.WHY_NONE_RAISE)

d1, d2 = st.columns([1, 2])
defs = d1.text_area("Special tokens, one a line (an id after a space is optional)",
                    key="specials_defs", height=140)
text = d2.text_area("Text", key="specials_text", height=140, max_chars=20_000)

try:
    wanted = specials.parse_specials(defs, tok.special_tokens, tok.n_vocab)
    twin = specials.with_specials(tok, wanted)
except ValueError as e:  # it may quote a definition: the visitor's text
    st.error(md(e))
    st.stop()

registered = twin.special_tokens
# names and tokens are the user's: shown as typed, not as Markdown
d1.caption(md(f"Registered on a copy of “{name}” (the original is untouched): "
                            + ", ".join(f"{s} = {i}" for s, i in registered.items())))

options = list(registered)
chosen_default = [s for s in wanted if s in text][:1] or options[:1]
if st.session_state["specials_chosen"] is None:  # the first visit
    st.session_state["specials_chosen"] = chosen_default
# drop choices that are no longer registered (the list above was edited)
st.session_state["specials_chosen"] = [s for s in st.session_state["specials_chosen"]
                                       if s in registered]
chosen = st.multiselect("The chosen set (allowed_special={...}): only these become special "
                        "tokens; other special-token text is encoded as ordinary text",
                        options, key="specials_chosen")

outcomes = specials.encode_policies(twin, text, chosen)
special_ids = set(registered.values())
# two policies a row: four columns leave a token of a special name no room to stand
columns = [column for _ in range(0, len(outcomes), 2) for column in st.columns(2, border=True)]
for n, (column, outcome) in enumerate(zip(columns, outcomes)):
    with column:
        # the policy as code: user-typed token names never reach markdown
        st.code(f"allowed_special={outcome.policy}", language="python", wrap_lines=True)
        if outcome.error is not None:
            st.warning("encode raised ValueError — as it should: the text holds "
                       "special-token text that this policy does not allow.")
            st.caption(md(outcome.error))
            continue
        row = tokens_row(twin, outcome.ids)
        row["marks"] = {"special": spans_holding(row, special_ids)}
        token_view([row], key=f"specials_view_{n}")
        st.write(f"{len(outcome.ids):,} tokens, {outcome.specials} special"
                 + (" (bold, framed)" if outcome.specials else ""))
        st.code(str(outcome.ids), language=None, wrap_lines=True)
