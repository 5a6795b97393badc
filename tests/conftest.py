"""Test-suite settings: GPU tests skip cleanly where CUDA and CuPy are missing; JAX, for
reference values only, runs on the CPU (on a GPU machine it would take most of the GPU's
memory from CuPy, and its float64 values would come from other kernels than the CPU's)."""
import os

import pytest

os.environ.setdefault("JAX_PLATFORMS", "cpu")  # (read when JAX starts its backend, after this)

from fgrad.backend import cupy_available


def pytest_collection_modifyitems(config, items):
    if cupy_available():
        return
    skip = pytest.mark.skip(reason="needs CUDA and CuPy (pip install -e '.[gpu]' on a machine with a GPU)")
    for item in items:
        if "gpu" in item.keywords:
            item.add_marker(skip)
