"""Stanford CS336's shape of training: train(text, vocab_size, special_tokens=[...]) cuts
the text at the special tokens, learns no merge across a cut, gives each special token an
id after the merges and counts it in vocab_size; the same with every tie rule, equal to
the textbook loop on the documents (tests/bpe/test_train_documents.py has that loop)."""
import pytest

from bpe import BasicTokenizer, RegexTokenizer
from bpe.patterns import PATTERNS
from bpe.tie_break import TIE_BREAKS
from tests.bpe.test_train_documents import textbook_documents

EOT = "<|endoftext|>"


@pytest.fixture(scope="module")
def stories(taylorswift):
    """Short documents with the end-of-text token between them, as TinyStories is."""
    paragraphs = [p for p in taylorswift[:20_000].split("\n\n") if p.strip()]
    return EOT.join(paragraphs), paragraphs


@pytest.mark.parametrize("rule", TIE_BREAKS)
def test_special_tokens_cut_documents_and_count_in_vocab_size(stories, rule):
    text, documents = stories
    tok = RegexTokenizer("gpt2").train(text, 400, special_tokens=[EOT], tie_break=rule)
    assert tok.merges == textbook_documents(documents, 399, PATTERNS["gpt2"], rule)
    assert len(tok.merges) == 400 - 256 - 1
    assert tok.special_tokens == {EOT: 399}
    assert tok.n_vocab == len(tok.vocab) == 400  # vocab_size counts the special token
    assert not any(EOT.encode() in token for idx, token in tok.vocab.items() if idx != 399)
    # the special token is one id when allowed, and its text is never trained on
    assert tok.encode(f"a{EOT}b", allowed_special="all") == [97, 399, 98]


def test_without_special_tokens_the_text_is_one_document(stories):
    text, documents = stories
    plain = RegexTokenizer("gpt2").train(text, 400)
    assert plain.merges != textbook_documents(documents, 400, PATTERNS["gpt2"])
    assert plain.merges == textbook_documents([text], 400, PATTERNS["gpt2"])


def test_basic_cuts_too_and_several_special_tokens_take_ids_in_order():
    tok = BasicTokenizer().train("xyxy<a>xyxy<bb>xy", 260, special_tokens=["<a>", "<bb>"])
    assert tok.merges == textbook_documents(["xyxy", "xyxy", "xy"], 258)
    assert tok.special_tokens == {"<a>": 258, "<bb>": 259}


def test_special_tokens_follow_the_last_merge_when_pairs_run_out():
    tok = RegexTokenizer().train("ab<|e|>ab", 300, special_tokens=["<|e|>"])
    assert tok.stop_reason == "no_pairs"
    assert tok.merges == {(97, 98): 256} and tok.special_tokens == {"<|e|>": 257}


def test_special_tokens_that_overlap_are_never_trained_on():
    tok = RegexTokenizer().train("ab<|e|><|e|>cd<|e|>ef", 300, special_tokens=["<|e|>", "<|e|><|e|>"])
    assert set(tok.special_tokens) == {"<|e|>", "<|e|><|e|>"}
    learned = [tok.vocab[idx] for idx in tok.merges.values()]
    assert learned and not any(b"<" in token or b">" in token for token in learned)


def test_training_again_gives_the_special_tokens_new_ids():
    tok = RegexTokenizer().train("abab<|e|>cdcd", 258, special_tokens=["<|e|>"])
    tok.train("abab<|e|>cdcd", 260, special_tokens=["<|e|>"])
    assert tok.special_tokens == {"<|e|>": 259} and len(tok.merges) == 3


@pytest.mark.parametrize("special_tokens, vocab_size, error, match", [
    ("<|e|>", 300, TypeError, "list of str"),
    ([""], 300, ValueError, "non-empty"),
    (["<|e|>", 5], 300, ValueError, "non-empty str"),
    (["<|a|>", "<|b|>"], 257, ValueError, "at least 258"),
])
def test_bad_special_tokens_say_what_to_write(special_tokens, vocab_size, error, match):
    with pytest.raises(error, match=match):
        RegexTokenizer().train("abc", vocab_size, special_tokens=special_tokens)
