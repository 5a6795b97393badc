"""The Tensor face among a transform's arguments: every decision a functional transform takes
about a Tensor it was given or a Tensor its function returned lives here.

A function given Tensors sees Tensors of its traced values (`faced`), so a PyTorch-style
function keeps its Tensor methods (Note [tensors of traced values] in autograd/tape.py);
what it returns is unwrapped again (`unfaced`); and a transform of arrays returns arrays,
also when an nn module, whose parameters are Tensors, ran inside, and a transform of Tensors
returns Tensors (`plain_values`).
"""
from ..ir.value import Tracer
from ..ops.primitive import EVAL, current_trace

__all__ = ["faced", "given_tensors", "is_tensor", "is_traced_tensor", "plain_value", "plain_values", "through_faces",
           "unfaced"]


def is_tensor(x):
    """Is `x` an fgrad.Tensor (a traced value of the bottom trace: the imperative face's)?"""
    return isinstance(x, Tracer) and x._trace is EVAL


# Set by fgrad.autograd: a Tensor wrapping a traced value (Note [tensors of traced values] in
# fgrad/autograd/tape.py), or None when the imperative face is not loaded.
tensor_face = None


def faced(tracers, leaves):
    """The traced inputs as the function sees them: where the caller passed a Tensor, a Tensor
    wrapping its traced value, so a PyTorch-style function keeps its Tensor methods."""
    for x in leaves:
        if isinstance(x, Tracer) and x._trace is EVAL and tensor_face is not None:
            return [tensor_face(t) if is_tensor(x) else t for t, x in zip(tracers, leaves)]
    return tracers


def is_traced_tensor(x):
    """Is `x` a Tensor of a traced value (what `faced` gives a function given Tensors)?"""
    return isinstance(x, Tracer) and x._trace is EVAL and isinstance(x.primal, Tracer)


def unfaced(value):
    """What a function given Tensors returned: the traced value inside a Tensor of one."""
    return value.primal if is_traced_tensor(value) else value


def given_tensors(callers):
    """Is one of a transform's arguments (`callers`) a Tensor? Then it returns Tensors."""
    if tensor_face is not None:
        for c in callers:
            if isinstance(c, Tracer) and c._trace is EVAL:
                return True
    return False


def plain_values(values, callers):
    """`values`, a transform's results, in the face of its arguments `callers`: a transform of
    arrays returns arrays, also when an nn module (whose parameters are Tensors) ran inside;
    a transform of Tensors returns Tensors, also where a result is an array (the derivative
    of a sum, a constant output) or an outer transform's traced value, as torch.func's do.
    (The list is changed in place.)"""
    tensors = given_tensors(callers)
    i = -1
    for v in values:
        i += 1
        if isinstance(v, Tracer):
            if not tensors and v._trace is EVAL:
                values[i] = v.primal
            elif tensors and v._trace is not EVAL:  # (an outer transform's value: vjp inside vmap)
                values[i] = tensor_face(v)
        elif tensors and hasattr(v, "shape") and hasattr(v, "dtype"):  # (an array or a NumPy scalar)
            values[i] = tensor_face(v)
    return values


def plain_value(value, callers):
    """`value` in the face of `callers` (plain_values)."""
    return plain_values([value], callers)[0]


def through_faces(prim, args, params):
    """An op on a Tensor of a traced value (Note [tensors of traced values] in autograd/tape.py)
    and a value of vmap: the op runs on the traced value inside the Tensor, at the innermost
    trace (the one that owns it), and a traced result is a Tensor again."""
    out = current_trace().process(prim, [unfaced(a) for a in args], params)
    if prim.multiple_results:
        return tuple(tensor_face(o) if isinstance(o, Tracer) else o for o in out)
    return tensor_face(out) if isinstance(out, Tracer) else out
