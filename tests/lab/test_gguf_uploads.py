"""A GGUF file uploaded in the app: it opens, its caption and load message name llama.cpp's
tokenizer family and pre-tokenizer, and its parity badge says what it was checked against:
llama.cpp's own test ids when the file is one of llama.cpp's test vocabularies (by sha256,
from the llama-cpp-python sdist), else `tokenizers` (in the capped worker) on the file's
tokenizer.json form, else a sentence saying why nothing checks it. The sdist is optional:
without it the tests that need its files skip, and the app says it is absent."""
import hashlib
import struct

import pytest
import streamlit as st

from bpe import RegexTokenizer
from bpe.formats import gguf, gguf_families, gpt2
from bpe.loading import load_bytes
from helpers.apptest import plain
from lab import llama_cpp_ids, parity, state

CORPUS = "the year 2026 had 365 days, and the days had 24 hours. Tokens! " * 40
TEXT = "Hello there, it's 2026!  Tokens\n\nand <|endoftext|> the days 🫠"


# ------------------------------------------------------------------ a GGUF file, written here
def _string(text):
    data = text.encode("utf-8")
    return struct.pack("<Q", len(data)) + data


def _key(name, kind, payload):
    return _string(name) + struct.pack("<I", kind) + payload


def gguf_bytes(tokens, merges, token_type, *, model="gpt2", pre="gpt-2"):
    """A GGUF v3 file holding only a tokenizer's metadata (no tensors)."""
    keys = [
        _key("general.architecture", 8, _string("gpt2")),
        _key("tokenizer.ggml.model", 8, _string(model)),
        _key("tokenizer.ggml.pre", 8, _string(pre)),
        _key("tokenizer.ggml.tokens", 9, struct.pack("<IQ", 8, len(tokens))
             + b"".join(_string(t) for t in tokens)),
        _key("tokenizer.ggml.token_type", 9, struct.pack("<IQ", 5, len(token_type))
             + struct.pack(f"<{len(token_type)}i", *token_type)),
        _key("tokenizer.ggml.merges", 9, struct.pack("<IQ", 8, len(merges))
             + b"".join(_string(m) for m in merges)),
    ]
    return b"GGUF" + struct.pack("<IQQ", 3, 0, len(keys)) + b"".join(keys)


def trained_gguf(byte_order):
    """A byte-level BPE trained here with GPT-2's split, written as llama.cpp's 'gpt2'
    family with pre 'gpt-2', and <|endoftext|> as a control token. byte_order: the 256
    byte tokens' ids follow GPT-2's encoder.json (printable characters first, as every real
    GGUF converted from a Hugging Face model has) or the bytes' values."""
    tok = RegexTokenizer("gpt2").train(CORPUS, 256 + 40)
    printable = [*range(33, 127), *range(161, 173), *range(174, 256)]  # GPT-2's ids 0-187
    order = printable + sorted(set(range(256)) - set(printable)) if byte_order == "gpt2" \
        else range(256)
    base = [gpt2.token_text(bytes([b])) for b in order]
    tokens = base + [gpt2.token_text(tok.vocab[idx]) for idx in range(256, len(tok.vocab))]
    merges = [f"{gpt2.token_text(tok.vocab[a])} {gpt2.token_text(tok.vocab[b])}"
              for a, b in tok.merges]
    return gguf_bytes(tokens + ["<|endoftext|>"], merges, [1] * len(tokens) + [3])


@pytest.fixture(scope="module")
def small_gguf():
    return trained_gguf("gpt2")


def llama_cpp_file(name):
    """One member of llama.cpp's models/ folder from the sdist, or skip saying why."""
    if llama_cpp_ids.sdist_path() is None:
        pytest.skip(llama_cpp_ids.absent())
    data = llama_cpp_ids.member(name)
    assert data is not None, f"{name} is not in {llama_cpp_ids.sdist_path()}"
    return data


# ------------------------------------------------------------------ in a session
class Upload:
    """What st.file_uploader returns, as far as lab.state needs."""

    def __init__(self, name, data):
        self.name, self.data = name, data

    def getvalue(self):
        return self.data


@pytest.fixture
def session():
    """A bare session (no server): st.session_state is a dict here; workers closed after."""
    yield
    for worker in st.session_state.pop(parity.FILE_ENCODERS, {}).values():
        worker.close()
    for key in (state.SESSION_KEY, state.FILES_KEY, state.NEWEST):
        st.session_state.pop(key, None)


def upload(name, data):
    """Load an uploaded file in this session; (label, its Check on TEXT, its caption)."""
    (label, error), = state.load_uploads([Upload(name, data)])
    assert error is None, error
    check = parity.check(label, TEXT)
    return label, check, plain(state.describe(label))


@pytest.fixture
def no_sdist(monkeypatch):
    monkeypatch.setattr(llama_cpp_ids, "sdist_path", lambda: None)


def test_a_gguf_that_is_not_llama_cpps_is_checked_by_tokenizers(session, small_gguf):
    label, check, caption = upload("small.gguf", small_gguf)
    assert check.ok and check.badge == "ids == tokenizers, on its tokenizer.json form", check
    assert check.checked == len(TEXT)
    assert "not one of llama.cpp's test vocabularies" in check.note or \
        "not on this server" in check.note
    assert "family ` gpt2 `, pre-tokenizer ` gpt-2 `" in caption, caption
    assert state.file_source(label).kind == "gguf"


def test_the_tokenizers_check_can_fail(session, small_gguf, monkeypatch):
    """The check is not a formality: tokenizers given the form without its last merges
    (what a wrong conversion would be) gives other ids, and the badge is red and says where."""
    label, _, _ = upload("small.gguf", small_gguf)
    whole = gguf_families.tokenizer_json

    def fewer_merges(info, source="file"):
        doc = whole(info, source)
        doc["model"]["merges"] = doc["model"]["merges"][:-20]
        return doc

    monkeypatch.setattr(parity.gguf_families, "tokenizer_json", fewer_merges)
    st.session_state.pop(parity.FILE_ENCODERS, None)
    check = parity.check(label, TEXT)
    assert not check.ok and check.badge.startswith("ids != tokenizers"), check
    assert "first difference at token" in check.detail


def test_without_the_sdist_the_caption_and_the_badge_say_so(session, small_gguf, no_sdist):
    assert llama_cpp_ids.table() is None and llama_cpp_ids.find("0" * 64) is None
    label, check, caption = upload("small.gguf", small_gguf)
    assert check.ok and check.library == parity.GGUF_CONVERTED
    assert "are not on this server" in check.note and "pip download" in check.note
    assert "llama.cpp's test vocabularies (llama_cpp_python-0.3.36.tar.gz) are not on this " \
           "server" in caption, caption


def test_no_tokenizer_json_form_is_a_sentence(session, small_gguf, no_sdist, monkeypatch):
    """A GGUF the lab opens some other way one day (no tokenizer.json form) gets the
    fallback sentence, with why, instead of a badge or a traceback."""
    label, _, _ = upload("small.gguf", small_gguf)

    def refuse(info, source="file"):
        raise ValueError(f"{source} is a GGUF file whose tokenizer is llama.cpp's 'bert' family")

    monkeypatch.setattr(parity.gguf_families, "tokenizer_json", refuse)
    st.session_state.pop(parity.FILE_ENCODERS, None)
    check = parity.check(label, TEXT)
    assert not check.ok and check.error == check.badge
    assert check.badge.startswith("no parity check: llama.cpp is not run here; llama.cpp's test "
                                  "vocabularies"), check.badge
    assert "no tokenizer.json form for `tokenizers` to run (small.gguf is a GGUF file whose " \
           "tokenizer is llama.cpp's 'bert' family)" in check.badge


def test_a_gguf_with_bytes_in_byte_order_encodes_what_its_split_leaves(session):
    """Byte tokens in byte order make the file's tokenizer.json minbpe's layout, but
    llama.cpp's gpt-2 regex leaves some text unmatched ('\\n' before a letter): tokenizers
    and llama.cpp keep it as a piece of its own, and so do we (not a RegexTokenizer, whose
    split would refuse it)."""
    label, check, _ = upload("bytes.gguf", trained_gguf("bytes"))
    assert check.ok and check.library == parity.GGUF_CONVERTED, check


def test_a_wrong_sdist_is_not_used(tmp_path, monkeypatch):
    (tmp_path / llama_cpp_ids.SDIST).write_bytes(b"not the sdist")
    monkeypatch.setenv("BPE_SDISTS", str(tmp_path))
    assert llama_cpp_ids.sdist_path() == tmp_path / llama_cpp_ids.SDIST
    assert llama_cpp_ids.table() is None
    assert "is not the pinned llama_cpp_python-0.3.36.tar.gz" in llama_cpp_ids.absent()


# ------------------------------------------------------------------ llama.cpp's own files
@pytest.mark.parametrize("name, family, pre", [
    ("ggml-vocab-gpt-2.gguf", "gpt2", "gpt-2"),
    # these two add a BOS (their post-processor): llama.cpp's test ids have none, and the
    # check once compared them with it, so every Llama 2 / Llama 3 upload showed "ids !="
    ("ggml-vocab-llama-bpe.gguf", "gpt2", "llama-bpe"),
    ("ggml-vocab-llama-spm.gguf", "llama", "default")])
def test_llama_cpps_file_is_checked_against_its_test_ids(session, name, family, pre):
    data = llama_cpp_file(name)
    vocab = llama_cpp_ids.find(hashlib.sha256(data).hexdigest())
    assert vocab.name == name and len(vocab.cases) == 46
    label, check, caption = upload(name, data)
    assert check.ok and check.badge == "ids == llama.cpp's test ids (46 texts)", check
    assert check.checked == sum(len(text) for text, _ in vocab.cases)
    assert f"llama.cpp's {name} (same sha256)" in check.note
    assert caption == f"{name}: GGUF (llama.cpp): tokenizer family ` {family} `, " \
                      f"pre-tokenizer ` {pre} `", caption


def test_llama_cpps_file_with_other_bytes_is_checked_by_tokenizers(session):
    """The same vocabulary in a file of other bytes (here: a tensor region after the
    metadata, as a model file has) is not llama.cpp's test file: tokenizers checks it.
    TEXT holds phi-3's control token <|endoftext|>, so both sides match it, and neither
    adds the BOS llama.cpp adds with add_special (the file's post-processor)."""
    data = llama_cpp_file("ggml-vocab-phi-3.gguf") + bytes(64)
    label, check, caption = upload("phi-3 model.gguf", data)
    assert check.ok and check.library == parity.GGUF_CONVERTED, check
    assert "it is not one of llama.cpp's test vocabularies (by sha256)" in check.note
    assert "family ` llama `, pre-tokenizer ` default `" in caption


def test_a_difference_from_llama_cpps_ids_is_reported(session):
    """llama_cpp_ids.check can fail: one expected id changed, it names the text and where."""
    name = "ggml-vocab-gpt-2.gguf"
    data = llama_cpp_file(name)
    vocab = llama_cpp_ids.find(hashlib.sha256(data).hexdigest())
    (text, ids), *rest = [case for case in vocab.cases if case[1]]
    wrong = llama_cpp_ids.VocabTests(name, ((text, (ids[0] + 1, *ids[1:])), *rest))
    label, _, _ = upload(name, data)
    n, first = llama_cpp_ids.check(state.get_tokenizer(label),
                                   gguf.read_tokenizer_bytes(data, name), wrong)
    assert n == len(wrong.cases) and first == (0, text, list(ids), [ids[0] + 1, *ids[1:]])


def test_the_sdist_is_read_once(monkeypatch):
    if llama_cpp_ids.sdist_path() is None:
        pytest.skip(llama_cpp_ids.absent())
    reads = []
    real = llama_cpp_ids._read
    monkeypatch.setattr(llama_cpp_ids, "_read", lambda path: reads.append(path) or real(path))
    monkeypatch.setattr(llama_cpp_ids, "_table", {})
    for _ in range(3):
        assert len(llama_cpp_ids.table()) == 19
        assert llama_cpp_ids.absent() is None
    assert len(reads) == 1


# ------------------------------------------------------------------ the Tokenize page
def test_the_tokenize_page_shows_family_pre_and_badge(open_page, small_gguf):
    """The whole app on the Tokenize page with a GGUF in the session (as the sidebar's
    loader leaves it): the caption under the picker names family and pre, and the parity
    badge names tokenizers (no sdist needed: the file is not one of llama.cpp's)."""
    at = open_page()
    tok = load_bytes(small_gguf, "small.gguf")
    label = "small (uploaded)"
    at.session_state[state.SESSION_KEY] = {label: tok}
    at.session_state[state.FILES_KEY] = {label: state.FileSource(
        "gguf", (("small.gguf", small_gguf),), hashlib.sha256(small_gguf).hexdigest())}
    at.session_state[state.NEWEST] = (1, label)
    at.run()
    assert not at.exception, at.exception
    assert at.selectbox(key="tokenize_tokenizer").value == label
    captions = [plain(c) for c in at.caption]
    assert ("Loaded from small.gguf: GGUF (llama.cpp): tokenizer family ` gpt2 `, "
            "pre-tokenizer ` gpt-2 `") in " ".join(captions), captions
    badges = [m.value for m in at.markdown if "badge[" in m.value]
    assert any("ids == tokenizers, on its tokenizer.json form" in b for b in badges), badges
    for worker in at.session_state[parity.FILE_ENCODERS].values():
        worker.close()


def test_llama_cpps_t5_file_is_checked_by_sentencepiece(session):
    """llama.cpp's t5 (Unigram) vocabulary ships without test ids: sentencepiece, the
    owner of the algorithm, checks it on a model written from the same GGUF data."""
    name = "ggml-vocab-nomic-bert-moe.gguf"
    label, check, caption = upload(name, llama_cpp_file(name))
    assert check.ok and check.badge == "ids == sentencepiece", check
    assert check.checked == len(TEXT) and "written from the same pieces" in check.note
    assert "family ` t5 `, pre-tokenizer ` default `" in caption, caption


def test_a_pages_ids_are_checked_without_the_post_processors(session):
    """Tokenize and Arena hand the check the ids they show: nomic-bert-moe's <s> ... </s>
    around the text's own (its post-processor's) stand for no text, and sentencepiece's
    ids have none, so the badge compares the text's ids (it said "ids != sentencepiece,
    first difference at token 0" on every text before)."""
    name = "ggml-vocab-nomic-bert-moe.gguf"
    label, _, _ = upload(name, llama_cpp_file(name))
    tok = state.get_tokenizer(label)
    shown = tok.encode(TEXT, allowed_special="none")
    assert shown[0] == tok.special_tokens["<s>"] and shown[-1] == tok.special_tokens["</s>"]
    check = parity.check(label, TEXT, shown)
    assert check.ok and check.badge == "ids == sentencepiece", check
    # a real difference in the text's own ids is still one
    check = parity.check(label, TEXT, shown[:1] + shown[2:])
    assert not check.ok and "first difference at token 0" in check.badge, check
