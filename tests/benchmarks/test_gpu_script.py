"""benchmarks/gpu.py: the prepared GPU check runs where there is no GPU (it says so), and its
MLP loss is right (its gradient against finite differences, at a small size)."""
import numpy as np
import pytest

import fgrad
from benchmarks import gpu


def test_without_a_gpu_it_says_so(capsys):
    if fgrad.backend.cupy_available():
        pytest.skip("a GPU is present: the script runs for real")
    assert gpu.main() == 0
    assert "cannot run here" in capsys.readouterr().out


def test_its_mlp_gradient_is_checked():
    params, x, y = gpu._data(np.float64, np.random.default_rng(0), sizes=(5, 4, 3, 3, 2))
    fgrad.testing.check_grads(lambda *p: gpu.mlp_loss(p, x, y), params, order=1)
