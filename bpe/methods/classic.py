"""bpe.methods "bpe": classic byte-level BPE within GPT-4's split pattern, trained on
documents (no merge crosses two), by the lab's exact trainer (bpe.train).

Tie rule: tie_break as bpe.train has it ("first", minbpe's, by default). What comes
back is an ordinary RegexTokenizer: it saves as a .model and replays like any other.
The variants read their training text through `chunk_counts`, so every method sees the
same chunks in the same order.

>>> tok = train(["aaabdaaabac"], 259)
>>> tok.merges
{(97, 97): 256, (256, 97): 257, (257, 98): 258}
"""
from .. import documents
from ..regex import RegexTokenizer


def train(texts, vocab_size, *, min_frequency=1, special_tokens=None, progress=None,
          tie_break="first"):
    """A RegexTokenizer (GPT-4 pattern) trained on texts, each its own document."""
    return RegexTokenizer().train_from_iterator(
        texts, vocab_size, special_tokens=special_tokens, min_frequency=min_frequency,
        progress=progress, tie_break=tie_break)


def chunk_counts(tok, texts, special_tokens, vocab_size):
    """(Counter of chunk str in order of first occurrence, specials, merge budget) for
    texts read as train_from_iterator reads them: each text a document, cut again at
    special-token strings (which are not trained on); the budget is vocab_size less one
    id per special token. Checks the arguments as tok.train does."""
    specials = documents.check_specials(tok, special_tokens, vocab_size)
    vocab_size -= len(specials)
    tok.check_train_args(vocab_size, 1)
    docs = (doc for text in texts for doc in documents.cut_at_specials(text, specials))
    return documents.count_documents(tok, docs), specials, vocab_size
