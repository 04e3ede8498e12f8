"""Tokenizers run by the `sentencepiece` package, with our API: trained (SentencePieceBPE)
or loaded from a SentencePiece .model file (SentencePieceTokenizer).

SentencePieceBPE is a Llama-style BPE trained on the same text as one of ours, so the lab
can set Llama-style tokenization beside byte-level BPE: SentencePiece merges characters,
not bytes, and falls back to byte tokens (<0xE2>) only for characters too rare to get a
piece; a space is part of the piece after it (▁the). The settings follow Llama's tokenizer
(BPE, byte fallback, digits split, whitespace-only pieces) except two, so that the ids
decode to exactly the text given, which every view of the lab relies on: no normalization
and no dummy space in front of the text. It trains on the text's lines, as SentencePiece
does, so a newline is always a byte token.

SentencePieceTokenizer is any SentencePiece model someone ships (Llama 2, Mistral, Gemma,
T5; BPE or Unigram): ids are exactly `sentencepiece`'s, and each token's bytes are what it
stands for (a byte piece <0xNN> is that byte, "▁" a space, the dummy space the model puts
in front of the text dropped from the first token, an unknown piece sentencepiece's " ⁇ "),
so decode equals sentencepiece's decode wherever the bytes make valid UTF-8. A model that
normalizes text (NFKC, collapsed spaces) gives ids whose bytes are the normalized text.

sentencepiece is imported only when one is trained or loaded. There are no minbpe merges
to show: `merges` is empty, so the merge views have nothing to replay, and `.model` save
is refused (the SentencePiece model is `model_proto`).
"""
from .base import Tokenizer
from .formats.hf.packed_vocab import PackedPieces, PackedVocab
from .text import clean_text

SPACE = "\u2581"  # ▁, how SentencePiece writes a space inside a piece


class ModelVocab(PackedVocab):
    """A SentencePiece model's vocab (id -> bytes): every piece's bytes packed once per
    model (PackedPieces, shared by each vocab made as the special tokens change), the
    special tokens on top. Unlike a tokenizer.json's, a special token may have a piece's
    id (a control piece is both): its bytes win, and the id is counted and iterated once,
    where the dict this replaces had it (issue 32: that dict cost ~100 B a piece)."""

    __slots__ = ()

    def __iter__(self):
        yield from self.pieces.iter_ids()
        slot = self.pieces.slot
        yield from (idx for idx in self.specials if slot(idx) is None)

    def __len__(self):
        if self._size is None:
            slot = self.pieces.slot
            self._size = len(self.pieces) + sum(slot(idx) is None for idx in self.specials)
        return self._size

    def __reduce__(self):
        return (type(self), (self.pieces, self.specials))

    def tokens_bytes(self, ids):
        """[self[idx] for idx in ids] for a list of ints, without a Python call per id: the
        pieces' bytes, then the special tokens' over theirs; None when some id is past the
        model's pieces (the caller's own per-id way). The pieces' ids are 0, 1, 2, ...
        (a model's), so a piece's slot is its id."""
        pieces = self.pieces
        if ids and (min(ids) < 0 or max(ids) >= len(pieces.present)):
            return None
        data, offsets = pieces.data, pieces.offsets
        tokens = [data[offsets[idx]:offsets[idx + 1]] for idx in ids]
        specials = self.specials
        if specials and not specials.keys().isdisjoint(ids):
            return list(map(specials.get, ids, tokens))
        return tokens


class _SentencePiece(Tokenizer):
    """What every sentencepiece-run tokenizer shares: the processor, vocab, encode."""

    unknown_bytes = b""  # what the <unk> piece stands for in vocab

    def __init__(self, model_proto=None):
        self._sp = None
        self.model_proto = None
        super().__init__()
        if model_proto is not None:
            self._load_proto(model_proto)

    def _load_proto(self, model_proto):
        import sentencepiece as spm
        sp = spm.SentencePieceProcessor(model_proto=model_proto)
        self._sp, self.model_proto = sp, model_proto
        self._read_model(sp)
        self._reset()

    def _read_model(self, sp):
        """What the vocab needs from the model besides its pieces, read before the vocab
        is built (once): nothing for a model of our own."""

    def _build_vocab(self):
        sp = getattr(self, "_sp", None)
        if sp is None:
            return {}
        made = self.__dict__.get("_pieces")
        if made is None or made[0] is not sp:
            made = self._pieces = (sp, PackedPieces(self._model_tokens_bytes(sp)))
        return ModelVocab(made[1], {idx: special.encode("utf-8")
                                    for special, idx in self.special_tokens.items()})

    def _model_tokens_bytes(self, sp):
        """(id, bytes) of every piece of the model, in id order, as they are read."""
        unknown = self.unknown_bytes
        for idx in range(sp.get_piece_size()):
            if sp.is_byte(idx):
                yield idx, bytes([int(sp.id_to_piece(idx)[3:5], 16)])  # "<0xE2>"
            elif sp.is_unknown(idx):
                yield idx, unknown
            elif sp.is_control(idx):
                yield idx, b""  # never produced from text: no bos/eos, bytes for the rest
            else:
                yield idx, sp.id_to_piece(idx).replace(SPACE, " ").encode("utf-8")

    @property
    def n_vocab(self):
        sp = self._sp
        if sp is None:
            return 0
        return max([sp.get_piece_size(), *(idx + 1 for idx in self.special_tokens.values())])

    def encode_ordinary(self, text):
        if self._sp is None:
            raise ValueError(f"this {type(self).__name__} is not trained yet; call "
                             "train(text, vocab_size) first")
        return self._sp.encode(clean_text(text))

    def save(self, file_prefix):
        raise ValueError("a SentencePiece tokenizer cannot be saved as a minbpe .model file; "
                         "write its model_proto bytes to a file and load that with "
                         "sentencepiece.SentencePieceProcessor(model_file=...)")

    def load_text(self, text, source="model"):
        raise ValueError(f"{type(self).__name__} loads a SentencePiece model_proto, not a minbpe "
                         f".model file: {type(self).__name__}(model_proto=data), or bpe.load()")


class SentencePieceBPE(_SentencePiece):
    """BPE trained by sentencepiece; ids are SentencePiece's (0 <unk>, 1 <s>, 2 </s>,
    3-258 the bytes 0x00-0xFF, then the learned pieces).

    >>> tok = SentencePieceBPE().train("hello hello world\\n" * 20, 300)
    >>> tok.decode(tok.encode("hello world"))
    'hello world'
    """

    def train(self, text, vocab_size, verbose=False, *, character_coverage=0.9995,
              progress=None, **kwargs):
        """Train a SentencePiece BPE with vocab_size pieces (bytes and controls included)
        on text's non-empty lines. progress is accepted for the API's sake and not called:
        sentencepiece reports nothing while it trains."""
        import io

        import sentencepiece as spm
        text = clean_text(text)
        if not isinstance(vocab_size, int) or isinstance(vocab_size, bool) or vocab_size < 260:
            raise ValueError(f"vocab_size must be an int of at least 260 (3 control tokens, "
                             f"256 byte tokens and one piece), not {vocab_size!r}")
        lines = [line for line in text.splitlines() if line.strip()]
        if not lines:
            raise ValueError("the text has no non-empty lines to train on")
        model = io.BytesIO()
        try:
            spm.SentencePieceTrainer.train(
                sentence_iterator=iter(lines), model_writer=model, model_type="bpe",
                vocab_size=vocab_size, character_coverage=character_coverage,
                byte_fallback=True, split_digits=True, allow_whitespace_only_pieces=True,
                normalization_rule_name="identity", add_dummy_prefix=False,
                remove_extra_whitespaces=False, num_threads=2,
                hard_vocab_limit=False,  # a small text runs out of pairs: stop there, as ours do
                minloglevel=0 if verbose else 2)
        except RuntimeError as e:
            # e.g. "Vocabulary size is smaller than required_chars. 300 vs 412. ..."
            why = str(e).splitlines()[-1].rpartition("] ")[2]  # past "INTERNAL: file.cc(638) [...]"
            raise ValueError(f"sentencepiece could not train: {why}") from None
        self._load_proto(model.getvalue())
        # hard_vocab_limit=False lets a small text stop short, like our "no_pairs"
        self.stop_reason = "vocab_size" if self.n_vocab == vocab_size else "no_pairs"
        return self


class SentencePieceTokenizer(_SentencePiece):
    """A shipped SentencePiece model (BPE or Unigram) run by sentencepiece: ids exactly
    sp.encode(text). Control pieces (<s>, </s>, [INST]) are its special tokens. When the
    model puts a dummy space in front of the text (hello -> ▁hell o), sentencepiece's decode
    drops it again; so does ours, from the first token that is not a control token, so that
    the tokens' bytes add up to the text. name: what people call it (its file name).
    """

    def __init__(self, model_proto, name="sentencepiece", *, model_type="", dummy_prefix=None):
        self.name = name
        self.model_type = model_type  # "bpe", "unigram", "word", "char", as the file says
        self.dummy_prefix = dummy_prefix  # None: asked of the model as it loads
        super().__init__(model_proto)

    def _read_model(self, sp):
        # subtle: sentencepiece shows the unknown piece as " ⁇ " in decode; so does its bytes
        self.unknown_bytes = sp.decode([sp.unk_id()]).encode("utf-8") if sp.unk_id() >= 0 else b""
        if self.dummy_prefix is None:
            self.dummy_prefix = sp.encode_as_pieces("a")[:1] == [SPACE + "a"]
        self.special_tokens = {sp.id_to_piece(i): i for i in range(sp.get_piece_size())
                               if sp.is_control(i)}

    def decode_tokens_bytes(self, ids):
        ids = list(ids)
        tokens = super().decode_tokens_bytes(ids)
        if not self.dummy_prefix:
            return tokens
        specials = self.inverse_special_tokens
        for i, idx in enumerate(ids):
            if idx in specials:
                continue
            if self._sp.id_to_piece(idx).startswith(SPACE):
                tokens[i] = tokens[i][1:]  # the dummy prefix sentencepiece added
            break
        return tokens

    def train(self, text, vocab_size, verbose=False, **kwargs):
        raise ValueError(f"{self.name} is pretrained and cannot be trained; the Train page "
                         "makes a SentencePiece BPE of your own")
