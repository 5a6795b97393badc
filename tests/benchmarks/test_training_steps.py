"""The training steps benchmarks time (benchmarks/digits_cnn.py, nn_steps.py) compute the same
numbers, however they run: fgrad eager, one fgrad.compile'd program, and by hand in NumPy."""
import numpy as np
import pytest

import fgrad
from benchmarks.compiled_step import compiled_adam_step
from benchmarks.nn_steps import _data, _models
from benchmarks.numpy_cnn import NumpyCNN
from examples.digits_cnn import make_model, train_step


def _eager_losses(model, optimizer, loss, x, y, steps):
    x, y = fgrad.tensor(x), fgrad.tensor(y)
    out = []
    for _ in range(steps):
        optimizer.zero_grad()
        value = loss(model, x, y)
        value.backward()
        optimizer.step()
        out.append(value.item())
    return out


@pytest.mark.parametrize("dtype, tol", [("float64", 1e-12), ("float32", 1e-5)])
def test_the_digits_cnn_step_three_ways(dtype, tol):
    rng = np.random.default_rng(0)
    x, y = rng.random((16, 1, 8, 8)).astype(dtype), rng.integers(0, 10, 16)
    fgrad.manual_seed(0)
    model = make_model(getattr(fgrad, dtype))
    state = {k: v.numpy().copy() for k, v in model.state_dict().items()}
    loss = lambda m, x, y: fgrad.nn.functional.cross_entropy(m(x), y)  # noqa: E731
    compiled = compiled_adam_step(_copy(model, dtype), loss, x, y, weight_decay=1e-2)
    optimizer = fgrad.optim.AdamW(model.parameters(), lr=1e-3)
    eager = [train_step(model, optimizer, fgrad.nn.CrossEntropyLoss(), fgrad.tensor(x), fgrad.tensor(y))
             for _ in range(4)]
    by_hand = NumpyCNN(state, lr=1e-3, weight_decay=1e-2)
    np.testing.assert_allclose([by_hand.step(x, y) for _ in range(4)], eager, rtol=tol)
    np.testing.assert_allclose([float(compiled()) for _ in range(4)], eager, rtol=tol)
    assert compiled.compiled.cache_info().misses == 1  # (one trace for every step)


def _copy(model, dtype):
    twin = make_model(getattr(fgrad, dtype))
    twin.load_state_dict(model.state_dict())
    return twin


@pytest.mark.parametrize("name", ["mlp", pytest.param("lstm", marks=pytest.mark.slow),
                                  pytest.param("transformer", marks=pytest.mark.slow)])  # (batch 64: a minute each)
def test_nn_steps_compiled_as_eager(name):
    fgrad.manual_seed(0)
    model, loss = _models(fgrad, name, "float64")
    x, y = _data(name, "float64")
    compiled = compiled_adam_step(model, loss, x, y)
    fgrad.manual_seed(0)
    twin, _ = _models(fgrad, name, "float64")
    eager = _eager_losses(twin, fgrad.optim.Adam(twin.parameters(), lr=1e-3), loss, x, y, 3)
    np.testing.assert_allclose([float(compiled()) for _ in range(3)], eager, rtol=1e-12)
