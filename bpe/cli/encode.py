"""`encode`: a text's ids as a JSON array, or a corpus's ids streamed to a binary file.

    python -m bpe encode --model M [FILE]            # JSON ids on stdout (stdin if no FILE)
    python -m bpe encode FILE... --model M -o ids.bin [--dtype uint16|uint32] [--workers N]
                         [--engine dask [--scheduler tcp://HOST:PORT]] [--eot]

With -o the work is bpe.encoding.corpus's; this module only parses and reports.
"""
import json
import os
import sys

from ..corpus import NotUTF8Error
from ..encoding.corpus import encode_file
from .common import (
    CliError,
    ProgressBar,
    check_files,
    check_outputs,
    engine_arguments,
    model_files,
    open_model,
    pattern_for_ranks,
    read_stdin,
    read_text,
)


def add_parsers(commands):
    encode = commands.add_parser(
        "encode", help="encode a text to a JSON array, or files to a binary array (-o)",
        description="Encode text with a tokenizer. Without -o: one FILE (or stdin), ids "
                    "printed as JSON. With -o: FILES encoded in order, each as one document "
                    "(special-token text is encoded as ordinary text, as tiktoken's "
                    "encode_ordinary does), to one flat little-endian array that "
                    "numpy.fromfile(OUT, dtype) reads, plus OUT.json describing it.")
    encode.add_argument("--model", required=True, metavar="NAME_OR_FILE",
                        help="a reference name (cl100k_base, o200k_base, r50k_base, llama3, "
                             "llama4, tekken, ...) or a .model, .tiktoken or tokenizer.json file")
    encode.add_argument("files", nargs="*", metavar="FILE",
                        help="text files (UTF-8); without -o at most one (default: stdin)")
    encode.add_argument("-o", "--output", metavar="OUT",
                        help="write the ids here as a binary array (and OUT.json)")
    encode.add_argument("--dtype", choices=["uint16", "uint32"],
                        help="-o's integer type (default: uint16 if every id fits, else uint32)")
    encode.add_argument("--eot", action="store_true",
                        help="with -o, put the end-of-text special token between files")
    engine_arguments(encode)
    pattern_for_ranks(encode)
    encode.add_argument("--allowed-special", choices=["none_raise", "none", "all"],
                        default=None,
                        help="without -o, special-token text: refuse (default), as ordinary "
                             "text, or as special tokens")
    encode.set_defaults(run=cmd_encode)


def cmd_encode(args):
    if args.output is None:
        if len(args.files) > 1:
            raise CliError("several files need -o OUT (a binary array of ids); without -o, "
                           "give one FILE or pipe the text in")
        tok, _ = open_model(args.model, args.pattern)
        text = read_text(args.files[0]) if args.files else read_stdin()
        print(json.dumps(tok.encode(text, allowed_special=args.allowed_special or "none_raise")))
        return
    if not args.files:
        raise CliError("-o needs the FILES to encode")
    if args.allowed_special is not None:
        raise CliError("--allowed-special is for the JSON form; -o encodes special-token "
                       "text as ordinary text")
    if args.workers is not None and args.workers < 1:
        raise CliError(f"--workers must be at least 1, not {args.workers}")
    check_files(args.files)
    reads = args.files + (model_files(args.model) if os.path.exists(args.model) else [])
    check_outputs([args.output, f"{args.output}.json"], reads, "encode")
    tok, sha256 = open_model(args.model, args.pattern)
    dask = args.engine == "dask" or bool(args.scheduler)
    bar = ProgressBar(sys.stderr) if sys.stderr.isatty() else None
    try:
        meta = encode_file(tok, args.files, args.output, dtype=args.dtype, eot=args.eot,
                           workers=args.workers or (2 if dask else 1), progress=bar,
                           engine="dask" if dask else "local", scheduler=args.scheduler,
                           model_sha256=sha256)
    except NotUTF8Error as e:
        raise CliError(str(e)) from None
    finally:
        if bar is not None:
            bar.close()
    print(f"{meta['count']:,} tokens ({meta['dtype']}) from {len(meta['files'])} file(s) "
          f"-> {args.output}", file=sys.stderr)
