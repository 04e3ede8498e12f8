"""Hostile tokenizer files of issue 32's third round, built in place (no file is shipped),
and one way to run an attempt on them: `measure(code)` runs Python in a fresh process with
an address-space cap and reports what it ended in, its CPU seconds and its peak memory.

tests/bpe/test_hostile_parts.py asserts on them; the same builders give bench/RESULTS.md
its before/after figures (run this file: `python tests/helpers/hostile_parts.py`).
"""
import base64
import json
import os
import random
import struct
import subprocess
import sys
from pathlib import Path

from bpe import RegexTokenizer
from bpe.formats.hf.bytelevel import bytes_to_unicode
from bpe.formats.hf.tokenizer_json import hf_json

ROOT = Path(__file__).resolve().parents[2]
CAP_BYTES = 1 << 30


# ------------------------------------------------------------------ builders
def html_vocab(n=100_000):
    """A Unigram tokenizer.json of n pieces shaped like HTML, entities and Markdown
    ("<script>7</script>", "&amp;9", "**3** ![x](http://h/3)"), as bytes: what a visitor
    sends to make the Vocabulary page escape and draw many hostile strings (issue 32's
    "pieces are HTML/JS-shaped strings")."""
    tags = ("b", "i", "script", "div", "span", 'a href="x"', "img src=x onerror=alert(1)")
    pieces = ["<unk>"] + [(f"<{t}>{i}</{t.split()[0]}>", f"&amp;{i}", f"<{t}>{i}",
                           f"**{i}** ![x](http://h/{i})")[i % 4]
                          for i, t in ((i, tags[i % len(tags)]) for i in range(n - 1))]
    return json.dumps({
        "version": "1.0", "truncation": None, "padding": None, "added_tokens": [],
        "normalizer": None, "pre_tokenizer": None, "post_processor": None, "decoder": None,
        "model": {"type": "Unigram", "unk_id": 0,
                  "vocab": [[piece, -1.0 - i / n] for i, piece in enumerate(pieces)]}}).encode()


def html_wordpiece(n=100_000):
    """html_vocab(n)'s pieces as a WordPiece tokenizer.json ({piece: id}, unk "<unk>"), as
    bytes: the same visitor file for the models that keep a piece -> id object."""
    document = json.loads(html_vocab(n))
    pieces = [piece for piece, _ in document["model"]["vocab"]]
    document["model"] = {"type": "WordPiece", "unk_token": "<unk>",
                         "vocab": {piece: idx for idx, piece in enumerate(pieces)}}
    return json.dumps(document).encode()


def bpe_merges(n=100_000, byte_level=False, as_lists=False):
    """A BPE tokenizer.json of n merges, as compact UTF-8 bytes (as tokenizers writes a file):
    each merge joins a random token made so far and one character of the alphabet, so its
    vocab is the alphabet and n tokens, a merge per token as GPT-2's (~30 B a token in the
    file: its vocab entry and its merge). Byte-level (GPT-2's alphabet in its id order, a
    ByteLevel pre-tokenizer) or SentencePiece style (letters and "\u2581", Metaspace, byte
    fallback); merges written "left right", or [left, right] as tokenizers >= 0.20 writes
    them."""
    rng = random.Random(n)
    if byte_level:
        alphabet = sorted(bytes_to_unicode().values())
        extra = []
    else:
        alphabet = [chr(c) for c in range(ord("a"), ord("z") + 1)] + ["\u2581"]
        extra = ["<unk>"] + [f"<0x{b:02X}>" for b in range(256)]
    vocab = {token: idx for idx, token in enumerate(extra + alphabet)}
    tokens, merges = list(alphabet), []
    while len(merges) < n:
        left, right = rng.choice(tokens), rng.choice(alphabet)
        made = left + right
        if made in vocab:
            continue
        vocab[made] = len(vocab)
        tokens.append(made)
        merges.append([left, right] if as_lists else f"{left} {right}")
    model = {"type": "BPE", "dropout": None, "unk_token": None if byte_level else "<unk>",
             "continuing_subword_prefix": None, "end_of_word_suffix": None,
             "fuse_unk": not byte_level, "byte_fallback": not byte_level,
             "ignore_merges": False, "vocab": vocab, "merges": merges}
    if byte_level:
        split = {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True,
                 "use_regex": True}
    else:
        split = {"type": "Metaspace", "replacement": "\u2581", "prepend_scheme": "always",
                 "split": True}
    document = {"version": "1.0", "truncation": None, "padding": None, "added_tokens": [],
                "normalizer": None, "pre_tokenizer": split, "post_processor": None,
                "decoder": dict(split), "model": model}
    return json.dumps(document, ensure_ascii=False, separators=(",", ":")).encode()


def charsmap(key=b"a", replacement=b"b" * (2 << 20)):
    """A precompiled charsmap (darts-clone trie + strings, laid out as sentencepiece's own
    builder lays out one rule) with one key, key (1 byte), replaced by replacement: the
    root's offset c ^ 1 puts the child for byte c at unit 1, its leaf at unit 1 ^ 3."""
    (c,) = key
    units = [0] * 256
    units[0] = (c ^ 1) << 10
    units[1] = c | (1 << 8) | (3 << 10)          # label c, has a leaf, offset 3
    units[2] = 1 << 31                           # the leaf: value 0 (the first string)
    trie = struct.pack(f"<{len(units)}I", *units)
    return struct.pack("<I", len(trie)) + trie + replacement + b"\0"


def precompiled(blob):
    return {"type": "Precompiled", "precompiled_charsmap": base64.b64encode(blob).decode()}


def hf_doc(**changes):
    """A small valid tokenizer.json (bytes): ours, trained on a few words, with an NFC
    normalizer (so it is read as any file, not as one of ours) and some keys replaced."""
    doc = hf_json(RegexTokenizer().train("ab ba abab " * 20, 260))
    return json.dumps({**doc, "normalizer": {"type": "NFC"}, **changes}).encode("utf-8")


def _varint(n):
    out = bytearray()
    while True:
        b, n = n & 0x7F, n >> 7
        out.append(b | (0x80 if n else 0))
        if not n:
            return bytes(out)


def _field(number, payload):
    return _varint(number << 3 | 2) + _varint(len(payload)) + payload


def sp_piece(text, kind=1, score=0.0):
    """One ModelProto.SentencePiece: 1 text, 2 score, 3 type (1 normal, 2 unknown, 3 control)."""
    return _field(1, _field(1, text.encode()) + b"\x15" + struct.pack("<f", score)
                  + b"\x18" + _varint(kind))


def _numbered(template, count, kind, score):
    """sp_piece(template % i, kind, score) for i in range(count), for millions of pieces:
    the same bytes built from one template (every length here is one varint byte), since
    sp_piece per piece took 11 of the 13 s of the millions-of-pieces test."""
    tail = b"\x15" + struct.pack("<f", score) + b"\x18" + _varint(kind)
    pieces = []
    for i in range(count):
        text = template % i
        inner = b"\x0a%c%b%b" % (len(text), text, tail)
        assert len(inner) < 128, "a numbered piece's length must fit one varint byte"
        pieces.append(b"\x0a%c%b" % (len(inner), inner))
    return pieces


def sp_model(pieces=(), charsmap_blob=None, controls=0, normal=0):
    """A SentencePiece unigram .model's bytes: <unk>, then `controls` control pieces, then
    `normal` numbered pieces, then pieces (text, type); charsmap_blob as its normalizer's
    precompiled_charsmap (field 3.2)."""
    out = [sp_piece("<unk>", 2), sp_piece("a", 1, -1.0), sp_piece("b", 1, -2.0),
           sp_piece("\u2581", 1, -3.0)]
    out += _numbered(b"<c%d>", controls, 3, 0.0)
    out += _numbered(b"p%d", normal, 1, -4.0)
    out += [sp_piece(text, kind) for text, kind in pieces]
    trainer = _field(2, b"\x18\x01")  # model_type UNIGRAM
    normalizer = b""
    if charsmap_blob is not None:
        normalizer = _field(3, _field(1, b"custom") + _field(2, charsmap_blob))
    return b"".join(out) + trainer + normalizer


# ------------------------------------------------------------------ the runner
_PRELUDE = """
import json, resource, sys, time
def _report(outcome, message=''):
    usage = resource.getrusage(resource.RUSAGE_SELF)
    peak = next(int(l.split()[1]) / 1024 for l in open('/proc/self/status')
                if l.startswith('VmHWM'))
    print(json.dumps({'outcome': outcome, 'message': message[:300],
                      'cpu': usage.ru_utime + usage.ru_stime, 'peak_mb': peak}))
try:
    exec(compile(sys.stdin.read(), 'attempt', 'exec'))
except (ValueError, TypeError) as e:
    _report('sentence', f'{type(e).__name__}: {e}')
except MemoryError:
    _report('MemoryError')
except BaseException as e:
    _report('traceback', f'{type(e).__name__}: {e}')
else:
    _report('ok')
"""


def measure(code, cap_bytes=CAP_BYTES, timeout=300):
    """Run code in a fresh process (address space capped): {'outcome': ok | sentence |
    MemoryError | traceback | killed, 'message', 'cpu' (s), 'peak_mb' (VmHWM: ru_maxrss
    would carry the forking parent's)}. CPU time bounds the run: RLIMIT_CPU at timeout."""
    def limit():
        import resource
        resource.setrlimit(resource.RLIMIT_AS, (cap_bytes, cap_bytes))
        resource.setrlimit(resource.RLIMIT_CPU, (timeout, timeout))
    env = {**os.environ, "PYTHONPATH": os.pathsep.join((str(ROOT), str(ROOT / "tests")))}
    run = subprocess.run([sys.executable, "-c", _PRELUDE], input=code, text=True,
                         capture_output=True, env=env, preexec_fn=limit)
    lines = run.stdout.strip().splitlines()
    if run.returncode or not lines:
        return {"outcome": "killed", "message": (run.stderr or "")[-300:], "cpu": None,
                "peak_mb": None, "returncode": run.returncode}
    return json.loads(lines[-1])


def load_code(data, name, *then):
    """Code that loads data as a visitor's file named name (as `tok`), then runs then."""
    return "\n".join((f"from bpe import load_bytes\ntok = load_bytes({data!r}, {name!r})",)
                     + then)


def hostile_files():
    """{family: (file bytes, file name, text, then)}: each hostile file a visitor can send,
    the text that runs into it, and the code (on `tok` and `text`) that does; families()
    runs them in a capped process, bench/hostile.py uploads them to the app and pastes the
    text on Tokenize."""
    seq = lambda kind, key, step, n: {"type": "Sequence", key: [step] * n}  # noqa: E731
    encode, round_trip = "tok.encode_ordinary(text)", "tok.decode(tok.encode_ordinary(text))"
    bare = {"version": "1.0", "added_tokens": [], "normalizer": None, "pre_tokenizer": None,
            "post_processor": None, "decoder": None}
    return {
        "precompiled-bomb": (hf_doc(normalizer=precompiled(charsmap())), "tokenizer.json",
                             "a" * 1500, encode),
        "prepend-long": (hf_doc(normalizer={"type": "Prepend", "prepend": "x" * 3_000_000}),
                         "tokenizer.json", "a b " * 300, encode),
        "decoder-replace-empty": (hf_doc(decoder={"type": "Replace", "pattern": {"String": ""},
                                                  "content": "x" * 10_000}),
                                  "tokenizer.json", "ab " * 2000, round_trip),
        "normalizer-sequence-20k": (
            hf_doc(normalizer=seq("Sequence", "normalizers", {"type": "Lowercase"}, 20_000)),
            "tokenizer.json", "Hello " * 2000, encode),
        "decoder-sequence-20k": (hf_doc(decoder=seq("Sequence", "decoders", {"type": "Fuse"},
                                                    20_000)),
                                 "tokenizer.json", "ab " * 2000, round_trip),
        "split-sequence": (hf_doc(pre_tokenizer={"type": "Sequence", "pretokenizers": [
            {"type": "Split", "pattern": {"Regex": r"\s+"}, "behavior": "Isolated"},
            {"type": "Split", "pattern": {"Regex": "(a|aa)+$|."}, "behavior": "Isolated"}]}),
            "tokenizer.json", ("a" * 30 + "b ") * 100, encode),
        "template-huge-id": (hf_doc(post_processor=template(2 ** 70)), "tokenizer.json", "ab",
                             "tok.decode(tok.encode(text))"),
        # issue 32: 30-40 s on a few KB before (pieces a..a*3000, 5,000 a's)
        "unigram-lattice": (json.dumps({**bare, "model": {
            "type": "Unigram", "unk_id": 0, "vocab": [["<unk>", 0.0]] + [
                ["a" * k, -float(k)] for k in range(1, 3001)]}}).encode(),
            "tokenizer.json", "a" * 5000, encode),
        # ours is linear here; tokenizers (the parity badge) is cubic
        "wordpiece-long-word": (json.dumps({**bare, "model": {
            "type": "WordPiece", "unk_token": "[UNK]", "continuing_subword_prefix": "##",
            "max_input_chars_per_word": 10 ** 9, "vocab": {
                "[UNK]": 0, "b": 1, "##a": 2, **{"b" + "a" * k: 2 + k for k in range(1, 2000)}}}}
        ).encode(), "tokenizer.json", "b" + "a" * 20_000, encode),
        "sp-charsmap-bomb": (sp_model(charsmap_blob=charsmap()), "x.model", "a" * 1500,
                             "tok.encode(text)"),
        "sp-300k-controls": (sp_model(controls=300_000), "x.model", "ab " * 100,
                             "[tok.encode(text) for _ in range(5)]"),
    }


def families():
    """{family: code} for every hostile file this round bounds (for the figures)."""
    return {
        **{name: load_code(data, file_name, f"text = {text!r}", then)
           for name, (data, file_name, text, then) in hostile_files().items()},
        "sp-3m-pieces": load_code(sp_model(normal=3_000_000), "x.model", "tok.encode('ab')"),
        "gpt2-merges-10m": "from bpe.formats.gpt2 import parse_merges\n"
                           "parse_merges(b'#version: 0.2\\n' + b'a b\\n' * 10_000_000)",
        "gpt2-vocab-120mb": "from bpe.formats.gpt2 import parse_vocab\n"
                            "parse_vocab(b'{' + b','.join(b'\"%x\":%d' % (i, i % 9_000_000) "
                            "for i in range(12_000_000)) + b'}')",
        "minbpe-doubling": minbpe_doubling_code(),
    }


def template(idx):
    return {"type": "TemplateProcessing",
            "single": [{"SpecialToken": {"id": "<s>", "type_id": 0}},
                       {"Sequence": {"id": "A", "type_id": 0}}],
            "pair": [], "special_tokens": {"<s>": {"id": "<s>", "ids": [idx], "tokens": ["<s>"]}}}


def minbpe_doubling_code(n=24):
    """A minbpe .model whose merges double one token (a, aa, aaaa, ...), each merge then
    used again with every earlier one, then loaded and its vocabulary built."""
    lines = ["minbpe v1", "", "0", "97 97"]
    lines += [f"{255 + k} {255 + k}" for k in range(1, n)]
    data = ("\n".join(lines) + "\n").encode()
    return load_code(data, "x.model", "len(tok.vocab)")


if __name__ == "__main__":
    chosen = sys.argv[1:] or list(families())
    for name, code in families().items():
        if name in chosen:
            print(name, json.dumps(measure(code)), flush=True)
