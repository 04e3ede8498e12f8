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
