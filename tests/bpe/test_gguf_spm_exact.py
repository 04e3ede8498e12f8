"""A llama-family GGUF's merges found by text (bpe.formats.hf.score_bpe.ScorePairs: no merge
table) give the ids the kept table gave (83352ab: a plain BPE of the document's merges,
gguf_parts.ScoreMerges' list, each ranked by the score of the piece it makes, equal scores
equal). The old model is built here as main built it, from the listed document, and the two
must agree id for id on random texts over the vocab's characters (long ones too: a text of
more than 256 characters is cut where no merge can cross), on llama.cpp's Llama 2 vocabulary
and on a forged file with equal scores, pieces written twice and byte fallback; and the merge
columns and packed merges the app shows must be the same data. The old model shares
merge_all and the long-piece cuts, so the ids are also checked against SentencePiece's BPE
by its definition (naive_ids), slowly, on shorter texts.
"""
import json
from array import array

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

import bpe
from bpe.formats import gguf, gguf_families
from bpe.formats.hf.score_bpe import ScorePairs
from bpe.hf_tokenizer import tokenizer_from_hf
from tests.bpe.test_gguf_memory import _gguf, sdist_member

SPM = "ggml-vocab-llama-spm.gguf"


def old_model_tokenizer(data, name):
    """The tokenizer as main built it: a plain BPE of the listed merges (a MergeTable), its
    ranks the rank of the made piece's score among the file's distinct scores."""
    info = gguf.read_tokenizer_bytes(data, name)
    doc = json.loads(json.dumps(gguf_families.tokenizer_json(info, name)))
    tok = tokenizer_from_hf(doc, source=name)
    distinct = sorted(set(info.scores), reverse=True)
    rank_of = {score: rank for rank, score in enumerate(distinct)}
    tok.model.ranks = array("i", [rank_of[info.scores[idx]] for idx in tok.model.made])
    assert not isinstance(tok.model.merges, ScorePairs)
    return tok


def forged():
    """A llama-family file with equal scores, a piece written twice (the later id owns it),
    pieces no merge can make, byte tokens and a BOS."""
    pieces = ["a", "b", "c", "\u2581", "ab", "bc", "abc", "\u2581a", "\u2581ab", "cc", "ccc",
              "ab", "bca", "\u2581\u2581", "c\u2581", "ba", "aa", "aaa", "xyz", "é", "éa"]
    tokens = ["<unk>"] + [f"<0x{b:02X}>" for b in range(256)] + pieces + ["<s>"]
    scores = [0.0] * 257 + [-(i // 3) for i in range(len(pieces))] + [0.0]
    types = [2] + [6] * 256 + [1] * len(pieces) + [3]
    return _gguf(tokens, None, types, scores=scores)


@pytest.fixture(scope="module", params=["forged", "llama-spm"])
def pair(request):
    """(name, new tokenizer, old tokenizer, its characters, its pieces as text) of a file."""
    if request.param == "forged":
        data, name = forged(), "forged.gguf"
    else:
        data, name = sdist_member(SPM), SPM
    new, old = bpe.load_bytes(data, name), old_model_tokenizer(data, name)
    assert isinstance(new.model.merges, ScorePairs)
    chars = sorted({ch for piece in new.model.vocab for ch in piece.replace("\u2581", " ")
                    if not piece.startswith("<")})
    words = sorted({piece.replace("\u2581", " ") for piece in new.model.vocab
                    if not piece.startswith("<")})
    return name, new, old, chars + ["\n", "☃", "𝔘"], words


def texts(chars, max_size, min_size=0):
    return st.lists(st.sampled_from(chars), min_size=min_size, max_size=max_size).map("".join)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_ids_are_the_kept_tables(pair, data):
    name, new, old, chars, words = pair
    text = data.draw(st.one_of(texts(chars, 40), texts(chars[:60], 700, 260),
                               texts(words, 150, 60)))  # long: cut where no merge crosses
    want = old.encode(text, add_special_tokens=False)
    assert new.encode(text, add_special_tokens=False) == want, (name, text)
    assert new.encode_with_spans(text) == old.encode_with_spans(text)


def test_merge_columns_and_packed_merges_are_the_same_data(pair):
    _, new, old, _, _ = pair
    assert [list(c) for c in new.merge_columns()] == [list(c) for c in old.merge_columns()]
    left, right, ranks = new.packed_merges
    old_left, old_right, old_ranks = old.packed_merges
    assert (left, right, ranks) == (old_left, old_right, old_ranks)
    assert new.merges == old.merges


def test_document_and_pickle(pair):
    """The document is made from the file's arrays (none kept as text): tokenizer_json's;
    a pickle rebuilds from the arrays, ScorePairs and all."""
    import pickle

    _, new, _, _, _ = pair
    assert new.document == json.loads(new.document_json)
    assert new.make_document is not None and new._document_zlib is None
    again = pickle.loads(pickle.dumps(new))
    assert isinstance(again.model.merges, ScorePairs) and again.model.ranks == new.model.ranks
    assert again.document == new.document
    text = "Hello world, abc éa ccc  xyz"
    assert again.encode(text) == new.encode(text)


def naive_ids(model, scores, piece):
    """SentencePiece's BPE by its definition, slowly: of the adjacent pairs whose joined text
    is a piece, merge the one of highest score, the leftmost among equal, until none is
    (independent of merge_all and of the cuts a long piece gets, which the old model shares)."""
    ids = [s[0] for s in model.symbols(piece)]
    text = model.vocab.piece
    while True:
        best = None
        for i in range(len(ids) - 1):
            made = model.vocab.get(text(ids[i]) + text(ids[i + 1]))
            if made is not None and (best is None or scores[made] > best[0]):
                best = (scores[made], i, made)
        if best is None:
            return ids
        _, i, made = best
        ids[i:i + 2] = [made]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_ids_are_sentencepieces_by_definition(pair, data):
    name, new, _, chars, words = pair
    text = data.draw(st.one_of(texts(chars, 30), texts(words, 90, 60)))  # long: cut
    scores = new.rebuild_from.scores  # the file's, kept to make the document again
    for piece in new.split(text):
        got = [idx for idx, _, _ in new.model.tokens(piece)]
        assert got == naive_ids(new.model, scores, piece), (name, piece)
