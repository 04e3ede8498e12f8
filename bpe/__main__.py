"""`python -m bpe ...`: the command line in bpe/cli.py."""
import sys

from .cli import main

sys.exit(main())
