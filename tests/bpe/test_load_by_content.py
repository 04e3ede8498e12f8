"""bpe.load / load_bytes know a file by its content, not its name: every kind under any
name, ranks asking for their pattern unless their sha256 is known, budgets before parsing."""
import gzip
import hashlib
import json

import pytest
import tiktoken
import tiktoken.load

import bpe
from bpe import RegexTokenizer, reference
from bpe.formats import kinds as loader, ranks
from bpe.formats.hf.tokenizer_json import hf_json
from bpe.sentencepiece_bpe import SentencePieceBPE

NAMES = ["tokenizer.model", "x.bin", "vocab.txt", "no_extension", "t.json"]
TEXT = "Hello world! 12345 it's   spaced\n\n<|endoftext|>"


@pytest.fixture(scope="module")
def trained(taylorswift):
    tok = RegexTokenizer("gpt2").train(taylorswift[:60_000], 256 + 300)
    tok.register_special_tokens({"<|endoftext|>": 556})
    return tok


@pytest.fixture(scope="module")
def ranks_file(trained, tmp_path_factory):
    """The trained tokenizer's ranks as a .tiktoken file that tiktoken's own loader reads."""
    path = tmp_path_factory.mktemp("ranks") / "mine.tiktoken"
    path.write_text(ranks.tiktoken_text(trained), encoding="ascii")
    assert tiktoken.load.load_tiktoken_bpe(str(path)) == ranks.mergeable_ranks(trained)
    return path


@pytest.fixture(scope="module")
def files(trained, ranks_file, taylorswift):
    """kind -> (bytes, the tokenizer whose ids the loaded file must give)."""
    sp = SentencePieceBPE().train(taylorswift[:60_000], 400)
    data = ranks_file.read_bytes()
    return {
        "minbpe": (trained.model_text().encode(), trained),
        "ranks": (data, trained),
        "ranks-gzip": (gzip.compress(data), trained),
        "tokenizer.json": (json.dumps(hf_json(trained)).encode(), trained),
        "sentencepiece": (sp.model_proto, sp),
    }


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("kind", ["minbpe", "ranks", "ranks-gzip", "tokenizer.json",
                                  "sentencepiece"])
def test_every_kind_opens_under_any_name(files, kind, name, tmp_path):
    data, expected = files[kind]
    path = tmp_path / name
    path.write_bytes(data)
    tok = bpe.load(path, pattern="gpt2")
    assert tok.encode_ordinary(TEXT) == expected.encode_ordinary(TEXT)
    assert tok.name == name
    assert bpe.load_bytes(data, name, pattern="gpt2").encode_ordinary(TEXT) == \
        expected.encode_ordinary(TEXT)


def test_detect_names_each_kind(files):
    assert {kind: loader.detect(data) for kind, (data, _) in files.items()} == {
        "minbpe": "minbpe", "ranks": "ranks", "ranks-gzip": "gzip",
        "tokenizer.json": "tokenizer.json", "sentencepiece": "sentencepiece"}


def test_tiktoken_empty_token_line_is_ranks():
    # tiktoken's loader takes "= 50256" (an empty token) as tiktoken's own files hold it
    assert loader.detect(b"IQ== 0\nIg== 1\n= 50256\n") == "ranks"


def test_unknown_ranks_ask_for_their_pattern(ranks_file, trained, taylorswift):
    """No silent default: GPT-4's pattern on a GPT-2-pattern file gives other ids."""
    with pytest.raises(ValueError, match=r"mine.tiktoken holds tiktoken ranks, which do not say "
                                         r"how text is split .* pattern='gpt2', 'gpt4'"):
        bpe.load(ranks_file)
    enc = tiktoken.Encoding("mine", **{k: v for k, v in ranks.tiktoken_kwargs(trained).items()
                                       if k != "name"})
    right = bpe.load(ranks_file, pattern="gpt2")
    wrong = bpe.load(ranks_file, pattern="gpt4")
    text = taylorswift[60_000:70_000]
    assert right.encode_ordinary(text) == enc.encode_ordinary(text)
    assert wrong.encode_ordinary(text) != enc.encode_ordinary(text)


def fake_known(table):
    """A bpe.reference.known_ranks over table (sha256 -> info), as helper "dropin" adds it."""
    return lambda sha256_hex: table.get(sha256_hex)


def test_known_ranks_get_their_owners_pattern_and_specials(ranks_file, trained, monkeypatch):
    sha = hashlib.sha256(ranks_file.read_bytes()).hexdigest()
    info = {"name": "mine_base", "pattern": trained.pattern,
            "special_tokens": {"<|endoftext|>": 556}}
    monkeypatch.setattr(reference, "known_ranks", fake_known({sha: info}), raising=False)
    tok = bpe.load(ranks_file)
    assert tok.special_tokens == {"<|endoftext|>": 556} and tok.pattern == trained.pattern
    assert tok.encode(TEXT, allowed_special="all") == trained.encode(TEXT, allowed_special="all")
    gz = ranks_file.with_suffix(".gz")
    gz.write_bytes(gzip.compress(ranks_file.read_bytes()))  # the hash is of the content
    assert bpe.load(gz).special_tokens == {"<|endoftext|>": 556}
    # an explicit pattern still wins
    assert bpe.load(ranks_file, pattern="gpt4").pattern != trained.pattern


def test_llama3_tokenizer_model_is_ranks(monkeypatch, taylorswift):
    """Llama 3's tokenizer.model (llama-models) is tiktoken ranks under a .model name."""
    ref = reference.REFERENCES["llama3"]
    path = reference.locate(ref)
    with open(path, "rb") as f:
        assert loader.detect(f.read(4096) + b"\n") == "ranks"
    with monkeypatch.context() as m:  # unknown ranks: a pattern is asked for
        m.setattr(reference, "known_ranks", fake_known({}))
        with pytest.raises(ValueError, match="tokenizer.model holds tiktoken ranks"):
            bpe.load(path)
    info = {"name": "llama3", "pattern": ref.pattern, "special_tokens": ref.special_tokens}
    monkeypatch.setattr(reference, "known_ranks", fake_known({ref.sha256: info}), raising=False)
    tok = bpe.load(path)
    assert isinstance(tok, reference.LlamaTokenizer) and tok.name == "tokenizer.model"
    owner = reference.load_reference("llama3")
    enc = tiktoken.Encoding("llama3", pat_str=ref.pattern, mergeable_ranks=owner.ranks,
                            special_tokens=ref.special_tokens)
    text = taylorswift[:50_000]
    assert tok.encode_ordinary(text) == enc.encode_ordinary(text)
    assert tok.encode("<|begin_of_text|>hi", allowed_special="all") == [128000, 6151]


def test_load_falls_back_to_the_name_for_the_message(tmp_path):
    path = tmp_path / "bad.tiktoken"
    path.write_bytes(b"YQ== 0 extra\n")
    with pytest.raises(ValueError, match="bad.tiktoken line 1: expected '<base64 token> <rank>'"):
        bpe.load(path)


def test_gzip_of_something_else_is_refused(files):
    with pytest.raises(ValueError, match=r"x.gz is gzip; inside it is minbpe .model .* only "
                                         r"tiktoken ranks"):
        bpe.load_bytes(gzip.compress(files["minbpe"][0]), "x.gz")
    with pytest.raises(ValueError, match="x.gz is not a valid gzip file"):
        bpe.load_bytes(b"\x1f\x8b\x08\x00garbage", "x.gz")


def test_sizes_are_refused_before_parsing(monkeypatch, files, tmp_path):
    monkeypatch.setattr(loader, "MAX_FILE_BYTES", 1000)
    with pytest.raises(ValueError, match=r"big.model is [\d,]+ bytes; tokenizer files this "
                                         r"lab opens are at most 1,000 bytes"):
        bpe.load_bytes(files["minbpe"][0], "big.model")
    bomb = gzip.compress(b"YQ== 0\n" * 10_000)
    assert len(bomb) < 1000
    with pytest.raises(ValueError, match="bomb.gz unpacks to more than 1,000 bytes"):
        bpe.load_bytes(bomb, "bomb.gz")
    path = tmp_path / "big"
    path.write_bytes(files["minbpe"][0])
    with pytest.raises(ValueError, match="at most 1,000 bytes"):
        bpe.load(path)


def test_folder_with_tokenizer_json(files, tmp_path):
    (tmp_path / "tokenizer.json").write_bytes(files["tokenizer.json"][0])
    assert bpe.load(tmp_path).encode_ordinary(TEXT) == files["tokenizer.json"][1].encode_ordinary(TEXT)
    with pytest.raises(ValueError, match="is a folder without GPT-2's pair"):
        bpe.load(tmp_path / "..").name  # noqa: B018 (the call raises)


def test_what_is_accepted_is_said(tmp_path):
    path = tmp_path / "notes"
    path.write_text("just some notes\nabout nothing in particular\n")
    with pytest.raises(ValueError, match=r"notes is not a tokenizer file this lab can open: it "
                                         r"looks like text starting 'just some notes'"):
        bpe.load(path)


# ------------------------------------------------------------- known ranks, for real
def test_a_p50k_file_loaded_without_a_pattern_gets_p50k_s_and_tiktoken_s_ids():
    """The issue's example: a p50k ranks file used to get GPT-4's pattern silently and
    gave [10163, 19] for "1234" where tiktoken gives [1065, 2682]."""
    import tiktoken
    from bpe.formats.ranks import ranks_text
    ranks = reference.p50k_ranks()
    tok = bpe.load_bytes(ranks_text(ranks).encode(), "mine.tiktoken")
    enc = tiktoken.Encoding("p50k", pat_str=tok.pattern, mergeable_ranks=ranks,
                            special_tokens={"<|endoftext|>": 50256})
    assert tok.encode("1234") == enc.encode("1234") == [1065, 2682]
    assert tok.special_tokens == {"<|endoftext|>": 50256}


def test_llama3_s_tokenizer_model_opens_as_llama3_with_no_pattern_given():
    ref = reference.REFERENCES["llama3"]
    data = reference.read_checked(ref, reference.locate(ref))
    tok = bpe.load_bytes(data, "tokenizer.model")
    owner = reference.load_reference("llama3")
    text = "Hello   world 12345 — naïve <|begin_of_text|> 🦙"
    assert tok.encode(text, disallowed_special=()) == owner.encode(text, disallowed_special=())
    assert tok.special_tokens == owner.special_tokens
