"""wordpiece: BERT's WordPiece as Hugging Face's WordPieceTrainer makes it.

HF trains WordPiece with its BPE trainer (bpe.methods.hf_bpe.train_words) and
continuing_subword_prefix "##": every character but a word's first is written "##c", a merge
joins "a" and "##b" into "ab", and the BPE vocabulary becomes the WordPiece vocabulary (the
merges are dropped: WordPiece encodes by the longest vocabulary match from the left). The
pipeline is BERT's: BertNormalizer with its defaults (clean text, Chinese characters spaced,
lowercase, accents stripped), BertPreTokenizer, the WordPiece decoder. The same as

    tok = Tokenizer(models.WordPiece(unk_token="[UNK]"))
    tok.normalizer = normalizers.BertNormalizer()
    tok.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    tok.decoder = decoders.WordPiece()
    tok.train_from_iterator(texts, WordPieceTrainer(vocab_size=V, special_tokens=[...]))

One difference, and why: tokenizers gives the "##c" tokens their ids in the order its hash
map hands it the words, which changes from run to run (three runs on one text, three id
layouts; the merges that tie break by ids can change with them). Here they come in order of
first occurrence, so a training is repeatable. Given the order one tokenizers run used
(`prefixed_order`), vocab and ids are identical (tests/bpe/test_methods_hf.py).

"[UNK]" must be among the special tokens (the default): WordPiece encodes a word it cannot
spell from its vocabulary as "[UNK]". Not offered: limit_alphabet, initial_alphabet, a
prefix other than "##", BERT's [CLS]/[SEP] post-processor.
"""
import re

from ..hf_tokenizer import tokenizer_from_hf
from ..formats.hf.pipeline import Pipeline
from .hf_bpe import added_tokens, check_specials, count_words, train_words

UNK = "[UNK]"
# whitespace both BertNormalizer (clean_text: to " ") and BertPreTokenizer (a split) treat as
# whitespace, and that no normalization step joins across: words never span it
WHITESPACE = re.compile(r"[ \t\n\r]+")
PREFIX = "##"
# subtle: on printable ASCII without space BERT's normalizer only lowercases, and its
# pre-tokenizer isolates every other character than a-z0-9 (all are ASCII punctuation to
# Rust): a shortcut past the pipeline for most chunks, proven equal on fuzz
ASCII_PIECES = re.compile(r"[a-z0-9]+|[^a-z0-9]")


def train(texts, vocab_size, *, min_frequency=1, special_tokens=(UNK,), progress=None,
          prefixed_order=None):
    """Train WordPiece on texts (a list of documents) to vocab_size tokens.

    prefixed_order: the characters whose "##c" tokens get ids first, in that order (to
    reproduce one tokenizers run); others follow in order of first occurrence.

    >>> tok = train(["Hello hello World abab"], 28)
    >>> [tok.decode([idx]) for idx in tok.encode("hello abab")]
    ['hello', 'abab']
    """
    special_tokens = check_specials(special_tokens, "wordpiece")
    if UNK not in special_tokens:
        raise ValueError(f"wordpiece needs {UNK!r} among special_tokens: it stands for a word "
                         f"the vocabulary cannot spell; add it, e.g. special_tokens="
                         f"{[UNK] + special_tokens!r}")
    document = {
        "version": "1.0", "truncation": None, "padding": None,
        "added_tokens": added_tokens(special_tokens),
        "normalizer": {"type": "BertNormalizer", "clean_text": True,
                       "handle_chinese_chars": True, "strip_accents": None, "lowercase": True},
        "pre_tokenizer": {"type": "BertPreTokenizer"},
        "post_processor": None,
        "decoder": {"type": "WordPiece", "prefix": PREFIX, "cleanup": True},
    }
    word_counts = count_words(texts, Pipeline.from_json(document), cut=WHITESPACE,
                              fast=ascii_pieces)
    if not word_counts:
        raise ValueError("wordpiece: the corpus has no words once BERT's normalizer and "
                         "pre-tokenizer have run (only spaces or control characters); give "
                         "it some text")
    vocab, _ = train_words(word_counts, vocab_size, min_frequency=min_frequency,
                           special_tokens=special_tokens, prefix=PREFIX,
                           prefixed_order=prefixed_order, progress=progress,
                           token_bytes=_token_bytes)
    document["model"] = {"type": "WordPiece", "unk_token": UNK,
                         "continuing_subword_prefix": PREFIX,
                         "max_input_chars_per_word": 100, "vocab": vocab}
    tok = tokenizer_from_hf(document, source="wordpiece")
    tok.name = f"wordpiece {len(vocab)}"
    return tok


def ascii_pieces(chunk):
    """BERT's pieces of a printable-ASCII chunk, or None for any other (the pipeline's).

    >>> ascii_pieces("Don't!"), ascii_pieces("café")
    (['don', "'", 't', '!'], None)
    """
    if chunk.isascii() and chunk.isprintable():
        return ASCII_PIECES.findall(chunk.lower())
    return None


def _token_bytes(token):
    """The text a WordPiece token stands for ("##ing" -> b"ing"), for progress."""
    return token.removeprefix(PREFIX).encode("utf-8")
