"""The methods in the lab's training machinery: MethodRequest and MethodsRequest check
themselves with sentences, their worker functions train what bpe.methods trains, the
side-by-side run reports one bar over every method, and a method's job runs under the
same budgets as a BPE training (cancel, the memory cap)."""
import pytest

from bpe import methods
from helpers.app import until
from helpers.training import Silent
from lab import jobs
from lab.train import training
from lab.jobs import workers
from lab.jobs.requests import METHOD_MAX_BYTES, MethodRequest, MethodsRequest, method_texts


def test_requests_refuse_what_no_method_takes_with_a_sentence():
    with pytest.raises(ValueError, match="unknown method 'sentencepiece'; choose one of"):
        MethodRequest("sentencepiece", 512)
    with pytest.raises(ValueError, match=r"tau must be a number in \(0, 1\]"):
        MethodRequest("picky", 512, {"tau": 1.5})
    with pytest.raises(ValueError, match=r"transition must be an int from 256 to vocab_size \(512\)"):
        MethodRequest("superbpe", 512, {"transition": 600})
    with pytest.raises(TypeError, match="bpe takes no option tau"):
        MethodRequest("bpe", 512, {"tau": 0.5})
    with pytest.raises(ValueError, match="the vocab size must be a whole number"):
        MethodRequest("bpe", 100_001)
    with pytest.raises(ValueError, match="progress is the worker's"):
        MethodRequest("bpe", 512, {"progress": print})
    with pytest.raises(ValueError, match="pick two or more different methods"):
        MethodsRequest(("bpe", "bpe"), 512)
    with pytest.raises(ValueError, match="options given for picky"):
        MethodsRequest(("bpe", "hf-bpe"), 512, {"picky": {"tau": 0.5}})
    asked = MethodRequest("picky", 512, {"tau": 0.5, "min_frequency": 2})
    assert asked.options == (("min_frequency", 2), ("tau", 0.5)) and asked.min_frequency == 2
    with pytest.raises(ValueError, match="The corpus is empty"):
        asked.check_languages({"x": ""})
    with pytest.raises(ValueError, match="trains in pure Python here"):
        asked.check_languages({"x": "a" * (METHOD_MAX_BYTES + 1)})


def test_parity_is_given_the_arena_beside_one_corpus():
    assert method_texts("parity", {"mine": "x"}, {"en": "y"}) == {"mine": "x", "en": "y"}
    assert method_texts("parity", {"a": "x", "b": "y"}, {"en": "z"}) == {"a": "x", "b": "y"}
    assert method_texts("superbpe", {"mine": "x"}, {"en": "y"}) == ["x"]


def test_train_method_gives_what_bpe_methods_gives(taylorswift):
    text, held = taylorswift[:30_000], taylorswift[-5_000:]
    asked = MethodRequest("superbpe", 400, {"transition": 320})
    got = workers.train_method(Silent(), request=asked, languages={"t": text}, held_out=held)
    ref = methods.train("superbpe", [text], 400, transition=320)
    assert got.tok.merges == ref.merges
    assert got.held_out_bytes_per_token == len(held.encode()) / len(ref.encode_ordinary(held))


def test_side_by_side_reports_one_bar_over_every_method(taylorswift):
    seen = []

    class Progress(Silent):
        def __call__(self, p):
            seen.append(p)
    asked = MethodsRequest(("bpe", "hf-bpe"), 320)
    value = workers.train_methods(Progress(), request=asked, languages={"t": taylorswift[:20_000]},
                                  held_out=taylorswift[-3_000:], arena={"a": "hello", "b": "мир"})
    assert list(value.toks) == ["bpe", "hf-bpe"] and len(value.card) == 2
    assert value.toks["bpe"].merges == methods.train("bpe", [taylorswift[:20_000]], 320).merges
    done = [p.done for p in seen if p.total]
    assert done == sorted(done) and done[-1] == 2 * 64 and {p.total for p in seen if p.total} == {128}
    assert any("now hf-bpe (2 of 2)" in p.label for p in seen)
    assert training.kind_of(asked).tokenizers(value) == list(value.toks.values())


def test_a_method_job_can_be_cancelled_and_is_capped_in_memory(shakespeare):
    asked = MethodRequest("boundless", 4096)  # minutes of pure Python on 1 MB
    job = jobs.start(workers.train_method, dict(request=asked, languages={"s": shakespeare}))
    assert until(lambda: (job.poll(), job.progress is not None)[1], 120)
    job.cancel()
    assert job.wait(30) and job.cancelled
    # subtle: hf-bpe keeps only word counts (3 MB trains in well under 100 MB), so the
    # corpus is made big enough that its own copies in the worker pass the cap
    capped = jobs.start(workers.train_method, dict(request=MethodRequest("hf-bpe", 4096),
                                                   languages={"s": shakespeare * 40}),
                        memory=100 * 2**20)
    assert capped.wait(120)
    assert "memory cap for one training (100 MB)" in capped.error
