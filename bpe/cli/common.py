"""What every command of the command line shares: the one-line error, reading text files
and standard input, loading a model file, checking paths before work, the progress bar,
and the arguments several commands take (--pattern, --engine/--workers/--scheduler).
"""
import hashlib
import os
import time

from ..counting import stream
from ..formats import atomic
from ..formats.loader import load

BAR_WIDTH = 30
BAR_INTERVAL = 0.1  # seconds between redraws; redrawing every merge would slow training


class CliError(Exception):
    """A user error worth one line on stderr."""


def pattern_argument(command):
    command.add_argument("--pattern", default=None, metavar="gpt4|gpt2|gpt4o|REGEX",
                         help="split pattern for --kind regex (default gpt4; with "
                              "--from-counts, the counts files' own)")


def engine_arguments(command):
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


def pattern_for_ranks(command):
    command.add_argument("--pattern", default=None, metavar="gpt4|gpt2|gpt4o|REGEX",
                         help="split pattern for tiktoken ranks of a file the lab does not "
                              "know (ranks hold none; known files get their owner's)")


def open_model(model, pattern=None):
    """(tokenizer, the sha256 of its file): a reference by name (bpe.reference), else a
    file bpe.load opens by its content; CliError saying what to give when it is neither."""
    from .. import reference
    if model in reference.REFERENCES and not os.path.exists(model):
        try:
            return reference.load_reference(model), reference.REFERENCES[model].sha256
        except FileNotFoundError as e:
            raise CliError(str(e)) from None
    if not os.path.exists(model):
        raise CliError(f"{model}: no such file, and no reference tokenizer is called that; "
                       f"give a tokenizer file's path or one of {', '.join(reference.REFERENCES)}")
    tok = load_model(model, pattern)
    digest = hashlib.sha256()
    with open(model, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return tok, digest.hexdigest()


def load_model(path, pattern=None):
    """The tokenizer in a file bpe.load opens (by its content). pattern: only for tiktoken
    ranks of an unknown file, which hold none (known ones get their owner's)."""
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
        from ..counting.dask_engine import count_files_dask
        return count_files_dask(tok, args.files, scheduler=args.scheduler,
                                workers=args.workers or 2, progress=bar)
    return stream.count_files(tok, args.files, workers=args.workers or 1, progress=bar)


def read_stdin():
    data = atomic.read_stdin_bytes()  # ValueError if it is closed (bpe encode <&-)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise CliError(f"standard input is not UTF-8 text (byte 0x{data[e.start]:02x} at "
                       f"offset {e.start})") from None
