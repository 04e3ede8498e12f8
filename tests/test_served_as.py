"""The browser tests and the benchmarks serve the app in the environment `make run` gives it
(tests/helpers/app.py's SERVED_AS): the allocator settings that bound its memory per
visitor (the Makefile says why) are the Makefile's own, so a change to one is a change to
both."""
import re
from pathlib import Path

from helpers.app import SERVED_AS

ROOT = Path(__file__).resolve().parent.parent


def test_the_tests_serve_the_app_as_make_run_does():
    makefile = (ROOT / "Makefile").read_text()
    line = re.search(r"^MALLOC := (.*)$", makefile, re.M)
    assert line, "the Makefile names its allocator settings in MALLOC"
    assert dict(pair.split("=", 1) for pair in line.group(1).split()) == SERVED_AS
    assert re.search(r"^run:.*\n\t\$\(MALLOC\) \$\(BIN\)/streamlit run app\.py", makefile, re.M)
