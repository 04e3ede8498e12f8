"""Issue 32's hostile tokenizer files, one family each: every expanding component under the
one growth budget of bpe.budgets (counted while its output is built), Sequences and
templates bounded at load, SentencePiece files checked before sentencepiece sees them,
GPT-2 pairs counted before they are parsed. The files are built here
(helpers.hostile_parts); heavy ones run in a capped process and are judged by CPU time or
peak memory, never by wall time.
"""
import json
import time
import tracemalloc

import pytest

from bpe import budgets, load_bytes
from bpe.formats.gpt2 import parse_merges, parse_vocab
from bpe.formats.hf.normalizers import Prepend
from bpe.formats.hf.precompiled import Precompiled
from bpe.formats.sentencepiece import model_info
from helpers.hostile_parts import charsmap, hf_doc, measure, precompiled, sp_model, template

GROWTH = r"more than this lab allows \(4x the input \+ 4,096\)"


def traced_peak(fn, *args):
    """(what fn raised or returned, the peak bytes Python allocated while it ran)."""
    tracemalloc.start()
    try:
        try:
            out = fn(*args)
        except ValueError as e:
            out = e
        return out, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


# ------------------------------------------------------------------ the growth budget
def test_precompiled_bomb_is_refused_at_load():
    """1,500 characters to 3 billion before (MemoryError): refused before it runs."""
    with pytest.raises(ValueError, match=r"replaces a character with 2,097,152 bytes; this "
                                         r"lab allows at most 256"):
        load_bytes(hf_doc(normalizer=precompiled(charsmap())), "tokenizer.json")


@pytest.mark.parametrize("aligned", [False, True])
def test_precompiled_growth_is_counted_as_it_is_built(aligned):
    norm = Precompiled(charsmap(replacement=b"b" * 200))
    assert norm.apply("xay") == "x" + "b" * 200 + "y"
    run = (lambda text: norm.chunks(text)) if aligned else norm.apply
    with pytest.raises(ValueError, match=GROWTH):
        run("a" * 1500)  # 300,000 characters out of 1,500


def test_prepend_is_refused_before_the_text_is_built():
    prefix = "x" * 3_000_000
    error, peak = traced_peak(Prepend(prefix).apply, "ab" * 100)
    assert isinstance(error, ValueError) and "Prepend would make more than" in str(error)
    assert peak < len(prefix) // 10, peak  # before: the 3 MB string was built first
    assert Prepend("\u2581").apply("ab") == "\u2581ab"


def test_decoder_replace_of_an_empty_pattern_stops_as_it_grows():
    """Each token grew (len + 1) x 10,000 (3.8 GB on a longer text before)."""
    tok = load_bytes(hf_doc(decoder={"type": "Replace", "pattern": {"String": ""},
                                     "content": "x" * 10_000}), "tokenizer.json")
    ids = tok.encode_ordinary("ab " * 2000)
    error, peak = traced_peak(tok.decode, ids)
    assert isinstance(error, ValueError) and "the decoder would make more than" in str(error)
    assert peak < 2_000_000, peak


def test_decoder_replace_within_budget_is_unchanged():
    tok = load_bytes(hf_doc(decoder={"type": "Replace", "pattern": {"String": "b"},
                                     "content": "B"}), "tokenizer.json")
    assert tok.decode(tok.encode_ordinary("ab ba")) == "aB\u0120Ba"  # byte-level strings, as tokenizers leaves them


# ------------------------------------------------------------------ sequences
@pytest.mark.parametrize("key, field, step", [
    ("normalizer", "normalizers", {"type": "Lowercase"}),
    ("decoder", "decoders", {"type": "Fuse"}),
    ("pre_tokenizer", "pretokenizers", {"type": "Digits"}),
    ("post_processor", "processors", {"type": "ByteLevel"}),
])
def test_a_sequence_of_many_steps_is_refused_at_load(key, field, step):
    doc = hf_doc(**{key: {"type": "Sequence", field: [step] * 10_000}})
    with pytest.raises(ValueError, match=f"more than {budgets.MAX_STEPS} components"):
        load_bytes(doc, "tokenizer.json")


def test_nested_sequences_count_every_step():
    inner = {"type": "Sequence", "normalizers": [{"type": "Lowercase"}] * 40}
    doc = hf_doc(normalizer={"type": "Sequence", "normalizers": [inner, inner]})
    with pytest.raises(ValueError, match="more than 64 components"):
        load_bytes(doc, "tokenizer.json")


def test_split_sequence_shares_one_cpu_budget():
    """Split \\s+ then (a|aa)+$|. on 3,100 characters: 11-15 s of CPU before (each piece had
    its own second); one budget for the pass now."""
    doc = hf_doc(pre_tokenizer={"type": "Sequence", "pretokenizers": [
        {"type": "Split", "pattern": {"Regex": r"\s+"}, "behavior": "Isolated"},
        {"type": "Split", "pattern": {"Regex": "(a|aa)+$|."}, "behavior": "Isolated"}]})
    result = measure(f"from bpe import load_bytes\ntok = load_bytes({doc!r}, 't.json')\n"
                     "tok.encode_ordinary(('a' * 30 + 'b ') * 100)")
    assert result["outcome"] == "sentence" and "took more than" in result["message"], result
    assert result["cpu"] < 4, result  # the budget is 2 s (steps_seconds); 6-13 s before



def test_an_honest_sequence_over_a_megabyte_stays_within_its_pass_budget():
    """The pass's budget also covers the steps' own Python, which grows with the text: a
    Sequence of WhitespaceSplit, Punctuation and Digits over 1.1 MB of Shakespeare took 3.9 s
    of CPU on a busy 2-core machine, past the 2.2 s it had (no MB term then), and was stopped
    as a pattern that "backtracks catastrophically" (6.6 s inside the full suite on 2 cores).
    It must run within its budget: no sentence, however busy the machine."""
    from bpe.formats.hf.pipeline import Pipeline
    from bpe.patterns import safety
    from helpers.app import read_corpus
    text = read_corpus("tinyshakespeare.txt")
    pipeline = Pipeline.from_json({"pre_tokenizer": {"type": "Sequence", "pretokenizers": [
        {"type": "WhitespaceSplit"}, {"type": "Punctuation", "behavior": "Isolated"},
        {"type": "Digits", "individual_digits": True}]}})
    start = time.process_time()
    pieces = pipeline.pre_tokenize(text)
    cpu = time.process_time() - start
    assert len(pieces) > 200_000
    assert cpu < safety.steps_seconds(len(text)), (cpu, safety.steps_seconds(len(text)))

# ------------------------------------------------------------------ templates
@pytest.mark.parametrize("idx", [2 ** 70, -1, 10 ** 8])
def test_template_ids_out_of_range_are_a_sentence_at_load(idx):
    with pytest.raises(ValueError, match=r"id .* is out of range: an id must be an integer from 0 to 10,000,000"):
        load_bytes(hf_doc(post_processor=template(idx)), "tokenizer.json")


def test_a_template_of_many_ids_is_refused():
    doc = json.loads(hf_doc(post_processor=template(5)))
    doc["post_processor"]["special_tokens"]["<s>"]["ids"] = [5] * 1000
    with pytest.raises(ValueError, match="more than 64 ids around each text"):
        load_bytes(json.dumps(doc).encode(), "tokenizer.json")


# ------------------------------------------------------------------ SentencePiece
def test_sentencepiece_charsmap_bomb_is_a_sentence():
    """sentencepiece raised std::bad_alloc (3 GB) on 1,500 characters."""
    with pytest.raises(ValueError, match="precompiled_charsmap replaces a character with"):
        load_bytes(sp_model(charsmap_blob=charsmap()), "x.model")
    assert model_info(sp_model(charsmap_blob=charsmap(replacement=b"bb"))).pieces == 4


def test_sentencepiece_controls_get_the_special_token_limits():
    start = time.process_time()
    with pytest.raises(ValueError, match="10,001 special tokens; the limit is 10,000"):
        load_bytes(sp_model(controls=300_000), "x.model")
    assert time.process_time() - start < 3
    assert model_info(sp_model(controls=3)).controls == ("<c0>", "<c1>", "<c2>")


def test_millions_of_pieces_are_refused_by_a_count():
    """3M pieces took 74 s and 1.4 GB; counted first, refused in a fraction of a second."""
    data = sp_model(normal=3_000_000)
    start = time.process_time()
    with pytest.raises(ValueError, match="more than 524,288 pieces"):
        model_info(data)
    assert time.process_time() - start < 2


# ------------------------------------------------------------------ GPT-2 pairs
def test_gpt2_merges_of_millions_of_lines_are_refused_before_parsing():
    data = b"#version: 0.2\n" + b"a b\n" * 2_000_000
    error, peak = traced_peak(parse_merges, data)
    assert isinstance(error, ValueError) and "more than 1,048,576 lines of merges" in str(error)
    assert peak < 3 * len(data), peak  # before: 10M lines took past 1 GB


def test_gpt2_vocab_of_millions_of_entries_is_refused_before_parsing():
    data = b"{" + b",".join(b'"%x":%d' % (i, i % 9_000_000) for i in range(1_500_000)) + b"}"
    error, peak = traced_peak(parse_vocab, data)
    assert isinstance(error, ValueError) and "more than 1,048,576 vocab entries" in str(error)
    assert peak < 3 * len(data), peak
