"""tokenizer.json files of every family `tokenizers` builds, made by its own trainers and
by `sentencepiece` (converted here from the model proto: pieces, scores and the
normalizer's precompiled charsmap), for tests/bpe/test_hf_families.py and test_hf_fuzz.py.
Each builder returns a `tokenizers.Tokenizer`; FAMILIES names them."""
import importlib.util
import io
import json

from tokenizers import Regex, Tokenizer, decoders, models, normalizers, pre_tokenizers
from tokenizers import processors, trainers

from tests.conftest import read_corpus

SPECIALS = ["[UNK]", "[CLS]", "[SEP]", "[PAD]", "[MASK]"]
BYTES = [f"<0x{b:02X}>" for b in range(256)]


def corpus():
    """A slice of real text, with some accents, CJK and emoji mixed in."""
    text = read_corpus("tinyshakespeare.txt")[:60_000] + read_corpus("taylorswift.txt")[:20_000]
    extra = "Straße café naïve résumé 東京 Привет ΣΟΦΟΣ 12345 3.14 👍 don't ﬁ ① \n"
    return (text + extra * 20).splitlines()


def _train(tok, trainer):
    tok.train_from_iterator(corpus(), trainer)
    return tok


def _edit(tok, change):
    """The same tokenizer with its JSON changed by change(doc)."""
    doc = json.loads(tok.to_str())
    change(doc)
    return Tokenizer.from_str(json.dumps(doc))


def _add_bytes_to_vocab(doc):
    vocab = doc["model"]["vocab"]
    if isinstance(vocab, list):
        vocab += [[piece, 0.0] for piece in BYTES if piece not in {p for p, _ in vocab}]
    else:
        for piece in BYTES:
            vocab.setdefault(piece, len(vocab))


def bpe_whitespace():
    tok = Tokenizer(models.BPE(unk_token="[UNK]"))
    tok.pre_tokenizer = pre_tokenizers.Whitespace()
    return _train(tok, trainers.BpeTrainer(vocab_size=400, special_tokens=SPECIALS,
                                           limit_alphabet=50, show_progress=False))


def bpe_fused_unk():
    return _edit(bpe_whitespace(), lambda d: d["model"].update(fuse_unk=True))


def bpe_prefix_wordpiece_decoder():
    tok = Tokenizer(models.BPE(unk_token="[UNK]", continuing_subword_prefix="##"))
    tok.normalizer = normalizers.BertNormalizer()
    tok.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    tok.decoder = decoders.WordPiece()
    return _train(tok, trainers.BpeTrainer(vocab_size=400, special_tokens=SPECIALS,
                                           continuing_subword_prefix="##", limit_alphabet=60,
                                           show_progress=False))


def bpe_suffix():
    tok = Tokenizer(models.BPE(unk_token="[UNK]", end_of_word_suffix="</w>"))
    tok.normalizer = normalizers.Sequence([normalizers.NFD(), normalizers.StripAccents(),
                                           normalizers.Lowercase()])
    tok.pre_tokenizer = pre_tokenizers.Sequence([pre_tokenizers.WhitespaceSplit(),
                                                 pre_tokenizers.Punctuation("contiguous"),
                                                 pre_tokenizers.Digits(individual_digits=True)])
    tok.decoder = decoders.BPEDecoder(suffix="</w>")
    return _train(tok, trainers.BpeTrainer(vocab_size=400, special_tokens=SPECIALS,
                                           end_of_word_suffix="</w>", limit_alphabet=60,
                                           show_progress=False))


def bpe_byte_fallback():
    """Llama 2 in HF form: Prepend + Replace normalizers, no pre-tokenizer, byte_fallback."""
    tok = Tokenizer(models.BPE(unk_token="<unk>", fuse_unk=True, byte_fallback=True))
    tok.normalizer = normalizers.Sequence([normalizers.Prepend("▁"),
                                           normalizers.Replace(" ", "▁")])
    tok.decoder = decoders.Sequence([decoders.Replace("▁", " "), decoders.ByteFallback(),
                                     decoders.Fuse(), decoders.Strip(" ", 1, 0)])
    tok.post_processor = processors.TemplateProcessing(single="<s> $A", special_tokens=[("<s>", 1)])
    tok = _train(tok, trainers.BpeTrainer(vocab_size=500, special_tokens=["<unk>", "<s>", "</s>"],
                                          limit_alphabet=70, show_progress=False))
    return _edit(tok, _add_bytes_to_vocab)


def bpe_metaspace_ignore_merges():
    tok = Tokenizer(models.BPE(unk_token="[UNK]", ignore_merges=True))
    tok.pre_tokenizer = pre_tokenizers.Metaspace()
    tok.decoder = decoders.Metaspace()
    return _train(tok, trainers.BpeTrainer(vocab_size=400, special_tokens=SPECIALS,
                                           limit_alphabet=60, show_progress=False))


def wordpiece_bert():
    tok = Tokenizer(models.WordPiece(unk_token="[UNK]"))
    tok.normalizer = normalizers.BertNormalizer()
    tok.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    tok.decoder = decoders.WordPiece()
    tok = _train(tok, trainers.WordPieceTrainer(vocab_size=500, special_tokens=SPECIALS,
                                                limit_alphabet=80, show_progress=False))
    tok.post_processor = processors.TemplateProcessing(
        single="[CLS] $A [SEP]", special_tokens=[("[CLS]", tok.token_to_id("[CLS]")),
                                                 ("[SEP]", tok.token_to_id("[SEP]"))])
    return tok


def wordpiece_cased():
    tok = Tokenizer(models.WordPiece(unk_token="[UNK]", max_input_chars_per_word=8))
    tok.normalizer = normalizers.BertNormalizer(lowercase=False, strip_accents=False,
                                                handle_chinese_chars=True)
    tok.pre_tokenizer = pre_tokenizers.Whitespace()
    tok.decoder = decoders.WordPiece()
    tok = _train(tok, trainers.WordPieceTrainer(vocab_size=500, special_tokens=SPECIALS,
                                                show_progress=False))
    tok.post_processor = processors.BertProcessing(("[SEP]", tok.token_to_id("[SEP]")),
                                                   ("[CLS]", tok.token_to_id("[CLS]")))
    return tok


def unigram_metaspace():
    tok = Tokenizer(models.Unigram())
    tok.normalizer = normalizers.NFKC()
    tok.pre_tokenizer = pre_tokenizers.Metaspace(prepend_scheme="first")
    tok.decoder = decoders.Metaspace(prepend_scheme="first")
    return _train(tok, trainers.UnigramTrainer(vocab_size=400, special_tokens=["<unk>", "<s>"],
                                               unk_token="<unk>", show_progress=False))


def unigram_byte_fallback():
    tok = Tokenizer(models.Unigram())
    tok.normalizer = normalizers.Sequence([normalizers.Strip(), normalizers.Replace(
        Regex(" {2,}"), " ")])
    tok.pre_tokenizer = pre_tokenizers.Sequence([pre_tokenizers.WhitespaceSplit(),
                                                 pre_tokenizers.UnicodeScripts(),
                                                 pre_tokenizers.Metaspace(split=False)])
    tok.decoder = decoders.Sequence([decoders.Metaspace(), decoders.ByteFallback()])
    tok = _train(tok, trainers.UnigramTrainer(vocab_size=400, special_tokens=["<unk>"],
                                              unk_token="<unk>", show_progress=False))
    return _edit(tok, lambda d: (_add_bytes_to_vocab(d), d["model"].update(byte_fallback=True)))


def wordpiece_nmt_delimiters():
    """Nmt + Strip normalizers, CharDelimiterSplit then FixedLength pre-tokenizers."""
    tok = Tokenizer(models.WordPiece(unk_token="[UNK]"))
    tok.normalizer = normalizers.Sequence([normalizers.Nmt(), normalizers.Strip()])
    tok.pre_tokenizer = pre_tokenizers.Sequence([pre_tokenizers.CharDelimiterSplit(" "),
                                                 pre_tokenizers.FixedLength(6)])
    tok.decoder = decoders.CTC(pad_token="[PAD]", word_delimiter_token="|")
    return _train(tok, trainers.WordPieceTrainer(vocab_size=400, special_tokens=SPECIALS,
                                                 show_progress=False))


def wordlevel_digits():
    tok = Tokenizer(models.WordLevel(unk_token="[UNK]"))
    tok.normalizer = normalizers.Lowercase()
    tok.pre_tokenizer = pre_tokenizers.Sequence([pre_tokenizers.Whitespace(),
                                                 pre_tokenizers.Digits(individual_digits=True)])
    return _train(tok, trainers.WordLevelTrainer(vocab_size=600, special_tokens=SPECIALS,
                                                 show_progress=False))


def _sentencepiece(model_type, byte_fallback):
    import sentencepiece as spm
    from sentencepiece import sentencepiece_model_pb2
    buffer = io.BytesIO()
    spm.SentencePieceTrainer.train(
        sentence_iterator=iter(corpus()), model_writer=buffer, vocab_size=600,
        model_type=model_type, byte_fallback=byte_fallback, character_coverage=0.9995,
        minloglevel=2)
    proto = sentencepiece_model_pb2.ModelProto()
    proto.ParseFromString(buffer.getvalue())
    return proto, buffer.getvalue()


def sentencepiece_json(proto, llama=False):
    """A tokenizer.json for a SentencePiece model, as transformers' converters write one:
    Precompiled (the charsmap) + Replace(" {2,}" -> " ") normalizers, Metaspace, and a
    Unigram model of the pieces and scores, or for a BPE model a byte-fallback BPE whose
    merges are every pair of pieces that makes a piece, by the made piece's score.
    llama=True: as transformers converts Llama 2 and Mistral (their charsmap is empty):
    Prepend("▁") + Replace(" ", "▁") normalizers and no pre-tokenizer."""
    import base64
    pieces = [(p.piece, p.score) for p in proto.pieces]
    unk_id = next(i for i, p in enumerate(proto.pieces) if p.type == 2)
    byte_fallback = proto.trainer_spec.byte_fallback
    charsmap = base64.b64encode(proto.normalizer_spec.precompiled_charsmap).decode()
    normalizer = {"type": "Sequence", "normalizers": [
        {"type": "Precompiled", "precompiled_charsmap": charsmap},
        {"type": "Replace", "pattern": {"Regex": " {2,}"}, "content": " "}]}
    added = [{"id": i, "content": p.piece, "single_word": False, "lstrip": False,
              "rstrip": False, "normalized": False, "special": True}
             for i, p in enumerate(proto.pieces) if p.type in (2, 3)]
    metaspace = {"type": "Metaspace", "replacement": "▁", "prepend_scheme": "always",
                 "split": True}
    if proto.trainer_spec.model_type == 1:  # UNIGRAM
        model = {"type": "Unigram", "unk_id": unk_id, "vocab": [list(p) for p in pieces],
                 "byte_fallback": byte_fallback}
        decoder = metaspace
    else:
        vocab = {piece: i for i, (piece, _) in enumerate(pieces)}
        score = dict(pieces)
        merges = sorted(((piece[:i], piece[i:]) for piece in vocab
                         if proto.pieces[vocab[piece]].type == 1
                         for i in range(1, len(piece))
                         if piece[:i] in vocab and piece[i:] in vocab),
                        key=lambda pair: (-score[pair[0] + pair[1]], vocab[pair[0] + pair[1]],
                                          vocab[pair[0]]))
        model = {"type": "BPE", "dropout": None, "unk_token": proto.pieces[unk_id].piece,
                 "continuing_subword_prefix": None, "end_of_word_suffix": None,
                 "fuse_unk": True, "byte_fallback": byte_fallback, "ignore_merges": False,
                 "vocab": vocab, "merges": [[a, b] for a, b in merges]}
        decoder = {"type": "Sequence", "decoders": [
            {"type": "Replace", "pattern": {"String": "▁"}, "content": " "},
            {"type": "ByteFallback"}, {"type": "Fuse"},
            {"type": "Strip", "content": " ", "start": 1, "stop": 0}]}
    pre_tokenizer = metaspace
    if llama:
        normalizer = {"type": "Sequence", "normalizers": [
            {"type": "Prepend", "prepend": "▁"},
            {"type": "Replace", "pattern": {"String": " "}, "content": "▁"}]}
        pre_tokenizer = None
    return {"version": "1.0", "truncation": None, "padding": None, "added_tokens": added,
            "normalizer": normalizer, "pre_tokenizer": pre_tokenizer,
            "post_processor": None, "decoder": decoder, "model": model}


def sentencepiece_unigram():
    return Tokenizer.from_str(json.dumps(sentencepiece_json(_sentencepiece("unigram", True)[0])))


def sentencepiece_bpe():
    return Tokenizer.from_str(json.dumps(sentencepiece_json(_sentencepiece("bpe", True)[0])))


def mistral_v1():
    """Mistral 7B's own SentencePiece BPE (32,000 pieces, byte fallback), as shipped in the
    registry package mistral-common (requirements-vocab.txt), converted as above."""
    from importlib.resources import files

    from sentencepiece import sentencepiece_model_pb2
    proto = sentencepiece_model_pb2.ModelProto()
    proto.ParseFromString((files("mistral_common") / "data" / "tokenizer.model.v1").read_bytes())
    return Tokenizer.from_str(json.dumps(sentencepiece_json(proto, llama=True)))


FAMILIES = {name: builder for name, builder in globals().items()
            if callable(builder) and name.split("_")[0] in (
                "bpe", "wordpiece", "unigram", "sentencepiece", "wordlevel", "mistral")
            and name != "sentencepiece_json"}
if importlib.util.find_spec("mistral_common") is None:  # requirements-vocab.txt not installed
    del FAMILIES["mistral_v1"]
