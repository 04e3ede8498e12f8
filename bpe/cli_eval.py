"""`python -m bpe eval`: the Evaluate page's report card, on the command line.

    python -m bpe eval --model NAME_OR_FILE [--against NAME ...] [--json] FILE [FILE ...]

(--against once per name, or names joined by commas: --against r50k_base,cl100k_base.)

NAME is a reference tokenizer (bpe.reference: cl100k_base, r50k_base, o200k_base,
llama3...) or a file bpe.load opens (.model, .tiktoken, tokenizer.json). The table has
one row per tokenizer and file, then each tokenizer's total; --against adds tokenizers
to compare with, and a "vs NAME" column each (nanochat's relative difference in tokens).
--json prints a list of rows with the keys of bpe.evaluate.JSON_KEYS instead. Words are
counted as bpe.evaluate.count_words says: whitespace-separated, each Han, Kana or
Hangul character a word.

Two functions for bpe/cli.py: `add_parser(subparsers)` adds the subcommand, `run(args)`
runs it and returns the exit status. A user error prints one line, `bpe: error: ...`,
and returns 2, never a traceback. The figures are bpe.evaluate's; this file only
parses, reads and prints.
"""
import json
import os
import sys

from . import evaluate, reference
from .formats import load


def add_parser(subparsers):
    """Add the eval subcommand to bpe/cli.py's subparsers; returns its parser."""
    names = ", ".join(reference.REFERENCES)
    command = subparsers.add_parser(
        "eval", help="report card: bytes/token, tokens/word, split words, unique tokens",
        description="Evaluate a tokenizer on text files, against reference tokenizers.")
    command.add_argument("files", nargs="+", metavar="FILE", help="UTF-8 text files")
    command.add_argument("--model", required=True, metavar="NAME_OR_FILE",
                         help=f"a reference ({names}) or a tokenizer file bpe.load opens")
    # one name a flag (or several joined by commas): a list after the flag would swallow
    # the FILEs that follow it
    command.add_argument("--against", action="append", default=[], metavar="NAME",
                         help="a reference (or file) to compare with, adding a column; "
                              "repeat it, or join names with commas")
    command.add_argument("--json", action="store_true",
                         help="print a JSON list of rows instead of the table")
    command.add_argument("--pattern", default="gpt4", metavar="gpt4|gpt2|gpt4o|REGEX",
                         help="split pattern for a .tiktoken file, which holds none")
    return command


def open_tokenizer(name, pattern="gpt4"):
    """A reference by name, else the tokenizer file called name; ValueError saying what
    to give when it is neither."""
    if name in reference.REFERENCES:
        try:
            return reference.load_reference(name)
        except FileNotFoundError as e:
            raise ValueError(str(e)) from None
    if os.path.isfile(name):
        return load(name, pattern=pattern)
    raise ValueError(f"{name!r} is neither a reference tokenizer ({', '.join(reference.REFERENCES)}) "
                     "nor a tokenizer file; give one of those names or a .model, .tiktoken "
                     "or tokenizer.json path")


def read_text(path):
    """A file's text; ValueError naming the file if it cannot be read or is not UTF-8."""
    try:
        with open(path, "rb") as f:
            data = f.read()
    except FileNotFoundError:
        raise ValueError(f"{path}: no such file") from None
    except IsADirectoryError:
        raise ValueError(f"{path} is a folder; give text files") from None
    except OSError as e:
        raise ValueError(f"{path}: {e.strerror}") from None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise ValueError(f"{path} is not UTF-8 text (byte 0x{data[e.start]:02x} at offset "
                         f"{e.start}); convert it first, e.g. iconv -f latin1 -t utf-8") from None


def rows_for(args):
    """The bpe.evaluate Rows the arguments ask for: the model's, then each --against's."""
    names = [args.model]
    for given in args.against:
        names += [name for name in given.split(",") if name and name not in names]
    tokenizers = {name: open_tokenizer(name, args.pattern) for name in names}
    texts = {path: read_text(path) for path in args.files}
    return evaluate.evaluate(tokenizers, texts), names


def run(args):
    """Run `eval` with parsed args; returns the exit status (0, or 2 after one
    `bpe: error:` line on stderr)."""
    try:
        rows, names = rows_for(args)
        if args.json:
            print(json.dumps([row.as_dict() for row in rows], indent=1))
        else:
            print(evaluate.markdown_table(evaluate.report(rows, names[1:] or ())))
    except (ValueError, TypeError) as e:
        print(f"bpe: error: {' '.join(str(e).split())}", file=sys.stderr)
        return 2
    except MemoryError:
        print("bpe: error: out of memory; evaluate smaller files", file=sys.stderr)
        return 2
    except BrokenPipeError:  # piped into head: the reader has what it wanted
        sys.stdout = open(os.devnull, "w")
        return 141
    except Exception as e:  # a bug: still one line and no traceback
        print(f"bpe: error: {type(e).__name__}: {' '.join(str(e).split())[:200]} (a bug in "
              "bpe; please report it)", file=sys.stderr)
        return 2
    return 0


def main(argv=None):
    """`python -m bpe.cli_eval ...` as `python -m bpe eval ...` until bpe/cli.py wires it."""
    from .cli import _Parser  # its errors: one line, exit 2, as bpe/cli.py's own
    parser = _Parser(prog="python -m bpe")
    add_parser(parser.add_subparsers(dest="command", required=True, parser_class=_Parser))
    return run(parser.parse_args(["eval", *(sys.argv[1:] if argv is None else argv)]))


if __name__ == "__main__":
    sys.exit(main())
