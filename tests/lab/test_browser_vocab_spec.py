"""lab.token_view.browser_vocab.browser_spec: which tokenizers the browser encodes itself, and the
sentence a page shows when it does not (each such sentence checked to be true here).

The regression this guards: the spec of a trained tokenizer came from a guarded import of
a module that had moved, so every trained tokenizer silently fell back to the server."""
import pytest

from bpe import BasicTokenizer, RanksTokenizer, RegexTokenizer
from bpe.formats.ranks import check_rank_consistent
from lab.token_view import browser_vocab

CORPUS = "the year 2026 had 365 days, and the days had 24 hours. Tokens! " * 40


@pytest.mark.parametrize("pattern", ["gpt2", "gpt4", "gpt4o"])
def test_a_trained_regex_tokenizer_gets_browser_files(pattern, tmp_path, monkeypatch):
    monkeypatch.setattr(browser_vocab, "VOCAB_DIR", tmp_path)
    tok = RegexTokenizer(pattern).train(CORPUS, 256 + 30)
    spec = browser_vocab.browser_spec(tok)
    assert "why" not in spec, spec
    assert (tmp_path / spec["ranks"]).is_file() and (tmp_path / spec["split"]).is_file()


def test_a_custom_pattern_says_why_and_it_is_true():
    tok = RegexTokenizer(r"\w+|\W").train(CORPUS, 256 + 10)
    assert browser_vocab.js_pattern(tok.pattern) is None  # the reason given is the real one
    assert "JavaScript" in browser_vocab.browser_spec(tok)["why"]


def test_basic_tokenizer_says_why_and_it_is_true():
    tok = BasicTokenizer().train(CORPUS, 256 + 10)
    assert not hasattr(tok, "compiled_pattern")
    assert "server only" in browser_vocab.browser_spec(tok)["why"]


def test_a_vocabulary_tiktoken_cannot_rank_says_so_with_the_token(monkeypatch, tmp_path):
    """The one case where the vocabulary 'cannot be sent': tiktoken's rule would give other
    ids. The sentence names the token, and it is true (check_rank_consistent refuses)."""
    monkeypatch.setattr(browser_vocab, "VOCAB_DIR", tmp_path)
    tok = RegexTokenizer("gpt4").train(CORPUS, 256 + 20)
    # a merge whose token another pair also spells: (a, bc) after (ab, c) makes "abc" twice
    a, b, c = b"q"[0], b"x"[0], b"z"[0]
    n = max(tok.vocab) + 1
    # (merges are read-only, packed: issue 32; a new dict is assigned, minbpe's way)
    tok.merges = {**tok.merges, (a, b): n, (n, c): n + 1, (b, c): n + 2, (a, n + 2): n + 3}
    tok.vocab = tok._build_vocab()
    with pytest.raises(ValueError) as refused:
        check_rank_consistent(tok)
    why = browser_vocab.browser_spec(tok)["why"]
    assert "cannot be sent to the browser" in why and str(refused.value)[:40] in why


def test_the_vocab_folder_is_an_lru_under_its_byte_limit(tmp_path, monkeypatch):
    """Uploads cannot fill the disk: past VOCAB_BYTES the least recently used files go, a
    spec in use is touched (kept), and a spec whose files went is built again."""
    monkeypatch.setattr(browser_vocab, "VOCAB_DIR", tmp_path)
    toks = [RegexTokenizer("gpt4").train(CORPUS, 256 + k) for k in range(5, 40, 5)]
    first = browser_vocab.browser_spec(toks[0])
    split, ranks = ((tmp_path / first[k]).stat().st_size for k in ("split", "ranks"))
    limit = split + 3 * ranks  # the one split file they share and about three ranks files
    monkeypatch.setattr(browser_vocab, "VOCAB_BYTES", limit)
    for tok in toks[1:]:
        browser_vocab.browser_spec(tok)
        browser_vocab.browser_spec(toks[0])  # in use: touched on every page run
    left = sum(p.stat().st_size for p in tmp_path.glob("*.gz"))
    assert left <= limit + 2 * ranks  # the limit, give or take the file just written
    assert len(list(tmp_path.glob("*.ranks.gz"))) < len(toks)
    assert (tmp_path / first["ranks"]).exists()  # the one in use stayed
    gone = browser_vocab.browser_spec(toks[1])  # pruned long ago: built again
    assert (tmp_path / gone["ranks"]).exists() and (tmp_path / gone["split"]).exists()


def test_a_token_too_long_for_the_vocab_file_says_so(tmp_path, monkeypatch):
    """A ranks file with a token of 2^16 bytes (bench/hostile.py's doubling ranks) stopped
    the page on struct's "ushort format" error; the server now encodes, and says why."""
    monkeypatch.setattr(browser_vocab, "VOCAB_DIR", tmp_path)
    ranks = {bytes([i]): i for i in range(256)}
    ranks.update({b"a" * 2 ** j: 255 + j for j in range(1, 17)})
    spec = browser_vocab.browser_spec(RanksTokenizer(ranks, name="doubling"))
    assert "65,536 bytes" in spec["why"] and "server encodes" in spec["why"]
    del ranks[b"a" * 2 ** 16]  # the longest now 32,768 bytes: within the file's limit, sent
    assert "why" not in browser_vocab.browser_spec(RanksTokenizer(ranks, name="doubling"))
