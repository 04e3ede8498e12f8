"""hf-bpe and wordpiece against `tokenizers`' own trainers: the whole tokenizer.json (vocab,
merges, ids, pipeline) equal on real corpora and on hypothesis text, encode ids equal, and
the exported file loads in `tokenizers` with identical ids."""
import json
import os
import pickle
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

tokenizers = pytest.importorskip("tokenizers")
from tokenizers import Tokenizer, decoders, models, normalizers, pre_tokenizers, trainers  # noqa: E402

from bpe import methods  # noqa: E402
from bpe.formats.hf.tokenizer_json import hf_json  # noqa: E402
from bpe.formats.hf.pipeline import Pipeline  # noqa: E402
from bpe.methods import hf_bpe, wordpiece  # noqa: E402
from bpe.train import MergeProgress  # noqa: E402
from tests.helpers.app import read_corpus  # noqa: E402

ARENA = Path(__file__).resolve().parents[2] / "samples" / "arena"
EXAMPLES = int(os.environ.get("METHODS_FUZZ_EXAMPLES", 60))


def hf_bpe_reference(docs, vocab_size, min_frequency=0, special_tokens=()):
    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel()
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(vocab_size=vocab_size, min_frequency=min_frequency,
                                  special_tokens=list(special_tokens), show_progress=False,
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet())
    tok.train_from_iterator(docs, trainer)
    return tok


def wordpiece_reference(docs, vocab_size, min_frequency=0, special_tokens=("[UNK]",)):
    tok = Tokenizer(models.WordPiece(unk_token="[UNK]"))
    tok.normalizer = normalizers.BertNormalizer()
    tok.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    tok.decoder = decoders.WordPiece()
    trainer = trainers.WordPieceTrainer(vocab_size=vocab_size, min_frequency=min_frequency,
                                        special_tokens=list(special_tokens), show_progress=False)
    tok.train_from_iterator(docs, trainer)
    return tok


def prefixed_order(document):
    """The characters of the "##c" tokens in the id order this tokenizers run gave them."""
    vocab = document["model"]["vocab"]
    return [token[2:] for token, _ in sorted(vocab.items(), key=lambda item: item[1])
            if token.startswith("##") and len(token) == 3]


def assert_same(ref, ours, held_out):
    assert json.loads(ref.to_str()) == ours.document
    for text in held_out:
        assert ours.encode(text, allowed_special="all") == ref.encode(text).ids
    exported = Tokenizer.from_str(json.dumps(hf_json(ours)))
    back = pickle.loads(pickle.dumps(ours))  # as a training worker hands it back
    assert back.name == ours.name
    for text in held_out:
        ids = ours.encode(text, allowed_special="all")
        assert exported.encode(text).ids == back.encode(text, allowed_special="all") == ids


def corpora():
    taylor = read_corpus("taylorswift.txt")
    shakespeare = read_corpus("tinyshakespeare.txt")
    arena = [path.read_text(encoding="utf-8") for path in sorted(ARENA.glob("*.txt"))]
    return {
        "taylorswift": (taylor[:60_000].split("\n\n"), [taylor[-4000:]]),
        "tinyshakespeare": (shakespeare[:150_000].split("\n\n"), [shakespeare[-4000:]]),
        "arena": ([text[:len(text) // 2] for text in arena],
                  [text[len(text) // 2:] for text in arena]),
    }


@pytest.mark.parametrize("name", ["taylorswift", "tinyshakespeare", "arena"])
def test_hf_bpe_equals_bpe_trainer_on_corpora(name):
    docs, held_out = corpora()[name]
    specials = ["<|endoftext|>", "<pad>"]
    ref = hf_bpe_reference(docs, 900, min_frequency=2, special_tokens=specials)
    ours = methods.train("hf-bpe", docs, 900, min_frequency=2, special_tokens=specials)
    assert_same(ref, ours, held_out + ["<pad> hello<|endoftext|>"])
    size = len(ref.get_vocab())  # 900, or fewer where min_frequency stops it (arena)
    assert len(ours.merges) == size - 258 and ours.name == f"hf-bpe {size}"
    # add_prefix_space=True: the first word's space is a real byte, kept by both decoders
    ids = ours.encode(held_out[0])
    assert ours.decode(ids) == ref.decode(ids, skip_special_tokens=False) == " " + held_out[0]


@pytest.mark.parametrize("name", ["taylorswift", "tinyshakespeare", "arena"])
def test_wordpiece_equals_wordpiece_trainer_on_corpora(name):
    docs, held_out = corpora()[name]
    specials = ["[UNK]", "[CLS]", "[SEP]"]
    ref = wordpiece_reference(docs, 1200, special_tokens=specials)
    ours = wordpiece.train(docs, 1200, special_tokens=specials,
                           prefixed_order=prefixed_order(json.loads(ref.to_str())))
    assert_same(ref, ours, held_out)
    assert ours.merges == {}


# few characters, so pairs tie, runs repeat ("aaaa") and two merges make one token
SMALL = st.text(st.sampled_from("aab b\nc.é東"), max_size=30)
DOCS = st.lists(SMALL, min_size=1, max_size=6).filter(lambda docs: any(docs))


@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck))
@given(docs=DOCS, merges=st.integers(0, 40), min_frequency=st.integers(0, 3),
       held_out=SMALL)
def test_hf_bpe_fuzz(docs, merges, min_frequency, held_out):
    ref = hf_bpe_reference(docs, 257 + merges, min_frequency, ["<s>"])
    ours = hf_bpe.train(docs, 257 + merges, min_frequency=max(min_frequency, 1),
                        special_tokens=["<s>"])
    assert_same(ref, ours, [held_out, "".join(docs)])
    ids = ours.encode(held_out)
    assert ours.decode(ids) == ref.decode(ids, skip_special_tokens=False)
    assert ours.decode(ids).removeprefix(" ") == held_out.removeprefix(" ")


@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck))
@given(docs=DOCS.filter(lambda docs: any(d.strip() for d in docs)), extra=st.integers(0, 40),
       held_out=SMALL)
def test_wordpiece_fuzz(docs, extra, held_out):
    ref = wordpiece_reference(docs, 1)  # tokenizers merges nothing: the starting vocabulary
    first = len(ref.get_vocab())
    ref = wordpiece_reference(docs, first + extra)
    ours = wordpiece.train(docs, first + extra,
                           prefixed_order=prefixed_order(json.loads(ref.to_str())))
    assert_same(ref, ours, [held_out, "".join(docs)])


def test_wordpiece_default_order_is_repeatable_and_the_same_tokens():
    docs = read_corpus("taylorswift.txt")[:30_000].split("\n\n")
    one = wordpiece.train(docs, 700)
    two = wordpiece.train(docs, 700)
    assert one.document == two.document
    ref = wordpiece_reference(docs, 700)
    assert len(one.vocab) == len(ref.get_vocab()) == 700
    text = "Hello, Taylor! Unknown: 東"
    assert one.decode(one.encode(text)) == ref.decode(ref.encode(text).ids,
                                                      skip_special_tokens=False)


def test_progress_reports_every_merge():
    seen = []
    tok = hf_bpe.train(["hello hello world"] * 3, 256 + 5, progress=seen.append)
    assert [p.done for p in seen] == [1, 2, 3, 4, 5]
    assert all(isinstance(p, MergeProgress) and p.total == 5 for p in seen)
    assert [p.token for p in seen] == [tok.vocab[idx] for idx in tok.merges.values()]


def test_bad_input_gets_a_sentence():
    with pytest.raises(ValueError, match="at least 258"):
        methods.train("hf-bpe", ["hi"], 257, special_tokens=["<a>", "<b>"])
    with pytest.raises(ValueError, match=r"needs '\[UNK\]'"):
        methods.train("wordpiece", ["hi"], 100, special_tokens=["<s>"])
    with pytest.raises(ValueError, match="at least"):
        methods.train("wordpiece", ["abc"], 4)
    with pytest.raises(TypeError, match="wrap one token"):
        methods.train("hf-bpe", ["hi"], 300, special_tokens="<s>")
    with pytest.raises(ValueError, match="no words"):
        methods.train("wordpiece", ["   \n"], 100)


BERT_TEXT = st.lists(st.one_of(st.sampled_from([" ", "\t", "\n", "\r\n", "\u3000", "\x00", "\x85",
                                                "e\u0301", " \u0301", "東", "Ab", "!", "ﬁ"]),
                               st.text(max_size=3)), max_size=10).map("".join)


@settings(max_examples=EXAMPLES * 3, deadline=None, suppress_health_check=list(HealthCheck))
@given(docs=st.lists(st.one_of(BERT_TEXT, st.text(st.characters(max_codepoint=127))),
                    max_size=4))
def test_wordpiece_counts_words_by_chunk_as_the_whole_pipeline_does(docs):
    pipeline = wordpiece_pipeline()
    whole = list(hf_bpe.count_words(docs, pipeline).items())
    assert list(hf_bpe.count_words(docs, pipeline, cut=wordpiece.WHITESPACE).items()) == whole
    assert list(hf_bpe.count_words(docs, pipeline, cut=wordpiece.WHITESPACE,
                                   fast=wordpiece.ascii_pieces).items()) == whole


def wordpiece_pipeline():
    return Pipeline.from_json({"normalizer": {"type": "BertNormalizer"},
                               "pre_tokenizer": {"type": "BertPreTokenizer"}})


# what ByteLevel's regex asks of a text: contractions, letters/digits/other runs, a space
# before each, whitespace runs before a word or at the end, non-ASCII letters and spaces
BYTE_LEVEL_TEXT = st.lists(st.one_of(st.sampled_from([
    " ", "  ", "\t", "\n", "\r\n", "\u3000", "\u00a0", "\x85", "\x1c", "'s", "'LL", "'ll", "'ve",
    "'d", "'", "ab", "Ab", "12", "²", "é", "e\u0301", "東京", "!?", "👍🏽", "_", "\x00"]),
    st.text(max_size=3)), max_size=12).map("".join)


@settings(max_examples=EXAMPLES * 3, deadline=None, suppress_health_check=list(HealthCheck))
@given(docs=st.lists(BYTE_LEVEL_TEXT, max_size=4))
def test_hf_bpe_counts_words_as_the_whole_pipeline_does(docs):
    pipeline = Pipeline.from_json({"pre_tokenizer": hf_bpe.BYTE_LEVEL})
    whole = {"".join(hf_bpe.BYTE_TABLE[b] for b in word.encode("utf-8")): count
             for word, count in hf_bpe.count_words(docs, pipeline).items()}
    assert list(hf_bpe.count_byte_level_words(docs).items()) == list(whole.items())
