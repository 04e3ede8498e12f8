"""`train` and `count`: learn merges from text files or counts files, or write a corpus's
ordered chunk counts (for training later, or elsewhere)."""
import sys

from ..basic import BasicTokenizer
from ..counting import stream
from ..counting.counts_file import read_pattern, write_counts
from ..formats import atomic
from ..regex import RegexTokenizer, compile_pattern
from ..train import TIE_BREAKS
from .common import (
    CliError,
    ProgressBar,
    check_files,
    check_outputs,
    count_part,
    engine_arguments,
    pattern_argument,
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
    train.add_argument("-o", "--output", required=True, metavar="PREFIX",
                       help="writes PREFIX.model and PREFIX.vocab")
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
