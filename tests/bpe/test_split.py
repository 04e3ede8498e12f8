"""bpe/patterns/fast_split.py (and gpt4_split.py, its GPT-4 case): the real tokenizers' split
patterns run by the stdlib re on stand-ins give exactly regex's chunks, on every code point."""
import random

import pytest
import regex
from hypothesis import given, settings
from hypothesis import strategies as st

from bpe.patterns import (
    GPT2_SPLIT_PATTERN,
    GPT4_SPLIT_PATTERN,
    GPT4O_SPLIT_PATTERN,
    fast_split,
)
from bpe.patterns.gpt4_split import gpt4_split

findall = regex.compile(GPT4_SPLIT_PATTERN).findall
HARD = list(" \t\n\r\x0b\x0c\x1c\x1f\x85\xa0\u2028\u3000'sSdDmMtTlLvVeErRxX019٣½aé한ſK😉\u200d!.<|>")


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.sampled_from(HARD), max_size=80) |
       st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=80))
def test_same_chunks_as_regex(text):
    assert gpt4_split(text) == findall(text)


def test_mostly_ascii_text_with_rare_non_ascii_runs():
    # long texts with few non-ASCII runs take the run-by-run path
    rng = random.Random(7)
    words = ["the", " cat", "'s", " 123", "\n\n", "  ", "!!", " x", "'LL", "\t", "\r\n"]
    for _ in range(200):
        parts = [rng.choice(words) for _ in range(rng.randint(100, 300))]
        for _ in range(rng.randint(1, 3)):
            parts.insert(rng.randrange(len(parts) + 1),
                         "".join(rng.choice(HARD[12:]) for _ in range(rng.randint(1, 4))))
        text = "".join(parts)
        assert len(text) >> fast_split.RARE_SHIFT >= 1
        assert gpt4_split(text) == findall(text)


def test_ascii_text_is_split_without_mapping(shakespeare):
    assert shakespeare.isascii() and gpt4_split(shakespeare) == findall(shakespeare)


def test_the_stand_in_table_stays_bounded(monkeypatch):
    monkeypatch.setattr(fast_split, "STAND_INS_LIMIT", 300)
    # a table of its own: the shared one may hold these blocks already from an earlier test
    # in this process (it is filled a block at a time), and then nothing new is met
    fresh = type(gpt4_split.stand_ins)(gpt4_split.stand_ins.classes)
    monkeypatch.setattr(gpt4_split, "stand_ins", fresh)
    text = "".join(chr(cp) + " 's" for cp in range(0x4E00, 0x4E00 + 1000))  # CJK letters
    assert gpt4_split(text) == findall(text)
    assert 128 < len(fresh) <= 300 + 2  # blocks were met, and the table was cleared for them
    assert fresh[ord(" ")] == ord(" ")  # ASCII survives a clear


# ------------------------------------------------------------------ every fast split
FAST = {"gpt2": GPT2_SPLIT_PATTERN, "gpt4": GPT4_SPLIT_PATTERN, "gpt4o": GPT4O_SPLIT_PATTERN,
        "llama3": fast_split.LLAMA3_SPLIT_PATTERN, "tekken": fast_split.TEKKEN_SPLIT_PATTERN}
MORE_HARD = HARD + list("/\u0301\u0300\u00aaǅʰÉÅﬅ\u212a\u2126")


@pytest.mark.parametrize("name", FAST)
@settings(max_examples=300, deadline=None)
@given(text=st.text(alphabet=st.sampled_from(MORE_HARD), max_size=60) |
       st.text(alphabet=st.characters(max_codepoint=127), max_size=60) |
       st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=60))
def test_every_fast_split_equals_regex(name, text):
    assert fast_split.for_pattern(FAST[name])(text) == regex.findall(FAST[name], text)


@pytest.mark.parametrize("name", FAST)
def test_every_ascii_character_in_every_context(name):
    split, pattern = fast_split.for_pattern(FAST[name]), regex.compile(FAST[name])
    context = list("aZ0 \t\r\n'sS/!") + ["", "ll", "\r\n", "  ", "123"]
    for cp in range(128):
        for before in context:
            for after in context:
                text = f"{before}{chr(cp)}{after}{chr(cp)}"
                assert split(text) == pattern.findall(text), text
                assert split(text + "é") == pattern.findall(text + "é"), text


@pytest.mark.parametrize("classes", ["GPT2_CLASSES", "GPT4_CLASSES", "GPT4O_CLASSES"])
def test_every_code_point_has_a_stand_in_with_its_answers(classes):
    """The proof for non-ASCII text: each character's stand-in answers every question the
    pattern asks (class memberships, case-insensitive letters) as the character does, so
    the pattern cannot tell them apart. Asked of regex itself, a class at a time."""
    table = getattr(fast_split, classes)
    every = "".join(chr(cp) for cp in range(128, 0x110000) if not 0xD800 <= cp < 0xE000)
    answers = [0] * len(every)  # bit k: the k-th question's answer, for each character
    for k, test in enumerate(table.tests):
        for m in regex.finditer(test.__self__.pattern, every):
            answers[m.start()] |= 1 << k
    seen = {}
    for i, bits in enumerate(answers):
        if bits not in seen:
            seen[bits] = table.stand_in(every[i])
            assert seen[bits] is not None, hex(ord(every[i]))
            want = tuple(bool(bits >> k & 1) for k in range(len(table.tests)))
            assert table.answers(seen[bits]) == want == table.answers(every[i])
    assert len(seen) >= 4  # GPT-2: letter, number, space, other; GPT-4o: more


def test_the_copied_patterns_are_the_owners():
    from bpe import reference
    assert fast_split.LLAMA3_SPLIT_PATTERN == reference.LLAMA3_SPLIT_PATTERN
    for name in ("llama3", "tekken", "o200k_base"):
        try:
            tok = reference.load_reference(name)
        except FileNotFoundError:
            continue  # its package is not installed: test_reference says so
        assert tok._findall is fast_split.for_pattern(tok.pattern), name


RUNAWAY = r"(a|a)+$"
RUNAWAY_TEXT = "a" * 40 + "!" + "a" * 40


def _runaway(action):
    import time
    start = time.monotonic()
    with pytest.raises(ValueError, match=r"split pattern '\(a\|a\)\+\$' took more than"):
        action()
    return time.monotonic() - start


def test_runaway_pattern_stops_in_train_and_encode():
    from bpe import RegexTokenizer
    _runaway(lambda: RegexTokenizer(RUNAWAY).train(RUNAWAY_TEXT, 300))
    _runaway(lambda: RegexTokenizer(RUNAWAY).encode_ordinary(RUNAWAY_TEXT))


def test_runaway_pattern_stops_on_another_thread():
    import threading

    from bpe import RegexTokenizer
    errors = []

    def work():
        try:
            RegexTokenizer(RUNAWAY).encode_ordinary(RUNAWAY_TEXT)
        except ValueError as e:
            errors.append(str(e))
    thread = threading.Thread(target=work)
    thread.start()
    thread.join(timeout=120)
    assert not thread.is_alive() and errors and "(a|a)+$" in errors[0]


def test_fast_splits_pickle_as_their_pattern():
    import pickle
    for pattern in FAST.values():
        split = fast_split.for_pattern(pattern)
        assert pickle.loads(pickle.dumps(split)) is split  # the same one, rebuilt by name
