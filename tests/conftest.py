"""Test-suite settings: GPU tests skip cleanly where CUDA and CuPy are missing."""
import pytest

from fgrad.backend import cupy_available


def pytest_collection_modifyitems(config, items):
    if cupy_available():
        return
    skip = pytest.mark.skip(reason="needs CUDA and CuPy (pip install -e '.[gpu]' on a machine with a GPU)")
    for item in items:
        if "gpu" in item.keywords:
            item.add_marker(skip)
