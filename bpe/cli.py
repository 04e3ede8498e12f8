"""The command line, for corpora too big for a browser: train, encode, export.

    python -m bpe train FILE [FILE ...] --vocab-size N [--kind basic|regex]
                        [--pattern gpt4|gpt2|gpt4o|REGEX] [--min-frequency N] -o PREFIX
    python -m bpe encode --model PREFIX.model [FILE]     # ids as a JSON array
    python -m bpe export PREFIX.model --format tiktoken|hf -o OUT

Bad input prints one line, `bpe: error: ...`, to stderr and exits with status 1 (2 for
a command line argparse cannot parse); never a traceback. Training draws a progress bar
on stderr when stderr is a terminal. This file only parses, reads and reports: the work
is bpe's.
"""
import argparse
import json
import os
import sys
import time

from . import export
from .basic import BasicTokenizer
from .regex import PATTERNS, RegexTokenizer

BAR_WIDTH = 30
BAR_INTERVAL = 0.1  # seconds between redraws; redrawing every merge would slow training


class CliError(Exception):
    """A user error worth one line on stderr."""


class _Parser(argparse.ArgumentParser):
    def error(self, message):
        # argparse prints the usage block too; one line is what the user needs
        sys.stderr.write(f"bpe: error: {message} (see {self.prog} --help)\n")
        sys.exit(2)


def build_parser():
    parser = _Parser(prog="python -m bpe",
                     description="Train, use and export byte-pair-encoding tokenizers.")
    commands = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)

    train = commands.add_parser("train", help="learn merges from text files")
    train.add_argument("files", nargs="+", metavar="FILE", help="UTF-8 text files to train on")
    train.add_argument("--vocab-size", type=int, required=True, metavar="N",
                       help="256 byte tokens plus N - 256 merges")
    train.add_argument("--kind", choices=["basic", "regex"], default="regex",
                       help="regex (split first, default) or basic (whole text)")
    train.add_argument("--pattern", default="gpt4", metavar="gpt4|gpt2|gpt4o|REGEX",
                       help="split pattern for --kind regex (default gpt4)")
    train.add_argument("--min-frequency", type=int, default=1, metavar="N",
                       help="stop when the best pair occurs fewer than N times")
    train.add_argument("-o", "--output", required=True, metavar="PREFIX",
                       help="writes PREFIX.model and PREFIX.vocab")

    encode = commands.add_parser("encode", help="print the ids of a text as a JSON array")
    encode.add_argument("--model", required=True,
                        help="a .model, .tiktoken or tokenizer.json file")
    encode.add_argument("file", nargs="?", metavar="FILE", help="text file (default: stdin)")
    encode.add_argument("--pattern", default="gpt4", metavar="gpt4|gpt2|gpt4o|REGEX",
                        help="split pattern for a .tiktoken model, which holds none "
                             "(default gpt4)")
    encode.add_argument("--allowed-special", choices=["none_raise", "none", "all"],
                        default="none_raise",
                        help="special-token text: refuse (default), as ordinary text, or as "
                             "special tokens")

    exp = commands.add_parser("export", help="write a .model file in another format")
    exp.add_argument("model", help="a .model file (or .tiktoken / tokenizer.json)")
    exp.add_argument("--format", choices=["tiktoken", "hf"], required=True,
                     help="tiktoken ranks or a Hugging Face tokenizer.json")
    exp.add_argument("-o", "--output", required=True, metavar="OUT", help="the file to write")
    return parser


def read_text(path):
    """A file's text; CliError naming the file if it is missing or not UTF-8."""
    try:
        with open(path, "rb") as f:
            data = f.read()
    except FileNotFoundError:
        raise CliError(f"{path}: no such file") from None
    except IsADirectoryError:
        raise CliError(f"{path} is a folder; give text files") from None
    except OSError as e:
        raise CliError(f"{path}: {e.strerror}") from None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise CliError(f"{path} is not UTF-8 text (byte 0x{data[e.start]:02x} at offset "
                       f"{e.start}); convert it first, e.g. iconv -f latin1 -t utf-8") from None


def load_model(path, pattern="gpt4"):
    if not os.path.exists(path):
        raise CliError(f"{path}: no such file")
    return export.load_file(path, pattern=pattern)


class ProgressBar:
    """Draws `[#####-----] 412/1000 merges  3,100 merges/s` over itself with \\r."""

    def __init__(self, stream):
        self.stream = stream
        self.last = 0.0

    def __call__(self, p):
        now = time.monotonic()
        if now - self.last < BAR_INTERVAL and p.done != p.total:
            return
        self.last = now
        filled = BAR_WIDTH * p.done // max(p.total, 1)
        self.stream.write(f"\r[{'#' * filled}{'-' * (BAR_WIDTH - filled)}] {p.done}/{p.total} "
                          f"merges  {p.merges_per_s:,.0f} merges/s")
        self.stream.flush()

    def close(self):
        if self.last:
            self.stream.write("\n")


def cmd_train(args):
    if args.vocab_size < 256:
        raise CliError(f"--vocab-size must be at least 256 (the 256 byte tokens), "
                       f"not {args.vocab_size}")
    if args.min_frequency < 1:
        raise CliError(f"--min-frequency must be at least 1, not {args.min_frequency}")
    if args.kind == "basic" and args.pattern != "gpt4":
        raise CliError("--pattern is for --kind regex; basic tokenizers do not split")
    tok = BasicTokenizer() if args.kind == "basic" else RegexTokenizer(args.pattern)
    text = "".join(read_text(path) for path in args.files)
    bar = ProgressBar(sys.stderr) if sys.stderr.isatty() else None
    if bar:
        sys.stderr.write(f"counting the chunks of {len(text):,} characters…")
        sys.stderr.flush()
    try:
        tok.train(text, args.vocab_size, min_frequency=args.min_frequency, progress=bar)
    finally:
        if bar:
            bar.close()
    tok.save(args.output)
    print(f"wrote {args.output}.model and {args.output}.vocab: {len(tok.merges)} merges "
          f"(stopped by {tok.stop_reason})", file=sys.stderr)


def cmd_encode(args):
    tok = load_model(args.model, args.pattern)
    text = read_text(args.file) if args.file else _read_stdin()
    print(json.dumps(tok.encode(text, allowed_special=args.allowed_special)))


def _read_stdin():
    data = sys.stdin.buffer.read()
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise CliError(f"standard input is not UTF-8 text (byte 0x{data[e.start]:02x} at "
                       f"offset {e.start})") from None


def cmd_export(args):
    tok = load_model(args.model)
    if args.format == "tiktoken":
        export.save_tiktoken(tok, args.output)
        print(f"wrote {args.output}; the format holds only the ranks, so build the encoder "
              f"with pat_str={export.tiktoken_pattern(tok)!r} and "
              f"special_tokens={tok.special_tokens!r}", file=sys.stderr)
    else:
        export.save_hf(tok, args.output)
        print(f"wrote {args.output}; load it with tokenizers.Tokenizer.from_file",
              file=sys.stderr)


COMMANDS = {"train": cmd_train, "encode": cmd_encode, "export": cmd_export}


def main(argv=None):
    """Run the command line; returns the exit status."""
    args = build_parser().parse_args(argv)
    try:
        COMMANDS[args.command](args)
    except (CliError, ValueError, TypeError) as e:
        print(f"bpe: error: {e}", file=sys.stderr)
        return 1
    except BrokenPipeError:  # e.g. piped into head: the reader has what it wanted
        sys.stdout = open(os.devnull, "w")
        return 141
    except OSError as e:  # e.g. the output folder cannot be written
        print(f"bpe: error: {e.filename or ''}: {e.strerror}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("\nbpe: interrupted", file=sys.stderr)
        return 130
    return 0
