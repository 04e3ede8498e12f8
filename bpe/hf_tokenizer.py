"""HFTokenizer: a tokenizer.json that is not in our own layout, run as `tokenizers` runs it
(normalizer, added tokens, pre-tokenizer, model, post-processor; decoder for decode).

Which `tokenizers` call it matches:
- `encode(text, allowed_special="all")` == `Tokenizer.encode(text).ids`, tokenizers'
  default add_special_tokens=True: a post-processor's template ids ([CLS] ... [SEP],
  <s> ... </s>, a BOS) are added. `encode_ordinary(text)` adds none and cuts out no added
  token (tokenizers has no such call: it is our tiktoken-style name);
- `decode(ids)` == `Tokenizer.decode(ids, skip_special_tokens=False)` (special tokens
  kept, so a round trip gives the text back); `decode(ids, skip_special_tokens=True)`
  is tokenizers' own default;
- `token_spans(text)` == the character offsets of `Tokenizer.encode(text).offsets`
  where the two agree on what a token covers (see token_spans for the rule).
For the views, `decode_tokens_bytes(ids)` gives each token's honest bytes, not its vocab
string: WordPiece "##ing" -> b"ing", Metaspace "▁the" -> b" the", a byte-fallback
"<0xE2>" -> b"\\xe2", a BPE end-of-word suffix dropped; an unknown token gives the unk
token's own text (b"[UNK]"): the text it covered is token_spans' business.
"""
import operator
import zlib
from array import array
from itertools import chain

from .base import CACHE_LIMIT, Tokenizer, raise_disallowed
from .basic import BasicTokenizer
from .decode import MAX_ID
from .formats.hf.added_tokens import AddedTokens
from .formats.hf.bytelevel import ByteLevelBPE
from .formats.hf.decoders import PostProcessor
from .formats.hf.document_parse import parse_document
from .formats.hf.document_text import KeptDocument, compress_document
from .formats.hf.packed_vocab import DENSE_SLOTS_PER_PIECE, PackedPieces, PackedVocab
from .formats.hf.piece_bytes import piece_bytes, space_chars
from .formats.hf.piece_ids import PieceIds
from .formats.hf.tokenizer_json import read_document
from .pretrained import Pretrained
from .regex import RegexTokenizer
from .specials import NO_SPECIALS, minbpe_policy
from .text import clean_text


class HFTokenizer(Pretrained, Tokenizer, KeptDocument):
    """A tokenizer.json with any model (byte-level BPE in any id layout, BPE, WordPiece,
    Unigram) and its pipeline: ids identical to `tokenizers`' (see the module). It cannot
    be trained or saved as a .model file; export it again with save_hf."""

    made_from = "a tokenizer.json"

    def __init__(self, pipeline, model, name="tokenizer.json", document=None, added=None,
                 decoder=None, post=None, added_ids=(), rebuild=None, document_zlib=None,
                 make_document=None):
        self.rebuild = rebuild  # (rebuild_from, name, special_tokens) -> this again, for pickle
        # what rebuild takes (None: the kept text for rebuild_hf, else the document); a
        # builder that keeps no text sets it (bpe.gguf_tokenizer: a llama file's arrays)
        self.rebuild_from = None
        self.pipeline = pipeline
        self.model = model
        self.layout = model if isinstance(model, ByteLevelBPE) else None  # byte-level only
        self.name = name
        self.keep_document(document, document_zlib, make_document)
        self.spaces = space_chars(document or {})  # read here, once, not from the text
        self.added = added or AddedTokens({}, pipeline.normalize)
        self.decoder = decoder
        self.post = post or PostProcessor()
        self.added_ids = set(added_ids)  # the file's added tokens' ids: not model tokens
        # read by bpe.formats.ranks: tiktoken has no normalizers, prefix spaces or stripping tokens
        self.not_tiktoken = (f"{name} is a Hugging Face pipeline (normalizers, "
                             "pre-tokenizers, added-token flags) that tiktoken ranks cannot "
                             "express; export it as tokenizer.json")
        self.pattern = ""
        Tokenizer.__init__(self)
        self.pattern = pipeline.pattern or ""

    def __reduce__(self):
        # its pipeline holds closures, which pickle cannot carry: rebuild from the file
        # (the reader hands it the function, so this file needs no import of the reader)
        # rebuild_hf takes the compressed text; another rebuild (bpe.gguf_tokenizer's) the dict
        # or, set as rebuild_from, the data it was made from
        source = self.rebuild_from
        if source is None:
            source = self.document_zlib if self.rebuild is rebuild_hf else self.document
        return self.rebuild, (source, self.name, dict(self.special_tokens))

    def __copy__(self):
        # copy.copy would go through __reduce__, building the whole tokenizer again from
        # its file (a second model: issue 32's 100,000 pieces parsed again on every rerun
        # of the special-token sandbox); Tokenizer.with_special_tokens wants a shallow copy
        # sharing the read-only parts (pipeline, model, packed pieces), which this is
        twin = object.__new__(type(self))
        twin.__dict__.update(self.__dict__)
        return twin

    @property
    def merges(self):
        """(int, int) -> int in this file's ids, in merge order ({} for WordPiece/Unigram)."""
        made, lefts, rights = self.merge_columns()
        return dict(zip(zip(lefts, rights), made))

    def merge_columns(self):  # WordPiece/Unigram models have none
        return getattr(self.model, "merge_columns", lambda: (array("q"),) * 3)()

    @merges.setter
    def merges(self, value):
        if value:
            raise ValueError(f"{self.name}'s merges come from its file and cannot be set")

    @property
    def packed_merges(self):
        """`merges` as the model keeps it, for a digest (issue 32: no dict of every merge)."""
        return getattr(self.model, "packed_merges", None)

    # ---------------------------------------------------------------- vocab
    def token_strings(self):
        """id -> the token's string in the file (what tokenizers' id_to_token gives)."""
        out = {idx: token for token, idx in self.model.vocab.items()}
        out.update({idx: special for special, idx in self.special_tokens.items()})
        return out

    @property
    def unk_ids(self):
        """The ids that stand for unknown text (the model's unk token), for views to mark;
        token_spans gives the text each one replaced."""
        model = self.model
        token = getattr(model, "unk_token", None)  # WordPiece's, WordLevel's
        if token is not None:
            return {model.vocab[token]} if token in model.vocab else set()
        return {model.unk} - {None}  # BPE's unk_token's id, Unigram's unk_id

    def _build_vocab(self):
        # The model's pieces' bytes are packed once per model (issue 32: a dict of 100,000
        # bytes objects cost ~95 B a piece, the packed bytes and offsets ~45) and shared by
        # every vocab made as the special tokens change, and by with_special_tokens' copies
        made = self.__dict__.get("_pieces")
        if made is None or made[0] is not self.model:
            pieces = self.layout.pieces if self.layout is not None else \
                PackedPieces(self._model_tokens_bytes())
            made = self._pieces = (self.model, pieces)
        return PackedVocab(made[1], {idx: special.encode("utf-8")
                                     for special, idx in self.special_tokens.items()})

    def _model_tokens_bytes(self):
        """(id, bytes) of the model's own tokens (not the file's added tokens), in the
        model's vocab order (a byte-level model packs its own: ByteLevelBPE.pieces)."""
        added = self.added_ids
        honest = piece_bytes(self.model, self.spaces, self.name)
        return ((idx, honest(token)) for token, idx in self.model.vocab.items()
                if idx not in added)

    # --------------------------------------------------------------- encode
    def split(self, text):
        return self.pipeline.pieces(text)

    def _encode_chunk(self, text_bytes):
        if self.layout is not None:
            return self.layout.encode_bytes(text_bytes)
        return self.model.ids(text_bytes.decode("utf-8"))

    def encode(self, text, *policy, allowed_special=NO_SPECIALS, disallowed_special="all",
               add_special_tokens=True):
        """Tokenizer.encode's policy (tiktoken's), with the added tokens cut out as
        tokenizers cuts them and the post-processor's ids around: allowed_special="all"
        gives tokenizers' own encode(text).ids (add_special_tokens=True). A disallowed token
        raises only where it would be cut out (a single_word token inside a word is
        ordinary text there too).

        subtle: only the allowed tokens are looked for, as tiktoken does; tokenizers has no
        such subset (it looks for all and can skip specials), so with a subset a skipped
        token cannot hide an allowed one that overlaps it. add_special_tokens=False leaves
        the post-processor's ids out, as tokenizers' encode(text, add_special_tokens=False)
        (and llama.cpp's tokenize with add_special=false for a GGUF file's BOS/EOS).
        """
        if policy:  # minbpe's positional form: its meaning, with the added tokens cut out too
            allowed_special, disallowed_special = minbpe_policy(
                policy, allowed_special, disallowed_special)
        text = clean_text(text)
        allowed = self._check_policy(text, allowed_special, disallowed_special)
        wrap = self.post.wrap if add_special_tokens else list
        if not allowed:
            return wrap(self.encode_ordinary(text))
        cache = self._cache
        if len(cache) > CACHE_LIMIT:
            cache.clear()
        ids, pre_tokenize = [], self.pipeline.pre_tokenize
        for i, (special, piece) in enumerate(self._cut(text, allowed)):
            if special is None:
                ids += chain.from_iterable(map(cache.__getitem__, pre_tokenize(piece, i == 0)))
            else:
                ids.append(self.special_tokens[special])
        return wrap(ids)

    def _check_policy(self, text, allowed_special, disallowed_special):
        allowed, disallowed = self._policy(allowed_special, disallowed_special)
        if disallowed:
            for special, _ in self._cut(text, allowed | disallowed, specials_only=True):
                if special in disallowed:
                    raise_disallowed(special)
        return allowed

    def _cut(self, text, specials, specials_only=False):
        return self.added.cut(text, specials, self.pipeline.normalize, self._special_finder,
                              specials_only)

    def token_spans(self, text, *, allowed_special="all", disallowed_special=()):
        """[(start, end)]: for each id of encode(text, same policy), the characters of text
        it covers, as text[start:end]. Rule: a token covers the original characters its
        normalized characters came from (a whole normalization unit if normalization merged
        or split characters: "ﬁ" -> "f" + "i" gives both tokens the "ﬁ"); a character only
        a pre-tokenizer added (Metaspace's "▁", ByteLevel's prefix space) covers nothing,
        so a token made only of it is empty (start == end); an unknown token covers the
        text it replaced; a post-processor's ids ([CLS], [SEP]) are empty spans (0, 0),
        as there. tokenizers' offsets agree except that it gives an added "▁" the span of the
        character after it.

        >>> from bpe.hf_tokenizer import tokenizer_from_hf
        >>> tok = tokenizer_from_hf({"model": {"type": "WordPiece", "vocab": {"[UNK]": 0,
        ...     "hug": 1, "##s": 2}}, "pre_tokenizer": {"type": "Whitespace"}})
        >>> tok.encode("hugs ok"), tok.token_spans("hugs ok")
        ([1, 2, 0], [(0, 3), (3, 4), (5, 7)])
        """
        return [(a, b) for _, a, b in self.encode_with_spans(
            text, allowed_special=allowed_special, disallowed_special=disallowed_special)]

    def encode_with_spans(self, text, *, allowed_special="all", disallowed_special=()):
        """[(id, start, end)]: encode(text, same policy) with token_spans' spans."""
        text = clean_text(text)
        allowed = self._check_policy(text, allowed_special, disallowed_special)
        out, model = [], self.model
        cut = self.added.cut_aligned(text, allowed, self.pipeline.normalize_aligned,
                                     self._special_finder)
        for i, (special, piece, spans) in enumerate(cut):
            if special is not None:
                out.append((self.special_tokens[special], spans[0][0], spans[-1][1]))
                continue
            for ptext, start, shift in self.pipeline.pre_tokenize_pieces(piece, i == 0):
                for idx, a, b in model.tokens(ptext):
                    na, nb = start + max(0, a - shift), start + max(0, b - shift)
                    if nb > na:
                        out.append((idx, spans[na][0], spans[nb - 1][1]))
                    else:
                        at = spans[na][0] if na < len(spans) else spans[-1][1]
                        out.append((idx, at, at))
        return [(idx, 0, 0) for idx in self.post.before] + out + \
            [(idx, 0, 0) for idx in self.post.after]

    # --------------------------------------------------------------- decode
    def decode_tokens_bytes(self, ids):
        """The bytes of each token, one entry per id (DecodeMethods' meaning): the packed
        vocab's bulk lookup when every id is a piece's."""
        ids = list(ids)
        if all(type(idx) is int for idx in ids):
            found = self.vocab.tokens_bytes(ids)
            if found is not None:
                return found
        return Tokenizer.decode_tokens_bytes(self, ids)

    def decode_bytes(self, ids, skip_special_tokens=False):
        if self.decoder is None:  # byte-level with a ByteLevel decoder: the bytes themselves
            if not self.added_ids:
                return Tokenizer.decode_bytes(self, self._known(ids))
            # subtle: tokenizers' ByteLevel decoder reads an added token's string as
            # byte-level characters too when they all are ("é" alone is byte 0xE9, so '�'),
            # else as its UTF-8
            strings, token_bytes = self._strings(), self.layout.token_bytes
            ids = self._known(ids)
            return b"".join(token_bytes(strings[idx]) if idx in self.added_ids
                            else self.vocab[idx] for idx in ids)
        return self.decode(ids, skip_special_tokens=skip_special_tokens).encode("utf-8")

    def decode(self, ids, errors="replace", skip_special_tokens=False):
        """The text, as tokenizers' decode(ids, skip_special_tokens) gives it (its decoder
        run on the token strings; no decoder: joined by spaces). errors applies to byte-level
        files only, whose decoder is UTF-8 itself. An id this file does not have is skipped,
        as tokenizers skips it; one that is no id at all (negative, 2**32 or more, not an
        integer) is a ValueError or TypeError saying so (tokenizers' OverflowError)."""
        ids = self._known(ids)
        if self.decoder is None:
            if skip_special_tokens:
                specials = set(self.special_tokens.values())
                ids = [idx for idx in ids if idx not in specials]
            return Tokenizer.decode(self, ids, errors=errors)
        if skip_special_tokens:
            ids = [idx for idx in ids if idx not in self.inverse_special_tokens]
        return self.decoder(self.token_strings_of(ids))

    def token_strings_of(self, ids):
        """token_strings().get(idx) for each of ids, without that dict: from a packed model's
        table itself with the special tokens on top (issue 32: a list of every piece's str,
        6.6 MB for 100,000 pieces, was made on the first decode, and the view's hover card
        kept an id -> str dict of them all), else from decode's kept list. None for an id
        with no string."""
        pieces = getattr(self.model, "vocab", None)
        if not isinstance(pieces, PieceIds):
            strings = self._strings()
            if isinstance(strings, dict):
                return [strings.get(idx) for idx in ids]
            return [strings[idx] if 0 <= idx < len(strings) else None for idx in ids]
        specials = self.inverse_special_tokens
        if not specials or specials.keys().isdisjoint(ids):
            return pieces.strings(ids)
        piece = pieces.piece
        return [specials[idx] if idx in specials else piece(idx) for idx in ids]

    def _known(self, ids):
        """The ids of this file's tokens among ids, in order (tokenizers' decode skips the
        others); a value that cannot be an id at all is a sentence, not a traceback."""
        vocab, out = self.vocab, []
        ids = list(ids)
        if all(type(idx) is int for idx in ids) and not vocab.missing(ids):
            return ids  # the common case: all known, found without a call per id
        for idx in ids:
            if type(idx) is not int:
                try:
                    idx = operator.index(idx)
                except TypeError:
                    raise TypeError(f"token ids are integers; got {idx!r:.40} "
                                    f"({type(idx).__name__})") from None
            if idx in vocab:
                out.append(idx)
            elif not 0 <= idx < MAX_ID:
                raise ValueError(f"token id {str(idx)[:40]} is not an id: ids are integers from 0 "
                                 f"to {MAX_ID - 1} (this file has {self.n_vocab:,})")
        return out

    def _strings(self):
        """token_strings for decode, kept: a list indexed by id when the ids are dense (8 B
        an id, where a second id -> str dict of 100,000 pieces cost ~40 B each for as long
        as the tokenizer lives), else the dict itself."""
        if self.__dict__.get("_token_strings_for") != id(self.vocab):
            strings = self.token_strings()
            top = max(strings, default=-1) + 1
            if top <= DENSE_SLOTS_PER_PIECE * len(strings) + 256:
                by_id = [None] * top
                for idx, token in strings.items():
                    by_id[idx] = token
                strings = by_id
            self._token_strings = strings
            self._token_strings_for = id(self.vocab)
        return self._token_strings


def tokenizer_from_hf(data, source="tokenizer.json", *, consume=False, make_document=None):
    """A tokenizer.json (a dict) -> our tokenizer, ids identical to `tokenizers`' own
    `encode(text).ids` (with allowed_special="all": HF always matches its added tokens; this
    module's docstring says which calls match which). The file is read by
    bpe.formats.hf.tokenizer_json.read_document, which refuses with a ValueError naming any
    component we do not implement exactly. Files we wrote come back as Basic/RegexTokenizer;
    others as an HFTokenizer.

    consume=True says data is the caller's own fresh parse, which this may empty: the
    model's vocab and merges lists are let go once the model is built from them (its JSON
    text is kept first), so the parse's lists and the tokenizer's vocab are never all alive
    at once (issue 32: a 100,000-piece Unigram file's peak, 53 -> 42 MB of live objects).
    make_document: () -> data again, from what the caller's tokenizer keeps anyway (a GGUF
    llama file's arrays: bpe.gguf_tokenizer), so its text is not kept (HFTokenizer)."""
    # consume: the kept text is made (and compressed) before the model, while only the
    # parse is alive
    document_zlib = compress_document(data) if consume and isinstance(data, dict) else None
    doc = read_document(data, source)
    if doc.is_ours():
        merges = doc.model.merges_in_order()
        if doc.pipeline.pattern:
            tok = RegexTokenizer.from_merges(merges, pattern=doc.pipeline.pattern)
        else:
            tok = BasicTokenizer.from_merges(merges)
    else:
        if document_zlib is None and make_document is None:
            document_zlib = compress_document(data)
        elif document_zlib is not None:
            data["model"].pop("vocab", None)
            data["model"].pop("merges", None)
        tok = HFTokenizer(doc.pipeline, doc.model, name=source, document=data,
                          added=doc.added_tokens, rebuild=rebuild_hf, decoder=doc.decoder,
                          post=doc.post, added_ids=set(doc.added.values()),
                          document_zlib=document_zlib, make_document=make_document)
    try:
        tok.register_special_tokens(doc.added)
    except ValueError as e:
        raise ValueError(f"{source}: {e}") from None
    doc.check_added_ids(source)
    return tok


def rebuild_hf(document_zlib, name, special_tokens):
    """An HFTokenizer again from its tokenizer.json (document_bytes' form, zlib-compressed:
    HFTokenizer.document_zlib) and special tokens (for pickle)."""
    document = parse_document(zlib.decompress(document_zlib), name, errors="surrogatepass")
    tok = tokenizer_from_hf(document, source=name, consume=True)
    tok.register_special_tokens(special_tokens)
    return tok
