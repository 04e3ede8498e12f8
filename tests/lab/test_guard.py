"""lab.guard.page_run: the last resort shows even a BaseException that is not an Exception
(pyo3's PanicException, raised here by `tokenizers` itself) as one message, so the script
thread lives on; Streamlit's control flow and a stopping process pass through."""

import pytest
import tokenizers
from streamlit.runtime.scriptrunner_utils.exceptions import (
    RerunException,
    StopException,
)

from lab import guard
from tests.lab.test_owner_check import PANICS


def real_panic():
    """pyo3's PanicException, as `tokenizers` raises it on a hostile tokenizer.json."""
    hf = tokenizers.Tokenizer.from_str(PANICS.decode())
    try:
        hf.encode("the days")
    except BaseException as e:  # noqa: BLE001 — the point: it is not an Exception
        return e
    raise AssertionError("the file no longer makes tokenizers panic")


def test_a_panic_is_shown_not_raised(monkeypatch):
    panic = real_panic()
    assert not isinstance(panic, Exception)
    shown = []
    monkeypatch.setattr(guard, "show_unexpected", shown.append)
    with guard.page_run():
        raise panic
    assert shown == [panic]


@pytest.mark.parametrize("stop", [StopException(), RerunException(None), KeyboardInterrupt(),
                                  SystemExit(0), GeneratorExit()])
def test_control_flow_and_stopping_pass_through(stop, monkeypatch):
    monkeypatch.setattr(guard, "show_unexpected", lambda e: pytest.fail(f"{e!r} was shown"))
    with pytest.raises(type(stop)), guard.page_run():
        raise stop
