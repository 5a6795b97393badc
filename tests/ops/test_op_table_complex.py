"""The op table in complex128: every row whose NumPy (or SciPy) reference takes complex
arguments runs with complex arguments too, through the checks of tests/ops/test_op_table.py:
the value against the reference; the jvp and the vjp against central differences along
random complex tangents and along the real and imaginary direction of every element; the
two against each other (Re(v . J u) == Re(J^T v . u), Note [complex derivatives] in
fgrad/ops/conversion.py); vmap against a stack of slices, the jvp and vjp under vmap; and
compile's replay. A row that fgrad refuses for complex arguments says why in its `complex`
field (tests/op_db.py), and must raise a TypeError, never return a number.
"""
import warnings

import numpy as np
import pytest

import fgrad.numpy as fnp  # noqa: F401  (the rows' functions)

from ..op_db import COMPLEX_FIRST_ORDER, COMPLEX_VALUES_ONLY, OPS, OpInfo
from . import test_op_table as table


def _complexified(args, rng):
    """Each float argument plus i times a value in [-0.5, 0.5] (near the real samples, which lie
    in each op's domain; the branch cuts of log, sqrt and the inverse functions stay away)."""
    out = []
    for a in args:
        if isinstance(a, (float, np.floating, np.ndarray)) and np.asarray(a).dtype.kind == "f":
            imag = rng.uniform(-0.5, 0.5, np.shape(a))
            a = np.asarray(a) + 1j * imag if isinstance(a, np.ndarray) else np.complex128(a + 1j * float(imag))
        out.append(a)
    return tuple(out)


def _takes_complex(op):
    """Does the row's reference take its complex samples (NumPy defines the op on them)?"""
    rng = np.random.default_rng(0)
    try:
        samples = [_complexified(args, rng) for args in op.samples(rng)]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for args in samples:
                op.ref(*args, **op.kwargs)
    except Exception:
        return False
    return any(np.asarray(a).dtype.kind == "f" for args in op.samples(np.random.default_rng(0)) for a in args
               if isinstance(a, (float, np.floating, np.ndarray)))


def _complex_row(op):
    row = OpInfo(**{f: getattr(op, f) for f in op.__dataclass_fields__})
    row.name = f"{op.name}[complex]"
    row.samples = lambda rng, op=op: [_complexified(args, rng) for args in op.samples(rng)]
    if any(op.name.startswith(p) for p in COMPLEX_FIRST_ORDER):
        row.second_order = False
    if op.name in COMPLEX_VALUES_ONLY:
        row.differentiable = False
    return row


CAPABLE = [op for op in OPS if _takes_complex(op)]
ROWS = [pytest.param(_complex_row(op), id=op.name) for op in CAPABLE if op.complex is None]
REFUSED = [pytest.param(_complex_row(op), id=op.name) for op in CAPABLE if op.complex is not None]


def _quiet(check):
    def run(op):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", np.exceptions.ComplexWarning)  # (NumPy's, for a cast to a real dtype)
            check(op)
    return run


@pytest.mark.parametrize("op", ROWS)
def test_complex_value_matches_numpy(op):
    _quiet(table.test_value_matches_numpy)(op)


@pytest.mark.parametrize("op", [r for r in ROWS if r.values[0].differentiable])
def test_complex_derivatives_against_finite_differences(op):
    _quiet(table.test_derivatives_against_finite_differences)(op)


@pytest.mark.parametrize("op", [r for r in ROWS if r.values[0].differentiable])
def test_complex_jvp_and_vjp_are_transposes(op):
    _quiet(table.test_jvp_and_vjp_are_transposes)(op)


@pytest.mark.parametrize("op", [r for r in ROWS if r.values[0].batchable])  # (the others: the real table's)
def test_complex_vmap_matches_stacked_slices(op):
    _quiet(table.test_vmap_matches_stacked_slices)(op)


@pytest.mark.parametrize("op", [r for r in ROWS if r.values[0].differentiable and r.values[0].batchable])
def test_complex_jvp_and_vjp_under_vmap(op):
    _quiet(table.test_jvp_and_vjp_under_vmap)(op)


@pytest.mark.parametrize("op", ROWS)
def test_complex_compiled_replay_matches_eager(op):
    _quiet(table.test_compiled_replay_matches_eager)(op)


@pytest.mark.parametrize("op", REFUSED)
def test_refused_rows_raise_for_complex_arguments(op):
    """What a row's `complex` field says fgrad refuses, it refuses, on plain complex arrays or
    where a derivative would pass through them, with a TypeError naming complex values."""
    rng = np.random.default_rng(0)
    for args in op.samples(rng):
        pos = table._split(args)
        f = table._partial(op, args, pos)
        with pytest.raises(TypeError, match="complex"):
            fgrad_vjp(f, [args[i] for i in pos])


def fgrad_vjp(f, primals):
    import fgrad
    out, pull = fgrad.vjp(f, *primals)
    return pull(out)


def test_the_complex_table_is_large():
    """Most rows are complex-capable: the table keeps checking them as rows are added."""
    assert len(ROWS) >= 150, len(ROWS)
