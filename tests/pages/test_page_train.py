"""The Train page in AppTest: train through the form, see the table and both charts, the
tokenizer joins the session; bad corpora and settings get clear messages, not tracebacks.

AppTest cannot wait for the page's polling fragment, so a test waits on the job of the
Training it finds in session state (job.wait), then reruns the page, as the fragment's
timer would.
"""
import json
import re
from pathlib import Path

from bpe import PATTERNS, BasicTokenizer, RegexTokenizer, patterns
from helpers.apptest import (counts_file, finish, plain, train, training, upload,
                             upload_counts)
from lab.jobs import requests as rq
from lab.jobs.corpus_text import split_held_out

PAGE = "pages/train.py"  # helpers.apptest.TRAIN_PAGE
ROOT = Path(__file__).resolve().parents[2]
SAMPLE = (ROOT / "samples" / "shakespeare_100k.txt").read_text(encoding="utf-8")
CATASTROPHIC = r"(?:a|aa)+b|\s+|."  # findall on "aaaa..." never finishes


def metrics(at):
    return {m.label: m.value for m in at.metric}


def charts(at):
    return [json.loads(chart.proto.spec) for chart in at.get("vega_lite_chart")]


def test_train_the_shipped_sample(open_page):
    at = open_page(PAGE)
    assert not at.exception
    assert at.selectbox(key="train_sample").value.startswith("Shakespeare")
    assert metrics(at)["Characters"] == f"{len(SAMPLE):,}"
    at.number_input(key="train_vocab_size").set_value(400)
    at.text_area(key="train_specials").set_value("<|endoftext|>\n")
    at.text_input(key="train_name").set_value("bard")
    train(at)

    (success,) = at.success  # one box, not two
    assert plain(success).startswith("Reached the vocab size: 144 merges, 400 tokens.")
    assert "Added to this session as **bard**" in plain(success)
    # the tokenizer in the session is the one training the first 90% in-process gives
    tok = at.session_state["lab_tokenizers"]["bard"]
    train_text, held_out = split_held_out(SAMPLE)
    ref = RegexTokenizer("gpt4").train(train_text, 400, min_frequency=2)
    assert tok.merges == ref.merges and tok.merge_counts == ref.merge_counts
    assert tok.special_tokens == {"<|endoftext|>": 400}
    # the merge table
    (table,) = [df.value for df in at.dataframe]
    assert list(table.columns) == ["rank", "id", "pair", "from", "token", "count", "tie"]
    assert len(table) == 144 and table["id"].tolist() == list(range(256, 400))
    assert table["count"].tolist() == [ref.merge_counts[i] for i in range(256, 400)]
    # vocab size 400 <= 4,096: ties recorded by default, tied merges marked and counted
    tied = [idx for idx, pairs in tok.merge_ties.items() if len(pairs) > 1]
    assert tied and (table["tie"] != "").sum() == len(tied)
    assert any(c.value.startswith(f"{len(tied)} of the 144 merges won a tie") for c in at.caption)
    assert any(link.proto.page == "ties" for link in at.get("page_link"))
    # the two charts: merge frequency on a log scale, compression against vocab size
    frequency, compression = charts(at)
    assert frequency["encoding"]["y"]["field"] == "count"
    assert frequency["encoding"]["y"]["scale"]["type"] == "log"
    assert any(t["field"] == "token" for t in frequency["encoding"]["tooltip"])
    assert compression["encoding"]["x"]["field"] == "vocab_size"
    assert compression["encoding"]["y"]["field"] == "bytes_per_token"
    n_bytes = len(held_out.encode())
    assert metrics(at)["Bytes per token (held out)"] == \
        f"{n_bytes / len(ref.encode_ordinary(held_out)):.2f}"
    assert metrics(at)["Vocab size"] == "401"  # 400 + the special token
    # downloads in every format (tests/lab/test_train_downloads.py loads each back)
    labels = {b.label for b in at.download_button}
    assert labels == {"Download .model", "Download .vocab", "Download .tiktoken",
                      "Download tokenizer.json"}
    # other pages' pickers offer it
    assert list(at.session_state["lab_tokenizers"]) == ["bard"]


def test_tie_rule_and_recording_reach_the_trainer(open_page):
    at = open_page(PAGE)
    at.number_input(key="train_vocab_size").set_value(300)
    at.selectbox(key="train_tie_break").set_value("smallest_ids")
    at.selectbox(key="train_record_ties").set_value("off")
    at.text_input(key="train_name").set_value("rust rule")
    train(at)
    tok = at.session_state["lab_tokenizers"]["rust rule"]
    train_text, _ = split_held_out(SAMPLE)
    ref = RegexTokenizer("gpt4").train(train_text, 300, min_frequency=2,
                                       tie_break="smallest_ids")
    assert tok.merges == ref.merges and not tok.merge_ties
    assert (at.dataframe[0].value["tie"] == "").all()
    assert any("Ties were not recorded" in c.value for c in at.caption)
    # "auto" records ties only up to vocab size 4,096 (they double the training time)
    from lab.train.form import Form
    auto = Form(True, "Regex", "gpt4", "", 4096, 1, "", "", "first", "auto")
    assert auto.records_ties() and not auto._replace(vocab_size=4097).records_ties()
    assert auto._replace(vocab_size=50_000, record_ties="on").records_ties()


def test_train_on_a_counts_file_made_by_the_cli(open_page, tmp_path):
    at = upload_counts(open_page(PAGE), counts_file(tmp_path, SAMPLE, "--pattern", "gpt2"))
    assert any(PATTERNS["gpt2"][:20] in m.value for m in at.markdown)  # the file's pattern
    assert "train_kind" not in [r.key for r in at.radio]  # Regex only: no Kind choice
    at.number_input(key="train_vocab_size").set_value(350)
    train(at)
    tok = at.session_state["lab_tokenizers"]["bard counts 350"]
    ref = RegexTokenizer("gpt2").train(SAMPLE, 350, min_frequency=2)  # all of it: no held out
    assert tok.pattern == PATTERNS["gpt2"]
    assert tok.merges == ref.merges and tok.merge_counts == ref.merge_counts
    assert len(at.dataframe[0].value) == 94
    assert any("holds chunk counts, not text" in i.value for i in at.info)
    assert "Bytes per token (held out)" not in metrics(at)
    assert "train_sentencepiece" not in [b.key for b in at.button]  # it needs the text


def test_a_damaged_or_wrong_counts_file_gets_a_clear_message(open_page, tmp_path):
    name, data, mime = counts_file(tmp_path, SAMPLE[:20_000])
    at = upload_counts(open_page(PAGE), ("notes.counts", b"just some text\n", mime))
    assert any("notes.counts is not a counts file" in plain(e) and "python -m bpe count"
               in plain(e) for e in at.error)
    assert at.button(key="train_submit").disabled
    # a cut file passes the header check; the worker finds the body short and says so
    at = upload_counts(open_page(PAGE), (name, data[:-100], mime))
    train(at)
    assert any(plain(e).startswith("Training “bard counts 1024” failed: bard.counts is "
                                   "damaged") for e in at.error)
    assert "lab_tokenizers" not in at.session_state or not at.session_state["lab_tokenizers"]


HOSTILE = "**b** ![i](http://127.0.0.1:1/x)"


def markdown_bodies(at):
    """The Markdown text of every element that renders Markdown."""
    return [e.value for kind in ("markdown", "caption", "success", "error", "warning", "info")
            for e in at.get(kind)]


def test_a_hostile_name_and_file_name_render_literally(open_page):
    from lab.safe import md
    at = upload(open_page(PAGE), (f"{HOSTILE}.txt", ("the cat sat. " * 40).encode(),
                                  "text/plain"))
    at.number_input(key="train_vocab_size").set_value(270)
    at.text_input(key="train_name").set_value(HOSTILE)
    train(at)
    bodies = markdown_bodies(at)
    assert any(md(HOSTILE) in body for body in bodies)  # shown, backslash-escaped
    for body in bodies:  # no image, link or emphasis Markdown would act on
        assert not re.search(r"(?<!\\)!\[", body), body
        assert "**b**" not in body, body


def test_upload_two_files_and_train(open_page):
    at = upload(open_page(PAGE),
                ("one.txt", ("the cat sat on the mat. " * 40).encode(), "text/plain"),
                ("two.txt", ("the dog sat on the log. " * 40).encode(), "text/plain"))
    assert metrics(at)["Files"] == "2"
    assert metrics(at)["Characters"] == f"{2 * 24 * 40 + 1:,}"  # joined by a newline
    at.number_input(key="train_vocab_size").set_value(300)
    at.number_input(key="train_min_frequency").set_value(1)
    at.selectbox(key="train_pattern").set_value("gpt2")
    train(at)
    name = next(n for n in at.session_state["lab_tokenizers"] if n.startswith("2 files regex"))
    tok = at.session_state["lab_tokenizers"][name]
    assert tok.pattern == PATTERNS["gpt2"]
    assert 0 < len(tok.merges) <= 44
    assert name == f"2 files regex {tok.n_vocab}"  # it stopped early: the size it reached
    assert len(at.dataframe[0].value) == len(tok.merges)
    assert any(f"Added to this session as **{name}**" in plain(s)
               for s in [*at.success, *at.warning])


def test_latin1_upload_message_and_decoding_offer(open_page):
    at = upload(open_page(PAGE),
                ("good.txt", b"plain ascii text\n" * 20, "text/plain"),
                ("latin.txt", "caf\xe9 cr\xe8me br\xfbl\xe9e\n".encode("latin-1") * 20,
                 "text/plain"))
    (error,) = at.error
    assert "latin.txt is not UTF-8" in plain(error) and "0xe9" in plain(error)
    # the good file is not lost: it is the corpus, and training stays possible
    assert metrics(at)["Files"] == "1"
    assert metrics(at)["Characters"] == f"{17 * 20:,}"
    assert not at.button(key="train_submit").disabled
    # the offer: decode with replacement characters
    at.checkbox(key="train_replace").check()
    at.run()
    assert not at.exception and not at.error
    assert metrics(at)["Files"] == "2"
    assert "\ufffd" in at.session_state["train_corpus"][1].text


def test_binary_upload_alone_disables_training(open_page):
    png = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(256)) * 4
    at = upload(open_page(PAGE), ("photo.png", png, "image/png"))
    assert any("photo.png is not UTF-8" in plain(e) and "binary file" in plain(e)
               for e in at.error)
    assert any("corpus is empty" in plain(w) for w in at.warning)
    assert at.button(key="train_submit").disabled
    assert plain(at.checkbox(key="train_replace").label).startswith("Decode photo.png anyway")


def test_empty_file_and_no_file(open_page):
    at = upload(open_page(PAGE), ("empty.txt", b"", "text/plain"))
    assert any("empty.txt is empty" in plain(e) for e in at.error)
    assert at.button(key="train_submit").disabled
    at.file_uploader(key="train_uploads").clear()
    at.run()
    assert not at.exception
    assert any("Upload one or more text files" in plain(i) for i in at.info)
    assert at.button(key="train_submit").disabled


def test_small_corpus_stops_early_and_says_so(open_page):
    pangrams = b"The quick brown fox jumps over the lazy dog. Pack my box with five dozen jugs.\n"
    at = upload(open_page(PAGE), ("tiny.txt", pangrams, "text/plain"))
    at.number_input(key="train_vocab_size").set_value(5000)
    train(at)
    (warning,) = at.warning
    assert plain(warning).startswith("Stopped early at ")
    assert "of 4,744: no pair occurs twice or more" in plain(warning)
    # too small to hold out a slice: said, and no compression curve
    assert any("too small to hold out" in plain(c) for c in at.caption)
    assert any("compression was not measured" in plain(i) for i in at.info)
    assert len(charts(at)) == 1


def test_invalid_custom_regex_is_refused_before_training(open_page):
    at = open_page(PAGE)
    at.selectbox(key="train_pattern").set_value("custom")
    at.text_input(key="train_custom_pattern").set_value(r"(\p{L}+")
    at.button(key="train_submit").click()
    at.run()
    assert not at.exception
    (error,) = at.error
    assert plain(error).startswith("invalid split pattern")
    assert training(at) is None


def test_a_pattern_that_drops_text_fails_in_the_worker_with_a_message(open_page):
    at = open_page(PAGE)
    at.selectbox(key="train_pattern").set_value("custom")
    at.text_input(key="train_custom_pattern").set_value(r"\p{L}+")  # loses the spaces
    train(at)
    (error,) = at.error
    assert "failed: the split pattern skips" in plain(error)
    assert "Traceback" not in plain(error)
    assert list(at.session_state["lab_tokenizers"]) == []


def test_basic_refuses_a_corpus_too_big_for_it(open_page):
    big = b"the quick brown fox jumps over the lazy dog\n" * (rq.BASIC_MAX_BYTES // 44 + 1)
    at = upload(open_page(PAGE), ("big.txt", big, "text/plain"))
    at.radio(key="train_kind").set_value("Basic")
    at.button(key="train_submit").click()
    at.run()
    assert not at.exception
    assert "Use Regex" in plain(at.error[0])
    assert training(at) is None


def test_out_of_range_vocab_size_never_reaches_training(open_page):
    at = open_page(PAGE)
    at.number_input(key="train_vocab_size").set_value(10**7)
    at.button(key="train_submit").click()
    at.run()
    assert not at.exception
    t = training(at)
    assert t.settings.request.vocab_size <= rq.VOCAB_MAX  # Streamlit keeps the widget in its range
    t.cancel()


def test_catastrophic_pattern_is_refused_before_training(open_page):
    at = upload(open_page(PAGE), ("a.txt", b"a" * 60, "text/plain"))
    at.selectbox(key="train_pattern").set_value("custom")
    at.text_input(key="train_custom_pattern").set_value(CATASTROPHIC)
    at.button(key="train_submit").click()
    at.run()
    assert not at.exception
    assert training(at) is None
    assert any("backtracks catastrophically" in plain(e) for e in at.error)


def test_progress_view_and_cancel(open_page):
    # the trial split covers the first 200,000 characters; the runaway part comes after
    # (and before the held-out last tenth), so this job starts and hangs until cancelled
    corpus = (b"b " * (patterns.TRIAL_CHARS // 2 + 1) + b"a" * 60
              + b" c" * (patterns.TRIAL_CHARS // 10))  # no b after the a's
    at = upload(open_page(PAGE), ("a.txt", corpus, "text/plain"))
    at.selectbox(key="train_pattern").set_value("custom")
    at.text_input(key="train_custom_pattern").set_value(CATASTROPHIC)
    at.button(key="train_submit").click()
    at.run()
    assert not at.exception
    job = training(at).job
    assert not job.done
    assert at.button(key="train_submit").disabled  # one training at a time
    assert at.get("progress")[0].proto.text.startswith("Splitting the corpus")
    at.button(key="train_cancel").click()
    at.run()
    assert not at.exception
    assert job.done and job.cancelled and not job.alive()
    assert "was cancelled" in plain(at.info[0])
    assert not at.button(key="train_submit").disabled


def test_basic_through_the_form(open_page):
    at = open_page(PAGE)
    at.radio(key="train_kind").set_value("Basic")
    at.number_input(key="train_vocab_size").set_value(300)
    train(at)
    tok = at.session_state["lab_tokenizers"]["Shakespeare basic 300"]
    assert isinstance(tok, BasicTokenizer) and tok.pattern == ""
    train_text, _ = split_held_out(SAMPLE)
    assert tok.merges == BasicTokenizer().train(train_text, 300, min_frequency=2).merges


def test_sentencepiece_beside_it_on_the_same_corpus_then_compare(open_page):
    at = open_page(PAGE)
    at.number_input(key="train_vocab_size").set_value(400)
    at.text_input(key="train_name").set_value("bard")
    train(at)
    at.button(key="train_sentencepiece").click()
    at.run()
    finish(at, "train_sentencepiece")
    assert not at.exception and not at.error
    tokenizers = at.session_state["lab_tokenizers"]
    sp = tokenizers["bard · SentencePiece"]
    assert type(sp).__name__ == "SentencePieceBPE" and sp.n_vocab <= 400
    assert any("bard · SentencePiece" in plain(s) for s in at.success)
    sample = "Thou art more lovely and more temperate."
    assert sp.decode(sp.encode(sample)) == sample
    at.switch_page("pages/compare.py")
    at.run()
    at.selectbox(key="compare_a").set_value("bard").run()
    at.selectbox(key="compare_b").set_value("bard · SentencePiece").run()
    assert not at.exception
    labels = {m.label: m.value for m in at.metric}
    assert labels["Tokens B"] == f"{len(sp.encode(at.session_state['compare_text'])):,}"


def test_sentencepiece_needs_the_corpus_trained_on(open_page):
    at = open_page(PAGE)
    at.number_input(key="train_vocab_size").set_value(300)
    train(at)
    at.radio(key="train_source").set_value("Upload text files").run()  # corpus now empty
    at.button(key="train_sentencepiece").click()
    at.run()
    assert not at.exception
    assert "not the one this tokenizer was trained on" in plain(at.error[0])


def test_a_training_that_stops_early_is_named_by_the_size_it_reached(open_page):
    at = open_page(PAGE)
    at.number_input(key="train_vocab_size").set_value(100_000)
    at.number_input(key="train_min_frequency").set_value(200)
    train(at)
    names = list(at.session_state["lab_tokenizers"])
    tok = at.session_state["lab_tokenizers"][names[-1]]
    assert tok.n_vocab < 100_000 and names[-1] == f"Shakespeare regex {tok.n_vocab}"
