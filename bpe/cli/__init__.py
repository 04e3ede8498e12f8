"""The command line, for corpora too big for a browser: count, train, encode, export.

    python -m bpe train FILE [FILE ...] --vocab-size N [--kind basic|regex]
                        [--pattern gpt4|gpt2|gpt4o|REGEX] [--min-frequency N] -o PREFIX
                        [--tie-break first|smallest_ids|greatest_bytes]
                        [--engine local|dask] [--workers N] [--scheduler tcp://HOST:PORT]
    python -m bpe count FILE [FILE ...] -o OUT.counts [--pattern P] [--engine ...]
    python -m bpe train --from-counts A.counts [B.counts ...] --vocab-size N -o PREFIX
                        [--tie-break RULE]
    python -m bpe encode --model NAME_OR_FILE [FILE]        # ids as a JSON array
    python -m bpe encode FILE [FILE ...] --model NAME_OR_FILE -o ids.bin [--dtype uint16|uint32]
                        [--workers N] [--engine dask [--scheduler tcp://HOST:PORT]] [--eot]
    python -m bpe export PREFIX.model --format tiktoken|hf -o OUT
    python -m bpe eval --model NAME_OR_FILE [--against NAME ...] [--json] FILE [FILE ...]

Bad input prints one line, `bpe: error: ...`, to stderr and exits with status 1 (2 for
a command line argparse cannot parse); never a traceback. Counting and training draw
progress bars on stderr when stderr is a terminal. Outputs are written beside their
target and renamed into place, so a failed run leaves none behind. This package only
parses, reads and reports: the work is bpe's. One module per command (train.py holds
train and count), each with `add_parsers(commands)`; common.py holds what they share.
"""
import argparse
import os
import sys

from ..formats import atomic
from . import encode, eval, export, train
from .common import CliError

COMMAND_MODULES = (train, encode, export, eval)  # each adds its subcommands, in --help's order


class _Parser(argparse.ArgumentParser):
    def error(self, message):
        # argparse prints the usage block too; one line is what the user needs
        sys.stderr.write(f"bpe: error: {message} (see {self.prog} --help)\n")
        sys.exit(2)


def build_parser():
    parser = _Parser(prog="python -m bpe",
                     description="Train, use and export byte-pair-encoding tokenizers.")
    commands = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    for module in COMMAND_MODULES:
        module.add_parsers(commands)
    return parser


def main(argv=None):
    """Run the command line; returns the exit status."""
    args = build_parser().parse_args(argv)
    try:
        args.run(args)
    except (CliError, ValueError, TypeError) as e:
        print(f"bpe: error: {e}", file=sys.stderr)
        return 1
    except BrokenPipeError:  # e.g. piped into head: the reader has what it wanted
        sys.stdout = open(os.devnull, "w")
        return 141
    except atomic.SaveError as e:  # "cannot write m.model: No space left on device"
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
