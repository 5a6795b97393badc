"""What the transforms accept as inputs (transforms/checks.py): ndarray subclasses with their
own semantics, np.ma.MaskedArray and np.matrix, are refused, naming the type, the argument
and the transform (Note [masked arrays and matrices are refused])."""
import warnings

import numpy as np
import pytest

import fgrad
import fgrad.numpy as fnp

MASKED = np.ma.array([1.0, 2.0, 3.0], mask=[False, True, False])
with warnings.catch_warnings():  # (NumPy discourages np.matrix: the point here)
    warnings.simplefilter("ignore", PendingDeprecationWarning)
    MATRIX = np.matrix([[1.0, 2.0], [3.0, 4.0]])
LOSS = lambda x: fnp.sum(x * x)  # noqa: E731

RUNS = {
    "grad": lambda x: fgrad.grad(LOSS)(x),
    "value_and_grad": lambda x: fgrad.value_and_grad(LOSS)(x),
    "vjp": lambda x: fgrad.vjp(LOSS, x),
    "jvp": lambda x: fgrad.jvp(LOSS, (x,), (np.ones(x.shape),)),
    "linearize": lambda x: fgrad.linearize(LOSS, x),
    "vmap": lambda x: fgrad.vmap(lambda v: v * 2.0)(x),
    "jacfwd": lambda x: fgrad.jacfwd(lambda v: v * v)(x),
    "jacrev": lambda x: fgrad.jacrev(lambda v: v * v)(x),
    "hessian": lambda x: fgrad.hessian(LOSS)(x),
    "fgrad.compile": lambda x: fgrad.compile(LOSS)(x),
}


@pytest.mark.parametrize("transform", list(RUNS))
@pytest.mark.parametrize("value, words", [
    (MASKED, ["numpy.ma.MaskedArray", "np.ma.filled"]),
    (MATRIX, ["numpy.matrix", "np.asarray(x)"]),
])
def test_masked_arrays_and_matrices_are_refused_by_every_transform(transform, value, words):
    with pytest.raises(TypeError) as e:
        RUNS[transform](value)
    msg = str(e.value)
    assert msg.startswith(f"{transform}: ") and all(w in msg for w in words), msg
    assert "args[0]" in msg or "primals[0]" in msg, msg


def test_a_masked_tangent_or_cotangent_is_refused():
    with pytest.raises(TypeError, match=r"jvp: tangent 0 is a numpy\.ma\.MaskedArray"):
        fgrad.jvp(LOSS, (np.ones(3),), (MASKED,))
    _, pull = fgrad.vjp(lambda v: v * 2.0, np.ones(3))
    with pytest.raises(TypeError, match=r"vjp: cotangent 0 is a numpy\.ma\.MaskedArray"):
        pull(MASKED)


def test_a_masked_constant_meeting_a_traced_value_is_refused():
    """Today's silent case: the value summed the masked entry, the gradient was masked."""
    with pytest.raises(TypeError, match=r"value_and_grad: what <lambda> returned .* is a numpy\.ma\.MaskedArray"):
        fgrad.value_and_grad(lambda x: fnp.sum(x * MASKED))(np.ones(3))
    with pytest.raises(TypeError, match=r"grad: .* is a numpy\.ma\.MaskedArray"):
        fgrad.grad(lambda x, y: fnp.sum(x * y))(np.ones(3), MASKED)   # a non-differentiated argument
    with pytest.raises(TypeError, match=r"a derivative .* is a numpy\.ma\.MaskedArray"):
        fgrad.vjp(lambda x: x * MASKED, np.ones(3))[1](np.ones(3))
    with pytest.raises(TypeError, match=r"grad: what <lambda> returned .* is a numpy\.matrix"):
        fgrad.grad(lambda x: fnp.sum(x @ MATRIX))(np.ones((2, 2)))   # (was: "returned shape (1, 1)")


def test_plain_arrays_and_other_arguments_still_pass():
    assert fgrad.grad(LOSS)(np.ma.getdata(MASKED)).tolist() == [2.0, 4.0, 6.0]
    assert fgrad.grad(LOSS)(np.asarray(MATRIX)).tolist() == [[2.0, 4.0], [6.0, 8.0]]
    assert fgrad.vmap(lambda v, k: v * k, in_axes=(0, None))(np.ones(2), 3.0).tolist() == [3.0, 3.0]
