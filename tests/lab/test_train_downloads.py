"""The Train result's downloads: the tiktoken check runs once per tokenizer, never past
its budget, and the files are made only when asked for."""
import json

import pytest

from bpe import BasicTokenizer, load
from bpe.formats import ranks
from lab.train import panels


@pytest.fixture
def tok():
    return BasicTokenizer().train("hello hello world, hello there " * 20, 300)


def test_the_check_runs_once_per_tokenizer_and_files_are_made_on_click(tok, monkeypatch,
                                                                       tmp_path):
    calls = []
    check = ranks.check_rank_consistent
    monkeypatch.setattr(ranks, "check_rank_consistent", lambda t: calls.append(t) or check(t))
    for _ in range(3):  # three reruns of the result page
        files, problems = panels.downloads(tok, "mine")
    assert len(calls) == 1 and problems == []
    assert [f[0] for f in files] == [".model", ".vocab", ".tiktoken", "tokenizer.json"]
    assert all(callable(make) for _, make, _, _ in files)
    made = {label: make() for label, make, _, _ in files}
    json.loads(made["tokenizer.json"])
    path = tmp_path / "mine.model"
    path.write_text(made[".model"])
    text = "hello world, there"
    assert load(str(path)).encode(text) == tok.encode(text)


def test_past_the_budget_the_check_is_not_run_and_the_message_says_why(tok, monkeypatch):
    monkeypatch.setattr(panels, "EXPORT_CHECK_BYTES", 100)
    # the checks are kept per content and name (lab/derived.py): the other test's equal
    # tokenizer may still be in memory, so this one gets a name of its own
    tok.name = "over budget"
    monkeypatch.setattr(ranks, "check_rank_consistent",
                        lambda t: pytest.fail("the check ran past its budget"))
    files, problems = panels.downloads(tok, "big")
    assert [f[0] for f in files] == [".model", ".vocab"]
    assert len(problems) == 1 and "MB" in problems[0] and "bpe export" in problems[0]
