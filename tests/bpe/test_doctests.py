"""The worked examples (>>>) in the core and viz docstrings run, so they cannot rot."""
import doctest
import importlib
import pkgutil

import pytest

import bpe
import viz

MODULES = sorted(f"{package.__name__}.{info.name}"
                 for package in (bpe, viz)
                 for info in pkgutil.iter_modules(package.__path__)
                 if info.name not in ("__main__",))


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert result.failed == 0, f"{result.failed} of {result.attempted} examples failed in {name}"
