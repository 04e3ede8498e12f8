"""`train` and `count`: learn merges from text files or counts files, or write a corpus's
ordered chunk counts (for training later, or elsewhere)."""
import os
import sys

from .. import methods
from ..basic import BasicTokenizer
from ..counting import stream
from ..counting.counts_file import read_pattern, write_counts
from ..formats import atomic
from ..methods import saved
from ..regex import RegexTokenizer, compile_pattern
from ..tie_break import TIE_BREAKS
from .common import (
    CliError,
    ProgressBar,
    check_files,
    check_outputs,
    count_part,
    engine_arguments,
    pattern_argument,
    read_text,
)


def add_parsers(commands):
    train = commands.add_parser("train", help="learn merges from text files or counts files")
    train.add_argument("files", nargs="*", metavar="FILE", help="UTF-8 text files to train on")
    train.add_argument("--from-counts", nargs="+", metavar="COUNTS", default=[],
                       help="train on counts files (python -m bpe count) joined in order, "
                            "instead of text files")
    train.add_argument("--vocab-size", type=int, required=True, metavar="N",
                       help="256 byte tokens plus N - 256 merges")
    train.add_argument("--kind", choices=["basic", "regex"], default="regex",
                       help="regex (split first, default) or basic (whole text)")
    pattern_argument(train)
    train.add_argument("--min-frequency", type=int, default=1, metavar="N",
                       help="stop when the best pair occurs fewer than N times")
    train.add_argument("--tie-break", choices=TIE_BREAKS, default="first",
                       help="which pair is merged when several share the top count: the "
                            "one met first in the text (minbpe, default), the smallest ids "
                            "(rustbpe) or the greatest bytes (CS336); the same merges from "
                            "text files and from counts files")
    train.add_argument("--method", choices=list(methods.METHODS), default=None,
                       help="another way to make a tokenizer (bpe.methods): each FILE is "
                            "one document (for parity, one language, named by its file "
                            "name); writes PREFIX.model/.vocab (bpe, parity) or PREFIX.json "
                            "(a tokenizer.json for hf-bpe, wordpiece, unigram; the lab's "
                            "method file for superbpe, boundless, picky)")
    train.add_argument("--tau", type=float, default=None, metavar="T",
                       help="picky: drop a parent token when IoS >= T, in (0, 1]")
    train.add_argument("--transition", type=int, default=None, metavar="N",
                       help="superbpe: the vocab size at which merges start to cross spaces")
    train.add_argument("--special-token", action="append", default=[], metavar="TEXT",
                       dest="special_tokens",
                       help="with --method: a special token (repeat for more); ids after "
                            "the merges, counted in --vocab-size")
    train.add_argument("-o", "--output", required=True, metavar="PREFIX",
                       help="writes PREFIX.model and PREFIX.vocab (PREFIX.json for some "
                            "methods: see --method)")
    engine_arguments(train)

    train.set_defaults(run=cmd_train)

    count = commands.add_parser("count", help="write the ordered chunk counts of text files")
    count.add_argument("files", nargs="+", metavar="FILE", help="UTF-8 text files to count")
    pattern_argument(count)
    count.add_argument("-o", "--output", required=True, metavar="OUT",
                       help="the counts file to write (e.g. corpus.counts)")
    engine_arguments(count)

    count.set_defaults(run=cmd_count)


def make_tokenizer(args):
    if args.kind == "basic":
        if args.pattern is not None:
            raise CliError("--pattern is for --kind regex; basic tokenizers do not split")
        return BasicTokenizer()
    return RegexTokenizer(args.pattern or "gpt4")


def cmd_train(args):
    if args.method is not None:
        return train_method(args)
    if args.tau is not None or args.transition is not None or args.special_tokens:
        raise CliError("--tau, --transition and --special-token go with --method")
    if args.vocab_size < 256:
        raise CliError(f"--vocab-size must be at least 256 (the 256 byte tokens), "
                       f"not {args.vocab_size}")
    if args.min_frequency < 1:
        raise CliError(f"--min-frequency must be at least 1, not {args.min_frequency}")
    if bool(args.files) == bool(args.from_counts):
        raise CliError("give text files or --from-counts COUNTS..., not both or neither")
    check_files(args.files or args.from_counts)
    atomic.check_prefix(args.output)  # before the training, not after it
    check_outputs([f"{args.output}.model", f"{args.output}.vocab"],
                  args.files or args.from_counts, "train")
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
            if tok.is_preset:
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
    tok.save(args.output)  # atomic: both files or neither (bpe.formats.atomic)
    print(f"wrote {args.output}.model and {args.output}.vocab: {len(tok.merges)} merges "
          f"(stopped by {tok.stop_reason}; tie rule {args.tie_break})", file=sys.stderr)


def cmd_count(args):
    check_files(args.files)
    check_outputs([args.output], args.files, "count")
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


def train_method(args):
    """`train --method NAME`: bpe.methods.train on the files' texts, saved in the one
    file that can hold the method (bpe.methods.saved)."""
    if args.from_counts or not args.files:
        raise CliError("--method trains on text files (each one document; for parity, one "
                       "language), not on --from-counts")
    if args.kind != "regex" or args.pattern is not None:
        raise CliError("--method uses each method's own split (GPT-4's pattern, or Hugging "
                       "Face's pipeline); leave out --kind and --pattern")
    if args.engine == "dask" or args.scheduler or (args.workers or 1) > 1:
        raise CliError("--method trains in one process; leave out --engine, --workers "
                       "and --scheduler")
    check_files(args.files)
    atomic.check_prefix(args.output)
    outputs = saved.output_paths(args.method, args.output)
    check_outputs(outputs, args.files, "train")
    texts = [read_text(path) for path in args.files]
    if args.method == "parity":
        names = [os.path.splitext(os.path.basename(path))[0] for path in args.files]
        if len(set(names)) < len(names):
            raise CliError("parity names each language by its file name; give files with "
                           "different names")
        texts = dict(zip(names, texts))
    options = {"min_frequency": args.min_frequency}
    for name, value in (("tau", args.tau), ("transition", args.transition),
                        ("special_tokens", args.special_tokens or None)):
        if value is not None:
            options[name] = value
    if "tie_break" in methods.OPTIONS[args.method]:
        options["tie_break"] = args.tie_break
    elif args.tie_break != "first":
        raise CliError(f"{args.method} keeps its owner's tie rule; leave out --tie-break")
    bar = ProgressBar(sys.stderr) if sys.stderr.isatty() else None
    try:
        tok = methods.train(args.method, texts, args.vocab_size, progress=bar, **options)
    finally:
        if bar:
            bar.close()
    saved.save(tok, args.method, args.output)
    print(f"wrote {' and '.join(outputs)}: {args.method}, {len(tok.vocab):,} tokens",
          file=sys.stderr)
