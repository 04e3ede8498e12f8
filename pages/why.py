"""Why tokenization? The oddities of language models that tokenization explains, one
section per question, each with an editable example whose tokens follow typing.

Thin: the questions, explanations and figures are viz/why.py's; the tokens are drawn by
the shared token view (lab/token_view/__init__.py), one row per tokenizer. Each section is a
fragment, so typing in one reruns that section only.
"""
import streamlit as st

from lab.pages_guard import run_inside_frame

run_inside_frame()

from bpe import health, reference
from lab import lessons, state
from lab.train.corpora import SHIPPED_SHAKESPEARE
from lab.memory import remember
from lab.safe import md
from lab.token_view import token_view
from lab.guard import guarded
from viz import why
from viz.marks import spans_holding, tokens_row

MAX_CHARS = 20_000  # per example: every tokenizer encodes and draws it on each key press
MAGIKARP_ID = 43453  # " SolidGoldMagikarp" in r50k_base (GPT-2)


def tokenizers_for(section, mine):
    """label -> tokenizer: the section's references that are installed, then the
    session's own picked above."""
    available = set(state.reference_names())
    labels = [reference.REFERENCES[name].label for name in section.refs]
    picked = {label: state.get_tokenizer(label) for label in labels if label in available}
    return picked | {name: state.get_tokenizer(name) for name in mine}


def typed(key):
    """The section's box sent its text: it becomes the section's text."""
    sent = st.session_state[f"{key}_view"].get("text") or {}
    st.session_state[f"{key}_text"] = sent.get("text", "")
    st.session_state[f"{key}_echo"] = sent.get("seq")
    st.session_state[f"{key}_typed"] = True


@st.cache_data(show_spinner="Checking which GPT-2 tokens Shakespeare uses…")
def magikarp_finding():
    """(Vocabulary health's unused-token title on the shipped Shakespeare, whether
    SolidGoldMagikarp's id is among the unused) for GPT-2."""
    finding = health.unused(reference.load_reference("r50k_base"),
                            SHIPPED_SHAKESPEARE.read_text(encoding="utf-8"))
    return finding.title, any(row["id"] == MAGIKARP_ID for row in finding.rows)


def rows_for(section, tokenizers, text):
    """The token view's rows for the section's text: one per tokenizer (per format, for
    the YAML section)."""
    color_by = "id" if section.extra == "ids" else "position"
    if section.extra == "yaml":
        try:
            texts = dict(zip(("JSON", "YAML"), why.json_and_yaml(text)))
        except ValueError as e:
            st.warning(md(e))
            texts = {"JSON": text}
    else:
        texts = {"": text}
    rows = []
    for label, tok in tokenizers.items():
        for kind, part in texts.items():
            ids = tok.encode(part, allowed_special="none")
            rows.append(tokens_row(tok, ids, color_by=color_by,
                                   caption=f"{label}{' · ' + kind if kind else ''}: "
                                           f"{len(ids):,} token{'s' * (len(ids) != 1)}"))
    return rows


def extras(section, tokenizers, text):
    """The figures a section adds under its tokens."""
    encoders = {label: tok.encode_ordinary for label, tok in tokenizers.items()}
    if section.extra == "lines" and text.strip():
        st.dataframe(why.line_counts(encoders, text), hide_index=True, width="stretch")
    elif section.extra == "yaml" and text.strip():
        try:
            json_text, yaml_text = why.json_and_yaml(text)
        except ValueError:
            return  # rows_for said why
        st.dataframe(why.compare_counts(encoders, json_text, yaml_text, ("JSON", "YAML")),
                     hide_index=True, width="stretch")
    elif section.extra == "reverse" and text:
        st.dataframe(why.compare_counts(encoders, text), hide_index=True, width="stretch")
    elif section.extra == "trailing" and tokenizers:
        label, tok = next(iter(tokenizers.items()))
        warning = why.last_token_warning(tok.decode_tokens_bytes(tok.encode_ordinary(text)))
        if warning:
            st.warning(f"{md(label)}: {warning}", icon=":material/space_bar:")
        else:
            st.success(f"{md(label)}: the text does not end in a lone whitespace token.")
    elif section.extra == "specials" and tokenizers:
        label, tok = next(iter(tokenizers.items()))
        ids = tok.encode(text, allowed_special="all")
        row = tokens_row(tok, ids, caption=f"{label}, allowed_special=\"all\": "
                                           f"{len(ids):,} tokens (special ones framed)")
        row["marks"] = {"special": spans_holding(row, set(tok.special_tokens.values()))}
        token_view([row], key=f"why_{section.slug}_all")
        try:
            tok.encode(text)
            st.caption("The default policy (disallowed_special=\"all\") encodes this text: "
                       "it holds no special-token text.")
        except ValueError as e:
            st.caption(f"The default policy refuses the text, as it should: {md(e)}")
    elif section.extra == "magikarp" and "GPT-2 (r50k_base)" in tokenizers:
        title, unused = magikarp_finding()
        st.caption(f"Vocabulary health on GPT-2 with the shipped Shakespeare as corpus: "
                   f"{title}. “ SolidGoldMagikarp” (id {MAGIKARP_ID:,}) is "
                   f"{'one of the unused' if unused else 'used'}.")


@st.fragment
@guarded
def section_view(section, mine):
    """One question: the explanation, the live tokens, the figures, a link deeper."""
    key = f"why_{section.slug}"
    st.header(section.question, anchor=section.slug, divider="gray")
    st.markdown(section.explain)
    st.session_state.setdefault(f"{key}_text", section.text)
    text = st.session_state[f"{key}_text"][:MAX_CHARS]
    tokenizers = tokenizers_for(section, mine)
    typing = st.session_state.pop(f"{key}_typed", False)
    token_view(rows_for(section, tokenizers, text) if text else [], key=f"{key}_view",
               box_height=200, on_text_change=lambda: typed(key),
               editor={"text": None if typing else text, "version": 0,
                       "echo": st.session_state.get(f"{key}_echo"),
                       "placeholder": "Type an example: its tokens follow as you type.",
                       "height": 60 + 18 * min(text.count("\n"), 8), "max_chars": MAX_CHARS,
                       "status": "" if text else "Type some text."})
    extras(section, tokenizers, text)
    if section.link:
        lessons.page_link(section.link[0], label=f"Go deeper: {section.link[1]}",
                          icon=":material/arrow_forward:")


st.title("Why tokenization?")
st.caption("Many oddities of language models come from the tokenizer, not the model. Each "
           "section asks one question, answers it briefly, and shows it live: edit any "
           "example and the tokens follow as you type.")
lessons.lesson_pages("pages/why.py")
own = list(state.session_tokenizers())
remember({"why_mine": own[:2]})
st.session_state["why_mine"] = [n for n in st.session_state["why_mine"] if n in own]
mine = st.multiselect("Also show your own tokenizers (trained or loaded in this session)",
                      own, key="why_mine", disabled=not own,
                      placeholder="Train or load one to compare it here" if not own else
                      "Pick tokenizers")
if state.unavailable_references():
    st.caption(md(state.references_help()))
with st.expander("The questions", expanded=False):
    st.markdown("\n".join(f"{n}. [{s.question}](#{s.slug})"
                          for n, s in enumerate(why.SECTIONS, 1)))
for section in why.SECTIONS:
    section_view(section, mine)
