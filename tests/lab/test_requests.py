"""lab/jobs/requests.py: one typed request per training, checked once as it is made, with
the app's limits in one place and the core's own check inside."""
import dataclasses

import pytest

from lab.jobs import requests as rq


def test_a_request_is_frozen_and_normalised():
    request = rq.BpeRequest("basic", "gpt4", 300, special_tokens=["<|a|>"])
    assert request.pattern is None  # Basic has no split
    assert request.special_tokens == ("<|a|>",)
    with pytest.raises(dataclasses.FrozenInstanceError):
        request.vocab_size = 400


@pytest.mark.parametrize("fields, message", [
    (dict(kind="bpe"), "kind must be one of"),
    (dict(pattern="(unclosed"), "invalid split pattern"),
    (dict(vocab_size=100_001), "from 256"),
    (dict(min_frequency=0), "min_frequency"),  # the core's own check
    (dict(tie_break="last"), "tie_break must be one of"),
    (dict(special_tokens=("<|a|>", "<|a|>")), "listed twice"),
])
def test_bpe_request_refuses_what_no_training_can_use(fields, message):
    with pytest.raises(ValueError, match=message):
        rq.BpeRequest(**{"kind": "regex", "pattern": "gpt4", "vocab_size": 300, **fields})


def test_the_corpus_checks_need_the_text():
    request = rq.BpeRequest("regex", r"(a|a)+$|.", 300)
    with pytest.raises(ValueError, match="backtracks catastrophically"):
        request.check_text("a" * 60_000 + "b")
    with pytest.raises(ValueError, match="corpus is empty"):
        rq.BpeRequest("regex", "gpt4", 300).check_text("")
    with pytest.raises(ValueError, match="Basic training tracks"):
        rq.BpeRequest("basic", None, 300).check_text("", n_bytes=rq.BASIC_MAX_BYTES + 1)


def test_the_teaching_pages_limits_are_the_requests():
    for request_type in (rq.TieRulesRequest, rq.SufficiencyRequest):
        request_type(rq.TEACHING_VOCAB_MIN)
        request_type(rq.TEACHING_VOCAB_MAX, pattern="")
        with pytest.raises(ValueError, match="from 257 to 20,000"):
            request_type(rq.TEACHING_VOCAB_MAX + 1)
    with pytest.raises(ValueError, match="at least one vocabulary size"):
        rq.SweepRequest((), (("GPT-4", "gpt4"),))
    sweep = rq.SweepRequest([512, 300], [("custom", r"(a|a)+$|.")])
    assert sweep.vocab_sizes == (300, 512)
    with pytest.raises(ValueError, match="backtracks catastrophically"):
        sweep.check_text("a" * 60_000 + "b")  # Data size's custom pattern gets the trial
    assert rq.SentencePieceRequest(256).vocab_size == rq.SENTENCEPIECE_MIN
    with pytest.raises(ValueError, match="at least 1"):
        rq.ExtendRequest(0)


def test_split_labels_come_from_bpe_patterns():
    from bpe.patterns import LABELS
    assert rq.BpeRequest("regex", "gpt4o", 300).split_label == LABELS["gpt4o"]
    assert rq.BpeRequest("regex", r"\w+|\s+|.", 300).split_label == "custom regex"
    assert rq.BpeRequest("basic", None, 300).split_label == "no split"
