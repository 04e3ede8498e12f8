"""The Train page with a counts file as the corpus: the tie rule and Record ties apply,
and give the merges and ties of training on the text the file counts (lab/train/form.py,
lab/jobs/workers.py train_counts, bpe.counting.stream.train_from_part)."""
from bpe import RegexTokenizer
from helpers.apptest import TRAIN_PAGE as PAGE
from helpers.apptest import counts_file, train, upload_counts
from helpers.app import ROOT

SAMPLE = (ROOT / "samples" / "shakespeare_100k.txt").read_text(encoding="utf-8")


def test_a_counts_file_trains_with_the_chosen_tie_rule_and_records_ties(open_page, tmp_path):
    at = upload_counts(open_page(PAGE), counts_file(tmp_path, SAMPLE, "--pattern", "gpt2"))
    assert any("every tie rule gives the merges" in c.value for c in at.caption)
    at.selectbox(key="train_tie_break").set_value("smallest_ids")
    at.selectbox(key="train_record_ties").set_value("on")
    at.number_input(key="train_vocab_size").set_value(350)
    train(at)
    tok = at.session_state["lab_tokenizers"]["bard counts 350"]
    ref = RegexTokenizer("gpt2").train(SAMPLE, 350, min_frequency=2, tie_break="smallest_ids",
                                       record_ties=True)
    first = RegexTokenizer("gpt2").train(SAMPLE, 350, min_frequency=2)
    assert ref.merges != first.merges  # the rule matters on this corpus
    assert tok.merges == ref.merges and tok.merge_counts == ref.merge_counts
    assert tok.merge_ties == ref.merge_ties and tok.merge_ties
    assert (at.dataframe[0].value["tie"] != "").any()  # the merge table marks the ties


def test_a_counts_file_records_no_ties_when_told_not_to(open_page, tmp_path):
    at = upload_counts(open_page(PAGE), counts_file(tmp_path, SAMPLE[:30_000]))
    at.selectbox(key="train_tie_break").set_value("greatest_bytes")
    at.selectbox(key="train_record_ties").set_value("off")
    at.number_input(key="train_vocab_size").set_value(300)
    train(at)
    tok = at.session_state["lab_tokenizers"]["bard counts 300"]
    ref = RegexTokenizer().train(SAMPLE[:30_000], 300, min_frequency=2,
                                 tie_break="greatest_bytes")
    assert tok.merges == ref.merges and tok.merge_ties == {}
    assert (at.dataframe[0].value["tie"] == "").all()
