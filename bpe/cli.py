"""The command line, for corpora too big for a browser: count, train, encode, export.

    python -m bpe train FILE [FILE ...] --vocab-size N [--kind basic|regex]
                        [--pattern gpt4|gpt2|gpt4o|REGEX] [--min-frequency N] -o PREFIX
                        [--tie-break first|smallest_ids|greatest_bytes]
                        [--engine local|dask] [--workers N] [--scheduler tcp://HOST:PORT]
    python -m bpe count FILE [FILE ...] -o OUT.counts [--pattern P] [--engine ...]
    python -m bpe train --from-counts A.counts [B.counts ...] --vocab-size N -o PREFIX
                        [--tie-break RULE]
    python -m bpe encode --model PREFIX.model [FILE]     # ids as a JSON array
    python -m bpe export PREFIX.model --format tiktoken|hf -o OUT

Bad input prints one line, `bpe: error: ...`, to stderr and exits with status 1 (2 for
a command line argparse cannot parse); never a traceback. Counting and training draw
progress bars on stderr when stderr is a terminal. Outputs are written beside their
target and renamed into place, so a failed run leaves none behind. This file only
parses, reads and reports: the work is bpe's.
"""
import argparse
import json
import os
import sys
import time

from . import files, hf, ranks, stream
from .formats import load
from .basic import BasicTokenizer
from .counts import read_pattern, write_counts
from .regex import RegexTokenizer, compile_pattern
from .train import TIE_BREAKS

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

    train = commands.add_parser("train", help="learn merges from text files or counts files")
    train.add_argument("files", nargs="*", metavar="FILE", help="UTF-8 text files to train on")
    train.add_argument("--from-counts", nargs="+", metavar="COUNTS", default=[],
                       help="train on counts files (python -m bpe count) joined in order, "
                            "instead of text files")
    train.add_argument("--vocab-size", type=int, required=True, metavar="N",
                       help="256 byte tokens plus N - 256 merges")
    train.add_argument("--kind", choices=["basic", "regex"], default="regex",
                       help="regex (split first, default) or basic (whole text)")
    _pattern_argument(train)
    train.add_argument("--min-frequency", type=int, default=1, metavar="N",
                       help="stop when the best pair occurs fewer than N times")
    train.add_argument("--tie-break", choices=TIE_BREAKS, default="first",
                       help="which pair is merged when several share the top count: the "
                            "one met first in the text (minbpe, default), the smallest ids "
                            "(rustbpe) or the greatest bytes (CS336); the same merges from "
                            "text files and from counts files")
    train.add_argument("-o", "--output", required=True, metavar="PREFIX",
                       help="writes PREFIX.model and PREFIX.vocab")
    _engine_arguments(train)

    count = commands.add_parser("count", help="write the ordered chunk counts of text files")
    count.add_argument("files", nargs="+", metavar="FILE", help="UTF-8 text files to count")
    _pattern_argument(count)
    count.add_argument("-o", "--output", required=True, metavar="OUT",
                       help="the counts file to write (e.g. corpus.counts)")
    _engine_arguments(count)

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


def _pattern_argument(command):
    command.add_argument("--pattern", default=None, metavar="gpt4|gpt2|gpt4o|REGEX",
                         help="split pattern for --kind regex (default gpt4; with "
                              "--from-counts, the counts files' own)")


def _engine_arguments(command):
    command.add_argument("--engine", choices=["local", "dask"], default="local",
                         help="count in this machine's processes (default) or on Dask")
    command.add_argument("--workers", type=int, default=None, metavar="N",
                         help="counting processes (local: default 1; dask: the local "
                              "cluster's workers, default 2)")
    command.add_argument("--scheduler", metavar="tcp://HOST:PORT",
                         help="use this running Dask scheduler (implies --engine dask)")


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
    return load(path, pattern=pattern)


class ProgressBar:
    """Draws `[#####-----] 412/1000 merges  3,100 merges/s` over itself with \\r, and
    the counting phase as `[##--------] 96.0/512.0 MB  21.3 MB/s  ETA 0:19`."""

    def __init__(self, stream):
        self.stream = stream
        self.last = 0.0

    def __call__(self, p):
        now = time.monotonic()
        if now - self.last < BAR_INTERVAL and p.done != p.total:
            return
        self.last = now
        if isinstance(p, stream.CountProgress):
            text = (f"{_size(p.done)}/{_size(p.total)}  {_size(p.bytes_per_s)}/s"
                    f"  ETA {int(p.eta) // 60}:{int(p.eta) % 60:02d}")
        else:
            text = f"{p.done}/{p.total} merges  {p.merges_per_s:,.0f} merges/s"
        filled = BAR_WIDTH * p.done // max(p.total, 1)
        self.stream.write(f"\r[{'#' * filled}{'-' * (BAR_WIDTH - filled)}] {text}  ")
        self.stream.flush()

    def close(self):
        if self.last:
            self.stream.write("\n")
            self.last = 0.0


def _size(n):
    """1234567 -> '1.2 MB'."""
    for unit in ("B", "kB", "MB", "GB"):
        if n < 1000 or unit == "GB":
            return f"{n:,.0f} {unit}" if unit == "B" else f"{n:,.1f} {unit}"
        n /= 1000


def check_files(paths):
    """CliError for the first path that is missing or not a file, before any work."""
    for path in paths:
        if not os.path.exists(path):
            raise CliError(f"{path}: no such file")
        if os.path.isdir(path):
            raise CliError(f"{path} is a folder; give text files")
        if not os.access(path, os.R_OK):
            raise CliError(f"{path}: permission denied")


def count_part(tok, args, bar):
    """The Part of args.files, counted by the engine the arguments ask for."""
    if args.workers is not None and args.workers < 1:
        raise CliError(f"--workers must be at least 1, not {args.workers}")
    if args.engine == "dask" or args.scheduler:
        from .dask_engine import count_files_dask
        return count_files_dask(tok, args.files, scheduler=args.scheduler,
                                workers=args.workers or 2, progress=bar)
    return stream.count_files(tok, args.files, workers=args.workers or 1, progress=bar)


def make_tokenizer(args):
    if args.kind == "basic":
        if args.pattern is not None:
            raise CliError("--pattern is for --kind regex; basic tokenizers do not split")
        return BasicTokenizer()
    return RegexTokenizer(args.pattern or "gpt4")


def cmd_train(args):
    if args.vocab_size < 256:
        raise CliError(f"--vocab-size must be at least 256 (the 256 byte tokens), "
                       f"not {args.vocab_size}")
    if args.min_frequency < 1:
        raise CliError(f"--min-frequency must be at least 1, not {args.min_frequency}")
    if bool(args.files) == bool(args.from_counts):
        raise CliError("give text files or --from-counts COUNTS..., not both or neither")
    check_files(args.files or args.from_counts)
    files.check_prefix(args.output)  # before the training, not after it
    bar = ProgressBar(sys.stderr) if sys.stderr.isatty() else None
    options = dict(min_frequency=args.min_frequency, progress=bar, tie_break=args.tie_break)
    try:
        if args.from_counts:
            if args.kind == "basic":
                raise CliError("counts files hold split chunks; --kind basic cannot use them")
            tok = RegexTokenizer(read_pattern(args.from_counts[0]))
            if args.pattern is not None and compile_pattern(args.pattern)[0] != tok.pattern:
                raise CliError(f"{args.from_counts[0]} was counted with another --pattern; "
                               "leave --pattern out to use the counts files' own")
            stream.train_from_counts(tok, args.from_counts, args.vocab_size, **options)
        else:
            tok = make_tokenizer(args)
            if getattr(tok, "_is_preset", False):
                part = count_part(tok, args, bar)
                if bar:
                    bar.close()
                stream.train_from_part(tok, part, args.vocab_size, **options)
            elif args.engine == "dask" or args.scheduler or (args.workers or 1) > 1:
                raise CliError("only the preset patterns (gpt2, gpt4, gpt4o) count in pieces "
                               "and in parallel; a custom pattern or --kind basic trains in "
                               "one process on the whole text")
            else:
                stream.train_from_files(tok, args.files, args.vocab_size, **options)
    finally:
        if bar:
            bar.close()
    tok.save(args.output)  # atomic: both files or neither (bpe.files)
    print(f"wrote {args.output}.model and {args.output}.vocab: {len(tok.merges)} merges "
          f"(stopped by {tok.stop_reason}; tie rule {args.tie_break})", file=sys.stderr)


def cmd_count(args):
    check_files(args.files)
    tok = RegexTokenizer(args.pattern or "gpt4")
    bar = ProgressBar(sys.stderr) if sys.stderr.isatty() else None
    try:
        part = count_part(tok, args, bar)
    finally:
        if bar:
            bar.close()
    n_chunks = len(part.counts) + len(part.head)
    size = write_counts(args.output, tok.pattern, part, sources=args.files)
    print(f"wrote {args.output}: about {n_chunks:,} distinct chunks, {size:,} bytes",
          file=sys.stderr)


def cmd_encode(args):
    tok = load_model(args.model, args.pattern)
    text = read_text(args.file) if args.file else _read_stdin()
    print(json.dumps(tok.encode(text, allowed_special=args.allowed_special)))


def _read_stdin():
    data = files.read_stdin_bytes()  # ValueError if it is closed (bpe encode <&-)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise CliError(f"standard input is not UTF-8 text (byte 0x{data[e.start]:02x} at "
                       f"offset {e.start})") from None


def cmd_export(args):
    tok = load_model(args.model)
    if args.format == "tiktoken":
        ranks.save_tiktoken(tok, args.output)
        print(f"wrote {args.output}; the format holds only the ranks, so build the encoder "
              f"with pat_str={ranks.tiktoken_pattern(tok)!r} and "
              f"special_tokens={tok.special_tokens!r}", file=sys.stderr)
    else:
        hf.save_hf(tok, args.output)
        print(f"wrote {args.output}; load it with tokenizers.Tokenizer.from_file",
              file=sys.stderr)


COMMANDS = {"train": cmd_train, "count": cmd_count, "encode": cmd_encode, "export": cmd_export}


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
    except files.SaveError as e:  # "cannot write m.model: No space left on device"
        print(f"bpe: error: {e}", file=sys.stderr)
        return 1
    except OSError as e:  # e.g. the output folder cannot be written
        where = f"{e.filename}: " if e.filename else ""
        print(f"bpe: error: {where}{e.strerror or e}", file=sys.stderr)
        return 1
    except MemoryError:
        print("bpe: error: out of memory; use a smaller input or vocabulary, or count in "
              "pieces (bpe count, then bpe train --from-counts)", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("\nbpe: interrupted", file=sys.stderr)
        return 130
    except Exception as e:  # a bug, still one line and no traceback
        message = " ".join(str(e).split())[:200]
        print(f"bpe: error: {type(e).__name__}: {message} (a bug in bpe; please report it)",
              file=sys.stderr)
        return 1
    return 0
