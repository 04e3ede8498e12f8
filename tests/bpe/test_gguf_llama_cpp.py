"""llama.cpp's own tokenizer tests as our peer suite: every ggml-vocab-*.gguf that
llama.cpp ships with a .inp/.out pair (in vendor/llama.cpp/models/ of the llama-cpp-python
sdist, pinned by sha256) must encode each text of its .inp to the ids on its .out line, as
llama.cpp's tests/test-tokenizer-0.cpp checks them: texts separated by
"\\n__ggml_vocab_test__\\n", one line of space-separated ids per text, no BOS
(add_special=false), control tokens read as text (parse_special=false) while user-defined
tokens are always cut out. Files refused by name are listed with why.

The sdist is downloaded, never built or installed (Makefile: `pip download --no-deps
--no-binary :all: -r requirements-peers.txt -d .venv/sdists`); its members are read
straight from the tar.gz. Without it these tests skip, saying so.
"""
import functools
import hashlib
import tarfile

import pytest
from hypothesis import given, settings, strategies as st

import bpe
from bpe.formats import gguf, gguf_families
from lab.llama_cpp_ids import SDIST, sdist_path

SDIST_SHA256 = "832db0699007f1be95a7e41ef12e88926b02ba836461e36a36372db2760c1a2e"
MODELS = "llama_cpp_python-0.3.36/vendor/llama.cpp/models/"
SEPARATOR = "\n__ggml_vocab_test__\n"
# file -> (family, pre) of every vocabulary with tests, all opened and exact
EXACT = {
    "command-r": ("gpt2", "command-r"), "deepseek-coder": ("gpt2", "deepseek-coder"),
    "deepseek-llm": ("gpt2", "deepseek-llm"), "falcon": ("gpt2", "falcon"),
    "gpt-2": ("gpt2", "gpt-2"), "llama-bpe": ("gpt2", "llama-bpe"),
    "llama-spm": ("llama", "default"), "mpt": ("gpt2", "mpt"), "phi-3": ("llama", "default"),
    "bert-bge": ("bert", "bert-bge"), "gemma-4": ("gemma4", None),
    "qwen2": ("gpt2", "qwen2"), "qwen35": ("gpt2", "qwen35"), "refact": ("gpt2", "refact"),
    "starcoder": ("gpt2", "starcoder"),
}
# file -> words the refusal must contain: families and splits not implemented here
REFUSED = {
    "aquila": "'default'",            # llama.cpp's 4-regex default split (no tests)
    "gpt-neox": "'default'",
}
# (the t5 file's ids are proven against sentencepiece instead: tests/bpe/test_gguf_t5.py)
OPENED_WITHOUT_TESTS = {"baichuan": ("llama", None), "nomic-bert-moe": ("t5", "default")}


@pytest.fixture(scope="module")
def members():
    """name -> bytes of every models/ggml-vocab-* member, read in one pass of the tar.gz."""
    path = sdist_path()
    if path is None:
        pytest.skip(f"{SDIST} (llama.cpp's test vocabularies) is not downloaded: run "
                    "`make test`, or pip download --no-deps --no-binary :all: "
                    "-r requirements-peers.txt -d .venv/sdists")
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    assert digest == SDIST_SHA256, f"{path} is not the pinned sdist (sha256 {digest})"
    out = {}
    with tarfile.open(path, "r|gz") as tar:
        for member in tar:
            name = member.name.removeprefix(MODELS)
            if member.name.startswith(MODELS + "ggml-vocab-") and member.isfile():
                out[name] = tar.extractfile(member).read()
    return out


@pytest.fixture(scope="module")
def tokenizer_info(members):
    """tokenizer_info(name) -> gguf.read_tokenizer_bytes of that member, read once per run
    of this module (a parse takes up to a second; several tests read the same file)."""
    return functools.cache(lambda name: gguf.read_tokenizer_bytes(members[name], name))


@pytest.fixture(scope="module")
def opened(request, members):
    """(vocab, our tokenizer of its ggml-vocab-*.gguf), parametrized indirectly: a parse is
    most of a test's time (gemma-4's 262k tokens take seconds), and pytest groups a module
    fixture's tests by param, so each file is parsed once and only one is held at a time."""
    vocab = request.param
    name = f"ggml-vocab-{vocab}.gguf"
    return vocab, bpe.load_bytes(members[name], name)


def cases(data_inp, data_out):
    """[(text, ids)] as test-tokenizer-0.cpp reads the pair."""
    texts = data_inp.decode("utf-8").split(SEPARATOR)
    if texts[-1] == "":
        texts.pop()
    lines = data_out.decode("utf-8").split("\n")
    assert len(lines) >= len(texts)
    return [(text, [int(x) for x in line.split()]) for text, line in zip(texts, lines)]


def test_every_vocabulary_is_listed(members):
    vocabs = {name.removeprefix("ggml-vocab-").removesuffix(".gguf")
              for name in members if name.endswith(".gguf")}
    assert vocabs == set(EXACT) | set(REFUSED) | set(OPENED_WITHOUT_TESTS)
    with_tests = {name.removeprefix("ggml-vocab-").removesuffix(".gguf.inp")
                  for name in members if name.endswith(".inp")}
    assert with_tests <= set(EXACT) | set(REFUSED)


@pytest.mark.parametrize("opened", sorted(EXACT), indirect=True)
def test_llama_cpp_ids(members, tokenizer_info, opened):
    vocab, tok = opened
    name = f"ggml-vocab-{vocab}.gguf"
    assert (tok.gguf_family, tok.gguf_pre) == EXACT[vocab]
    info = tokenizer_info(name)
    user_defined = {info.tokens[i] for i, kind in enumerate(info.token_type or []) if kind == 4}
    pairs = cases(members[name + ".inp"], members[name + ".out"])
    assert len(pairs) >= 40
    wrong = [(text, want, got) for text, want in pairs
             if (got := tok.encode(text, allowed_special=user_defined, disallowed_special=(),
                                   add_special_tokens=False)) != want]
    assert not wrong, wrong[:3]


# what llama.cpp's tokenize adds with add_special=true (llama_vocab::impl::load's defaults
# per family and pre, then the file's add_bos_token/add_eos_token): the .out files hold none
BOS_EOS = {"llama-spm": ([1], []), "phi-3": ([1], []), "llama-bpe": ([128000], []),
           "bert-bge": ([101], [102]), "gpt-2": ([], []), "qwen2": ([], []),
           "gemma-4": ([2], [])}


@pytest.mark.parametrize("opened", sorted(BOS_EOS), indirect=True)
def test_special_tokens_added_as_llama_cpp_adds_them(opened):
    vocab, tok = opened
    before, after = BOS_EOS[vocab]
    bare = tok.encode("Hello world", add_special_tokens=False)
    assert tok.encode("Hello world", allowed_special="all") == before + bare + after


@pytest.mark.parametrize("opened", ["llama-spm", "bert-bge"], indirect=True)
def test_pickled_tokenizer_keeps_llama_cpps_ids(members, opened):
    """The app's workers pickle tokenizers: family, pre and the llama family's merge order
    by score (which a tokenizer.json cannot hold) come back."""
    import pickle

    vocab, loaded = opened
    name = f"ggml-vocab-{vocab}.gguf"
    tok = pickle.loads(pickle.dumps(loaded))
    assert (tok.gguf_family, tok.gguf_pre) == EXACT[vocab]
    # equal scores rank equal (rank_by_score); a rebuild from the document alone ranks apart
    for part in ("merges", "ranks"):
        assert getattr(tok.model, part, None) == getattr(loaded.model, part, None)
    if vocab == "llama-spm":
        assert loaded.model.ranks is not None
    pairs = cases(members[name + ".inp"], members[name + ".out"])
    assert all(tok.encode(text, add_special_tokens=False) == want for text, want in pairs)


@pytest.mark.parametrize("vocab", sorted(REFUSED))
def test_refused_by_name(members, vocab):
    name = f"ggml-vocab-{vocab}.gguf"
    with pytest.raises(ValueError, match=REFUSED[vocab]):
        bpe.load_bytes(members[name], name)


def test_opened_without_tests(members):
    for vocab, (family, pre) in OPENED_WITHOUT_TESTS.items():
        name = f"ggml-vocab-{vocab}.gguf"
        tok = bpe.load_bytes(members[name], name)
        assert (tok.gguf_family, tok.gguf_pre) == (family, pre)
        assert tok.decode(tok.encode("Hello world", add_special_tokens=False)) == "Hello world"


def test_llama3_vocabulary_equals_tokenizers_on_its_conversion(members, tokenizer_info):
    """llama.cpp's Llama 3 vocabulary as a tokenizer.json (its merges remake tokens: 280k
    merges for 128k tokens): tokenizers reads it, and our ids equal its ids."""
    import json

    tokenizers = pytest.importorskip("tokenizers")
    name = "ggml-vocab-llama-bpe.gguf"
    doc = gguf_families.tokenizer_json(tokenizer_info(name), name)
    theirs = tokenizers.Tokenizer.from_str(json.dumps(doc))
    ours = bpe.load_bytes(json.dumps(doc).encode(), "llama3.json")
    texts = [text for text, _ in cases(members[name + ".inp"], members[name + ".out"])]
    texts += ["hello    world", "\t\t  x  \n\n\n  y", "ĠĠĠĠ"]
    for text in texts:
        assert ours.encode(text, allowed_special="all") == theirs.encode(text).ids, text
    assert theirs.encode("hello    world", add_special_tokens=False).ids == [15339, 262, 1917]


@pytest.fixture(scope="module")
def bert_pair(members, tokenizer_info):
    """(tokenizers on llama.cpp's WordPiece as a tokenizer.json, ours on the GGUF)."""
    import json

    tokenizers = pytest.importorskip("tokenizers")
    name = "ggml-vocab-bert-bge.gguf"
    doc = gguf_families.tokenizer_json(tokenizer_info(name), name)
    return tokenizers.Tokenizer.from_str(json.dumps(doc)), bpe.load_bytes(members[name], name)


@settings(max_examples=150, deadline=None)
@given(text=st.text(st.characters(codec="utf-8"), max_size=60)
       | st.text(alphabet="Hello wörld, 你好! ÄÉ\t\n▁##[UNK]", max_size=60))
def test_bert_conversion_equals_tokenizers(bert_pair, text):
    """llama.cpp's WordPiece as a tokenizer.json (word starts "▁x" as "x", the rest as
    "##x"): tokenizers reads it and gives our ids, on any text."""
    theirs, ours = bert_pair
    # tokenizers always matches its added tokens ("[UNK]" typed in the text): ours does
    # with allowed_special="all" (by default it refuses special text, as tiktoken does)
    assert ours.encode(text, allowed_special="all", add_special_tokens=False) == \
        theirs.encode(text, add_special_tokens=False).ids
