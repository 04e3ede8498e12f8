"""A GGUF file's tokenizer as llama.cpp runs it, written as a tokenizer.json document.

bpe.formats.gguf reads the container and returns a GGUFTokenizer (the `tokenizer.ggml.*`
keys, as data); this module maps that data, family by family, to the tokenizer.json (a
dict) whose pipeline gives llama.cpp's ids: gpt2 (byte-level BPE with the split its `pre`
names), llama (SentencePiece-style BPE ranked by score), bert (WordPiece), gemma4 (BPE
over UTF-8 characters) and t5 (Unigram), with the BOS/EOS llama.cpp adds as the
post-processor. For t5 it also writes the SentencePiece model `sentencepiece` checks the
ids against. It reads no bytes and builds no tokenizer (bpe.gguf_tokenizer does, from
this document); a family or split it cannot reproduce is a ValueError naming it.

>>> from bpe.formats.gguf import GGUFTokenizer
>>> info = GGUFTokenizer(version=3, model="gpt2", pre="gpt-2", tokens=["a", "b", "ab"],
...                      merges=["a b"])
>>> tokenizer_json(info)["model"]["merges"]
[['a', 'b']]
"""
import base64
from array import array
from itertools import accumulate

from .. import budgets
from . import sentencepiece
from .gguf import Strings
from .gguf_parts import MergePairs, Rows, piece_score
from .hf.document_parse import VocabText
from .hf.piece_ids import PieceIds
from .hf.score_bpe import ScorePairs
from .hf.vocabs import TableText

# llama.cpp's split before a gpt2-family BPE, by the `pre` name the file carries: the
# regexes of llm_tokenizer_bpe in llama.cpp's src/llama-vocab.cpp, applied one after the
# other (each splits the pieces the last one left, keeping what it does not match), and
# whether that name turns on ignore_merges. Only names whose llama.cpp test vocabulary
# (ggml-vocab-*.gguf with its .inp/.out) gives llama.cpp's ids here are listed; the rest are
# refused by name (PRE_REFUSED says why), as guessing a split gives other ids.
_GPT2 = r"'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)"
_LLAMA3 = (r"(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])|[^\r\n\p{L}\p{N}]?"
           r"\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+")
_QWEN2 = (r"(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])|[^\r\n\p{L}\p{N}]?"
          r"\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+")
_QWEN35 = (r"(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])|[^\r\n\p{L}\p{N}]?"
           r"[\p{L}\p{M}]+|\p{N}| ?[^\s\p{L}\p{M}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+")
_DEEPSEEK_LLM = [  # its letters and punctuation as llama.cpp lists them
    '[\r\n]',
    '\\s?[A-Za-zµÀ-ÖØ-öø-ƺƼ-ƿǄ-ʓʕ-ʯͰ-ͳͶͷͻ-ͽͿΆΈ-ΊΌΎ-ΡΣ-ϵϷ-ҁҊ-ԯԱ-ՖႠ-ჅᎠ-Ᏽᏸ-ᏽᲐ-ᲺᲽ-Ჿᴀ-ᴫᵫ-ᵷᵹ-ᶚḀ-ἕἘ-Ἕἠ-ὅὈ-Ὅὐ-ὗὙὛὝὟ-ώᾀ-ᾴᾶ-ᾼιῂ-ῄῆ-ῌῐ-ΐῖ-Ίῠ-Ῥῲ-ῴῶ-ῼℂℇℊ-ℓℕℙ-ℝℤΩℨK-ℭℯ-ℴℹℼ-ℿⅅ-ⅉⅎↃↄⰀ-ⱻⱾ-ⳤⳫ-ⳮⳲⳳꙀ-ꙭꚀ-ꚛꜢ-ꝯꝱ-ꞇꞋ-ꞎꭰ-ꮿﬀ-ﬆﬓ-ﬗＡ-Ｚａ-ｚ𐐀-𐑏𐒰-𐓓𐓘-𐓻𐲀-𐲲𐳀-𐳲𑢠-𑣟𞤀-𞥃]+',
    '\\s?[!-/:-~！-／：-～‘-‟\u3000-。]+',
    '\\s+$',
    '[一-龥ࠀ-一가-\ud7ff]+',
    '\\p{N}+',
]
PRE_SPLITS = {  # pre name -> (regexes, ignore_merges)
    "llama-bpe": ([_LLAMA3], True), "llama3": ([_LLAMA3], True), "llama-v3": ([_LLAMA3], True),
    "gpt-2": ([_GPT2], False), "mpt": ([_GPT2], False),
    "starcoder": ([r"\p{N}", _GPT2], False), "refact": ([r"\p{N}", _GPT2], False),
    "command-r": ([r"\p{N}", _GPT2], False),
    "qwen2": ([_QWEN2], False), "qwen35": ([_QWEN35], False),
    "deepseek-coder": ([r"[\r\n]", r"\s?\p{L}+", r"\s?\p{P}+", "[一-龥ࠀ-一가-퟿]+", r"\p{N}"], False),
    "deepseek-llm": (_DEEPSEEK_LLM, False),
    "falcon": ([r"[\p{P}\$\+<=>\^~\|`]+", _GPT2, "[0-9][0-9][0-9]"], False),
}
PRE_REFUSED = {  # pre name -> why it is not opened
    "default": "llama.cpp ships no test ids for its files with this split (aquila, gpt-neox), "
               "so ids from its four-regex default could not be proven to be llama.cpp's",
}


def tokenizer_json(info, source="file"):
    """A GGUFTokenizer -> the tokenizer.json (a dict) that runs as llama.cpp runs it:
    document(info, source) with its model's vocab and merges read whole, for `tokenizers`
    and for a look at the file's parts."""
    doc = document(info, source)
    model = doc["model"]
    for key, value in model.items():
        if isinstance(value, VocabText):
            model[key] = list(value) if value.is_list else dict(value)
    return doc


def document(info, source="file"):
    """A GGUFTokenizer -> the tokenizer.json that runs as llama.cpp runs it, for
    bpe.formats.hf.tokenizer_json to build: gpt2 (byte-level BPE with its pre's split), llama
    (SentencePiece-style BPE: merges by the made piece's score, byte fallback, a "▁" for
    each space and one in front), bert (llama.cpp's WordPiece), gemma4 (BPE over UTF-8
    characters) and t5 (Unigram; bpe.sentencepiece_unigram runs it as llama.cpp does,
    which this form alone does not say). Control tokens are added tokens marked special;
    user-defined ones are added tokens llama.cpp always cuts out; the BOS/EOS llama.cpp adds
    with add_special are the post-processor. ValueError naming the family or the pre when it
    cannot be reproduced.

    A BPE model's vocab is a TableText of the tokens packed (a PieceIds sharing their text)
    and its merges a MergePairs made from the file's a slice at a time (issue 32: as a dict
    and lists they were 8 x Llama 3's file beside the model built from them); json_chunks
    writes them and the models read them as they read a tokenizer.json's slices."""
    if not info.tokens:
        raise ValueError(f"{source} is a GGUF file whose tokenizer has no tokens")
    types = info.token_type or [1] * len(info.tokens)
    if len(types) != len(info.tokens):
        raise ValueError(f"{source}: the GGUF file has {len(info.tokens):,} tokens but "
                         f"{len(types):,} token types; it is damaged")
    if info.model not in FAMILIES:
        why = FAMILIES_REFUSED.get(info.model, "its tokenizer is not implemented here")
        raise ValueError(f"{source} is a GGUF file whose tokenizer is llama.cpp's "
                         f"{info.model!r} family: {why}. This lab opens the "
                         f"{', '.join(repr(f) for f in FAMILIES)} families")
    doc = FAMILIES[info.model](info, source)
    doc["post_processor"] = _post_processor(info, source)
    # by the types first: no str made for the many tokens that are not added ones
    doc["added_tokens"] = [
        {"id": idx, "content": info.tokens[idx], "single_word": False, "lstrip": False,
         "rstrip": False, "normalized": False, "special": kind == 3}
        for idx, kind in enumerate(types) if kind in (3, 4)]
    return doc


def _gpt2_json(info, source):
    pre = info.pre or "default"
    if pre not in PRE_SPLITS:
        why = PRE_REFUSED.get(pre, "its split has not been proven against llama.cpp's tests "
                              "here")
        raise ValueError(f"{source} is a GGUF byte-level BPE whose pre-tokenizer is "
                         f"llama.cpp's {pre!r}: {why}. Opened: "
                         f"{', '.join(sorted(PRE_SPLITS))}")
    regexes, ignore_merges = PRE_SPLITS[pre]
    if info.merges is None:
        raise ValueError(f"{source} is a GGUF byte-level BPE without tokenizer.ggml.merges")
    merges = MergePairs(info.merges, source)
    byte_level = {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": False,
                  "use_regex": False}
    splits = [{"type": "Split", "pattern": {"Regex": regex}, "behavior": "Isolated",
               "invert": False} for regex in regexes]
    return {"version": "1.0", "normalizer": None,
            "pre_tokenizer": {"type": "Sequence", "pretokenizers": splits + [byte_level]},
            "post_processor": None, "decoder": byte_level,
            "model": {"type": "BPE", "dropout": None, "unk_token": None,
                      "continuing_subword_prefix": None, "end_of_word_suffix": None,
                      "fuse_unk": False, "byte_fallback": False,
                      "ignore_merges": ignore_merges, "vocab": _vocab(info),
                      "merges": merges}}


def _llama_json(info, source):
    if info.scores is None or len(info.scores) != len(info.tokens):
        raise ValueError(f"{source} is a GGUF SentencePiece-style ('llama') tokenizer without "
                         "a score for each token; it is damaged")
    vocab = _vocab(info)
    unk = info.flag("unknown_token_id", 0)
    if not (isinstance(unk, int) and 0 <= unk < len(info.tokens)):
        raise ValueError(f"{source}: the GGUF unknown_token_id {unk!r} is not a token")
    normalizers = [{"type": "Replace", "pattern": {"String": " "}, "content": "\u2581"}]
    if info.flag("add_space_prefix", True):
        normalizers.insert(0, {"type": "Prepend", "prepend": "\u2581"})
    return {"version": "1.0",
            "normalizer": {"type": "Sequence", "normalizers": normalizers},
            "pre_tokenizer": None, "post_processor": None,
            "decoder": {"type": "Sequence", "decoders": [
                {"type": "Replace", "pattern": {"String": "\u2581"}, "content": " "},
                {"type": "ByteFallback"}, {"type": "Fuse"},
                {"type": "Strip", "content": " ", "start": 1, "stop": 0}]},
            "model": {"type": "BPE", "dropout": None, "unk_token": info.tokens[unk],
                      "continuing_subword_prefix": None, "end_of_word_suffix": None,
                      "fuse_unk": True, "byte_fallback": True, "ignore_merges": False,
                      "vocab": vocab, "merges": ScorePairs(vocab.table, info.scores, source)}}


def _gemma4_json(info, source):
    """llama.cpp's Gemma 4 (a BPE over raw UTF-8 characters, LLAMA_VOCAB_PRE_TYPE_GEMMA4):
    each space written "▁", the text cut into lines and runs of newlines, merges by rank,
    a run of newlines that is a token taken whole, and a piece no token holds written as its
    <0xXX> byte tokens."""
    if info.merges is None:
        raise ValueError(f"{source} is a GGUF Gemma 4 BPE without tokenizer.ggml.merges")
    return {"version": "1.0",
            "normalizer": {"type": "Replace", "pattern": {"String": " "}, "content": "\u2581"},
            "pre_tokenizer": {"type": "Split", "pattern": {"Regex": "[^\n]+|[\n]+"},
                              "behavior": "Isolated", "invert": False},
            "post_processor": None,
            "decoder": {"type": "Sequence", "decoders": [
                {"type": "Replace", "pattern": {"String": "\u2581"}, "content": " "},
                {"type": "ByteFallback"}, {"type": "Fuse"}]},
            "model": {"type": "BPE", "dropout": None, "unk_token": None,
                      "continuing_subword_prefix": None, "end_of_word_suffix": None,
                      "fuse_unk": False, "byte_fallback": True, "ignore_merges": True,
                      "vocab": _vocab(info), "merges": MergePairs(info.merges, source)}}


def _bert_json(info, source):
    """llama.cpp's WordPiece (its llm_tokenizer_wpm): words split as BERT splits them, each
    written "▁word" and covered by the longest tokens from the left, a word no tokens cover
    being one unknown. In a tokenizer.json's terms a "▁x" token is WordPiece's word-start "x"
    and any other is its continuation "##x", which is the same search; control and
    user-defined tokens keep their text (they are added tokens), and so does the unknown."""
    opts = info.flag("lowercase", True)  # llama.cpp's defaults: lowercase, and strip accents
    strip = info.flag("strip_accents", opts)  # as lowercase says unless the file says
    unk = info.flag("unknown_token_id", 100)
    if not (isinstance(unk, int) and 0 <= unk < len(info.tokens)):
        raise ValueError(f"{source}: the GGUF unknown_token_id {unk!r} is not a token")
    types = info.token_type or [1] * len(info.tokens)
    # the names packed as they come (issue 32: a dict of them and one of their tokens were
    # 5.7 x bert-bge's file); the checks' dicts only when a name repeats or one is refused
    texts, lengths, part = [], array("I"), []
    try:
        for name in _bert_names(info, types, source, len(info.tokens)):
            part.append(name)
            if len(part) == JOIN_NAMES:
                texts.append("".join(part))
                lengths.extend(map(len, part))
                part.clear()
    except ValueError:  # a lone "▁": a clash before it is said first, as it comes first
        _check_bert_owners(info, types, source, len(lengths) + len(part))
        raise
    texts.append("".join(part))
    lengths.extend(map(len, part))
    table = PieceIds.from_packed("".join(texts), array("I", accumulate(lengths, initial=0)))
    del texts, part
    if len(table) < len(info.tokens):  # a name given twice: the same token, or a clash
        _check_bert_owners(info, types, source, len(info.tokens))
    vocab = TableText(table)
    return {"version": "1.0",
            "normalizer": {"type": "BertNormalizer", "clean_text": True,
                           "handle_chinese_chars": True, "strip_accents": bool(strip),
                           "lowercase": bool(opts)},
            "pre_tokenizer": {"type": "BertPreTokenizer"},
            "post_processor": None,
            "decoder": {"type": "WordPiece", "prefix": "##", "cleanup": True},
            "model": {"type": "WordPiece", "unk_token": info.tokens[unk],
                      "continuing_subword_prefix": "##",
                      # llama.cpp has no longest word: every word is searched
                      "max_input_chars_per_word": budgets.MAX_VOCAB_BYTES,
                      "vocab": vocab}}


JOIN_NAMES = 4096


def _bert_names(info, types, source, stop):
    """The WordPiece names of the first stop tokens (_bert_json says which), in id order;
    ValueError at a lone "▁"."""
    for idx in range(stop):
        token = info.tokens[idx]
        if types[idx] in (2, 3, 4):  # unknown, control, user-defined: their own text
            yield token
        elif token.startswith("\u2581"):
            if len(token) == 1:
                raise ValueError(f"{source}: the GGUF WordPiece token {idx} is a lone '\u2581' "
                                 "(a word start covering no character), which a "
                                 "tokenizer.json cannot express; not supported")
            yield token[1:]
        else:
            yield "##" + token


def _check_bert_owners(info, types, source, stop):
    """ValueError when two different tokens of the first stop have one WordPiece name."""
    owner = {}
    for token, name in zip(info.tokens, _bert_names(info, types, source, stop)):
        if name in owner and owner[name] != token:
            raise ValueError(f"{source}: GGUF WordPiece tokens {owner[name]!r:.40} and "
                             f"{token!r:.40} are one token in WordPiece's terms; not supported")
        owner[name] = token


# llama.cpp's BOS/EOS (llama_vocab::impl::load): per family, the default ids and whether
# they are added, which the file's add_bos_token/add_eos_token and *_token_id override.
# A bert (WordPiece) file always gets its BOS ([CLS]) and its separator ([SEP]).
_SPECIAL_DEFAULTS = {  # family -> (bos id, eos id, add bos, add eos)
    "llama": (1, 2, True, False), "gpt2": (11, 11, False, False), "t5": (None, 1, False, True),
    "gemma4": (None, None, True, False),  # llama.cpp turns a Gemma 4 file's BOS on always
}
_ADD_BOS_PRES = {"llama3", "llama-v3", "llama-bpe"}  # gpt2 splits whose BOS is on by default


def _post_processor(info, source):
    """A TemplateProcessing with the ids llama.cpp adds when asked for special tokens
    (llama_tokenize's add_special), or None when it adds none."""
    if info.model == "bert":
        before = [_special_id(info, "bos", 101, source)]
        after = [_special_id(info, "seperator", 102, source)]
    else:
        bos, eos, add_bos, add_eos = _SPECIAL_DEFAULTS[info.model]
        add_bos = info.flag("add_bos_token", add_bos or info.pre in _ADD_BOS_PRES) \
            or info.model == "gemma4"  # llama.cpp overrides a Gemma 4 file's false
        before = [_special_id(info, "bos", bos, source)] if add_bos else []
        after = [_special_id(info, "eos", eos, source)] if info.flag("add_eos_token", add_eos) \
            else []
    if not before and not after:
        return None

    def template(type_id, sequence):
        return ([{"SpecialToken": {"id": info.tokens[i], "type_id": type_id}} for i in before]
                + [{"Sequence": {"id": sequence, "type_id": type_id}}]
                + [{"SpecialToken": {"id": info.tokens[i], "type_id": type_id}} for i in after])
    return {"type": "TemplateProcessing", "single": template(0, "A"),
            "pair": template(0, "A") + template(1, "B"),
            "special_tokens": {info.tokens[i]: {"id": info.tokens[i], "ids": [i],
                                                "tokens": [info.tokens[i]]}
                               for i in before + after}}


def _special_id(info, name, default, source):
    idx = info.flag(f"{name}_token_id", default)
    if not (isinstance(idx, int) and 0 <= idx < len(info.tokens)):
        raise ValueError(f"{source}: the GGUF file adds its {name.upper()} token when asked for "
                         f"special tokens, but its {name}_token_id {idx!r} is not a token")
    return idx


def _vocab(info):
    """token -> id as a TableText (its table shares the tokens' packed text): a token
    listed twice keeps its last id, as llama.cpp's token_to_id, and its first place, as a
    dict of them did."""
    tokens = info.tokens if isinstance(info.tokens, Strings) else Strings.of(info.tokens)
    return TableText(PieceIds.from_packed(tokens.text, tokens.offsets))


def _t5_json(info, source):
    """llama.cpp's Unigram (its llm_tokenizer_ugm, SentencePiece's algorithm) in
    tokenizer.json terms: the pieces and scores as a Unigram model, the charsmap as a
    Precompiled normalizer, the spaces as T5's own tokenizer.json writes them
    (WhitespaceSplit when remove_extra_whitespaces, Metaspace prepending "▁" when
    add_space_prefix). `tokenizers` runs such a form differently (its charsmap match is the
    shortest, its unknown score the lowest of all pieces): bpe.sentencepiece_unigram
    builds llama.cpp's tokenizer from it, and `sentencepiece` is its check
    (t5_sentencepiece_model)."""
    types = info.token_type or [1] * len(info.tokens)
    if info.scores is None or len(info.scores) != len(info.tokens):
        raise ValueError(f"{source} is a GGUF Unigram ('t5') tokenizer without a score for "
                         "each token; it is damaged")
    unk = info.flag("unknown_token_id", 2)  # llama.cpp's t5 default
    if not (isinstance(unk, int) and 0 <= unk < len(info.tokens)):
        raise ValueError(f"{source}: the GGUF unknown_token_id {unk!r} is not a token")
    if 6 in types:
        raise ValueError(f"{source} is a GGUF Unigram ('t5') tokenizer with byte pieces: "
                         "llama.cpp's Unigram never uses them where sentencepiece falls back "
                         "to them, so its ids could not be proven; not supported")
    prefix, merge = _t5_spaces(info, source)
    metaspace = {"type": "Metaspace", "replacement": "\u2581",
                 "prepend_scheme": "always" if prefix else "never", "split": True}
    steps = [{"type": "WhitespaceSplit"}, metaspace] if merge else [metaspace]
    return {"version": "1.0",
            "normalizer": {"type": "Precompiled", "precompiled_charsmap":
                           base64.b64encode(info.charsmap or b"").decode("ascii")},
            "pre_tokenizer": {"type": "Sequence", "pretokenizers": steps},
            "post_processor": None, "decoder": metaspace,
            # gguf_token_type (tokenizers ignores it) keeps what its terms cannot say:
            # which pieces are unused ones, outside the unknown's score
            "model": {"type": "Unigram", "unk_id": unk, "byte_fallback": False,
                      "vocab": Rows(info.tokens, info.scores, row=piece_score),
                      "gguf_token_type": Rows(types)}}


def _t5_spaces(info, source):
    """(add_space_prefix, remove_extra_whitespaces) as llama.cpp reads them for a t5 file
    (both false unless the file says). Only the pairings where llama.cpp's normalizer is
    sentencepiece's are opened: both on (real files) or both off. With one on, llama.cpp
    parts from it: extra spaces removed with no prefix, it still writes a '\u2581' before
    the first word; a prefix with every space kept, a text of spaces only gets no prefix."""
    prefix = bool(info.flag("add_space_prefix", False))
    merge = bool(info.flag("remove_extra_whitespaces", False))
    if merge != prefix:
        why = ("removes extra spaces without a space prefix: llama.cpp then still writes a "
               "'\u2581' before the first word where sentencepiece does not") if merge else (
               "adds a space prefix but keeps extra spaces: llama.cpp then gives a text of "
               "spaces only no prefix where sentencepiece gives one")
        raise ValueError(f"{source} is a GGUF Unigram ('t5') tokenizer that {why}, so its "
                         "ids could not be proven; not supported")
    return prefix, merge


def t5_sentencepiece_model(info, source="file"):
    """The SentencePiece ModelProto (bytes) holding a t5 GGUF file's tokenizer: the same
    pieces, scores, types, charsmap and space settings, for `sentencepiece` to check the
    ids bpe.sentencepiece_unigram gives."""
    _t5_json(info, source)  # the same refusals
    prefix, merge = _t5_spaces(info, source)
    return sentencepiece.unigram_model(
        info.tokens, info.scores, info.token_type or [1] * len(info.tokens),
        unk_id=info.flag("unknown_token_id", 2), charsmap=info.charsmap or b"",
        add_dummy_prefix=prefix, remove_extra_whitespaces=merge)


FAMILIES = {"gpt2": _gpt2_json, "llama": _llama_json, "bert": _bert_json,
            "gemma4": _gemma4_json, "t5": _t5_json}
FAMILIES_REFUSED = {}  # family -> why it is not opened (none today)
