"""`export`: write a tokenizer file in another format (tiktoken ranks or tokenizer.json)."""
import sys

from ..formats import ranks
from ..formats.hf import tokenizer_json as hf
from .common import check_outputs, load_model, model_files


def add_parsers(commands):
    exp = commands.add_parser("export", help="write a .model file in another format")
    exp.add_argument("model", help="a .model file (or .tiktoken / tokenizer.json)")
    exp.add_argument("--format", choices=["tiktoken", "hf"], required=True,
                     help="tiktoken ranks or a Hugging Face tokenizer.json")
    exp.add_argument("-o", "--output", required=True, metavar="OUT", help="the file to write")
    exp.set_defaults(run=cmd_export)


def cmd_export(args):
    check_outputs([args.output], model_files(args.model), "export")  # before the load's work
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
