"""`eval`: a report card for a tokenizer on text files, against reference tokenizers:
bytes per token, tokens per word, split words, unique tokens (the figures are
bpe.evaluate's; this module only parses, reads and prints).

    python -m bpe eval --model NAME_OR_FILE [--against NAME ...] [--json] FILE [FILE ...]
"""
import json

from .. import evaluate, reference
from .common import open_model, pattern_for_ranks, read_text


def add_parsers(subparsers):
    """Add the eval subcommand to the command line's subparsers."""
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
    pattern_for_ranks(command)
    command.set_defaults(run=cmd_eval)


def rows_for(args):
    """The bpe.evaluate Rows the arguments ask for: the model's, then each --against's."""
    names = [args.model]
    for given in args.against:
        names += [name for name in given.split(",") if name and name not in names]
    tokenizers = {name: open_model(name, args.pattern)[0] for name in names}
    texts = {path: read_text(path) for path in args.files}
    return evaluate.evaluate(tokenizers, texts), names


def cmd_eval(args):
    rows, names = rows_for(args)
    if args.json:
        print(json.dumps([row.as_dict() for row in rows], indent=1))
    else:
        print(evaluate.markdown_table(evaluate.report(rows, names[1:] or ())))
