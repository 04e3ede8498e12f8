"""The numbers a server reads from its environment for its training workers
(lab.jobs.setting): the default when unset, the value when in range, a message naming
the variable and the range otherwise."""
import pytest

from lab import jobs

NAME = "LAB_TEST_SETTING"


@pytest.mark.parametrize("raw, whole, value", [
    (None, False, 30.0), ("", False, 30.0), (" 4 ", False, 4.0), ("2.5", False, 2.5),
    ("3600", False, 3600.0), ("7", True, 7), ("7.0", True, 7),
])
def test_a_setting_in_range_is_read(monkeypatch, raw, whole, value):
    if raw is None:
        monkeypatch.delenv(NAME, raising=False)
    else:
        monkeypatch.setenv(NAME, raw)
    got = jobs.setting(NAME, 30.0 if not whole else 2, 2, 3600, "seconds", whole=whole)
    assert got == value and type(got) is type(value)


@pytest.mark.parametrize("raw, whole", [
    ("abc", False), ("1", False), ("1.99", False), ("3601", False), ("nan", False),
    ("inf", False), ("-5", False), ("4s", False), ("2.5", True),
])
def test_a_bad_setting_says_which_and_what_is_allowed(monkeypatch, raw, whole):
    monkeypatch.setenv(NAME, raw)
    with pytest.raises(ValueError) as e:
        jobs.setting(NAME, 30.0, 2, 3600, "seconds", whole=whole)
    assert NAME in str(e.value) and repr(raw) in str(e.value)
    assert "from 2 to 3600" in str(e.value) and "unset it" in str(e.value)


def test_the_server_settings_have_their_defaults_here():
    """The test run sets none of them (a browser test sets LAB_ABANDON_AFTER_S on its own
    server only)."""
    assert jobs.ABANDON_AFTER == 30.0
    assert jobs.WORKER_MEMORY == 2048 * 2**20


def test_a_misconfigured_server_says_so_on_the_page_without_a_traceback():
    """In a fresh process (lab.jobs reads the settings once, as it is imported)."""
    import os
    import subprocess
    import sys
    probe = ("from streamlit.testing.v1 import AppTest\n"
             "at = AppTest.from_file('app.py', default_timeout=60).run()\n"
             "print(len(at.exception), '|', at.error[0].value if at.error else '')\n")
    env = dict(os.environ, LAB_ABANDON_AFTER_S="abc")
    out = subprocess.run([sys.executable, "-c", probe], env=env, capture_output=True,
                         text=True, timeout=120, cwd=os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
    shown = out.stdout.strip().splitlines()[-1]
    assert shown.startswith("0 |"), out.stdout + out.stderr  # no exception box
    assert "This server is misconfigured" in shown and "LAB\\_ABANDON\\_AFTER\\_S" in shown
