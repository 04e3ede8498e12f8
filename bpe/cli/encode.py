"""`encode`: the ids of a text file (or standard input) as a JSON array."""
import json

from .common import load_model, read_stdin, read_text


def add_parsers(commands):
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

    encode.set_defaults(run=cmd_encode)


def cmd_encode(args):
    tok = load_model(args.model, args.pattern)
    text = read_text(args.file) if args.file else read_stdin()
    print(json.dumps(tok.encode(text, allowed_special=args.allowed_special)))
