"""The Vocabulary health page in AppTest: GPT-4 with a corpus, and a trained tokenizer."""
from bpe import RegexTokenizer


def test_gpt4_with_a_corpus(open_page):
    at = open_page("pages/health.py")
    assert at.info  # nothing checked yet
    corpus = next(o for o in at.selectbox(key="health_corpus").options if "Shakespeare" in o)
    at.selectbox(key="health_corpus").select(corpus).run()
    at.button(key="health_run").click().run()
    assert not at.exception
    labels = [e.label for e in at.expander]
    assert any("can never be produced" in label for label in labels)
    assert any("never occur in the corpus" in label for label in labels)
    summary = at.dataframe[0].value
    assert int(summary.loc[summary["finding"].str.contains("never be produced"), "tokens"].iloc[0]) == 13


def test_trained_tokenizer_low_counts(taylorswift, open_page):
    tok = RegexTokenizer().train(taylorswift[:5000], 256 + 300)
    at = open_page("pages/health.py")
    at.session_state["lab_tokenizers"] = {"mine": tok}
    at.run()
    at.selectbox(key="health_tokenizer").select("mine").run()
    at.number_input(key="health_low").set_value(5).run()
    at.button(key="health_run").click().run()
    assert not at.exception
    low = sum(1 for count in tok.merge_counts.values() if count < 5)
    assert low and any(f"{low} merges occurred fewer than 5" in e.label for e in at.expander)
    assert any("min\\_frequency\\=5" in i.value for i in at.info)
