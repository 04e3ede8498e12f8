"""bpe.formats.hf.document_parse reads a tokenizer.json's bytes as json.loads does, leaving a
Unigram, WordPiece, WordLevel or BPE vocab and a BPE model's merges as text read a slice at a
time (issue 32): the same dict on hypothesis fuzz (escapes, quotes, lone surrogates, non-BMP,
repeated pieces, any layout, slices of one run each), the same table or sentence from
bpe.formats.hf.vocabs as from the whole parse, the same sentence and line for every malformed
file, json's meaning where a key is repeated or escaped, the same kept text (document_text),
and a loaded or pickled tokenizer the same."""
import json
import math
import pickle
import zlib
from contextlib import contextmanager

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bpe import budgets
from bpe.formats.hf import document_parse
from bpe.formats.hf.document_parse import MergesText, VocabText, parse_document
from bpe.formats.hf.document_text import compress_document, document_bytes
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


# ------------------------------------------------------------------ a BPE model's merges
merge_pieces = st.sampled_from(["a", "\u0120t", '"', "\\", "a b", "\ud800", "\U0001F600"]) \
    | pieces
# the model's keys in any order: merges before or after vocab, other keys between
model_keys = st.permutations(["type", "vocab", "merges", "dropout", "unk_token",
                              "fuse_unk", "ignore_merges"])


def bpe_model(keys, vocab, merges):
    values = {"type": "BPE", "vocab": vocab, "merges": merges, "dropout": None,
              "unk_token": '"merges": [', "fuse_unk": False, "ignore_merges": [["x", "y"]]}
    return {key: values[key] for key in keys}


@settings(max_examples=300, deadline=None)
@given(vocab=st.dictionaries(pieces, st.integers(0, 10**6), max_size=6),
       merges=st.lists(st.tuples(merge_pieces, merge_pieces), max_size=9),
       shape=st.sampled_from(["strings", "pairs", "mixed"]), keys=model_keys, layout=layouts,
       ascii_only=st.booleans())
def test_a_bpe_file_is_json_loads_dict_and_the_same_kept_text(vocab, merges, shape, keys,
                                                              layout, ascii_only):
    entries = [f"{a} {b}" if shape == "strings" or (shape == "mixed" and i % 2) else [a, b]
               for i, (a, b) in enumerate(merges)]
    document = {"version": "1.0", "added_tokens": [{"id": 0, "content": '"merges": ["a b"]'}],
                "model": bpe_model(keys, vocab, entries), "decoder": {"type": "ByteLevel"}}
    data = json.dumps(document, ensure_ascii=ascii_only, **layout).encode("utf-8", "surrogatepass")
    plain = json.loads(data.decode("utf-8", "surrogatepass"))
    with small():
        parsed = parse_document(data, errors="surrogatepass")
        assert whole(parsed) == plain
    # the streamed read is taken for every merges list of one shape (a mix is json's list)
    got, uniform = parsed["model"]["merges"], shape != "mixed" or len(merges) < 2
    assert isinstance(got, MergesText) == uniform
    vocab_text = parsed["model"]["vocab"]
    assert isinstance(vocab_text, VocabText) and not isinstance(vocab_text, MergesText)
    assert vocab_text.kind == "vocab" and not vocab_text.is_list
    if uniform:
        assert got.is_list and got.kind == "merges"
        # runs of 2 entries with their commas, a slice each, then the last entry's slice
        assert len(got.spans) == (len(merges) // 2 + 1 if merges else 0)
        assert [entry for part in got.slices() for entry in part] == list(got) == entries
    # the kept text is json.dumps' text of json's dict, whatever slices it was read in
    # (default slice_items: json_chunks writes a dict of more items than that with json.dumps,
    # which cannot write a VocabText; a model's object has a handful)
    assert zlib.decompress(compress_document(parsed)) == document_bytes(plain)


def test_a_real_sized_merges_list_is_read_in_slices():
    """Default slices: a byte-level file of 28k merges is several slices, json's list."""
    pieces = [chr(0x100 + i % 300) + chr(0x61 + i // 300 % 26) + str(i) for i in range(28_000)]
    vocab = {piece: i for i, piece in enumerate(pieces)}
    for entries in ([f"{a} {b}" for a, b in zip(pieces, pieces[1:])],
                    [[a, b] for a, b in zip(pieces, pieces[1:])]):
        data = json.dumps({"model": {"type": "BPE", "vocab": vocab, "merges": entries}},
                          ensure_ascii=False).encode()
        parsed = parse_document(data)
        merges = parsed["model"]["merges"]
        assert isinstance(merges, MergesText) and len(merges.spans) > 4
        assert list(merges) == entries and dict(parsed["model"]["vocab"]) == vocab


MERGES = [b'{"model": {"type": "BPE", "vocab": {"a": 0, "b": 1, "ab": 2},', b' "merges": [',
          b'  "a b",', b'  "ab a",', b'  "b b",', b'  "a ab"', b' ], "dropout": null}}']
PAIRS = [b'{"model": {"type": "BPE", "merges": [', b'  ["a", "b"],', b'  ["ab", "a"],',
         b'  ["b", "b"],', b'  ["a", "ab"]', b' ],', b' "vocab": {"a": 0, "b": 1, "ab": 2}}}']


def _merges_file(lines, line, text):
    """lines with line number `line` (1-based) replaced by text."""
    return b"\n".join(lines[:line - 1] + [text] + lines[line:])


# json refuses these only when it reads their slice: a sentence at the file's line then
LAZY = {"escape", "unicode-escape", "control", "utf8-in", "pair-escape", "pair-utf8"}


@pytest.mark.parametrize("data", [
    _merges_file(MERGES, 4, b'  "ab\\x a",'),          # an escape json refuses, a later slice
    _merges_file(MERGES, 5, b'  "b \\ud80",'),         # a \\u escape of 3 digits
    _merges_file(MERGES, 3, b'  "a\x01 b",'),          # a raw control character
    _merges_file(MERGES, 5, b'  "\xff b",'),           # not UTF-8, inside the merges
    _merges_file(MERGES, 4, b'  "ab a"'),              # no comma between entries
    _merges_file(MERGES, 6, b'  "a ab",'),             # a comma after the last
    _merges_file(MERGES, 4, b'  "ab a",,'),            # two commas
    _merges_file(MERGES, 5, b'  b b,'),                # a bare word where a string is
    _merges_file(MERGES, 7, b' ], "dropout": null}'),  # the model's object not closed
    _merges_file(PAIRS, 3, b'  ["ab\\q", "a"],'),      # an escape json refuses, in a pair
    _merges_file(PAIRS, 4, b'  ["b", "\xc3"],'),       # not UTF-8, in a pair
    _merges_file(PAIRS, 2, b'  ["a" "b"],'),           # no comma inside a pair
    _merges_file(PAIRS, 3, b'  ["ab", "a",],'),        # a comma after a pair's second
    _merges_file(PAIRS, 4, b'  ["b", 01],'),           # a number json refuses, for a string
    _merges_file(PAIRS, 5, b'  ["a", "ab"],'),         # a comma after the last
], ids=["escape", "unicode-escape", "control", "utf8-in", "between", "trailing", "two-commas",
        "bare", "unclosed", "pair-escape", "pair-utf8", "pair-inner-comma", "pair-extra",
        "pair-number", "pair-trailing"])
def test_malformed_merges_get_the_whole_parses_sentence_and_line(small_slices, request, data):
    want = whole_parse_error(data)
    assert want is not None
    if request.node.callspec.id in LAZY:  # the streamed read is taken: the slice refuses it
        assert isinstance(parse_document(data, "t.json")["model"]["merges"], MergesText)
    with pytest.raises(ValueError) as caught:
        whole(parse_document(data, "t.json"))
    assert caught.value.args[0] == want


@pytest.mark.parametrize("text, streamed", [
    # a key json resolves: repeated (json keeps the last) or escaped, in or out of the model
    ('{"model": {"type": "BPE", "merges": ["a b"], "merges": []}}', False),
    ('{"model": {"type": "BPE", "merges": [], "merges": ["a b"]}}', False),
    ('{"model": {"type": "BPE", "merges": ["a b"], "m\\u0065rges": []}}', False),
    ('{"model": {"type": "BPE", "merges": ["a b"]}, "model": {"merges": []}}', False),
    ('{"model": {"type": "BPE", "x": {"merges": [1]}, "merges": ["a b"]}}', True),
    ('{"decoder": {"merges": []}, "model": {"type": "BPE", "merges": ["a b"]}}', True),
    # shapes json reads but the regex does not: json's list
    ('{"model": {"type": "BPE", "merges": ["a b", 7]}}', False),
    ('{"model": {"type": "BPE", "merges": [["a", "b", "c"]]}}', False),
    ('{"model": {"type": "BPE", "merges": [["a", 1]]}}', False),
    ('{"model": {"type": "BPE", "merges": [[["a"], "b"]]}}', False),
    ('{"model": {"type": "BPE", "merges": [["a", "b"], "c d"]}}', False),
    ('{"model": {"type": "BPE", "merges": {"a": "b"}}}', False),
    ('{"model": {"type": "BPE", "merges": null}}', False),
    # only a model of type exactly "BPE" reads its merges as text
    ('{"model": {"merges": ["a b"], "vocab": {"a": 0}}}', False),
    ('{"model": {"type": "bpe", "merges": ["a b"]}}', False),
    ('{"model": {"type": ["BPE"], "merges": ["a b"]}}', False),
    ('{"model": {"type": "Unigram", "merges": [["a", "b"]], "vocab": [["a", 0]]}}', False),
    ('{"model": {"merges": ["a b"], "type": "BPE"}}', True),
])
def test_merges_json_resolves_are_read_as_json_reads_them(small_slices, text, streamed):
    parsed = parse_document(text.encode())
    assert whole(parsed) == json.loads(text)
    assert isinstance(parsed["model"].get("merges"), MergesText) == streamed


@pytest.mark.parametrize("kind, vocab", [(None, "{}"), ("BPE", "{}"), ("BPE", '[["a", 0]]')])
def test_only_a_bpe_models_object_vocab_is_text(small_slices, kind, vocab):
    typed = "" if kind is None else f'"type": "{kind}", '
    text = '{"model": {%s"vocab": %s, "merges": ["a b"]}}' % (typed, vocab)
    parsed = parse_document(text.encode())
    assert whole(parsed) == json.loads(text)
    got = parsed["model"]["vocab"]
    assert isinstance(got, VocabText) == (kind == "BPE" and vocab == "{}")


@pytest.mark.parametrize("merges", ['["a b", "b c"]', '[["a", "b"], ["b", "c"]]', '[]'])
@pytest.mark.parametrize("limit", [3, 4])
def test_merges_nest_as_deep_as_json_counts_them(small_slices, monkeypatch, merges, limit):
    """A list of pairs is a level deeper than a list of strings, though its slices are
    skipped by the scan: refused exactly when the whole parse refuses it."""
    monkeypatch.setattr(budgets, "MAX_JSON_DEPTH", limit)
    data = ('{"model": {"type": "BPE", "merges": %s}}' % merges).encode()
    want = whole_parse_error(data)
    assert (want is not None) == (limit == 3 and "[[" in merges)
    if want is None:
        assert whole(parse_document(data, "t.json")) == json.loads(data)
    else:
        with pytest.raises(ValueError) as caught:
            parse_document(data, "t.json")
        assert caught.value.args[0] == want
