"""The property of issue 17: random compositions of op-table rows never return a derivative
that differs from central differences without raising.

A composition chains rows: each row's float arguments are a valid sample of that row plus a
small smooth perturbation driven by the previous row's output (s + 0.1 tanh(sum(y)) w), so
every stage stays near a point of its domain whatever the shapes. The derivative of
sum(r * out) along a random direction, by grad (reverse) and by jvp (forward), must match
central differences, or the call must raise: an error is allowed, a wrong number is not.
"""
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import fgrad
import fgrad.numpy as fnp
from fgrad.transforms import trees

from .op_db import OPS
from .op_db_linalg import LINALG

ROWS = [op for op in OPS + LINALG if op.differentiable]


def _float_positions(args):
    return [i for i, a in enumerate(args) if isinstance(a, (float, np.floating, np.ndarray))
            and np.issubdtype(np.asarray(a).dtype, np.floating)]


def _composition(picks, seed):
    """f(x) for x of shape (3,): the chosen rows applied in turn; None if a row has no sample."""
    rng = np.random.default_rng(seed)
    stages = []
    for pick in picks:
        op = ROWS[pick % len(ROWS)]
        samples = op.samples(rng)
        args = samples[int(rng.integers(len(samples)))]
        pos = _float_positions(args)
        if not pos:
            return None
        weights = [rng.uniform(-1.0, 1.0, np.shape(args[i])) for i in pos]
        stages.append((op, args, pos, weights))

    def f(x):
        y = x
        for op, args, pos, weights in stages:
            drive = 0.1 * fnp.tanh(fnp.sum(y))
            full = list(args)
            for i, w in zip(pos, weights):
                full[i] = args[i] + drive * w
            out = op.fn(*full, **op.kwargs)
            y = sum(fnp.sum(fnp.asarray(o)) for o in trees.flatten(out)[0]
                    if np.issubdtype(fnp.asarray(o).dtype, np.floating))
        return y
    return f


def _central(f, x, u, eps=1e-6):
    return (f(x + eps * u) - f(x - eps * u)) / (2 * eps)


@settings(max_examples=300, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
@given(picks=st.lists(st.integers(0, 10_000), min_size=1, max_size=3), seed=st.integers(0, 2 ** 16))
def test_random_compositions_are_right_or_raise(picks, seed):
    f = _composition(picks, seed)
    if f is None:
        return
    rng = np.random.default_rng(seed + 1)
    x, u = rng.uniform(-1.0, 1.0, 3), rng.uniform(-1.0, 1.0, 3)
    with np.errstate(all="ignore"):
        value = f(x)
        expected = _central(f, x, u)
    if not (np.isfinite(value) and np.isfinite(expected)) or isinstance(value, int):
        return  # outside a row's domain, or no floating output: nothing to compare
    tol = 1e-5 * (1.0 + abs(expected))
    for derivative in (lambda: float(np.dot(fgrad.grad(f)(x), u)), lambda: float(fgrad.jvp(f, (x,), (u,))[1])):
        try:
            with np.errstate(all="ignore"):
                got = derivative()
        except (TypeError, ValueError, NotImplementedError, np.linalg.LinAlgError, FloatingPointError):
            continue  # an error is an answer; a wrong number is not
        if not abs(got - expected) <= tol:
            names = [ROWS[p % len(ROWS)].name for p in picks]
            pytest.fail(f"composition {names} (seed {seed}): derivative {got!r}, central differences {expected!r}")
