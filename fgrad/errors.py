"""fgrad.errors: the errors and warnings fgrad raises on purpose, to catch by name (as jax.errors).

Each one means fgrad refused to guess: a number it would return would be wrong, or a value
is used where it cannot mean one thing. Each subclasses the built-in class fgrad raised
before it had a name, so `except TypeError` (ValueError, RuntimeError) keeps catching it:

- ConversionError (TypeError): a conversion would drop a derivative (`float(x)` of a traced x).
- BatchedValueError (TypeError): Python reads a value that differs between vmap's examples.
- EscapedTracerError (TypeError): a traced value is used after its transform returned.
- DeviceMismatchError (ValueError): an op got arrays that live on two devices.
- FreedGraphError (RuntimeError): a second backward through values the first one released.
- SideEffectWarning (UserWarning): a compiled function did something replay will not redo.
- RetraceWarning (UserWarning): a compiled function has been traced many times (what changed).
- NonFiniteError (FloatingPointError): under debug_nans, the op that made a NaN or inf.

```python
import numpy as np
import fgrad

try:
    fgrad.grad(lambda x: float(x))(np.array(1.0))
except fgrad.errors.ConversionError as e:
    assert isinstance(e, TypeError) and "float()" in str(e)
```

docs/errors.md shows each one raised, and what to do. This module sits beneath every
layer (tests/test_layers.py): it imports nothing of fgrad, and the modules that raise these
classes import them from here.
"""

__all__ = ["BatchedValueError", "ConversionError", "DeviceMismatchError", "EscapedTracerError", "FreedGraphError",
           "NonFiniteError", "RetraceWarning", "SideEffectWarning"]


class ConversionError(TypeError):
    """A conversion of a traced value would drop its derivative, so the transform would
    return a wrong number (Note [no silent conversions] in fgrad/ir/value.py).

    Raised by `float(x)`, `complex(x)`, `x.item()`, `x.tolist()`, and NumPy converting x to an
    array (`np.asarray(x)`, `np.float64(x)`, an ndarray method such as `A.dot(x)`), where x is
    traced by grad, vjp, jvp or another differentiating transform. NumPy reports `b[i] = x`
    into a NumPy array as its own ValueError, raised from this error.

    What to do: use fgrad.numpy's functions on the value (`fnp.sin(x)`, `A @ x`), build arrays
    with `fnp.stack`, `fnp.where` or `fnp.at(b)[i].set(x)`; or call `fgrad.stop_gradient(x)`
    first where dropping the derivative is meant. Control flow stays free: `if x > 0`,
    `while`, and `int()` for shapes and indices do not raise.
    """


class BatchedValueError(TypeError):
    """Python needs one value where vmap has one per example.

    Raised by `bool(x)`, `int(x)`, `float(x)`, an `if` on x, x used as an index or a shape,
    or NumPy converting x, where x is batched by vmap: its examples may differ, so no single
    Python decision or number is right for all of them.

    What to do: compute per example with fgrad.numpy (`fnp.where(cond, a, b)` selects in
    place of an `if`), or pass the value unbatched (`in_axes=None`) if it is the same for
    every example.
    """


class EscapedTracerError(TypeError):
    """A traced value was used outside the transform call that traced it.

    Raised when an op gets a traced value whose transform has already returned (a value
    saved to a global or a list inside the function, used after the call) or is not the
    one active here (a value of an outer transform smuggled into a custom rule that runs
    elsewhere). Its transform cannot differentiate the op any more, so any result would be
    wrong.

    What to do: return the value from the transformed function instead of storing it, or
    store `fgrad.stop_gradient(x)` where only its number is wanted.
    """


class DeviceMismatchError(ValueError):
    """An op got arrays that live on two devices (a NumPy "cpu" array and a CuPy "cuda:0"
    one, or arrays of two GPUs); the message names the op and both devices, and the array
    library's own error, which names neither, is attached as its cause.

    What to do: move one of them (`fgrad.device_put(x, device)`, `Tensor.to(device)`, both
    differentiable), or make constants with the array module of your data
    (`fgrad.backend.array_module(x).arange(3)`, not `np.arange(3)`).
    """


class FreedGraphError(RuntimeError):
    """A backward pass reached values an earlier backward pass released (PyTorch's "Trying
    to backward through the graph a second time"; Note [what a backward releases] in
    fgrad/engine/backward.py).

    Raised by a second `backward()` (or `fgrad.autograd.grad`) through a node whose saved
    values the first one freed.

    What to do: pass `retain_graph=True` to the first backward, or run the forward pass again.
    """


class SideEffectWarning(UserWarning):
    """A function given to fgrad.compile did something while it was traced that replaying
    the traced program will not do again (printing, for instance): replay runs only the
    kernels, so the side effect happens on the first call only.

    What to do: move the side effect out of the compiled function, or, where it must happen
    on every call, do not compile that function.
    """


class RetraceWarning(UserWarning):
    """A function given to fgrad.compile has been traced more than
    `fgrad.config.retrace_warning_after` times (8 unless set; 0 never warns). Warned once per
    function; the message names the function, the argument as the caller wrote it
    (`args[1]['lr']`) and what changed: a shape, a dtype, a Python type, a static value, or
    a value Python read while tracing (`if lr > 0.1`, `range(n)`), at the line that read it.
    `cache_info().reasons` holds the reasons of the latest retraces.

    What to do: keep shapes and dtypes steady; let a number that changes be traced (an
    argument, not read by Python); mark an argument static only when it takes few values.
    """


class NonFiniteError(FloatingPointError):
    """With `fgrad.config.update("debug_nans", "cheap")` (or "full"), a transform's result
    holds a NaN or inf that its inputs did not: the message names the op that made it (the
    primitive, its operands' shapes and dtypes) and the user's source line: the op's own in
    the forward pass, the forward op's in the backward pass (its derivative rule made it).
    `origin` holds the same (`.prim`, `.operands`, `.where`, `.node`, `.node_where`, `.kind`),
    or None for a constant result; on the Tensor face `node` is the graph's node that made it
    (`fgrad.autograd.viz.make_dot(loss, highlight=[e.node])` draws it red). Under "full",
    the first NaN made anywhere raises at once.

    What to do: at a point where the function is not differentiable (sqrt, log, a norm at 0),
    guard the input (`fnp.where(x > 0, x, 1.0)` before the op, the "double where"), or keep
    the default `nan_safe_zeros` policy on; in a custom rule, check the rule at that point.
    """

    def __init__(self, message, origin=None, node=None):
        super().__init__(message)
        self.origin, self.node = origin, node
