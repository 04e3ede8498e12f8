"""`python -m bpe ...`: the command line in bpe/cli/."""
import sys

from .cli import main

sys.exit(main())
