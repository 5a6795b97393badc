"""fgrad.errors (issue 28): each public error class is what the places that refuse raise, and
each still is the built-in class they raised before it had a name, so `except TypeError`
(ValueError, RuntimeError) keeps working. The modules that raised them re-export the
same classes (fgrad.backend.DeviceMismatchError, ...)."""
import re
import warnings

import numpy as np
import pytest

import fgrad
import fgrad.numpy as fnp
from fgrad import errors
from fgrad.errors import (
                          BatchedValueError,
                          ConversionError,
                          DeviceMismatchError,
                          EscapedTracerError,
                          FreedGraphError,
                          NonFiniteError,
                          RetraceWarning,
                          SideEffectWarning,
)

X = np.array([0.5, -1.0, 2.0])

BASES = {ConversionError: TypeError, BatchedValueError: TypeError, EscapedTracerError: TypeError,
         DeviceMismatchError: ValueError, FreedGraphError: RuntimeError, SideEffectWarning: UserWarning,
         RetraceWarning: UserWarning, NonFiniteError: FloatingPointError}


def _raises(cls, fn):
    """Run fn: it must raise `cls`, which its old base class must catch too."""
    with pytest.raises(BASES[cls]) as e:
        fn()
    assert type(e.value) is cls, f"{type(e.value).__name__}: {e.value}"
    return str(e.value)


def test_each_class_subclasses_what_was_raised_before():
    for cls, base in BASES.items():
        assert issubclass(cls, base), cls
    assert set(errors.__all__) == {cls.__name__ for cls in BASES}


def test_the_old_addresses_are_the_same_classes():
    from fgrad.compile.side_effects import SideEffectWarning as compile_warning
    from fgrad.engine.backward import FreedGraphError as engine_freed
    assert fgrad.backend.DeviceMismatchError is DeviceMismatchError
    assert engine_freed is FreedGraphError and compile_warning is SideEffectWarning
    assert fgrad.errors is errors


def test_module_and_classes_say_when_raised_and_what_to_do():
    for cls in BASES:
        assert cls.__name__ in errors.__doc__, cls
        assert "What to do" in cls.__doc__, cls
    example = re.search(r"```python\n(.*?)```", errors.__doc__, re.S).group(1)
    exec(compile(example, "fgrad/errors.py's docstring", "exec"), {})


# ---- ConversionError: a conversion would drop a derivative ------------------------------------
@pytest.mark.parametrize("convert", [float, complex, np.float64, lambda x: x.item(), lambda x: x.tolist(),
                                     np.asarray, lambda x: np.zeros(3).__setitem__(slice(0, 1), x)],
                         ids=["float", "complex", "float64", "item", "tolist", "asarray", "setitem-slice"])
def test_a_conversion_that_drops_a_derivative(convert):
    message = _raises(ConversionError, lambda: fgrad.grad(lambda x: fnp.sum(x) * convert(x[0]))(X))
    assert "would drop the derivative" in message


def test_writing_into_a_numpy_array_is_numpys_error_caused_by_a_conversion_error():
    def write(x):
        b = np.zeros(3)
        b[0] = x  # (NumPy converts with float() and reports its own ValueError, from ours)
        return fnp.sum(b)
    with pytest.raises(ValueError) as e:
        fgrad.grad(write)(1.5)
    assert type(e.value.__cause__) is ConversionError


def test_a_conversion_under_forward_mode():
    _raises(ConversionError, lambda: fgrad.jvp(lambda x: float(x), (1.0,), (1.0,)))


# ---- BatchedValueError: Python reads a value vmap batches ---------------------------------------
@pytest.mark.parametrize("read", [bool, int, float, lambda x: [1.0, 2.0][x], lambda x: 1.0 if x > 0 else 0.0],
                         ids=["bool", "int", "float", "index", "if"])
def test_a_python_read_of_a_batched_value(read):
    message = _raises(BatchedValueError, lambda: fgrad.vmap(lambda x: read(x) * x)(np.arange(3)))
    assert "same for every example" in message and "vmap" in message


# ---- EscapedTracerError: a traced value outlives its transform ----------------------------------
def _leaked():
    kept = []
    fgrad.grad(lambda x: (kept.append(x), x * 2.0)[1])(1.0)
    return kept[0]


@pytest.mark.parametrize("use", [
    lambda v: fnp.sin(v),                                           # the bottom trace
    lambda v: fgrad.grad(lambda x: x * v)(2.0),                     # a later transform
    lambda v: fgrad.tensor([1.0], requires_grad=True) * v,          # the Tensor face's tape
    lambda v: fgrad.compile(lambda y: y * v)(np.array(2.0)),        # compile's staging trace
    lambda v: fgrad.compile(lambda y: v)(np.array(2.0)),            # compile's output check
    lambda v: fgrad.custom_vjp(lambda x: x * 2.0)(v),               # a custom rule's function
], ids=["eval", "grad", "tensor", "compile", "compile-output", "custom_vjp"])
def test_a_traced_value_used_after_its_transform_returned(use):
    message = _raises(EscapedTracerError, lambda: use(_leaked()))
    assert "grad" in message and "escape" in message


# ---- DeviceMismatchError: arrays of two devices meet ---------------------------------------------
def test_arrays_of_two_devices():
    other = fgrad.backend.register_numpy_device(1)
    on_other = fgrad.device_put(np.ones(2), other)
    message = _raises(DeviceMismatchError, lambda: fnp.add(on_other, np.ones(2)))
    assert "cpu:1" in message and "add" in message


# ---- FreedGraphError: a second backward through released values ---------------------------------
def test_a_second_backward_through_a_released_graph():
    x = fgrad.tensor([1.0, 2.0], requires_grad=True)
    y = (x * x).sum()
    y.backward()
    assert "second time" in _raises(FreedGraphError, y.backward)


# ---- SideEffectWarning: compile traced a side effect it will not replay -------------------------
def test_a_side_effect_while_compiling_warns():
    def noisy(x):
        print("traced")
        return x * 2.0
    with pytest.warns(SideEffectWarning, match="printed"):
        fgrad.compile(noisy)(X)
    with warnings.catch_warnings():
        warnings.simplefilter("error", UserWarning)  # caught as a UserWarning, as before
        with pytest.raises(UserWarning):
            fgrad.compile(noisy)(np.ones((2, 2)))
