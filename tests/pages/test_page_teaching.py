"""The Tie rules, Extend a vocabulary and How much data pages in AppTest, inside app.py
(tests/conftest.py's open_page), so app.py collects their trainings as in the app."""
from helpers.apptest import pick
from helpers.apptest import finish as finish_any
from lab.jobs.workers import train_rules
from viz import ties as vties


def finish(at, slot, timeout=180):
    return finish_any(at, slot, timeout, ok=True)


def test_tie_rules_page(taylorswift, open_page):
    at = open_page("pages/ties.py")
    assert at.info
    pick(at, "ties_corpus", "taylorswift")
    at.number_input(key="ties_vocab_size").set_value(512)
    at.button[0].click().run()  # the form's submit button
    finish(at, "ties_rules")
    metrics = [m.value for m in at.metric]
    assert len(metrics) == 3 and metrics[0].endswith("/256")
    table = at.dataframe[0].value
    assert len(table) == 3
    results = train_rules(taylorswift, 512)
    part = vties.parting(results, "first", "smallest_ids")
    assert any(f"merge {part['merge']}" in m.value for m in at.markdown)
    at.selectbox(key="ties_rule_shown").select("greatest_bytes").run()
    assert not at.exception
    assert len(at.dataframe[-1].value) == len(vties.tied_merges_rows(results["greatest_bytes"]))


def test_extend_page_gpt4(open_page):
    at = open_page("pages/extend.py")
    pick(at, "extend_domain", "Python standard library")
    pick(at, "extend_general", "Shakespeare")
    at.number_input(key="extend_k").set_value(200)
    at.button[0].click().run()
    finish(at, "extend")
    assert "200 new tokens, ids 100,277 to 100,476" in at.success[0].value
    assert len(at.dataframe[0].value) == 200
    names = at.session_state["lab_tokenizers"]
    assert len(names) == 1 and next(iter(names)).startswith("GPT-4 (cl100k_base) + 200")
    assert any(".model" in b.label for b in at.button if b.disabled)  # GPT-4's ids: no .model


def test_data_size_page(open_page):
    at = open_page("pages/data_size.py")
    pick(at, "data_size_corpus", "taylorswift")
    at.number_input(key="data_size_vocab").set_value(300)
    at.button[0].click().run()
    finish(at, "data_size_sufficiency")
    rows = at.dataframe[0].value
    assert list(rows["fraction"]) == [0.01, 0.05, 0.25, 1.0]
    at.multiselect(key="data_size_sizes").set_value([300, 512])
    at.multiselect(key="data_size_patterns").set_value(["gpt4"])
    at.text_input(key="data_size_custom").set_value(r"\w+|\s+|.")
    at.button[1].click().run()
    finish(at, "data_size_sweep")
    sweep_rows = at.dataframe[1].value
    assert set(sweep_rows["pattern"]) == {"GPT-4 (cl100k_base)", "custom"} and len(sweep_rows) == 4


def test_data_size_page_bad_custom_pattern(open_page):
    at = open_page("pages/data_size.py")
    pick(at, "data_size_corpus", "taylorswift")
    at.multiselect(key="data_size_sizes").set_value([300])
    at.text_input(key="data_size_custom").set_value("(unclosed")
    at.button[1].click().run()
    assert not at.exception and "invalid split pattern" in at.error[0].value
