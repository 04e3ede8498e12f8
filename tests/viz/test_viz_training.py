"""lab/jobs/corpus_text.py (decoding, held-out split), lab/jobs/requests.py's input checks, and
viz/train_result.py (merge table, charts and messages)."""
import doctest
from pathlib import Path

import pytest

import lab.jobs.corpus_text as ct
import lab.jobs.requests as rq
import viz.train_result as vt
from bpe import BasicTokenizer, RegexTokenizer, load, patterns
from bpe.replay import token_counts_by_merge

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = (ROOT / "samples" / "shakespeare_100k.txt").read_text(encoding="utf-8")


def test_doctests():
    for module, examples in ((vt, 5), (ct, 6), (rq, 5)):
        result = doctest.testmod(module)
        assert result.attempted >= examples and result.failed == 0


@pytest.fixture(scope="module")
def trained(small_tok):
    return small_tok(SAMPLE[:30_000], 600)


def _rows(chart):
    spec = chart.to_dict()
    (rows,) = spec["datasets"].values()
    return spec, rows


# ------------------------------------------------------------------ the corpus
def test_decode_upload_utf8_and_bom():
    assert ct.decode_upload("a.txt", "héllo 👋".encode()) == "héllo 👋"
    assert ct.decode_upload("a.txt", b"\xef\xbb\xbfhi") == "hi"


def test_latin1_upload_names_file_byte_and_position():
    with pytest.raises(ValueError) as e:
        ct.decode_upload("notes.txt", "café au lait".encode("latin-1"))
    message = str(e.value)
    assert "notes.txt" in message and "0xe9" in message and "position 3" in message
    assert "another encoding" in message and "replacement" in message


def test_binary_upload_is_called_binary():
    png = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(256))
    with pytest.raises(ValueError, match="binary file"):
        ct.decode_upload("photo.png", png)
    text = ct.decode_upload("photo.png", png, replace=True)
    assert "\ufffd" in text and text.startswith("\ufffdPNG")


def test_corpus_keeps_good_files_when_one_is_bad():
    files = [("a.txt", b"first file"), ("b.bin", b"\xff\xfe\x00binary"),
             ("c.txt", b"second\n"), ("d.txt", b"")]
    corpus = ct.corpus_from_files(files)
    assert corpus.text == "first file\nsecond\n"
    assert corpus.used == ["a.txt", "c.txt"]
    assert corpus.not_utf8 == ["b.bin"]
    assert len(corpus.problems) == 2
    assert "b.bin" in corpus.problems[0] and "d.txt is empty" in corpus.problems[1]
    # decoding with replacement brings the bad file in, in its place
    corpus = ct.corpus_from_files(files, replace=True)
    assert corpus.used == ["a.txt", "b.bin", "c.txt"]
    assert corpus.not_utf8 == ["b.bin"] and corpus.problems == ["d.txt is empty, so it adds "
                                                                "nothing to the corpus."]
    assert corpus.text.startswith("first file\n\ufffd\ufffd\x00binary\nsecond")


def test_no_files_no_corpus():
    assert ct.corpus_from_files([]) == ("", [], [], [])


def test_corpus_checks():
    with pytest.raises(ValueError, match="empty"):
        rq.check_corpus("regex", 0)
    with pytest.raises(ValueError, match="Use Regex"):
        rq.check_corpus("basic", rq.BASIC_MAX_BYTES + 1)
    rq.check_corpus("basic", rq.BASIC_MAX_BYTES)
    rq.check_corpus("regex", 100 * rq.BASIC_MAX_BYTES)


def test_held_out_is_the_end_of_the_corpus():
    train, held = ct.split_held_out(SAMPLE)
    assert train + held == SAMPLE
    assert ct.held_out_start(SAMPLE) == len(train)
    assert 0.09 * len(SAMPLE) < len(held) <= 0.1 * len(SAMPLE)
    assert train.endswith("\n")  # cut at a line break near the tenth


def test_held_out_is_capped():
    big = "word " * 300_000 + "\n" + "tail " * 300_000  # 3 MB: a tenth would be 300 KB
    train, held = ct.split_held_out(big)
    assert len(held) <= ct.HELD_OUT_LIMIT and len(held) >= ct.HELD_OUT_LIMIT - 1000
    assert train + held == big


def test_tiny_corpus_is_trained_whole():
    assert ct.split_held_out("short text " * 100) == ("short text " * 100, "")


def test_special_tokens_parsing():
    assert rq.parse_special_tokens("") == []
    assert rq.parse_special_tokens("<|a|>\n\n <|b|> \n") == ["<|a|>", "<|b|>"]
    with pytest.raises(ValueError, match="listed twice"):
        rq.parse_special_tokens("<|a|>\n<|a|>")
    with pytest.raises(ValueError, match="more than"):
        rq.parse_special_tokens("\n".join(f"<|{i}|>" for i in range(300)))


@pytest.mark.parametrize("size", [0, 255, 100_001, 10**7, 512.5, "1000", True])
def test_vocab_size_outside_the_range_is_refused(size):
    with pytest.raises(ValueError, match="from 256"):
        rq.check_vocab_size(size)


def test_vocab_size_inside_the_range():
    for size in (256, 1000, 100_000):
        rq.check_vocab_size(size)


def test_a_custom_pattern_goes_through_bpe_limits():
    import regex.regex as module
    # capture groups are made non-capturing: the trial sees strings, not tuples
    patterns.trial(r"(\w+)|(\s+)|([^\w\s]+)", "hello, world")
    # a counted repeat that would compile to gigabytes is refused before compiling
    with pytest.raises(ValueError, match="units of regex program"):
        patterns.trial(r"c{10000000}|[\s\S]", "hello")
    with pytest.raises(ValueError, match="backreference"):
        patterns.trial(r"(a)\1", "aa")
    # a visitor's pattern is not kept in the regex module's cache for the server's life
    unique = r"zq\w+|" + str(id(object())) + r"|\s+|."
    patterns.trial(unique, "some text")
    assert all(key[0] != unique for key in module._cache)  # regex.compile would keep it


# ------------------------------------------------------------------- the merges
def test_visible_whitespace_and_control_characters():
    # the one renderer (viz.display.display_text), as every page shows tokens
    assert vt.visible(b" a\tb\nc\r") == "·a→b↵c␍"
    assert vt.visible(b"\x00\x1b") == "⟨NUL⟩⟨ESC⟩"
    assert vt.visible(b"\xe2\x82") == "⟨e2 82⟩"  # partial UTF-8 as hex, never a bare �
    assert vt.visible("<b>".encode()) == "<b>"  # st.dataframe shows text, not HTML


def test_merge_table_lists_every_merge_in_order(trained):
    table = vt.merge_table(trained)
    assert list(table.columns) == ["rank", "id", "pair", "from", "token", "count", "tie"]
    assert len(table) == len(trained.merges) == 344
    assert (table["tie"] == "").all()  # ties not recorded: the column is empty
    assert table["id"].tolist() == list(range(256, 600))
    assert table["rank"].tolist() == list(range(1, 345))
    assert table["count"].tolist() == [trained.merge_counts[i] for i in range(256, 600)]
    first_pair, first_idx = next(iter(trained.merges.items()))
    row = table.iloc[0]
    assert row["pair"] == f"({first_pair[0]}, {first_pair[1]})"
    assert row["token"] == vt.visible(trained.vocab[first_idx])
    # counts fall as merges go on (allowing the small rises new tokens can bring)
    assert table["count"].iloc[0] > table["count"].iloc[-1]


def test_merge_table_of_a_loaded_model_has_no_counts(trained):
    loaded = load(text=trained.model_text())
    table = vt.merge_table(loaded)
    assert len(table) == 344 and table["count"].isna().all()
    assert table["token"].tolist() == vt.merge_table(trained)["token"].tolist()


def test_merge_table_marks_tied_merges_with_their_candidates():
    from bpe import RegexTokenizer
    text = "the cat sat on the mat; a dog dug a log " * 3
    tok = RegexTokenizer().train(text, 256 + 40, record_ties=True)
    table = vt.merge_table(tok)
    for rank, ((p0, p1), idx) in enumerate(tok.merges.items()):
        others = tok.merge_ties[idx][1:]
        mark = table["tie"].iloc[rank]
        assert tok.merge_ties[idx][0] == (p0, p1)  # the winner first
        # a row is marked exactly when other pairs had the same top count
        assert bool(mark) == bool(others)
        if others:
            assert mark.startswith(f"tied with {len(others)}")
            a, b = others[0]
            assert vt.visible(tok.vocab[a]) in mark
    tied = int((table["tie"] != "").sum())
    assert 0 < tied < len(table)
    assert vt.ties_caption(tok, table).startswith(f"{tied} of the {len(table)} merges won a tie")
    assert "not recorded" in vt.ties_caption(RegexTokenizer().train(text, 300), table)


def test_recent_merges_newest_first():
    frame = vt.recent_merges_table([(256, (116, 104), b"th", 50), (257, (32, 256), b" th", 40)])
    assert frame.values.tolist() == [[257, "(32, 256)", "·th", 40], [256, "(116, 104)", "th", 50]]


def test_merge_frequency_chart(trained):
    spec, rows = _rows(vt.merge_frequency_chart(vt.merge_table(trained)))
    assert spec["mark"]["type"] == "line" and spec["mark"]["point"]
    assert spec["encoding"]["x"]["field"] == "rank"
    assert spec["encoding"]["y"]["field"] == "count"
    assert spec["encoding"]["y"]["scale"]["type"] == "log"
    assert {t["field"] for t in spec["encoding"]["tooltip"]} >= {"token", "count", "rank"}
    assert len(rows) == 344
    assert rows[0]["token"] == vt.visible(trained.vocab[256])


def test_merge_frequency_chart_thins_long_runs(trained):
    spec, rows = _rows(vt.merge_frequency_chart(vt.merge_table(trained), max_points=50))
    assert 40 <= len(rows) <= 51
    assert rows[0]["rank"] == 1 and rows[-1]["rank"] == 344  # both ends kept
    assert "Every 7th merge" in spec["title"]["subtitle"]


def test_merge_frequency_chart_without_counts_is_empty(trained):
    _, rows = _rows(vt.merge_frequency_chart(vt.merge_table(load(text=trained.model_text()))))
    assert rows == []


# -------------------------------------------------------------- compression
def test_compression_frame_from_one_training(trained):
    held = SAMPLE[90_000:100_000]
    counts = token_counts_by_merge(trained, held)
    frame = vt.compression_frame(counts)
    assert len(frame) == 345
    assert frame["vocab_size"].tolist() == list(range(256, 601))
    assert frame["bytes_per_token"].iloc[0] == 1.0  # no merges: one token per byte
    n_bytes = len(held.encode())
    assert frame["bytes_per_token"].iloc[-1] == round(n_bytes / len(trained.encode(held)), 3)
    # each merge can only shorten the text, so compression never falls
    assert frame["bytes_per_token"].is_monotonic_increasing


def test_compression_chart(trained):
    frame = vt.compression_frame(token_counts_by_merge(trained, SAMPLE[90_000:92_000]))
    spec, rows = _rows(vt.compression_chart(frame))
    assert spec["encoding"]["x"]["field"] == "vocab_size"
    assert spec["encoding"]["y"]["field"] == "bytes_per_token"
    assert len(rows) == 345 and rows[-1]["vocab_size"] == 600


# ----------------------------------------------------------------- messages
def test_stop_messages():
    reached = RegexTokenizer().train(SAMPLE[:20_000], 300)
    assert vt.stop_message(reached, 300) == (False, "Reached the vocab size: 44 merges, "
                                                    "300 tokens.")
    early = BasicTokenizer().train("abcabcabd", 1000, min_frequency=2)
    is_early, message = vt.stop_message(early, 1000, 2)
    assert is_early and message.startswith("Stopped early at 2 merges of 744: no pair "
                                           "occurs twice or more.")
    out = BasicTokenizer().train("abcd", 1000)
    is_early, message = vt.stop_message(out, 1000)
    assert is_early and "no pairs left to merge" in message and "3 merges" in message
    tok = BasicTokenizer().train("abcabcabd", 1000, min_frequency=5)
    assert "occurs 5 times" in vt.stop_message(tok, 1000, 5)[1]


def test_durations():  # the ETA itself is lab.train.training.estimate_left's (test_training)
    assert vt.format_duration(59.6) == "1 min 0 s"
    assert vt.format_duration(-3) == "0 s"


def test_the_apps_training_stops_where_a_file_would_be_refused(monkeypatch):
    """lab.jobs.workers.train_bpe trains under bpe.budgets.MAX_VOCAB_BYTES, so what the app
    makes always loads back; the stop is explained, and the merges are a prefix of the
    unbudgeted run."""
    from lab.jobs.requests import BpeRequest
    from lab.jobs.workers import train_bpe
    from bpe.loading import load_bytes
    import bpe.budgets

    class Quiet:
        def __call__(self, step): pass
        def phase(self, name): pass

    text = "the cat sat on the mat; " * 200
    full = BasicTokenizer().train(text, 400)
    monkeypatch.setattr(bpe.budgets, "MAX_VOCAB_BYTES", 4000)
    tok = train_bpe(Quiet(), request=BpeRequest("basic", None, 400), text=text).tok
    assert tok.stop_reason == "vocab_bytes" and 0 < len(tok.merges) < len(full.merges)
    assert sum(map(len, tok.vocab.values())) <= 4000
    assert list(tok.merges) == list(full.merges)[:len(tok.merges)]
    early, message = vt.stop_message(tok, 400)
    assert early and "minimum frequency of 2" in message
    model = "\n".join(["minbpe v1", "", "0"] + [f"{a} {b}" for a, b in tok.merges]) + "\n"
    assert load_bytes(model.encode(), "x.model").merges == tok.merges
