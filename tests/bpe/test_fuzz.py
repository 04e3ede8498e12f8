"""A short run of the GPT-4 fuzzer (the long one is bench/fuzz_gpt4.py, in bench/RESULTS.md)."""
import random
import sys

from helpers.app import ROOT

sys.path.insert(0, str(ROOT / "bench"))
from fuzz_gpt4 import fuzz, random_text  # noqa: E402


def test_generator_covers_the_hard_cases():
    texts = [random_text(random.Random(i)) for i in range(300)]
    joined = "".join(texts)
    for needle in ["<|endoftext|>", "\u200d", "'ll", "\t", "안녕하세요"]:
        assert needle in joined
    assert any(0xD800 <= ord(c) <= 0xDFFF for c in joined)


def test_short_fuzz_run_finds_no_difference():
    assert fuzz(3000, seed=20261122, report=lambda s: None) == []
