"""The defences of issue 16 on their own: bpe/budgets.py and bpe/patterns/safety.py and bpe/formats/atomic.py.

Bombs run in a subprocess with a memory cap and a timeout, so a regression fails
quickly instead of taking the machine; the attempts through the whole core and CLI are
in test_hostile_attempts.py.
"""
import errno
import json
import os
import subprocess
import sys
import threading

import pytest
import regex
from hypothesis import given, settings, strategies as st

from bpe import BasicTokenizer, RegexTokenizer, load
from bpe.formats.atomic import SaveError, check_prefix, read_stdin_bytes, write_files
from bpe.budgets import MAX_ID, VocabBudget, check_id, check_special_ids, expect, parse_id, parse_json
from bpe.patterns.safety import MATCH_SECONDS, MATCH_SECONDS_PER_MB, MAX_PATTERN_CHARS, PATTERN_BUDGET, check_pattern, compile_checked, findall_within, match_seconds, pattern_weight
from bpe.patterns import PATTERNS
from helpers.hostile_cases import ROOT, mount_full

BOMBS = [r"c{10000000}|[\s\S]", "a{10000000}", "a{1000000000}", "(?:(?:a{100}){100}){100}",
         "(?:a{40000})(?:a{40000})", "a{" + "9" * 5000 + "}", "x{1000}{1000}"]


# ------------------------------------------------------------------ patterns
@pytest.mark.parametrize("name", sorted(PATTERNS))
def test_presets_pass_unchanged(name):
    assert check_pattern(PATTERNS[name]) == PATTERNS[name]
    assert pattern_weight(PATTERNS[name]) < PATTERN_BUDGET // 100


@pytest.mark.parametrize("pattern", BOMBS)
def test_pattern_bombs_are_refused_before_compiling(pattern):
    with pytest.raises(ValueError, match="use \\+ or \\* instead of large counted repeats"):
        check_pattern(pattern)


def test_bombs_cost_neither_time_nor_memory_in_a_fresh_process():
    """The bomb that cost 2.5 GB and ~9 s: refused, and the process stays small."""
    # subtle: VmHWM, not ru_maxrss, which Linux carries over from the forking parent
    # (pytest's own 180 MB) across exec
    code = ("import time, json\nfrom bpe.patterns.safety import compile_checked\n"
            "def peak_mb():\n    for line in open('/proc/self/status'):\n"
            "        if line.startswith('VmHWM'):\n            return int(line.split()[1]) / 1024\n"
            f"t = time.monotonic()\nrefused = []\nfor p in {BOMBS!r}:\n"
            "    try:\n        compile_checked(p)\n    except ValueError:\n"
            "        refused.append(p)\n"
            "print(json.dumps([len(refused), time.monotonic() - t, "
            "peak_mb()]))")
    out = subprocess.run([sys.executable, "-c", code], env={**os.environ, "PYTHONPATH": str(ROOT)},
                         capture_output=True, text=True, timeout=30, check=True).stdout
    refused, seconds, peak_mb = json.loads(out)
    assert refused == len(BOMBS)
    assert seconds < 20 and peak_mb < 100, (seconds, peak_mb)  # before: > 60 s, 2.5 GB


def test_compile_pattern_stays_out_of_the_regex_cache():
    from regex import regex as module
    before = len(module._cache)
    for k in range(20):
        compile_checked(f"a{{{k + 1000}}}|.")
    assert len(module._cache) == before


@pytest.mark.parametrize("pattern, rewritten", [
    (r"(\w+)|(\W+)", r"(?:\w+)|(?:\W+)"),
    (r"(?P<a>x)(?<b>y)(?'c'z)", "(?:x)(?:y)(?:z)"),
    (r"(?<=a)b(?<!c)(?=d)(?!e)", r"(?<=a)b(?<!c)(?=d)(?!e)"),
    (r"[(]\((?i:ab)(?-i:c)", r"[(]\((?i:ab)(?-i:c)"),
    (r"[]()][^]()][[:alpha:](]", r"[]()][^]()][[:alpha:](]"),
    (r"\p{L}{3}(?#a (comment)(?>a+)", r"\p{L}{3}(?>a+)"),
    (r"(?|(a)|(b))", r"(?|(?:a)|(?:b))"),
])
def test_capture_groups_become_non_capturing(pattern, rewritten):
    assert check_pattern(pattern) == rewritten
    assert compile_checked(pattern).groups == 0


@pytest.mark.parametrize("pattern, why", [
    (r"(a)\1", "backreference"), (r"(?P<n>a)(?P=n)", "references to groups"),
    (r"(?R)", "recursion"), (r"(?1)", "recursion"), (r"(?(1)a|b)", "conditionals"),
    (r"(?:abc){e<=1}", "fuzzy"), (r"(?x)a b", "verbose"), (r"(?V1)[[a]--[b]]", "VERSION1"),
    ("a{", "literal brace"), ("(", "never closed"), (")", "closes no group"),
    ("[a", "never closed"), ("\\", "lone backslash"), ("(?", "ends inside"),
    ("(*SKIP)", "verbs"), ("a\x00", "NUL"), ("a" * (MAX_PATTERN_CHARS + 1), "characters long"),
    ("(?:" * 300 + "a" + ")" * 300, "nest more than"),
])
def test_unsupported_syntax_is_refused_with_a_reason(pattern, why):
    with pytest.raises(ValueError, match=why):
        compile_checked(pattern)


def test_the_message_names_the_pattern_and_what_to_do():
    with pytest.raises(ValueError) as e:
        check_pattern(r"c{10000000}|[\s\S]")
    assert "c{10000000}" in str(e.value) and "preset" in str(e.value)


def test_a_non_str_pattern_is_a_type_error():
    with pytest.raises(TypeError):
        check_pattern(5)


# the rewrite must not change what a pattern matches: a small grammar of patterns, each
# compared with the original's whole matches
_ATOM = st.sampled_from(["a", "b", r"\w", r"\s", "[ab]", "[^a]", ".", r"\p{L}", r"\d"])


def _pattern(children):
    return st.one_of(
        st.tuples(children, children).map("".join),
        st.tuples(children, children).map("|".join),
        children.map(lambda p: f"({p})"), children.map(lambda p: f"(?P<g>{p})"),
        children.map(lambda p: f"(?:{p})"), children.map(lambda p: f"(?={p})"),
        st.tuples(children, st.sampled_from(["*", "+", "?", "{1,3}", "{2}", "*?", "++"])
                  ).map("".join))


@settings(max_examples=200, deadline=None)
@given(st.recursive(_ATOM, _pattern, max_leaves=8), st.text("ab c1é\n", max_size=12))
def test_the_rewrite_matches_what_the_original_matches(pattern, text):
    try:
        original = regex.compile(pattern.replace("(?P<g>", "("), cache_pattern=False)
    except regex.error:
        return
    want = [m.group(0) for m in original.finditer(text)]
    assert compile_checked(pattern).findall(text) == want


def test_backtracking_is_stopped_on_any_thread():
    compiled = compile_checked(r"(?:a|a)+$|.")
    errors = []

    def run():
        try:
            findall_within(compiled, "a" * 40 + "b", 0.3)
        except ValueError as e:
            errors.append(str(e))
    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(20)
    assert not thread.is_alive() and errors and "took more than 0.3 s of CPU time" in errors[0]


def test_the_time_limit_grows_with_the_text_only_past_a_megabyte():
    assert match_seconds(0) == match_seconds(1_000_000) == MATCH_SECONDS
    assert match_seconds(101_000_000) == MATCH_SECONDS + 100 * MATCH_SECONDS_PER_MB


def test_findall_within_returns_the_matches():
    assert findall_within(compile_checked(r"\w+|\s+"), "hi you") == ["hi", " ", "you"]


# ------------------------------------------------------------------ ids and vocab
@pytest.mark.parametrize("text", ["٣", "٩٧", "²", "１", "+1", "-1", " 1", "1 ", "", "0x10",
                                  "1_000", "1.0"])
def test_ids_are_ascii_digits_only(text):
    assert text.strip() == "" or not text.isascii() or not text.isdigit()
    with pytest.raises(ValueError, match="ASCII digits"):
        parse_id(text, "x.model line 4")


def test_ids_are_bounded():
    assert parse_id(str(MAX_ID), "w") == MAX_ID
    for text in (str(MAX_ID + 1), "1" + "0" * 30, "9" * 5000):
        with pytest.raises(ValueError, match="larger than"):
            parse_id(text, "x.tiktoken line 300")


@pytest.mark.parametrize("value", [-1, MAX_ID + 1, 10 ** 30, True, 1.0, "5", None])
def test_json_ids_are_checked(value):
    with pytest.raises(ValueError, match="integer from 0"):
        check_id(value, "tokenizer.json")


def test_special_ids_may_not_collide():
    assert check_special_ids({"<a>": 300, "<b>": 301}, range(300)) == {"<a>": 300, "<b>": 301}
    with pytest.raises(ValueError, match="both have id 300"):
        check_special_ids({"<a>": 300, "<b>": 300})
    with pytest.raises(ValueError, match="is already an ordinary token"):
        check_special_ids({"<a>": 97}, range(256))
    with pytest.raises(ValueError, match="non-empty str"):
        check_special_ids({"": 300})
    with pytest.raises(ValueError, match="integer from 0"):
        check_special_ids({"<a>": -3})
    with pytest.raises(ValueError, match="at most"):
        check_special_ids({"<" * 5000: 300})
    with pytest.raises(ValueError, match="the limit is"):
        check_special_ids({f"<{i}>": 300 + i for i in range(10_001)})


def test_special_tokens_are_bounded_in_total_length():
    """1,000 special tokens of 4 KB (a 4 MB file) took 22 s and 1.1 GB to compile."""
    from bpe.budgets import MAX_SPECIAL_CHARS
    many = {f"<{i:04d}{'x' * 4000}>": 300 + i for i in range(MAX_SPECIAL_CHARS // 4000 + 1)}
    with pytest.raises(ValueError, match="characters in all; the limit is"):
        BasicTokenizer().register_special_tokens(many)


def test_the_model_parser_refuses_duplicates_and_undefined_ids():
    """(The parse checks what budgets.MergeTable checked, with its messages; that dict of
    every pair is gone: a repeat is found in the packed merges, issue 32.)"""
    from bpe.formats.model import parse_model
    with pytest.raises(ValueError, match="m line 5: merge .97, 97. already made id 256"):
        parse_model("minbpe v1\n\n0\n97 97\n97 97\n", "m")
    with pytest.raises(ValueError, match="m line 5: .* not defined before id 257"):
        parse_model("minbpe v1\n\n0\n97 97\n97 300\n", "m")
    # a repeat before another error is the error named, as when each line was checked in turn
    with pytest.raises(ValueError, match="m line 5: merge .97, 97. already made"):
        parse_model("minbpe v1\n\n0\n97 97\n97 97\n97 300\n", "m")
    assert parse_model("minbpe v1\n\n0\n97 97\n", "m")[2] == {(97, 97): 256}


def test_a_chained_model_is_refused_early_and_small():
    """token i = token i-1 + 'a' for 40k lines cost +1.5 GB; the lengths alone stop it,
    at the first line whose token takes the total past MAX_VOCAB_BYTES."""
    import tracemalloc
    from bpe.budgets import MAX_VOCAB_BYTES
    from bpe.formats.model import parse_model
    text = "minbpe v1\n\n0\n97 97\n" + "".join(f"{255 + i} 97\n" for i in range(1, 40_000))
    tracemalloc.start()
    with pytest.raises(ValueError, match="exceed 64 MB") as e:
        parse_model(text, "m")
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    # token 256 + i is i + 2 bytes long: find the first i past the budget by counting
    total, i = 256, 0
    while total + i + 2 <= MAX_VOCAB_BYTES:
        total += i + 2
        i += 1
    assert f"m line {4 + i}:" in str(e.value) and peak < 5_000_000


def test_the_vocab_budget_counts_total_bytes():
    budget = VocabBudget(max_total_bytes=1000)
    with pytest.raises(ValueError, match="exceed 1,000 bytes") as e:
        for idx in range(256, 300):
            budget.add(idx, 50, f"line {idx}")
    assert str(e.value).startswith("line 270:")  # ids 256-270: 256 + 15 * 50 = 1,006


def test_a_long_token_alone_is_no_reason_to_refuse_a_file():
    """Basic training makes tokens of tens of KB; what we save must load back."""
    from bpe import BasicTokenizer, load_bytes
    tok = BasicTokenizer().train("ab" * 20_000, 256 + 14)  # tokens double: 2, 4, ... 16 KB
    assert max(map(len, tok.vocab.values())) == 16_384
    data = "\n".join(["minbpe v1", "", "0"] + [f"{a} {b}" for a, b in tok.merges]) + "\n"
    assert load_bytes(data.encode(), "long.model").encode_ordinary("ab" * 20_000) == \
        tok.encode_ordinary("ab" * 20_000)


# ------------------------------------------------------------------ json
def test_deep_json_is_refused_without_recursion():
    for text in ("[" * 100_000, '{"a":' * 100_000, "[" * 65 + "]" * 65):
        with pytest.raises(ValueError, match="nests deeper"):
            parse_json(text, "t.json")
    assert parse_json('{"a": "[[[[" , "b": [[1]]}', "t.json") == {"a": "[[[[", "b": [[1]]}


def test_bad_json_names_the_file():
    with pytest.raises(ValueError, match="t.json is not valid JSON"):
        parse_json("{", "t.json")


@pytest.mark.parametrize("value, kind, word", [
    (5, list, "a list"), ([1], dict, "an object"), ("x", dict, "an object"),
    (True, int, "an integer"), (None, (list, dict), "a list or an object")])
def test_expect_names_the_shape(value, kind, word):
    with pytest.raises(ValueError, match=f"tokenizer.json: expected {word}"):
        expect(value, kind, "tokenizer.json")
    assert expect([], list, "w") == []


# ------------------------------------------------------------------ files
def _pair(tok, prefix):
    return {f"{prefix}.model": tok.model_text(), f"{prefix}.vocab": tok.vocab_text()}


OLD = BasicTokenizer().train("hello world " * 50, 260)
NEW = BasicTokenizer().train(" ".join(map(str, range(5000))), 600)


def test_write_files_writes_both_and_leaves_no_temporaries(tmp_path):
    write_files(_pair(OLD, tmp_path / "m"))
    assert load(tmp_path / "m.model").merges == OLD.merges
    assert sorted(os.listdir(tmp_path)) == ["m.model", "m.vocab"]


@pytest.mark.parametrize("prefix", ["", "models/", ".", "..", "a/..", "  ", "a\x00b"])
def test_a_prefix_that_names_no_file_is_refused(prefix):
    with pytest.raises(ValueError, match="names no file|NUL"):
        check_prefix(prefix)


@pytest.fixture
def full_disk(tmp_path, monkeypatch):
    """A folder on a full disk: a 64 KB tmpfs where one can be mounted (root), otherwise
    os.fsync raising ENOSPC for the new files: either way the old pair must survive."""
    folder = tmp_path / "full"
    try:
        mount_full(str(folder))
        mounted = True
    except (OSError, subprocess.CalledProcessError):
        folder.mkdir(exist_ok=True)
        mounted = False
    write_files(_pair(OLD, folder / "m"))
    if mounted:
        with open(folder / "filler", "wb", buffering=0) as f:
            try:
                while True:
                    f.write(b"x" * 512)
            except OSError:
                pass
    else:
        def no_space(fd):
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        monkeypatch.setattr(os, "fsync", no_space)
    yield folder
    if mounted:
        subprocess.run(["umount", "-l", str(folder)], check=False)


def test_a_full_disk_keeps_the_old_pair_and_names_the_file(full_disk):
    with pytest.raises(SaveError) as e:
        write_files(_pair(NEW, full_disk / "m"))
    assert str(e.value).startswith(f"cannot write {full_disk / 'm'}.") \
        and str(e.value).endswith("No space left on device")
    # the CLI prints f"{e.filename}: {e.strerror}" for any OSError: that names the file too
    assert e.value.errno == errno.ENOSPC and e.value.filename.startswith(str(full_disk / "m."))
    assert load(full_disk / "m.model").merges == OLD.merges
    assert (full_disk / "m.vocab").read_text() == OLD.vocab_text()
    assert not [n for n in os.listdir(full_disk) if n.endswith((".tmp", ".bak"))]


def test_a_failed_second_rename_puts_the_first_file_back(tmp_path, monkeypatch):
    write_files(_pair(OLD, tmp_path / "m"))
    real_replace = os.replace

    def replace(src, dst):
        if str(dst).endswith(".vocab") and ".tmp" in str(src):
            raise OSError(errno.EIO, "Input/output error")
        return real_replace(src, dst)
    monkeypatch.setattr(os, "replace", replace)
    with pytest.raises(SaveError, match=r"m\.vocab: Input/output error"):
        write_files(_pair(NEW, tmp_path / "m"))
    assert load(tmp_path / "m.model").merges == OLD.merges
    assert sorted(os.listdir(tmp_path)) == ["m.model", "m.vocab"]


def test_a_failed_first_save_leaves_neither_file(tmp_path, monkeypatch):
    real_replace = os.replace

    def replace(src, dst):
        if str(dst).endswith(".vocab"):
            raise OSError(errno.EIO, "Input/output error")
        return real_replace(src, dst)
    monkeypatch.setattr(os, "replace", replace)
    with pytest.raises(SaveError):
        write_files(_pair(NEW, tmp_path / "m"))
    assert os.listdir(tmp_path) == []


def test_an_unwritable_folder_is_named(tmp_path):
    (tmp_path / "file").write_text("x")
    with pytest.raises(SaveError, match=r"cannot write .*file/m\.model"):
        write_files(_pair(OLD, tmp_path / "file" / "m"))


def test_closed_stdin_is_a_clear_message(monkeypatch):
    monkeypatch.setattr(sys, "stdin", None)
    with pytest.raises(ValueError, match="standard input is closed"):
        read_stdin_bytes()
    code = ("from bpe.formats.atomic import read_stdin_bytes\ntry:\n    read_stdin_bytes()\n"
            "except ValueError as e:\n    print(e)")
    out = subprocess.run(f"{sys.executable} -c '{code}' <&-", shell=True, text=True,
                         capture_output=True, env={**os.environ, "PYTHONPATH": str(ROOT)},
                         timeout=30)
    assert out.stdout.startswith("standard input is closed"), out


# ------------------------------------------------------------------ tokenizer.json shapes
def _hf_docs():
    """Two valid tokenizer.json documents: our export (with a special token), and one
    with the normalizers and pre-tokenizers other files use (so an HFTokenizer)."""
    from bpe.formats.hf.tokenizer_json import hf_json
    ours = hf_json(RegexTokenizer().train("aaab hello 12 " * 20, 262)
                   .with_special_tokens({"<s>": 300}))
    theirs = json.loads(json.dumps(ours))
    theirs["normalizer"] = {"type": "Sequence", "normalizers": [
        {"type": "NFC"}, {"type": "Strip", "strip_left": True, "strip_right": False},
        {"type": "Replace", "pattern": {"String": "x"}, "content": "y"},
        {"type": "Prepend", "prepend": "_"}]}
    theirs["pre_tokenizer"]["pretokenizers"].insert(0, {"type": "Digits",
                                                        "individual_digits": True})
    theirs["model"]["unk_token"] = None
    return ours, theirs


HF_DOCS = _hf_docs()


def _paths(value, path=()):
    """Every path (a tuple of keys and indexes) into a JSON value, the value's own first;
    the vocab contributes a few entries, not all."""
    yield path
    if isinstance(value, dict):
        items = list(value.items())[:6] if path[-1:] == ("vocab",) else value.items()
        for key, child in items:
            yield from _paths(child, path + (key,))
    elif isinstance(value, list):
        for i, child in enumerate(value[:4]):
            yield from _paths(child, path + (i,))


_JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-3, 10**31) | st.floats(allow_nan=False)
    | st.text(max_size=6),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner,
                                                                 max_size=3),
    max_leaves=6)


@st.composite
def _mutated_hf_doc(draw):
    doc = json.loads(json.dumps(draw(st.sampled_from(HF_DOCS))))
    for _ in range(draw(st.integers(1, 3))):
        path = draw(st.sampled_from(list(_paths(doc))[1:]))
        parent = doc
        for key in path[:-1]:
            parent = parent[key]
        if draw(st.booleans()) and isinstance(parent, dict):
            del parent[path[-1]]
        else:
            parent[path[-1]] = draw(_JSON)
    return doc


@settings(max_examples=300, deadline=None)
@given(_mutated_hf_doc())
def test_any_tokenizer_json_shape_is_a_value_error_naming_the_file(doc):
    """A tokenizer.json with any part replaced by any JSON value (or removed) loads, or
    raises ValueError naming the file and the part, found by the loader's own checks
    (not the last-resort net that turns a stray TypeError into a message); a loaded one
    encodes, or refuses the text with a ValueError."""
    from bpe import load_bytes
    try:
        tok = load_bytes(json.dumps(doc).encode(), "fuzz.json")
    except ValueError as e:
        assert str(e).startswith("fuzz.json"), e
        assert "this lab can read (" not in str(e), e
        return
    try:
        ids = tok.encode_ordinary("aaab hello x 12 <s>")
    except ValueError:
        return
    assert all(isinstance(i, int) for i in ids)
