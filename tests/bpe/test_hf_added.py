"""Added tokens with single_word / lstrip / rstrip / normalized (bpe.formats.hf.added_tokens), in
tokenizer.json files that `tokenizers` itself builds here, compared id for id with its
encode(text) on tricky strings and hypothesis strings."""
import itertools
import json
import pickle

import pytest
from hypothesis import given, settings, strategies as st

tk = pytest.importorskip("tokenizers")
from tokenizers import AddedToken, Tokenizer, normalizers, pre_tokenizers, processors  # noqa: E402

from bpe import RegexTokenizer, load_bytes  # noqa: E402
from bpe.hf_tokenizer import HFTokenizer  # noqa: E402
from bpe.formats.hf.tokenizer_json import hf_json  # noqa: E402
from test_hf import CORPUS, load_pairs, same, same_in_all, train  # noqa: E402

WHITESPACE = ["", " ", "  ", "\n", "\t ", " \n\n ", "\u3000"]
NEIGHBOURS = WHITESPACE + ["x", "x ", " x", "é", "_", "1", ".", "!"]
# (content, flags): every flag alone and together, a token made only of whitespace (which
# an rstrip token before it takes, and which tokenizers then matches again), and a
# single_word token overlapping a plain one (a rejected find hides the shorter token)
ADDED = {
    "<mask>": dict(lstrip=True),
    "<sep>": dict(rstrip=True),
    "<both>": dict(lstrip=True, rstrip=True),
    "qqw": dict(single_word=True),
    "zzv": dict(single_word=True, lstrip=True, rstrip=True),
    "<s>": dict(),
    "\n\n": dict(),
    "zzq": dict(single_word=True),
    "zq": dict(),
}
NORMALIZED = {  # matched after the normalizer, by their normalized form
    "<MASK2>": dict(normalized=True, lstrip=True),
    "Day": dict(normalized=True, single_word=True),
    "<Cls>": dict(normalized=True, rstrip=True),
}


def with_added(pre, normalizer=None, post=None, added=ADDED):
    """test_hf's small trained tokenizer, with these added tokens (content -> flags)."""
    hf = train(pre, normalizer)
    if post is not None:
        hf.post_processor = post
    hf.add_special_tokens([AddedToken(content, **flags) for content, flags in added.items()])
    return hf


CASES = {
    "RoBERTa style (ByteLevel, RobertaProcessing)": lambda: with_added(
        pre_tokenizers.ByteLevel(add_prefix_space=False),
        post=processors.RobertaProcessing(("</s>", 2), ("<s>", 0))),
    "prefix space": lambda: with_added(pre_tokenizers.ByteLevel(add_prefix_space=True)),
    "Lowercase NFKC Strip, normalized tokens": lambda: with_added(
        pre_tokenizers.ByteLevel(add_prefix_space=False),
        normalizers.Sequence([normalizers.NFKC(), normalizers.Strip(), normalizers.Lowercase()]),
        added={**ADDED, **NORMALIZED}),
    "Prepend, normalized tokens": lambda: with_added(
        pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=True),
        normalizers.Prepend("_"), added={**ADDED, **NORMALIZED}),
}


@pytest.fixture(scope="module")
def pairs():
    return load_pairs(CASES)


def tricky():
    """Each token at the start, the end, between whitespace and inside words; tokens side
    by side, with and without whitespace between them."""
    contents = list(ADDED) + list(NORMALIZED) + ["<mask2>", "day", "DAY", "<cls>"]
    for content in contents:
        for left, right in itertools.product(NEIGHBOURS, repeat=2):
            yield left + content + right
    for a, b in itertools.product(contents, repeat=2):
        for gap in ("", " ", " \n ", "x"):
            yield a + gap + b
    yield CORPUS[:500].replace("world", "world  <mask>").replace("the ", " <both> the\n\n")


@pytest.mark.parametrize("name", CASES)
def test_tricky_strings(pairs, name):
    hf, ours = pairs[name]
    assert isinstance(ours, HFTokenizer)
    for text in tricky():
        same(hf, ours, text)


FRAGMENTS = list(ADDED) + list(NORMALIZED) + ["<MASK>", "DAY", "day", "a", "é", "_", "q",
                                              "Hello", "12"] + WHITESPACE + ["\r\n", "\x85"]


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from(FRAGMENTS), max_size=12).map("".join)
       | st.text(alphabet="<>maskMASKsepbothqwzv \n\t\u3000xé2Day_", max_size=40))
def test_fuzz(pairs, text):
    same_in_all(pairs, text)


def test_the_flags_do_what_tokenizers_says(pairs):
    """Worked examples of each flag, so a reader sees them (and the quirks) spelled out."""
    _, ours = pairs["RoBERTa style (ByteLevel, RobertaProcessing)"]
    mask, sep, s, nn = (ours.special_tokens[t] for t in ("<mask>", "<sep>", "<s>", "\n\n"))
    assert ours.encode("", allowed_special="all") == [0, 2]  # RobertaProcessing(("</s>", 2), ("<s>", 0))

    def encode(text, allowed_special):  # without RobertaProcessing's <s> ... </s>
        return ours.encode(text, allowed_special=allowed_special)[1:-1]
    assert encode("a  <mask>", allowed_special="all") == ours.encode_ordinary("a") + [mask]
    assert encode("<sep>  a", allowed_special="all") == [sep] + ours.encode_ordinary("a")
    assert encode("<sep>\n\n", allowed_special="all") == [sep, nn]  # taken twice
    assert encode("xqqw", allowed_special="all") == ours.encode_ordinary("xqqw")
    assert encode("xzzq", allowed_special="all") == ours.encode_ordinary("xzzq")
    assert encode(" <s> ", allowed_special="all") == ours.encode_ordinary(" ") + [s] + \
        ours.encode_ordinary(" ")


def test_no_special_is_tokenizers_encode_special_tokens(pairs):
    """allowed_special="none" is tokenizers with encode_special_tokens=True (every added
    token here is special), and the default policy raises exactly where tokenizers would
    have cut a special token out (not for a single_word token inside a word)."""
    for hf, ours in pairs.values():
        added_ids = set(ours.special_tokens.values())
        for text in itertools.islice(tricky(), 0, None, 7):
            with_specials = hf.encode(text, add_special_tokens=False).ids  # found in text
            hf.encode_special_tokens = True
            try:
                plain = hf.encode(text).ids
            finally:
                hf.encode_special_tokens = False
            assert ours.encode(text, allowed_special="none") == plain, text
            if added_ids & set(with_specials):
                with pytest.raises(ValueError, match="disallowed special token"):
                    ours.encode(text)
            else:
                assert ours.encode(text) == plain, text


def test_a_subset_of_specials_is_the_file_with_only_those(pairs):
    """allowed_special={...} looks for those tokens only (tiktoken's meaning): the same ids
    as tokenizers on the file with the other added tokens left out."""
    hf, ours = pairs["Lowercase NFKC Strip, normalized tokens"]
    allowed = {"<mask>", "qqw", "<MASK2>", "\n\n"}
    doc = json.loads(hf.to_str())
    doc["added_tokens"] = [t for t in doc["added_tokens"] if t["content"] in allowed]
    for token in doc["added_tokens"]:  # subtle: else tokenizers renumbers them
        doc["model"]["vocab"][token["content"]] = token["id"]
    only = Tokenizer.from_str(json.dumps(doc))
    for text in itertools.islice(tricky(), 0, None, 5):
        assert ours.encode(text, allowed_special=allowed, disallowed_special=()) == \
            only.encode(text).ids, text


def test_export_keeps_the_flags(pairs):
    hf, ours = pairs["Lowercase NFKC Strip, normalized tokens"]
    twin = ours.with_special_tokens({"<|new|>": 5000})
    doc = hf_json(twin)
    flags = {t["content"]: t for t in json.loads(hf.to_str())["added_tokens"]}
    for token in doc["added_tokens"]:
        if token["content"] != "<|new|>":
            assert token == flags[token["content"]]
    again_hf = Tokenizer.from_str(json.dumps(doc))
    again = load_bytes(json.dumps(doc).encode(), "tokenizer.json")
    for text in ["a <mask> DAY<|new|> <cls>  x", " <MASK2>\n\n<sep>  zzv qqwx"]:
        expected = again_hf.encode(text).ids
        assert again.encode(text, allowed_special="all") == expected
        assert twin.encode(text, allowed_special="all") == expected
    back = pickle.loads(pickle.dumps(twin))
    assert back.encode(" <mask> Day ", allowed_special="all") == \
        twin.encode(" <mask> Day ", allowed_special="all")


def test_our_own_layout_with_flags_is_an_hf_tokenizer():
    """A file in minbpe's layout would come back as a RegexTokenizer, which cannot strip:
    with a flag set it comes back as an HFTokenizer, and still matches tokenizers."""
    tok = RegexTokenizer().train(CORPUS, 300).with_special_tokens({"<mask>": 1000})
    doc = hf_json(tok)
    doc["added_tokens"][0]["lstrip"] = True
    ours = load_bytes(json.dumps(doc).encode(), "tokenizer.json")
    assert isinstance(ours, HFTokenizer)
    hf = Tokenizer.from_str(json.dumps(doc))
    same(hf, ours, "Hello   <mask> world")
    doc["added_tokens"][0]["lstrip"] = False
    assert type(load_bytes(json.dumps(doc).encode(), "tokenizer.json")) is RegexTokenizer


def file_with(added, normalizer=None):
    """The tokenizer.json of a small file with these added tokens (content -> flags)."""
    return with_added(pre_tokenizers.ByteLevel(add_prefix_space=False), normalizer,
                      added=added).to_str()


def test_text_tokenizers_itself_fails_on_is_refused():
    """An lstrip token inside whitespace the rstrip token before it took: tokenizers
    panics ('AddedVocabulary bad split'); ours says why instead of inventing ids."""
    doc = file_with({"<a>": dict(rstrip=True), " ": dict(lstrip=True)})
    hf = Tokenizer.from_str(doc)
    ours = load_bytes(doc.encode(), "tokenizer.json")
    same(hf, ours, "<a> x")  # one space: the space token is squeezed to nothing
    with pytest.raises(BaseException, match="bad split"):
        hf.encode("<a>  x")
    with pytest.raises(ValueError, match=r"added token ' ' \(lstrip\) stands inside"):
        ours.encode("<a>  x", allowed_special="all")


def test_tokens_that_normalize_alike_are_refused():
    """tokenizers picks either token at random for '<mask>' here (a hash map's order)."""
    doc = file_with({"<MASK>": dict(normalized=True), "<Mask>": dict(normalized=True)},
                    normalizers.Lowercase())
    with pytest.raises(ValueError, match=r"'<MASK>' and '<Mask>' both read '<mask>'"):
        load_bytes(doc.encode(), "tokenizer.json")


def test_a_flag_that_is_not_a_bool_is_refused():
    doc = json.loads(file_with({"<m>": dict(lstrip=True)}))
    doc["added_tokens"][-1]["lstrip"] = "yes"
    with pytest.raises(ValueError, match=r"tokenizer.json: added token '<m>' has lstrip=yes; "
                                         "expected true or false"):
        load_bytes(json.dumps(doc).encode(), "tokenizer.json")


def test_single_word_knows_words_as_tokenizers_does():
    """A word character is Rust regex's Unicode \\w: every code point of planes 0 and 1
    (nearly all scripts) after a single_word token, in one text."""
    from bpe.formats.hf.added_tokens import WORD
    from tokenizers import models
    hf = Tokenizer(models.BPE(vocab={"a": 0}, merges=[]))
    hf.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False)
    hf.add_special_tokens([AddedToken("Q", single_word=True)])
    chars = [ch for ch in map(chr, range(0x20000)) if not 0xD800 <= ord(ch) < 0xE000]
    found = hf.encode("".join(" Q" + ch for ch in chars))
    starts = {start for idx, (start, _) in zip(found.ids, found.offsets) if idx == 1}
    assert hf.token_to_id("Q") == 1
    assert starts == {3 * i + 1 for i, ch in enumerate(chars) if not WORD.match(ch)}
