"""The third round of hostile attempts on the core and the CLI (issue 32), in the shape of
helpers.hostile_cases: each a Case that `run_case` runs in a fresh capped process, judged by
CPU time and peak memory. tests/bpe/test_hostile_attempts.py asserts every one;
bench/hostile.py counts them into the table.

Families: the CLI overwriting what it reads (each command, by name, symlink or hard link),
special files (/dev/zero, a FIFO nobody writes to, a socket, a counts file whose header
never ends), tokenizer.json expansion bombs (a Precompiled charsmap, a decoder Replace of
the empty string, a long Prepend, a SentencePiece charsmap), long normalizer and decoder
Sequences, Unigram and WordPiece CPU, a .model of doubling merges, 10M merges lines,
huge unk_token / unk_surface, 300,000 ids in decode and out-of-range template ids.

Where the issue asks for a budget rather than a refusal (CPU, memory), an attempt passes
either way ("either"): the work done within the bounds, or one clear sentence.
"""
import base64
import io
import json
import os
import tempfile

from helpers.hostile_cases import HUGE_ID, Case, hf_doc, load_code, model_text
from helpers.hostile_round2 import BIG

TEXT = b"hello world, the lab's own little corpus. " * 200
MODEL = model_text("", "0", "97 97")
KEPT = r"(?i)reads; writing the output there would lose it"
SPECIAL = r"(?i)is a (named pipe|character device|socket).*not a regular file"
ANY = ""  # "either" attempts: any one clear sentence will do


def _kept(name, data):
    """`after` code: the file name still holds data."""
    return f"assert open({name!r}, 'rb').read() == {data!r}, '{name} was overwritten'"


def _loss(name, what, argv, kept, files, before=""):
    return Case(name, what, "cli", KEPT, argv=argv, files=files, before=before,
                after=_kept(kept, files[kept]))


CASES3 = [
    # -- the CLI overwriting what it reads (the file was gone, with no message)
    _loss("cli-train-onto-input", "train m.vocab -o m: the corpus is the .vocab sidecar",
          ("train", "m.vocab", "--vocab-size", "260", "-o", "m"), "m.vocab", {"m.vocab": TEXT}),
    _loss("cli-train-symlink", "train c.txt -o out, out.model a symlink to c.txt",
          ("train", "c.txt", "--vocab-size", "260", "-o", "out"), "c.txt", {"c.txt": TEXT},
          before="os.symlink('c.txt', 'out.model')"),
    _loss("cli-count-onto-input", "count c.txt -o c.txt",
          ("count", "c.txt", "-o", "c.txt"), "c.txt", {"c.txt": TEXT}),
    _loss("cli-count-hardlink", "count c.txt -o h.counts, a hard link to c.txt",
          ("count", "c.txt", "-o", "h.counts"), "c.txt", {"c.txt": TEXT},
          before="os.link('c.txt', 'h.counts')"),
    _loss("cli-encode-onto-model", "encode c.txt --model m.model -o m.model",
          ("encode", "c.txt", "--model", "m.model", "-o", "m.model"), "m.model",
          {"c.txt": TEXT, "m.model": MODEL}),
    _loss("cli-encode-json-sidecar", "encode c.txt --model t.json -o t (t.json is the sidecar)",
          ("encode", "c.txt", "--model", "t.json", "-o", "t"), "t.json",
          {"c.txt": TEXT, "t.json": hf_doc()}),
    _loss("cli-export-onto-model", "export m.model --format hf -o m.model",
          ("export", "m.model", "--format", "hf", "-o", "m.model"), "m.model", {"m.model": MODEL}),
    _loss("cli-export-symlink", "export m.model -o out.json, a symlink to m.model",
          ("export", "m.model", "--format", "hf", "-o", "out.json"), "m.model",
          {"m.model": MODEL}, before="os.symlink('m.model', 'out.json')"),
    # -- special files (read until 3.7 GB, or a hang, before)
    Case("cli-dev-zero-model", "encode --model /dev/zero", "cli", SPECIAL,
         argv=("encode", "--model", "/dev/zero"), stdin=b"hi"),
    Case("cli-dev-zero-input", "train /dev/zero", "cli", SPECIAL,
         argv=("train", "/dev/zero", "--vocab-size", "260", "-o", "m")),
    Case("cli-dev-zero-counts", "train --from-counts /dev/zero", "cli", SPECIAL,
         argv=("train", "--from-counts", "/dev/zero", "--vocab-size", "260", "-o", "m")),
    Case("cli-fifo-model", "encode --model FIFO nobody writes to (hung forever)", "cli",
         SPECIAL, argv=("encode", "--model", "p"), stdin=b"hi", before="os.mkfifo('p')"),
    Case("cli-fifo-input", "count FIFO nobody writes to", "cli", SPECIAL,
         argv=("count", "p", "-o", "x.counts"), before="os.mkfifo('p')"),
    Case("cli-socket-input", "eval on a socket file", "cli", SPECIAL,
         argv=("eval", "--model", "m.model", "s"), files={"m.model": MODEL},
         before="import socket\nsocket.socket(socket.AF_UNIX).bind('s')"),
    Case("cli-counts-huge-header", "a counts file whose header line never ends (2.4 GB "
         "before)", "cli", r"(?i)header line is longer", mb=200,
         argv=("train", "--from-counts", "h.counts", "--vocab-size", "260", "-o", "m"),
         before="f = open('h.counts', 'wb'); f.write(b'bpe-counts 1\\n{\"pattern\": \"')\n"
                "f.truncate(2 << 30); f.close()  # sparse: no disk used"),
]


# -- tokenizer.json and SentencePiece expansion bombs
def spm_model(rule_repeat=0, unk_surface=None):
    """A small SentencePiece char model as bytes; rule_repeat: its charsmap maps 'a' to
    'b' * rule_repeat (a normalization bomb); unk_surface: set in its trainer spec."""
    import sentencepiece as spm
    from sentencepiece import sentencepiece_model_pb2 as pb
    with tempfile.TemporaryDirectory() as folder:
        options = {}
        if rule_repeat:
            rules = os.path.join(folder, "rules.tsv")
            with open(rules, "w") as f:
                f.write("61\t" + " ".join(["62"] * rule_repeat) + "\n")
            options["normalization_rule_tsv"] = rules
        out = io.BytesIO()
        spm.SentencePieceTrainer.train(sentence_iterator=iter(["hello world abc"] * 50),
                                       model_writer=out, vocab_size=30, model_type="char",
                                       minloglevel=2, **options)
    if unk_surface is None:
        return out.getvalue()
    proto = pb.ModelProto()
    proto.ParseFromString(out.getvalue())
    proto.trainer_spec.unk_surface = unk_surface
    return proto.SerializeToString()


def _charsmap(model_bytes):
    from sentencepiece import sentencepiece_model_pb2 as pb
    proto = pb.ModelProto()
    proto.ParseFromString(model_bytes)
    return base64.b64encode(proto.normalizer_spec.precompiled_charsmap).decode()


SPM_BOMB = spm_model(rule_repeat=100_000)  # 'a' -> 100,000 'b's: 1,500 a's make 150M
PRECOMPILED_BOMB = {"type": "Precompiled", "precompiled_charsmap": _charsmap(SPM_BOMB)}
_ADDED = [{"id": 258, "content": "<x>", "single_word": False, "lstrip": False, "rstrip": False,
           "normalized": False, "special": True}]


def _encode(doc_code, text_code, then=""):
    """Core code: load the tokenizer.json dict doc_code builds, encode text_code."""
    return "\n".join(("import json", "from bpe import load_bytes", f"doc = {doc_code}",
                      "tok = load_bytes(json.dumps(doc).encode(), 'tokenizer.json')",
                      f"ids = tok.encode_ordinary({text_code})", then))


def _doc(**changes):
    return json.loads(hf_doc(**changes))


CASES3 += [
    Case("hf-precompiled-bomb", "Precompiled charsmap a -> b*100,000, encode 30,000 a's "
         "(3 GB and a MemoryError before)", "core", BIG, mb=600,
         code=_encode(repr(_doc(normalizer=PRECOMPILED_BOMB)), "'a' * 30_000")),
    # (a normalizer, so the file is run by HFTokenizer, whose decoders apply)
    Case("hf-decoder-replace-empty", "decoder Replace('', a*100,000), decode 12,000 "
         "characters (3.8 GB before)", "core", BIG, mb=600, code=_encode(
             repr(_doc(normalizer={"type": "Lowercase"}, decoder={
                 "type": "Replace", "pattern": {"String": ""}, "content": "a" * 100_000})),
             "'ab ' * 4000",
             "tok.decode(ids)")),
    Case("hf-prepend-long", "normalizer Prepend of 10 MB, 300 segments between added "
         "tokens (3.5 GB before)", "core", BIG, mb=600, code=_encode(
             f"{_doc(added_tokens=_ADDED)!r}\n"
             "doc['normalizer'] = {'type': 'Prepend', 'prepend': 'p' * 10_000_000}",
             "'<x>'.join(['ab'] * 300)")),
    Case("spm-charsmap-bomb", "SentencePiece .model whose charsmap maps a to b*100,000, "
         "encode 30,000 a's (std::bad_alloc before)", "core", BIG, mb=600,
         code=load_code(SPM_BOMB, "bomb.model", "tok.encode_ordinary('a' * 30_000)")),
    # -- long Sequences and the encoders' CPU (one budget per action)
    Case("hf-normalizer-sequence-20k", "normalizer Sequence of 20,000 Replace steps on "
         "20 KB", "core", ANY, expect="either", mb=600, code=_encode(
             repr(_doc(normalizer={"type": "Sequence", "normalizers": [
                 {"type": "Replace", "pattern": {"String": "q"}, "content": "q"}] * 20_000})),
             "'hello world ' * 2000")),
    Case("hf-decoder-sequence-20k", "decoder Sequence of 20,000 Strip steps, decode 20 KB",
         "core", ANY, expect="either", mb=600, code=_encode(
             repr(_doc(decoder={"type": "Sequence", "decoders": [
                 {"type": "Strip", "content": " ", "start": 0, "stop": 0}] * 20_000})),
             "'hello world ' * 2000", "tok.decode(ids)")),
    Case("hf-unigram-lattice", "Unigram of pieces a..a*3000, encode 5,000 a's (30-40 s "
         "before)", "core", ANY, expect="either", mb=600, code=_encode(
             "{'version': '1.0', 'added_tokens': [], 'normalizer': None, 'pre_tokenizer': None,"
             " 'post_processor': None, 'decoder': None, 'model': {'type': 'Unigram', "
             "'unk_id': 0, 'vocab': [['<unk>', 0.0]] + [['a' * k, -float(k)] for k in "
             "range(1, 3001)]}}", "'a' * 5000")),
    Case("hf-wordpiece-long-word", "WordPiece with max_input_chars_per_word 10^9, one "
         "20,000-character word", "core", ANY, expect="either", mb=600, code=_encode(
             "{'version': '1.0', 'added_tokens': [], 'normalizer': None, 'pre_tokenizer': None,"
             " 'post_processor': None, 'decoder': None, 'model': {'type': 'WordPiece', "
             "'unk_token': '[UNK]', 'continuing_subword_prefix': '##', "
             "'max_input_chars_per_word': 10**9, 'vocab': {'[UNK]': 0, 'b': 1, '##a': 2, "
             "**{'b' + 'a' * k: 2 + k for k in range(1, 2000)}}}}", "'b' + 'a' * 20_000")),
    Case("cli-eval-unigram", "bpe eval on a Unigram file (29 s before)", "cli", ANY,
         expect="either", mb=600, argv=("eval", "--model", "u.json", "c.txt"),
         files={"c.txt": b"a" * 5000 + b" " + TEXT[:3000], "u.json": json.dumps(
             {"version": "1.0", "added_tokens": [], "normalizer": None, "pre_tokenizer": None,
              "post_processor": None, "decoder": None, "model": {
                  "type": "Unigram", "unk_id": 0, "vocab": [["<unk>", 0.0]] + [
                      ["a" * k, -float(k)] for k in range(1, 3001)]}}).encode()}),
    Case("model-doubling", ".model of doubling merges to 2^20 bytes, encode 100 KB of a's "
         "(12 s before)", "core", ANY, expect="either", mb=600, code=load_code(
             model_text("", "0", "97 97", *(f"{255 + i} {255 + i}" for i in range(1, 20))),
             "double.model", "tok.encode_ordinary('a' * 100_000)")),
    Case("cli-merges-10m", "GPT-2 pair whose merges.txt has 10M lines (1.4-3.8 GB and 40 s "
         "before)", "cli", ANY, expect="either", mb=600, seconds=10,
         argv=("encode", "--model", "vocab.json"), stdin=b"ab",
         before="import json\nfrom bpe.formats.gpt2 import BYTE_TO_CHAR\n"
                "vocab = {c: b for b, c in BYTE_TO_CHAR.items()}; vocab['ab'] = 256\n"
                "open('vocab.json', 'w').write(json.dumps(vocab))\n"
                "with open('merges.txt', 'w') as f:\n"
                "    f.write('#version: 0.2\\n')\n"
                "    for _ in range(100):\n"
                "        f.write('a b\\n' * 100_000)"),
    # -- huge unknown-token surfaces and many ids
    Case("hf-wordpiece-unk-25mb", "WordPiece unk_token of 25 MB, encode 'zz qq' (1-2.8 GB a "
         "run before)", "core", ANY, expect="either", mb=700, code=_encode(
             "{'version': '1.0', 'added_tokens': [], 'normalizer': None, 'pre_tokenizer': "
             "{'type': 'Whitespace'}, 'post_processor': None, 'decoder': None, 'model': "
             "{'type': 'WordPiece', 'unk_token': 'U' * 25_000_000, "
             "'continuing_subword_prefix': '##', 'max_input_chars_per_word': 100, "
             "'vocab': {'U' * 25_000_000: 0, 'a': 1}}}", "'zz qq ' * 50", "tok.decode(ids)")),
    Case("spm-unk-surface-8mb", "SentencePiece unk_surface of 8 MB, decode 50 unknowns",
         "core", ANY, expect="either", mb=400,
         code=load_code(spm_model(unk_surface="U" * (8 << 20)), "u.model",
                    "ids = tok.encode_ordinary('zzz qqq ' * 50)", "tok.decode(ids)")),
    Case("decode-300k-ids", "decode 300,000 ids, a tenth out of range (KeyError; +989 MB in "
         "the app before)", "core", r"(?i)id|range|unknown", expect="either", mb=300,
         code="from bpe import RegexTokenizer\n"
              "tok = RegexTokenizer().train('hello world ' * 50, 270)\n"
              "tok.decode([i % 300 for i in range(300_000)])"),
    Case("hf-template-huge-id", "post-processor template with special id 10^30 "
         "(OverflowError before)", "core", HUGE_ID, code=_encode(
             repr(_doc(post_processor={"type": "TemplateProcessing", "single": [
                 {"SpecialToken": {"id": "<s>", "type_id": 0}},
                 {"Sequence": {"id": "A", "type_id": 0}}], "pair": [], "special_tokens": {
                 "<s>": {"id": "<s>", "ids": [10 ** 30], "tokens": ["<s>"]}}})),
             "'hello'", "tok.encode('hello')")),
]
