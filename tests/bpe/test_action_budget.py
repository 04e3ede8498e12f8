"""One budget per visitor action (issue 24): every limited match inside
bpe.patterns.safety.action shares it, so a pattern slow on each of many pieces stops the
whole action once, instead of costing the per-call limit again on every piece."""
import pytest

from bpe import RegexTokenizer
from bpe.patterns import safety

RUNAWAY = r"(a|a)+$|."
PIECE = "a" * 40 + "b"


def test_outside_an_action_each_call_has_its_own_limit():
    with pytest.raises(ValueError, match="more than 0.2 s"):
        safety.findall_within(safety.compile_checked(RUNAWAY), PIECE, 0.2, pattern=RUNAWAY)


def test_inside_an_action_the_call_gets_at_most_what_is_left():
    with safety.action(0.3):
        with pytest.raises(ValueError, match="more than 0.3 s"):
            safety.findall_within(safety.compile_checked(RUNAWAY), PIECE, 30, pattern=RUNAWAY)


def test_a_nested_action_cannot_outlast_its_parent():
    with safety.action(0.3):
        with safety.action(30):
            with pytest.raises(ValueError, match="more than 0.3 s"):
                safety.findall_within(safety.compile_checked(RUNAWAY), PIECE, 30, pattern=RUNAWAY)


def test_encoding_many_pieces_stops_once_for_the_whole_action():
    """A tokenizer whose pattern runs away on every piece between special tokens: the
    action's budget, not pieces x the per-call limit, bounds the encode."""
    tok = RegexTokenizer(RUNAWAY).with_special_tokens({"<|s|>": 300})
    text = "<|s|>".join([PIECE] * 50)
    with safety.action(0.5):
        with pytest.raises(ValueError, match="more than 0.5 s"):
            tok.encode(text, allowed_special="all")


def test_sub_within_is_limited_too():
    with pytest.raises(ValueError, match="more than 0.2 s"):
        safety.sub_within(safety.compile_checked(r"(a|a)+$"), "", PIECE, 0.2)
