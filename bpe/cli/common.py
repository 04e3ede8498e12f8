"""What every command of the command line shares: the one-line error, reading text files
and standard input, loading a model file, checking paths before work (inputs are regular
files; no output is a file the command reads), the progress bar, and the arguments several
commands take (--pattern, --engine/--workers/--scheduler).
"""
import hashlib
import os
import stat
import time

from .. import reference
from ..corpus import CountProgress
from ..counting.dask_engine import count_files_dask
from ..counting import stream
from ..formats import atomic, gpt2, reading
from ..loading import load

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
    """A file's text; CliError naming the file if it is missing, no regular file, over
    stream.WHOLE_MAX_BYTES (it is read whole) or not UTF-8."""
    check_files([path])
    try:
        data = reading.read_regular(path, stream.WHOLE_MAX_BYTES, "the text file")
    except OSError as e:
        raise CliError(f"{path}: {e.strerror}") from None
    except ValueError as e:
        raise CliError(f"{e}; encode a bigger corpus to a file with -o OUT") from None
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
    if model in reference.REFERENCES and not os.path.exists(model):
        try:
            return reference.load_reference(model), reference.REFERENCES[model].sha256
        except FileNotFoundError as e:
            raise CliError(str(e)) from None
    if not os.path.exists(model):
        raise CliError(f"{model}: no such file, and no reference tokenizer is called that; "
                       f"give a tokenizer file's path or one of {', '.join(reference.REFERENCES)}")
    tok = load_model(model, pattern)
    if os.path.isdir(model):
        return tok, None  # a folder has no one file to hash
    digest = hashlib.sha256()
    with reading.open_regular(model, "the model") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return tok, digest.hexdigest()


def load_model(path, pattern=None):
    """The tokenizer in a file bpe.load opens (by its content). pattern: only for tiktoken
    ranks of an unknown file, which hold none (known ones get their owner's). CliError if
    it is missing; ValueError if it is no regular file (a FIFO, a device) or a folder bpe.load
    cannot open."""
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        raise CliError(f"{path}: no such file") from None
    if not stat.S_ISDIR(mode):  # a folder: bpe.load opens the tokenizer files in it
        reading.check_regular(path, mode, "the model")
    return load(path, pattern=pattern)


def model_files(model):
    """The files reading model may touch, for check_outputs: the file itself, the sidecar
    written with it (a .model's .vocab, a .vocab's .model), and for GPT-2's pair or a
    folder, the files beside or in it."""
    if os.path.isdir(model):
        return [os.path.join(model, name) for name in os.listdir(model)]
    folder, name = os.path.split(model)
    stem, ext = os.path.splitext(model)
    files = [model]
    if ext in (".model", ".vocab"):
        files += [stem + ".model", stem + ".vocab"]
    if name in gpt2.VOCAB_NAMES + gpt2.MERGES_NAMES:
        files += [os.path.join(folder, n) for n in gpt2.VOCAB_NAMES + gpt2.MERGES_NAMES]
    return files


def check_outputs(outputs, reads, command):
    """CliError before any work if an output is (or links to, by symlink or hard link) a
    file the command reads, or exists and is no regular file: a save replaces its target,
    so `bpe train c.txt -o c` beside a c.vocab corpus would lose the corpus."""
    for output in outputs:
        same = reading.same_file_as(output, reads)
        if same is not None:
            what = (f"{output} is a file" if os.path.abspath(same) == os.path.abspath(output)
                    else f"the output {output} is {same} (through a link), a file")
            raise CliError(f"{what} {command} reads; writing the output there would lose it, "
                           "so give -o another name")
        atomic.real_target(output)  # SaveError now, not after the work, for a FIFO or folder


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
        if isinstance(p, CountProgress):
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


def check_files(paths, what="the input"):
    """CliError for the first path that is missing, a folder, no regular file (a FIFO, a
    device, a socket: ValueError) or unreadable, before any work."""
    for path in paths:
        try:
            mode = os.stat(path).st_mode
        except FileNotFoundError:
            raise CliError(f"{path}: no such file") from None
        except OSError as e:
            raise CliError(f"{path}: {e.strerror}") from None
        if stat.S_ISDIR(mode):
            raise CliError(f"{path} is a folder; give text files")
        reading.check_regular(path, mode, what)
        if not os.access(path, os.R_OK):
            raise CliError(f"{path}: permission denied")


def count_part(tok, args, bar):
    """The Part of args.files, counted by the engine the arguments ask for."""
    if args.workers is not None and args.workers < 1:
        raise CliError(f"--workers must be at least 1, not {args.workers}")
    if args.engine == "dask" or args.scheduler:
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
