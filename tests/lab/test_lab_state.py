"""lab.state in a Streamlit run: references in the picker, uploads of every kind (known by
content), one registry entry per tokenizer, and parity badges for uploaded files."""
from helpers.app import ROOT
from streamlit.testing.v1 import AppTest

from bpe import BasicTokenizer, RegexTokenizer
from bpe.formats.hf.tokenizer_json import hf_json
from bpe.formats.ranks import WHOLE_TEXT_PATTERN, tiktoken_text

CORPUS = "the year 2026 had 365 days, and the days had 24 hours. " * 40


def script():
    """Upload each file in session_state['files'] (name -> bytes), show names or errors."""
    import io
    import sys

    import streamlit as st
    sys.path.insert(0, st.session_state["root"])
    from lab import state, widgets

    class Upload(io.BytesIO):  # what st.file_uploader returns, as far as state needs
        def __init__(self, name, data):
            super().__init__(data)
            self.name = name

    for name, data in st.session_state.get("files", {}).items():
        try:
            st.success(state.load_model_upload(Upload(name, data),
                                               pattern=st.session_state.get("pattern", "gpt4")))
        except ValueError as e:
            st.error(str(e))
    together = st.session_state.get("together")
    if together:
        results = state.load_uploads([Upload(n, d) for n, d in together.items()],
                                     pattern=st.session_state.get("pattern"))
        st.session_state["results"] = results
    check_text = st.session_state.get("check_text")
    if check_text is not None:
        from lab import parity
        checks = {}
        for label in state.tokenizer_names():
            entry = state.entry(label)
            result = parity.check(label, check_text)
            checks[label] = (entry.tokenizer.name, entry.reference,
                             entry.file.kind if entry.file else None,
                             result.badge if result else None)
        st.session_state["checks"] = checks
    if st.session_state.get("add_as"):
        from bpe import BasicTokenizer
        st.session_state["added"] = state.add_tokenizer(st.session_state["add_as"],
                                                        BasicTokenizer())
    _, tok = widgets.tokenizer_picker("t_pick")
    st.text(type(tok).__name__)
    st.session_state["names"] = state.tokenizer_names()


def run(files=None, pattern="gpt4", pick=None, together=None, check_text=None):
    at = AppTest.from_function(script, default_timeout=120)
    at.session_state["root"] = str(ROOT)
    at.session_state["files"] = files or {}
    at.session_state["pattern"] = pattern
    at.session_state["together"] = together
    at.session_state["check_text"] = check_text
    at.run()
    if pick:
        at.selectbox(key="t_pick").set_value(pick).run()
    assert not at.exception
    return at


def installed_reference_labels():
    """The labels of the references whose vocabulary package is installed, GPT-4 first,
    as bpe.reference itself reports them."""
    from bpe import reference
    reasons = reference.available_references()
    return [ref.label for name, ref in reference.REFERENCES.items() if reasons[name] is None]


def test_every_installed_reference_is_offered():
    at = run(pick="GPT-4o (o200k_base)")
    assert at.session_state["names"] == installed_reference_labels()
    assert at.session_state["names"][0] == "GPT-4 (cl100k_base)"
    assert len(at.session_state["names"]) == 8  # make test installs every vocabulary package
    assert at.text[0].value == "RanksTokenizer"
    assert not at.selectbox(key="t_pick").help  # nothing missing, nothing to explain


def test_uploads_of_all_three_formats_give_the_same_tokenizer():
    tok = RegexTokenizer("gpt2").train(CORPUS, 256 + 40)
    basic = BasicTokenizer().train(CORPUS, 256 + 30)
    files = {"mine.model": tok.model_text().encode(),
             "mine.tiktoken": tiktoken_text(tok).encode(),
             "tokenizer.json": __import__("json").dumps(hf_json(tok)).encode()}
    at = run(files, pattern="gpt2")
    assert [s.value for s in at.success] == ["mine (uploaded)", "mine (uploaded) (2)",
                                             "tokenizer (uploaded)"]
    owned = at.session_state["lab_tokenizers"]
    for loaded in owned.values():
        assert loaded.merges == tok.merges and loaded.pattern == tok.pattern
    at = run({"b.tiktoken": tiktoken_text(basic).encode()},
             pattern=WHOLE_TEXT_PATTERN)
    assert type(at.session_state["lab_tokenizers"]["b (uploaded)"]) is BasicTokenizer


def test_bad_uploads_are_errors_naming_the_problem():
    at = run({"x.model": b"\xff\xfe", "y.tiktoken": b"nope\n", "z.json": b"{}",
              "w.txt": b"text"})
    errors = [e.value for e in at.error]
    assert errors[0].startswith("x.model is not UTF-8 text, so not a minbpe .model file")
    assert errors[1] == ("y.tiktoken line 1: expected '<base64 token> <rank>', found 'nope'; "
                         "is this a .tiktoken file?")
    assert errors[2].startswith("z.json: expected a tokenizer.json")
    assert errors[3].startswith("w.txt is not a tokenizer file this lab can open: it looks "
                                "like text starting 'text'. Accepted: minbpe .model")
    assert len(errors) == 4
    assert at.session_state["names"] == installed_reference_labels()


def test_session_names_never_take_a_reference_name():
    at = AppTest.from_function(script, default_timeout=60)
    at.session_state["root"] = str(ROOT)
    at.session_state["add_as"] = "GPT-4o (o200k_base)"
    at.run()
    assert at.session_state["added"] == "GPT-4o (o200k_base) (2)"


def test_a_new_tokenizer_is_selected_once_then_the_users_pick_stands():
    at = run()
    assert at.selectbox(key="t_pick").value == "GPT-4 (cl100k_base)"
    at.session_state["add_as"] = "mine"
    at.run()  # added during this run: the picker, drawn after, switches to it
    assert at.selectbox(key="t_pick").value == "mine"
    at.session_state["add_as"] = ""
    at.selectbox(key="t_pick").set_value("GPT-4 (cl100k_base)").run()
    at.run()
    assert at.selectbox(key="t_pick").value == "GPT-4 (cl100k_base)"  # not switched back


def test_unknown_ranks_without_a_pattern_ask_for_one():
    tok = RegexTokenizer("gpt2").train(CORPUS, 256 + 40)
    at = run({"mine.tiktoken": tiktoken_text(tok).encode()}, pattern=None)
    assert "which do not say how text is split" in at.error[0].value
    assert at.session_state["names"] == installed_reference_labels()


def test_registry_entries_and_badges_for_every_kind(taylorswift):
    """Each uploaded kind is one entry (its file's kind, its file name as tok.name) and its
    parity badge names the owner's library; references keep their keys."""
    import io
    import json

    import sentencepiece as spm

    from bpe import reference
    from bpe.formats import gpt2
    tok = RegexTokenizer("gpt2").train(CORPUS, 256 + 40)
    model = io.BytesIO()
    spm.SentencePieceTrainer.train(sentence_iterator=iter(taylorswift.splitlines()[:2000]),
                                   model_writer=model, vocab_size=300, minloglevel=2)
    merges = [(tok.vocab[a], tok.vocab[b]) for a, b in tok.merges]
    encoder, merges_text = gpt2.gpt2_pair_text(tok.vocab, merges)
    files = {"mine.tiktoken": tiktoken_text(tok).encode(),
             "sp.model": model.getvalue(),
             "tokenizer.json": json.dumps(hf_json(tok)).encode(),
             "mine.model": tok.model_text().encode()}
    at = run(files, pattern="gpt2", check_text="Hello there, it's 2026!  ",
             together={"vocab.json": encoder.encode(), "merges.txt": merges_text.encode()})
    assert at.session_state["results"] == [("vocab.json + merges.txt (uploaded)", None)]
    checks = at.session_state["checks"]
    assert checks["mine (uploaded)"] == ("mine.tiktoken", None, "ranks", "ids == tiktoken")
    assert checks["sp (uploaded)"] == ("sp.model", None, "sentencepiece", "ids == sentencepiece")
    assert checks["tokenizer (uploaded)"] == ("tokenizer.json", None, "tokenizer.json",
                                              "ids == tokenizers")
    assert checks["vocab.json + merges.txt (uploaded)"] == ("vocab.json", None, "gpt2-pair",
                                                            "ids == tokenizers")
    assert checks["mine (uploaded) (2)"] == ("mine.model", None, "minbpe", None)
    gpt4 = reference.REFERENCES["cl100k_base"].label
    assert checks[gpt4][1:] == ("cl100k_base", None, "ids == tiktoken")
    llama = reference.REFERENCES["llama3"].label
    assert checks[llama][1] == "llama3" and checks[llama][3].startswith("ids == ")
