"""Issue 16's repros end to end, through the public core and `python -m bpe`.

PHASE-2 TARGETS: the defences live in bpe/limits.py and bpe/files.py (tested in
test_hostile.py); these tests pass once they are wired into the core, the loaders and
the CLI. Until then every attempt that fails today is marked xfail(strict=True): it
must keep failing, and the day the wiring makes it pass, strict turns the XPASS into a
failure, so whoever wires it removes the name from PHASE2 below and the test guards it
from then on.

Each attempt runs in its own process (tests/hostile_cases.py) with a wall-clock limit
(8 s; a pattern's own limit is 2 s) and a 1 GB address-space cap, so today's bombs end
as a quick MemoryError or a killed hang instead of taking the machine.
"""
import pytest

from hostile_cases import CASES, run_case

# the attempts that fail on main today (bench/results/hostile.md, "before")
PHASE2 = {
    "pattern-bomb", "pattern-bomb-a", "pattern-slow-compile", "pattern-nested-repeat",
    "pattern-compile-module", "pattern-backtracking", "pattern-backtracking-thread",
    "pattern-backtracking-train", "pattern-capture-groups", "pattern-capture-core",
    "pattern-backreference", "pattern-huge",
    "model-pattern-bomb", "model-slow-pattern", "model-capture-groups", "model-chained",
    "model-duplicate-merge", "model-arabic-digits", "model-arabic-special",
    "model-special-collision", "model-special-huge", "special-collision",
    "ranks-huge", "ranks-negative",
    "hf-pre-tokenizer-list", "hf-split-string", "hf-added-tokens-int", "hf-nested",
    "hf-split-bomb", "hf-special-collision",
    "save-empty-prefix", "save-full-disk",
    "cli-stdin-closed", "cli-empty-output", "cli-pattern-bomb", "cli-slow-model",
    "cli-hf-pre-tokenizer", "cli-hf-nested", "cli-hf-added-tokens", "cli-full-disk",
}


def _param(case):
    marks = [pytest.mark.xfail(strict=True, reason="phase 2: wire bpe/limits.py and "
                                                   "bpe/files.py in")] \
        if case.name in PHASE2 else []
    return pytest.param(case, id=case.name, marks=marks)


@pytest.mark.parametrize("case", [_param(c) for c in CASES])
def test_attempt_ends_in_a_clear_message(case):
    outcome = run_case(case)
    if outcome.status == "skipped":
        pytest.skip(outcome.message)
    assert outcome.status == "passed", (
        f"{case.what}: {outcome.status} after {outcome.seconds:.1f} s, peak "
        f"{outcome.peak_mb:.0f} MB: {outcome.message}")
    assert outcome.seconds < case.seconds and outcome.peak_mb <= case.mb


def test_every_phase2_name_is_an_attempt():
    assert PHASE2 <= {c.name for c in CASES}
