"""Saving a method's tokenizer in the one file that can hold it, and building it back.

- bpe and parity: minbpe's PREFIX.model + PREFIX.vocab (plain merges in GPT-4's chunks);
- hf-bpe, wordpiece, unigram: a Hugging Face tokenizer.json, PREFIX.json, that
  `tokenizers` loads with identical ids;
- superbpe, boundless, picky: the lab's method file, PREFIX.json (bpe.formats.method_file),
  since neither format above can replay their merges (across chunks, of whole
  pretokens, or with removals).
bpe.load opens each of them back with identical ids (tests/bpe/test_cli_methods.py).
"""
from ..formats import atomic
from ..formats.hf.tokenizer_json import save_hf
from ..formats.method_file import method_file_text
from ..train import TrainResult
from .boundless import BoundlessTokenizer
from .picky import PickyTokenizer
from .superbpe import SuperBPETokenizer

MODEL_METHODS = ("bpe", "parity")
HF_METHODS = ("hf-bpe", "wordpiece", "unigram")
LAB_METHODS = ("superbpe", "boundless", "picky")
CLASSES = {"superbpe": SuperBPETokenizer, "boundless": BoundlessTokenizer,
           "picky": PickyTokenizer}


def output_paths(method, prefix):
    """The files a save of method's tokenizer writes for prefix (known before training,
    so the command line can refuse an output that is one of its inputs)."""
    if method in MODEL_METHODS:
        return [f"{prefix}.model", f"{prefix}.vocab"]
    return [f"{prefix}.json"]


def save(tok, method, prefix):
    """Write tok (trained by method) to output_paths(method, prefix), atomically."""
    if method in MODEL_METHODS:
        tok.save(prefix)
    elif method in HF_METHODS:
        save_hf(tok, f"{prefix}.json")
    else:
        atomic.write_files({f"{prefix}.json": method_text(tok, method)})
    return output_paths(method, prefix)


def method_text(tok, method):
    """tok as the lab's method file (bpe.formats.method_file)."""
    merges = [(a, b, idx) for (a, b), idx in tok.merges.items()]
    return method_file_text(
        method, tok.pattern, merges, tok.special_tokens,
        transition=tok.transition if method == "superbpe" else None,
        events=tok.events if method == "picky" else None)


def from_method_data(info):
    """The tokenizer a parsed method file (bpe.formats.method_file.parse_method_file)
    describes."""
    tok = CLASSES[info["method"]](info["pattern"])
    if info["method"] == "picky":
        tok.set_events(info["events"] or [("merge", (a, b), idx)
                                          for a, b, idx in info["merges"]])
    else:
        if info["method"] == "superbpe":
            tok.transition = info["transition"]
        tok.apply_training(TrainResult({(a, b): idx for a, b, idx in info["merges"]}, {},
                                       "loaded"))
    if info["special_tokens"]:
        tok.register_special_tokens(dict(info["special_tokens"]))
    return tok
