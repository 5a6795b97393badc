"""Forward-mode AD for tensors: dual_level, make_dual, unpack_dual (torch.autograd.forward_ad).

A dual level is a fresh JVP trace: make_dual(primal, tangent) gives a dual value whose
operations carry their tangent through the same jvp rules as fgrad.jvp.

Note [dual tensors]: as torch's, a dual value is a Tensor: a Tensor of a traced value (Note
[tensors of traced values] in tape.py) whose traced value is a dual number of the level, whose
primal and tangent are Tensors. So a dual has every Tensor method, and its primal's history:
an op on duals runs on their primals through the imperative tape (the level's trace hands the
primal computation to the bottom trace), so `backward()` through a dual, or through either of
`unpack_dual`'s parts, reaches the leaves the primal came from. The level's trace takes the
duals' values out of their Tensors and wraps its results in Tensors again (`DualLevel.process`),
and remembers each dual Tensor it made. When the level exits, each of them becomes its primal,
as torch drops the tangents then: its value, history and version are the primal's, its tangent
is gone (unpack_dual gives None), and it can be used as any Tensor. make_dual's result is a view
of the primal, as torch's: gradients through it reach the primal.
"""
import collections
import threading
import weakref

from ..ir.value import JVPTracer, Tracer
from ..ops.primitive import pop_trace, push_trace
from ..transforms.forward import JVPTrace, dual
from . import tape
from .dtypes import name as _dtype_name
from .tensor import Tensor

__all__ = ["DualLevel", "UnpackedDualTensor", "dual_level", "enter_dual_level", "exit_dual_level", "make_dual",
           "unpack_dual"]

UnpackedDualTensor = collections.namedtuple("UnpackedDualTensor", ["primal", "tangent"])
UnpackedDualTensor.__doc__ = """unpack_dual's result (primal, tangent): the tangent None where the tensor has none.

Examples
--------
>>> import fgrad.autograd.forward_ad as fwAD
>>> with fwAD.dual_level():
...     fwAD.unpack_dual(fgrad.tensor([1.0]))
UnpackedDualTensor(primal=tensor([1.]), tangent=None)
"""
_state = threading.local()


class DualLevel(JVPTrace):
    """The trace of a dual level: a JVPTrace whose values the user holds as Tensors (Note
    [dual tensors]). (Function.apply under it runs the Function's jvp: autograd/function.py.)

    Examples
    --------
    >>> import fgrad.autograd.forward_ad as fwAD
    >>> with fwAD.dual_level() as level:
    ...     print(type(level).__name__)
    DualLevel
    """

    __slots__ = ("duals",)
    reads_primal = True  # a dual Tensor's numpy(), item() and tolist() read its primal, as torch's

    def __init__(self, parent, transform):
        JVPTrace.__init__(self, parent, transform)
        self.direct = False  # the primals are Tensors: their ops go through the imperative tape
        self.duals = []      # weak references to the dual Tensors made here

    def process(self, prim, args, params):
        """How this level runs a primitive `prim` on `args` with `params`: forward mode's general rule
        (primal and tangent), its dual values given back as dual Tensors.
        """
        return self._faced(JVPTrace.process_general(self, prim, self._values(args), params))

    def process_custom(self, custom, args):
        # A custom_vjp or custom_jvp runs its rules on the primals' arrays, cut from their history:
        # on a dual whose primal requires grad, backward would miss its contribution, silently.
        values = self._values(args)
        for v in values:
            p = v.primal if v.__class__ is JVPTracer and v._trace is self else v
            if isinstance(p, Tensor) and p._requires_grad:
                raise RuntimeError(f"forward_ad: {getattr(custom, '__name__', 'a custom rule')} (a custom_vjp or "
                                   f"custom_jvp) got a dual Tensor or a Tensor that requires grad: its primal would "
                                   f"lose its history for backward. Use fgrad.func.jvp on it, or an "
                                   f"autograd.Function with a jvp staticmethod")
        return self._faced(JVPTrace.process_custom(self, custom, values))

    def _values(self, args):
        return [a.primal if a.__class__ is Tensor and a.primal.__class__ is JVPTracer and a.primal._trace is self
                else a for a in args]

    def _faced(self, out):
        if out.__class__ is JVPTracer and out._trace is self:
            return self.tensor(out)
        if out.__class__ is tuple:
            return tuple(self._faced(o) for o in out)
        return out

    def tensor(self, value):
        """The dual Tensor of `value`, a dual number of this level (its primal a Tensor or an
        array, which becomes a Tensor)."""
        if not isinstance(value.primal, Tensor):
            value.primal = Tensor._wrap(value.primal, None, 0)
        t = Tensor._wrap(value, None, 0)
        _take_history(t, value.primal)
        self.duals.append(weakref.ref(t))
        return t

    def close(self):
        """Every dual Tensor made here becomes its primal (the tangents are dropped)."""
        for ref in self.duals:
            t = ref()
            if t is not None and t.primal.__class__ is JVPTracer and t.primal._trace is self:
                _become_primal(t)
        self.duals = []
        return None


def _take_history(t, primal):
    """Give dual Tensor `t` the autograd state of its primal Tensor (so requires_grad, grad_fn
    and backward() read as torch's do for a dual)."""
    t._grad_fn, t.index, t._requires_grad = primal._grad_fn, primal.index, primal._requires_grad
    t._version_counter = primal._version_counter
    if primal._accumulator is not None or (primal._requires_grad and primal._grad_fn is None):
        t._accumulator = primal.node  # (a leaf's gradient goes to the leaf)


def _become_primal(t):
    """`t`, a dual Tensor of a level that exits, becomes its primal Tensor in place."""
    primal = t.primal.primal
    _take_history(t, primal)
    t.primal = primal.primal
    if primal._view is not None:  # (a view, as the primal: it follows its base's in-place changes)
        t._view = primal._view
        tape.register_view(t, primal._view[0])


def _levels():
    levels = getattr(_state, "levels", None)
    if levels is None:
        levels = _state.levels = []
    return levels


def enter_dual_level() -> DualLevel:
    """Start a dual level (what `with dual_level():` does); returns it.

    Examples
    --------
    >>> import fgrad.autograd.forward_ad as fwAD
    >>> level = fwAD.enter_dual_level()
    >>> y = fwAD.make_dual(fgrad.tensor([2.0]), fgrad.tensor([1.0])) ** 2
    >>> fwAD.unpack_dual(y).tangent  # 2 x
    tensor([4.])
    >>> fwAD.exit_dual_level()
    """
    levels = _levels()
    if levels:
        raise RuntimeError("Nested forward mode AD is not supported at the moment (as in torch): a dual_level is "
                           "already active; for nested forward mode use fgrad.jvp (or fgrad.func.jvp) inside")
    trace = push_trace(DualLevel, "forward_ad.dual_level")
    levels.append(trace)
    return trace


def exit_dual_level(*, level: DualLevel | None = None) -> None:
    """End the innermost dual level: its dual Tensors become their primals.

    Examples
    --------
    >>> import fgrad.autograd.forward_ad as fwAD
    >>> _ = fwAD.enter_dual_level(); fwAD.exit_dual_level()  # dual tensors made in between are plain again
    """
    levels = _levels()
    if not levels or (level is not None and level is not levels[-1]):
        raise RuntimeError("exit_dual_level: the level to exit is not the innermost active dual level")
    pop_trace(levels.pop())


class dual_level:
    """Context manager: dual values made inside belong to this level; when it exits, each
    becomes its primal (its tangent is dropped), as torch's.

    Examples
    --------
    >>> import fgrad.autograd.forward_ad as fwAD
    >>> with fwAD.dual_level():
    ...     y = fwAD.make_dual(fgrad.tensor([0.0]), fgrad.tensor([2.0])).sin()
    ...     fwAD.unpack_dual(y).tangent  # cos(0) * 2
    tensor([2.])
    """

    def __enter__(self) -> DualLevel:
        self._level = enter_dual_level()
        return self._level

    def __exit__(self, *exc: object) -> bool:
        exit_dual_level(level=self._level)
        return False


def make_dual(tensor: Tensor, tangent: Tensor, *, level: DualLevel | None = None) -> Tensor:
    """A dual Tensor with primal `tensor` and tangent `tangent` (a Tensor of its shape and
    dtype); a view of `tensor`, so gradients through it reach `tensor`.

    Examples
    --------
    >>> import fgrad.autograd.forward_ad as fwAD
    >>> with fwAD.dual_level():
    ...     x = fwAD.make_dual(fgrad.tensor([1.0, 2.0]), fgrad.tensor([1.0, 0.0]))
    ...     fwAD.unpack_dual((x ** 3).sum()).tangent  # the directional derivative 3 x0 ** 2
    tensor(3.)
    """
    levels = _levels()
    if not levels:
        raise RuntimeError("make_dual: to create a dual tensor, you must be inside a dual_level() context "
                           "(with fgrad.autograd.forward_ad.dual_level(): ...)")
    trace = level if level is not None else levels[-1]
    if not isinstance(trace, DualLevel) or trace not in levels:
        raise RuntimeError("make_dual: level= must be an active dual level")
    if not isinstance(tensor, Tensor):
        raise TypeError(f"make_dual: the primal must be a Tensor, got {type(tensor).__name__}")
    tangent = tangent if isinstance(tangent, Tensor) else Tensor(tangent)
    if tensor.dtype.kind not in "fc":
        raise ValueError(f"make_dual: expected the primal to be of floating point or complex dtype, got "
                         f"{_dtype_name(tensor.dtype)}")
    if tuple(tangent.shape) != tuple(tensor.shape):
        raise RuntimeError(f"make_dual: trying to set a forward gradient that has a different size than that of the "
                           f"original Tensor: the primal is of size {list(tensor.shape)}, the tangent of size "
                           f"{list(tangent.shape)}")
    if tangent.dtype != tensor.dtype:
        raise RuntimeError(f"make_dual: the tangent has dtype {_dtype_name(tangent.dtype)}, the primal "
                           f"{_dtype_name(tensor.dtype)}; cast the tangent (tangent.to({_dtype_name(tensor.dtype)}))")
    if isinstance(tangent.primal, Tracer) or isinstance(tensor.primal, Tracer):
        raise RuntimeError("make_dual: the primal and the tangent must be plain Tensors, not duals or Tensors of "
                           "traced values; to take the primal of a dual, use unpack_dual(t).primal")
    primal = tensor.view(tensor.shape)  # (a view: a dual shares its primal's memory and gradient, as torch's)
    return trace.tensor(dual(trace, primal, tangent))


def unpack_dual(tensor: Tensor, *, level: DualLevel | None = None) -> UnpackedDualTensor:
    """(primal, tangent) of a dual Tensor of the level (the innermost one unless `level` is
    given), as Tensors; the tangent is None for any other tensor, and for a dual after its level.

    Examples
    --------
    >>> import fgrad.autograd.forward_ad as fwAD
    >>> with fwAD.dual_level():
    ...     primal, tangent = fwAD.unpack_dual(fwAD.make_dual(fgrad.tensor([1.0]), fgrad.tensor([5.0])) * 2)
    >>> primal, tangent
    (tensor([2.]), tensor([10.]))
    """
    levels = _levels()
    trace = level if level is not None else (levels[-1] if levels else None)
    value = tensor.primal if isinstance(tensor, Tensor) else None
    if value.__class__ is JVPTracer and value._trace is trace and trace is not None:
        t = value.tangent
        return UnpackedDualTensor(value.primal, t if t is None or isinstance(t, Tensor) else Tensor._wrap(t, None, 0))
    return UnpackedDualTensor(tensor, None)
