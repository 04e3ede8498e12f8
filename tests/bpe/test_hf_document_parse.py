"""bpe.formats.hf.document_parse reads a tokenizer.json's bytes as json.loads does, leaving a
Unigram, WordPiece or WordLevel vocab as text read a slice at a time (issue 32): the same dict
on hypothesis fuzz (escapes, quotes, lone surrogates, non-BMP, repeated pieces, any layout,
slices of one run each), the same table or sentence from bpe.formats.hf.vocabs as from the
whole parse, the same sentence and line for every malformed file, json's meaning where a key
is repeated or escaped, and a loaded or pickled tokenizer the same."""
import json
import math
import pickle
from contextlib import contextmanager

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bpe import budgets
from bpe.formats.hf import document_parse
from bpe.formats.hf.document_parse import VocabText, parse_document
from bpe.formats.hf.document_text import document_bytes
from bpe.formats.hf.vocabs import read_piece_ids
from bpe.hf_tokenizer import tokenizer_from_hf
from bpe.loading import load_hf_bytes
from helpers.hf_documents import metaspace_unigram


@contextmanager
def small():
    """Slices of one regex run each, runs of 2 entries: every boundary case in a small file."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(document_parse, "SLICE_BYTES", 1)
        mp.setattr(document_parse, "RUN_ENTRIES", 2)
        yield


@pytest.fixture
def small_slices():
    with small():
        yield


def whole(value):
    """value with every VocabText read into the list it stands for."""
    if isinstance(value, VocabText):
        return list(value) if value.is_list else dict(value)
    if isinstance(value, dict):
        return {key: whole(item) for key, item in value.items()}
    if isinstance(value, list):
        return [whole(item) for item in value]
    return value


def whole_parse_error(data, source="t.json"):
    """The sentence the whole parse (budgets.parse_json, as before this module) gives."""
    try:
        budgets.parse_json(data.decode("utf-8"), source)
    except UnicodeDecodeError:
        return document_parse.not_utf8(source).args[0]
    except ValueError as e:
        return e.args[0]
    return None


pieces = st.text(st.characters(codec=None, categories=None), max_size=6)  # surrogates too
scores = st.integers(-10**20, 10**20) | st.floats(allow_nan=False)  # infinities: whole parse
layouts = st.sampled_from([{}, {"indent": 2}, {"indent": 0}, {"separators": (",", ":")},
                           {"indent": "\t", "separators": (" ,", " : ")}])


@settings(max_examples=200, deadline=None)
@given(entries=st.lists(st.tuples(pieces, scores).map(list), max_size=9), layout=layouts,
       ascii_only=st.booleans(), vocab_first=st.booleans())
def test_the_dict_is_json_loads_dict(entries, layout, ascii_only, vocab_first):
    model = {"vocab": entries, "type": "Unigram", "unk_id": 0}
    if not vocab_first:
        model = {"type": "Unigram", "unk_id": 0, "vocab": entries}
    document = {"version": "1.0", "added_tokens": [{"id": 0, "content": "[x]"}],
                "normalizer": {"type": "Replace", "pattern": {"String": "\""}, "content": "["},
                "model": model, "decoder": None}
    data = json.dumps(document, ensure_ascii=ascii_only, **layout).encode("utf-8", "surrogatepass")
    with small():
        parsed = parse_document(data, errors="surrogatepass")
        assert whole(parsed) == json.loads(data.decode("utf-8", "surrogatepass"))
    # the streamed read is taken whenever the scores are numbers json writes as numbers
    finite = all(math.isfinite(score) for _, score in entries)
    assert isinstance(parsed["model"]["vocab"], VocabText) == finite


LINES = [b'{"model": {"type": "Unigram",', b' "vocab": [', b'  ["a", -1.0],', b'  ["b", -2.0],',
         b'  ["c", -3.0],', b'  ["d", -4.0]', b' ]}}']


def _file(line, text):
    """LINES with line number `line` (1-based) replaced by text."""
    return b"\n".join(LINES[:line - 1] + [text] + LINES[line:])


@pytest.mark.parametrize("data", [
    _file(4, b'  ["b\\x", -2.0],'),       # an escape json refuses, in a later slice
    _file(3, b'  ["a\x01", -1.0],'),      # a raw control character
    _file(5, b'  ["c" -3.0],'),           # no comma inside an entry
    _file(4, b'  ["b", -2.0]'),           # no comma between entries
    _file(6, b'  ["d", -4.0],'),          # a comma after the last
    _file(4, b'  ["b", 01],'),            # a number json refuses
    _file(5, b'  ["\xff", -3.0],'),       # not UTF-8, inside the vocab
    _file(1, b'{"model": {"type": "Unigr\xffam",'),  # not UTF-8, outside it
    _file(7, b' ]}'),                     # the model's object not closed
    _file(7, b' ]}} x'),                  # extra data after the vocab
    b'{"model": {"vocab": [' + b'[' * 70 + b']' * 70 + b']}}',  # nested too deep
], ids=["escape", "control", "inner-comma", "between", "trailing", "number",
        "utf8-in", "utf8-out", "unclosed", "extra", "deep"])
def test_a_malformed_file_gets_the_whole_parses_sentence_and_line(small_slices, data):
    want = whole_parse_error(data)
    assert want is not None
    with pytest.raises(ValueError) as caught:
        whole(parse_document(data, "t.json"))
    assert caught.value.args[0] == want


@pytest.mark.parametrize("text", [
    '{"model": {"vocab": [["a", 1]]}, "model": {"type": "WordLevel", "vocab": {"a": 0}}}',
    '{"model": {"vocab": [["a", 1]], "vocab": {"a": 0}}}',
    '{"model": {"vocab": [["a", 1]], "voc\\u0061b": [["b", 2]]}}',
    '{"mod\\u0065l": {"vocab": [["b", 2]]}, "model": {"vocab": [["a", 1]]}}',
    '{"added_tokens": [{"vocab": [["a", 1]]}], "model": {"vocab": {"a": 0}}}',
    '{"model": {"x": {"vocab": [["a", 1]]}, "vocab": [["b", 2]]}}',
    '{"model": {"vocab": [["a", 1], 7, ["c", 3], ["d", 1e999]]}}',  # json reads these too
])
def test_keys_json_resolves_are_read_as_json_reads_them(small_slices, text):
    parsed = parse_document(text.encode())
    assert whole(parsed) == json.loads(text)
    streamed = isinstance(parsed["model"].get("vocab"), VocabText)
    assert streamed == text.endswith('"vocab": [["b", 2]]}}')  # only the one plain case


def test_a_loaded_and_pickled_tokenizer_is_the_whole_parses(small_slices):
    pieces = ["<unk>", "\u2581a", "b", "\u2581ab", '"q\\', "\U0001F600", "<s>"]
    document = metaspace_unigram(pieces, [(6, "<s>")])
    data = json.dumps(document).encode()  # escaped: "\ud83d\ude00" for the emoji
    tok = load_hf_bytes(data, "m.json")
    want = tokenizer_from_hf(json.loads(data), source="m.json")
    text = '<s>ab a"q\\ \U0001F600 b zz'
    assert tok.encode(text, allowed_special="all") == want.encode(text, allowed_special="all")
    assert tok.document_json == document_bytes(document) and tok.document == document
    again = pickle.loads(pickle.dumps(tok))  # rebuilt through parse_document as well
    assert again.encode(text, allowed_special="all") == want.encode(text, allowed_special="all")
    assert again.vocab == want.vocab


@pytest.mark.parametrize("unk_id, fine", [(4, True), (5, False)])
def test_entries_are_counted_across_slices(small_slices, unk_id, fine):
    document = metaspace_unigram(["<unk>", "a", "b", "c", "d"])
    document["model"]["unk_id"] = unk_id
    data = document_bytes(document)
    assert len(parse_document(data)["model"]["vocab"].spans) == 3  # runs of 2, 2 and 1
    if fine:
        assert len(load_hf_bytes(data, "m.json").model.scores) == 5
    else:
        with pytest.raises(ValueError, match="unk_id 5 is not an entry of its vocab"):
            load_hf_bytes(data, "m.json")


def outcome(make):
    """(the table's items in order, None) or (None, the ValueError's sentence)."""
    try:
        return list(make().items()), None
    except ValueError as e:
        return None, e.args[0]


ids = st.integers(0, 12) | st.sampled_from([10_000_001, -1, 1.5, True, None, "7"])
separators = st.sampled_from([(", ", ": "), (",", ":"), (",\n  ", " : "), ("\t,", ":\r\n")])


@settings(max_examples=200, deadline=None)
@given(pairs=st.lists(st.tuples(st.sampled_from(["a", "##a", '"q', "\ud800"]) | pieces, ids),
                      max_size=9),
       kind=st.sampled_from(["WordPiece", "WordLevel", "BPE"]), sep=separators)
def test_an_object_vocab_is_json_loads_and_the_same_table(pairs, kind, sep):
    # written by hand: json.dumps cannot repeat a key, and a file can
    vocab = "{" + sep[0].join(json.dumps(piece) + sep[1] + json.dumps(idx)
                              for piece, idx in pairs) + "}"
    data = ('{"model": {"type": "%s", "vocab": %s, "unk_token": "a"}}' % (kind, vocab)).encode()
    plain = json.loads(data)
    with small():
        parsed = parse_document(data)
        assert whole(parsed) == plain
        numbers = all(type(idx) in (int, float) for _, idx in pairs)
        streamed = isinstance(parsed["model"]["vocab"], VocabText)
        assert streamed == numbers  # BPE's too, since its model packs it as it reads it
        got = outcome(lambda: read_piece_ids(parsed["model"]["vocab"], kind))
    assert got == outcome(lambda: read_piece_ids(plain["model"]["vocab"], kind))


def test_a_loaded_wordpiece_file_is_the_whole_parses(small_slices):
    pieces = ["[UNK]", "a", "b", "##b", "ab", "##c", '"q', "\U0001F600", "a"]  # "a" again
    document = {"model": {"type": "WordPiece", "unk_token": "[UNK]",
                          "continuing_subword_prefix": "##", "max_input_chars_per_word": 100,
                          "vocab": {}},
                "pre_tokenizer": {"type": "WhitespaceSplit"}, "decoder": None}
    text = json.dumps(document).replace(
        '"vocab": {}', '"vocab": {' + ", ".join(f'{json.dumps(p)}: {i}'
                                                for i, p in enumerate(pieces)) + "}")
    data = text.encode()
    tok = load_hf_bytes(data, "w.json")
    want = tokenizer_from_hf(json.loads(data), source="w.json")
    sample = 'abbc ab "q \U0001F600 a zz'
    assert tok.encode(sample) == want.encode(sample)
    assert tok.vocab == want.vocab and tok.model.vocab == want.model.vocab
    assert tok.document == json.loads(data)  # the repeated "a" read back as json reads it
    again = pickle.loads(pickle.dumps(tok))
    assert again.encode(sample) == want.encode(sample)


@pytest.mark.parametrize("kind", ["Unigram", "WordPiece"])
def test_a_lone_surrogate_piece_is_refused_with_a_sentence_as_tokenizers_refuses_it(kind):
    from tokenizers import Tokenizer
    document = metaspace_unigram(["<unk>", "a", "\ud800b"])
    if kind == "WordPiece":
        document["model"] = {"type": "WordPiece", "unk_token": "<unk>",
                             "vocab": {"<unk>": 0, "a": 1, "\ud800b": 2}}
    data = json.dumps(document)  # "\ud800" escaped: valid UTF-8, valid JSON
    with pytest.raises(Exception):  # the owner library cannot read it either
        Tokenizer.from_str(data)
    with pytest.raises(ValueError, match=r"^s\.json: the piece '\\ud800b' holds a lone "
                                         r"surrogate") as caught:
        load_hf_bytes(data.encode(), "s.json")
    assert type(caught.value) is ValueError  # a sentence, not the codec's UnicodeEncodeError
