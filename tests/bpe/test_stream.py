"""Streamed training from files, counts files and Dask counting give exactly tok.train's
merges on the concatenated text, however the text is cut; train_from_iterator gives
tok.train's merges on its items as documents (joined by a special token, which no merge
crosses) (bpe/counting/stream.py, bpe/counting/chunks.py parts,
bpe/counting/counts_file.py, bpe/counting/dask_engine.py)."""
from collections import Counter

import pytest
from hypothesis import given, settings, strategies as st

from bpe import BasicTokenizer, RegexTokenizer
from bpe import corpus
from bpe.counting import parts as counting_parts, stream
from bpe.counting.parts import PartCounter, finish, join_all
from bpe.counting.counts_file import read_counts, write_counts
from bpe.tie_break import TIE_BREAKS

PRESETS = ["gpt2", "gpt4", "gpt4o"]
AWKWARD = ("Hello wor\r\nld!  It's 2026…\r\n\r\n   café 東京 🫠🫠 naïve\t\tx  \n \u00a0 "
           "don't 12345678 ---\r\r\n")


DOC = "<|doc|>"  # joins an iterator's items for tok.train(..., special_tokens=[DOC])


def as_documents(cls_or_pattern, pieces, vocab_size, **options):
    """tok.train on the pieces as documents: the standard train_from_iterator must equal."""
    tok = BasicTokenizer() if cls_or_pattern is BasicTokenizer else RegexTokenizer(cls_or_pattern)
    tok = tok.train(DOC.join(pieces), vocab_size + 1, special_tokens=[DOC], **options)
    tok.special_tokens = {}
    return tok


def same_training(tok, expected):
    assert tok.merges == expected.merges
    assert tok.merge_counts == expected.merge_counts
    assert tok.stop_reason == expected.stop_reason


@pytest.fixture
def small_pieces(monkeypatch):
    """Pieces, reads and heads so small that every cut lands somewhere awkward."""
    monkeypatch.setattr(counting_parts, "PIECE_CHARS", 97)
    monkeypatch.setattr(counting_parts, "HEAD_CHARS", 40)
    monkeypatch.setattr(corpus, "READ_BYTES", 13)


@pytest.mark.parametrize("pattern", PRESETS)
def test_files_equal_train_on_real_corpora(pattern, tmp_path, taylorswift, shakespeare,
                                           monkeypatch):
    monkeypatch.setattr(corpus, "READ_BYTES", 4093)  # odd, so reads cut characters too
    monkeypatch.setattr(counting_parts, "PIECE_CHARS", 3001)
    texts = [taylorswift, shakespeare[:150_000]]
    paths = []
    for i, text in enumerate(texts):
        paths.append(tmp_path / f"{i}.txt")
        paths[-1].write_bytes(text.encode("utf-8"))
    expected = RegexTokenizer(pattern).train("".join(texts), 600)
    same_training(stream.train_from_files(RegexTokenizer(pattern), paths, 600), expected)


def test_iterator_equals_train_on_a_corpus(taylorswift):
    pieces = [taylorswift[i:i + 333] for i in range(0, len(taylorswift), 333)]
    expected = as_documents(None, pieces, 500, min_frequency=3)
    same_training(stream.train_from_iterator(RegexTokenizer(), iter(pieces), 500,
                                             min_frequency=3), expected)
    # documents, not one stream: cutting the text elsewhere changes the merges
    assert expected.merges != RegexTokenizer().train(taylorswift, 500, min_frequency=3).merges


@pytest.mark.parametrize("pattern", PRESETS)
def test_files_cut_inside_characters_chunks_and_crlf(pattern, tmp_path, small_pieces):
    data = (AWKWARD * 40).encode("utf-8")
    # every byte offset of the first 150 is a file boundary somewhere (never inside a
    # character: a file must be UTF-8 on its own); reads of 13 bytes cut the rest
    cuts = sorted({i for i in range(1, 150)
                   if (data[i] & 0xC0) != 0x80} | {len(data) // 2})
    paths = []
    for i, (a, b) in enumerate(zip([0] + cuts, cuts + [len(data)])):
        paths.append(tmp_path / f"{i}.txt")
        paths[-1].write_bytes(data[a:b])
    expected = RegexTokenizer(pattern).train(data.decode("utf-8"), 300)
    same_training(stream.train_from_files(RegexTokenizer(pattern), paths, 300), expected)
    assert any(data[b - 1:b + 1] == b"\r\n" for b in cuts)  # a CRLF split across files


@pytest.mark.parametrize("pattern", PRESETS)
def test_byte_ranges_cut_anywhere(pattern, tmp_path, small_pieces):
    text = AWKWARD * 30
    path = tmp_path / "a.txt"
    path.write_bytes(text.encode("utf-8"))
    tok = RegexTokenizer(pattern)
    want = list(Counter(tok.split(text)).items())
    size = path.stat().st_size
    for range_bytes in (1, 2, 3, 5, 64, 301):
        ranges = [(path, lo, min(lo + range_bytes, size)) for lo in range(0, size, range_bytes)]
        parts = [stream.count_range(p, lo, hi, tok.split) for p, lo, hi in ranges]
        assert list(finish(join_all(parts, tok.split), tok.split).items()) == want


@settings(max_examples=60, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("ab Z9's.!\n\r\t  é😉한")), max_size=400),
       st.lists(st.integers(min_value=0, max_value=400), max_size=8),
       st.sampled_from(PRESETS))
def test_random_text_cut_at_random_places(text, cuts, pattern):
    cuts = sorted(c for c in set(cuts) if c < len(text))
    pieces = [text[a:b] for a, b in zip([0] + cuts, cuts + [len(text)])]
    tok = RegexTokenizer(pattern)
    counter = PartCounter(tok.split, piece_chars=7)
    for piece in pieces:
        counter.feed(piece)
    whole = Counter(tok.split(text))
    assert list(finish(counter.part(), tok.split).items()) == list(whole.items())
    parts = []
    for piece in pieces:
        one = PartCounter(tok.split, piece_chars=5)
        one.feed(piece)
        parts.append(one.part())
    assert list(finish(join_all(parts, tok.split), tok.split).items()) == list(whole.items())


def test_a_surrogate_pair_cut_between_two_strings_is_two_lone_surrogates():
    # each item is its own text, so a pair cut between two is two replacement characters
    expected = RegexTokenizer().train("a\ufffd\ufffdb a\ufffd\ufffdb", 262)
    tok = stream.train_from_iterator(RegexTokenizer(), ["a\ud83d", "\ude00b a\ud83d",
                                                        "\ude00b"], 262)
    assert tok.merges == as_documents(None, ["a\ufffd", "\ufffdb a\ufffd", "\ufffdb"], 262).merges
    assert tok.merges != expected.merges


def test_basic_trains_on_the_whole_text_and_refuses_what_cannot_fit(taylorswift, monkeypatch):
    text = taylorswift[:20_000]
    pieces = [text[i:i + 999] for i in range(0, len(text), 999)]
    expected = as_documents(BasicTokenizer, pieces, 300)
    same_training(stream.train_from_iterator(BasicTokenizer(), pieces, 300), expected)
    monkeypatch.setattr(stream, "WHOLE_MAX_BYTES", 10_000)
    with pytest.raises(ValueError, match="BasicTokenizer trains on each text"):
        stream.train_from_iterator(BasicTokenizer(), pieces, 300)


def test_arguments_are_checked_before_counting():
    def never():
        raise AssertionError("counted before checking the arguments")
        yield
    with pytest.raises(ValueError, match="vocab_size must be an int of at least 256"):
        stream.train_from_iterator(RegexTokenizer(), never(), 255)
    with pytest.raises(ValueError, match="min_frequency"):
        stream.train_from_iterator(RegexTokenizer(), never(), 300, min_frequency=0)


# ------------------------------------------------------------------ counts files
def counts_of(tmp_path, name, text, pattern="gpt4"):
    path = tmp_path / f"{name}.txt"
    path.write_bytes(text.encode("utf-8"))
    tok = RegexTokenizer(pattern)
    write_counts(tmp_path / f"{name}.counts", tok.pattern, stream.count_files(tok, [path]))
    return tmp_path / f"{name}.counts"


def test_counts_files_round_trip_with_64_bit_counts(tmp_path):
    part = counting_parts.Part(["he", "llo"], Counter({" wor": 3 << 40, "ld": 1}), "!\r")
    write_counts(tmp_path / "x.counts", "P", part)
    pattern, back = read_counts(tmp_path / "x.counts")
    assert pattern == "P" and back == part
    assert list(back.counts.items()) == list(part.counts.items())


def test_merge_counts_above_32_bits():
    part = counting_parts.Part([], Counter({"ab": 3 << 40, "bc": 1}), "")
    tok = stream.train_from_part(RegexTokenizer(), part, 257)
    assert tok.merge_counts == {256: 3 << 40}


def test_counts_files_join_in_order(tmp_path, taylorswift, small_pieces):
    text = taylorswift[:30_000] + AWKWARD * 5
    # cut inside a word, between \r and \n, and inside a run of spaces
    cuts = [text.index("ld!") - 1, text.index("\r\n") + 1, len(text) - 20,
            text.index("   ") + 1]
    cuts.sort()
    files = [counts_of(tmp_path, str(i), text[a:b])
             for i, (a, b) in enumerate(zip([0] + cuts, cuts + [len(text)]))]
    expected = RegexTokenizer().train(text, 400)
    same_training(stream.train_from_counts(RegexTokenizer(), files, 400), expected)


def test_counts_of_another_pattern_are_refused(tmp_path):
    files = [counts_of(tmp_path, "a", "hello", "gpt4"), counts_of(tmp_path, "b", "hi", "gpt2")]
    with pytest.raises(ValueError, match="b.counts was counted with the split pattern"):
        stream.train_from_counts(RegexTokenizer(), files, 300)


@pytest.mark.parametrize("damage, message", [
    (lambda data: data[:-1], "is damaged"),
    (lambda data: data[:-5] + bytes([data[-5] ^ 1]) + data[-4:], "is damaged"),
    (lambda data: data.replace(b'"chunks": ', b'"chunks": "', 1), "header line"),
    (lambda data: b"bpe-counts 7\n" + data.split(b"\n", 1)[1], "version '7'"),
    (lambda data: b"hello world\n", "is not a counts file"),
])
def test_a_damaged_counts_file_is_refused(tmp_path, damage, message):
    path = counts_of(tmp_path, "a", "hello world, hello you\n" * 50)
    path.write_bytes(damage(path.read_bytes()))
    with pytest.raises(ValueError, match=message):
        read_counts(path)


def test_not_utf8_names_the_file_and_the_byte(tmp_path, small_pieces):
    path = tmp_path / "bad.txt"
    path.write_bytes("é".encode() * 40 + b"ok\xe9" + b"x" * 30)  # reads of 13 bytes
    with pytest.raises(corpus.NotUTF8Error, match=r"bad.txt is not UTF-8 text \(byte 0xe9 "
                                                   r"at offset 82\)"):
        stream.train_from_files(RegexTokenizer(), [path], 300)
    path.write_bytes(b"abc\xc3")  # cut inside a character at the end
    with pytest.raises(corpus.NotUTF8Error, match="byte 0xc3 at offset 3"):
        stream.train_from_files(RegexTokenizer(), [path], 300)


# --------------------------------------------------------------------- Dask
def test_dask_local_cluster_gives_the_same_merges(tmp_path, taylorswift, shakespeare):
    pytest.importorskip("distributed", reason="Dask is optional: pip install -r "
                                              "requirements-scale.txt")
    from bpe.counting.dask_engine import count_files_dask
    texts = [taylorswift, AWKWARD * 50, shakespeare[:100_000]]
    paths = []
    for i, text in enumerate(texts):
        paths.append(tmp_path / f"{i}.txt")
        paths[-1].write_bytes(text.encode("utf-8"))
    seen = []
    part = count_files_dask(RegexTokenizer(), paths, workers=2, range_bytes=50_021,
                            progress=seen.append)
    tok = stream.train_from_part(RegexTokenizer(), part, 500)
    same_training(tok, RegexTokenizer().train("".join(texts), 500))
    assert seen[-1].done == seen[-1].total == sum(p.stat().st_size for p in paths)


def test_local_worker_processes_give_the_same_merges(tmp_path, shakespeare):
    path = tmp_path / "a.txt"
    path.write_bytes(shakespeare[:200_000].encode("utf-8"))
    tok = RegexTokenizer()
    part = stream.count_files(tok, [path], workers=2, range_bytes=30_011)
    same_training(stream.train_from_part(tok, part, 400),
                  RegexTokenizer().train(shakespeare[:200_000], 400))


def test_dask_stays_optional():
    import subprocess
    import sys
    from helpers.app import ROOT
    code = ("import sys, bpe, bpe.counting.stream, bpe.counting.counts_file, bpe.cli, bpe.counting.dask_engine; "
            "print(sorted(m for m in ('dask', 'distributed') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                         text=True, check=True).stdout.strip()
    assert out == "[]"


def test_a_clear_message_when_dask_is_missing(monkeypatch, tmp_path):
    import sys
    from bpe.counting.dask_engine import count_files_dask
    monkeypatch.setitem(sys.modules, "distributed", None)  # import distributed fails
    with pytest.raises(ValueError, match="pip install -r requirements-scale.txt"):
        count_files_dask(RegexTokenizer(), [tmp_path / "a.txt"])


def test_the_tokenizer_methods_are_the_streamed_trainers(tmp_path):
    """tok.train_from_files / tok.train_from_iterator: the same merges as tok.train."""
    from bpe import RegexTokenizer
    text = "hello world, hello there! 12345 naïve café\r\n" * 40
    path = tmp_path / "c.txt"
    path.write_text(text, encoding="utf-8", newline="")
    want = RegexTokenizer().train(text, 300)
    by_file = RegexTokenizer().train_from_files([path], 300)
    by_iter = RegexTokenizer().train_from_iterator([text[:37], text[37:]], 300)
    assert by_file.merges == want.merges
    assert by_iter.merges == as_documents(None, [text[:37], text[37:]], 300).merges
    assert by_file.merge_counts == want.merge_counts


# -------------------------------------------------------------------- tie rules
# Every tie rule and record_ties give, streamed or from counts files, exactly what
# tok.train gives on the whole text: merges, counts, stop reason and the ties recorded.
def same_rule_training(tok, expected):
    same_training(tok, expected)
    assert tok.merge_ties == expected.merge_ties
    assert expected.merge_ties  # the ties really were recorded, so the check can fail


def trained(text, vocab_size, rule, pattern="gpt4", **options):
    return RegexTokenizer(pattern).train(text, vocab_size, tie_break=rule, record_ties=True,
                                         **options)


@pytest.fixture(scope="module")
def corpus_cuts(taylorswift, shakespeare):
    """A real corpus, cut inside a word, between \\r and \\n, and inside a run of spaces."""
    text = taylorswift[:40_000] + AWKWARD * 5 + shakespeare[:40_000]
    cuts = sorted([text.index("ld!") - 1, text.index("\r\n") + 1, text.index("   ") + 1,
                   45_000, len(text) - 20])
    return text, cuts


@pytest.fixture(scope="module")
def expected_by_rule(corpus_cuts):
    text, _ = corpus_cuts
    expected = {rule: trained(text, 420, rule) for rule in TIE_BREAKS}
    # the rules part on this corpus, so passing the wrong rule (or none) fails below
    assert len({tuple(tok.merges) for tok in expected.values()}) == len(TIE_BREAKS)
    return expected


@pytest.mark.parametrize("rule", TIE_BREAKS)
def test_every_tie_rule_from_counts_files_equals_train(rule, corpus_cuts, expected_by_rule,
                                                       tmp_path, small_pieces):
    text, cuts = corpus_cuts
    files = [counts_of(tmp_path, str(i), text[a:b])
             for i, (a, b) in enumerate(zip([0] + cuts, cuts + [len(text)]))]
    tok = stream.train_from_counts(RegexTokenizer(), files, 420, tie_break=rule,
                                   record_ties=True)
    same_rule_training(tok, expected_by_rule[rule])


@pytest.mark.parametrize("rule", TIE_BREAKS)
def test_every_tie_rule_from_files_and_iterators_equals_train(rule, corpus_cuts,
                                                              expected_by_rule, tmp_path):
    text, cuts = corpus_cuts
    paths = []
    for i, (a, b) in enumerate(zip([0] + cuts, cuts + [len(text)])):
        paths.append(tmp_path / f"{i}.txt")
        paths[-1].write_bytes(text[a:b].encode("utf-8"))
    by_files = stream.train_from_files(RegexTokenizer(), paths, 420, tie_break=rule,
                                       record_ties=True)
    same_rule_training(by_files, expected_by_rule[rule])
    pieces = [text[i:i + 777] for i in range(0, len(text), 777)]
    by_iter = RegexTokenizer().train_from_iterator(iter(pieces), 420, tie_break=rule,
                                                   record_ties=True)
    same_rule_training(by_iter, as_documents(None, pieces, 420, tie_break=rule,
                                             record_ties=True))


@pytest.mark.parametrize("rule", TIE_BREAKS)
def test_every_tie_rule_from_worker_processes_equals_train(rule, shakespeare, tmp_path):
    path = tmp_path / "a.txt"
    path.write_bytes(shakespeare[:120_000].encode("utf-8"))
    tok = RegexTokenizer("gpt2")
    part = stream.count_files(tok, [path], workers=2, range_bytes=30_011)
    same_rule_training(stream.train_from_part(tok, part, 380, tie_break=rule,
                                              record_ties=True),
                       trained(shakespeare[:120_000], 380, rule, "gpt2"))


@pytest.mark.parametrize("rule", TIE_BREAKS)
def test_basic_and_custom_patterns_pass_the_tie_rule_on(rule, taylorswift):
    text = taylorswift[:8_000]
    pieces = [text[i:i + 999] for i in range(0, len(text), 999)]
    want = as_documents(BasicTokenizer, pieces, 300, tie_break=rule, record_ties=True)
    same_rule_training(stream.train_from_iterator(BasicTokenizer(), pieces, 300,
                                                  tie_break=rule, record_ties=True), want)
    custom = r"\w+|\s+|[^\w\s]+"
    same_rule_training(stream.train_from_iterator(RegexTokenizer(custom), pieces, 300,
                                                  tie_break=rule, record_ties=True),
                       as_documents(custom, pieces, 300, tie_break=rule, record_ties=True))


@pytest.fixture(scope="module")
def counts_dir(tmp_path_factory):
    return tmp_path_factory.mktemp("counts")


TIE_HEAVY = ["ab", "ba", "bab", " ab", " ba", "a", "b", "  ", "\n", "\r\n", "9", "'s", "é😉",
             "한", ".!", "\t"]


@settings(max_examples=80, deadline=None)
@given(st.lists(st.sampled_from(TIE_HEAVY), min_size=2, max_size=80).map("".join),
       st.lists(st.integers(min_value=0, max_value=300), max_size=5),
       st.sampled_from(PRESETS), st.sampled_from(TIE_BREAKS),
       st.integers(min_value=1, max_value=3), st.integers(min_value=1, max_value=40))
def test_random_text_every_rule_through_counts_files(counts_dir, text, cuts, pattern, rule,
                                                     min_frequency, merges):
    """Tie-heavy random text (few distinct pieces: many pairs share a count, in chunks
    met in any order), cut at random places, each piece counted into its own counts
    file, trained from them in order."""
    cuts = sorted(c for c in set(cuts) if 0 < c < len(text))
    tok = RegexTokenizer(pattern)
    paths = []
    for i, (a, b) in enumerate(zip([0] + cuts, cuts + [len(text)])):
        counter = PartCounter(tok.split, piece_chars=5)
        counter.feed(text[a:b])
        paths.append(counts_dir / f"{i}.counts")
        write_counts(paths[-1], tok.pattern, counter.part())
    got = stream.train_from_counts(tok, paths, 256 + merges, min_frequency=min_frequency,
                                   tie_break=rule, record_ties=True)
    want = trained(text, 256 + merges, rule, pattern, min_frequency=min_frequency)
    same_training(got, want)
    assert got.merge_ties == want.merge_ties


def test_a_bad_tie_rule_is_refused_before_counting():
    def never():
        raise AssertionError("counted before checking the arguments")
        yield
    with pytest.raises(ValueError, match="tie_break must be one of 'first', 'smallest_ids', "
                                         "'greatest_bytes', not 'random'"):
        stream.train_from_iterator(RegexTokenizer(), never(), 300, tie_break="random")
    with pytest.raises(ValueError, match="record_ties must be True or False"):
        stream.train_from_files(RegexTokenizer(), ["/nonexistent"], 300, record_ties="yes")
    with pytest.raises(ValueError, match="tie_break must be one of"):
        stream.train_from_part(RegexTokenizer(), counting_parts.Part([], Counter(), ""), 300,
                               tie_break="smallest")
