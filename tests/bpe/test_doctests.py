"""The worked examples (>>>) in the core and viz docstrings run, so they cannot rot."""
import doctest
import importlib
import pkgutil

import pytest

import bpe
import viz

MODULES = sorted(info.name
                 for package in (bpe, viz)
                 for info in pkgutil.walk_packages(package.__path__, package.__name__ + ".")
                 if not info.name.endswith("__main__")) + ["bpe"]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert result.failed == 0, f"{result.failed} of {result.attempted} examples failed in {name}"
