"""fgrad.Tensor: an array that may record its history, PyTorch style.

A Tensor is a traced value of the bottom trace: operators and NumPy functions on it go
through the same primitives and `bind` as everything else, and `tape.record` builds
its grad_fn graph from the same tape nodes the functional transforms use. Methods
follow PyTorch's names and semantics (dim=/keepdim=, unbiased std, max(dim) returning
values and indices); the default dtype follows NumPy (float64).
"""
import collections
import weakref
from builtins import bool as _bool  # (in the class body bool, float and int are Tensor's methods)
from builtins import float as _float
from builtins import int as _int
from typing import TypeVar

import numpy as np

from .. import numpy as fnp
from ..backend import Device, array_module, device_of
from ..backend import device as to_device
from ..ir.node import Node
from ..ir.value import Tracer, concrete, peek
from ..numpy import _softmax, bridge
from ..ops import elementwise as ew
from ..ops import indexing as ix
from ..ops.devices import device_put
from ..ops.primitive import EVAL, VIEW
from ..ops.stop_gradient import stop_gradient
from ..transforms import faces
from ..tree_util import tree_leaves, tree_map
from ..typing import TYPE_CHECKING, Any, Array, ArrayLike, Callable, DTypeLike, Sequence
from . import promotion, tape
from .dims import shape_index, wrap_dim, wrap_dims
from .dtypes import Size, get_default_dtype, inferred
from .dtypes import name as _dtype_name
from .grad_mode import is_grad_enabled, no_grad
from .tape import AccumulateGrad, RemovableHandle, VersionCounter

__all__ = ["Tensor"]

_new = object.__new__
_UNSHOWN = (np.dtype(np.int64), np.dtype(np.bool_))  # (dtypes a repr leaves out, besides the default ones)
MinMax = collections.namedtuple("MinMax", ["values", "indices"])
_Axes = int | tuple[int, ...] | None  # dim= of the reductions
# fgrad.autograd.backward, which Tensor.backward runs: set when functional.py loads (it
# imports this module, so this one cannot import it)
autograd_backward = None


if TYPE_CHECKING:  # (type checkers see what Tensor gets at import: its operators, torch's methods, shape and dtype)
    from ._tensor_methods import TensorMethods  # (a stub: tools/make_stubs.py writes it from the runtime)

    class _TensorBase(TensorMethods, Tracer): ...
else:
    _TensorBase = Tracer


class Tensor(_TensorBase):
    """A NumPy (or CuPy) array with autograd: requires_grad, grad, grad_fn, backward().

    torch.Tensor's face on fgrad's tape: operations on a tensor that requires grad are recorded
    (each result's `grad_fn` is the node that made it), and `backward()` accumulates the
    gradient of a scalar into the `.grad` of every leaf that requires grad. Operators, NumPy
    functions (`np.sin(t)`, through NumPy's protocols) and fgrad.numpy's functions all
    differentiate it; the methods have torch's names and semantics.

    Parameters
    ----------
    data : array_like
        The values, copied: a list, a number, a NumPy or CuPy array, or a Tensor.
    requires_grad : bool
        Record operations on this tensor, so backward() fills its `.grad` (default False).
    dtype : dtype, optional
        The dtype (a NumPy dtype or fgrad.float32, ...); by default the array's own, and for
        Python numbers torch.tensor's inference with NumPy's default float (float64). Unlike
        `torch.Tensor(data)`, which always makes float32, this is `fgrad.tensor(data)`.
    device : str or fgrad.Device, optional
        Where the values live: "cpu" (NumPy) or "cuda:N" (CuPy); by default that of `data`.

    Raises
    ------
    RuntimeError
        `requires_grad=True` for a dtype that is not floating point or complex.

    Examples
    --------
    >>> x = fgrad.Tensor([1.0, 2.0], requires_grad=True)
    >>> y = (x * x).sum(); y
    tensor(5., grad_fn=<SumBackward0>)
    >>> y.backward(); x.grad  # d/dx sum(x * x) = 2 x
    tensor([2., 4.])
    >>> x.is_leaf, y.is_leaf, x.shape, x.dtype
    (True, False, (2,), dtype('float64'))
    """

    __slots__ = ("_grad_fn", "index", "_requires_grad", "_grad", "_version_counter", "_accumulator",
                 "_leaf_hooks", "_post_acc_hooks", "_view", "_views", "_retains_grad", "__weakref__")

    def __init__(self, data: ArrayLike, requires_grad: _bool = False, dtype: DTypeLike | None = None,
                 device: str | Device | None = None) -> None:
        if isinstance(data, Tracer):
            data = concrete(data)
        xp = to_device(device).xp if device is not None else array_module(data)
        array = xp.array(data, dtype=dtype)
        if dtype is None and not hasattr(data, "dtype"):  # (Python numbers: torch's inferred dtype)
            array = inferred(array)
        if device is not None:
            array = to_device(device).send(array)
        Tensor._init(self, array, None, 0)
        if requires_grad:
            self.requires_grad_(True)

    @staticmethod
    def _init(t, array, node, index):
        t._trace = EVAL
        t.primal = array
        t._grad_fn = node
        t.index = index
        t._requires_grad = node is not None
        t._grad = None
        t._version_counter = counter = _new(VersionCounter)  # (no __init__ call: one per op)
        counter.value = 0
        t._accumulator = None
        t._leaf_hooks = t._post_acc_hooks = t._view = t._views = None
        t._retains_grad = False

    @classmethod
    def _wrap(cls, array, node, index):
        """A tensor around an existing array (no copy); `node` is its grad_fn or None."""
        t = _new(cls)
        if array.__class__ is not np.ndarray and not (hasattr(array, "shape") and hasattr(array, "__setitem__")):
            array = np.asarray(array)  # NumPy scalars and Python numbers become 0-d arrays (in-place ops need them)
        Tensor._init(t, array, node, index)
        return t

    # ---- autograd state ------------------------------------------------------------------
    @property
    def requires_grad(self) -> _bool:
        """Whether operations on this tensor are recorded for backward (settable on a leaf, as torch's)."""
        return self._requires_grad

    @requires_grad.setter
    def requires_grad(self, flag: _bool) -> None:
        self.requires_grad_(flag)

    def requires_grad_(self, requires_grad: _bool = True) -> "Tensor":
        """Start (or stop) recording operations on this leaf tensor."""
        if self._grad_fn is not None:
            if not requires_grad:
                raise RuntimeError("you can only change requires_grad flags of leaf variables. If you want to use "
                                   "a computed variable in a subgraph that doesn't require differentiation use "
                                   "var_no_grad = var.detach().")
            return self
        if requires_grad and isinstance(self.primal, Tracer):
            raise RuntimeError("a Tensor of a traced value (what a Function's forward and backward get under a "
                               "functional transform) cannot require grad: the transform differentiates it")
        if requires_grad and not np.issubdtype(self.primal.dtype, np.inexact):
            raise RuntimeError(f"only Tensors of floating point dtype can require gradients, got "
                               f"{_dtype_name(self.primal.dtype)}")
        self._requires_grad = bool(requires_grad)
        return self

    @property
    def grad(self) -> "Tensor | None":
        """The gradient backward() accumulated into this tensor (None until then)."""
        return self._grad

    @grad.setter
    def grad(self, value: "Tensor | None") -> None:
        if value is not None:
            _check_assigned_grad(self, value)
        self._grad = value

    @grad.deleter
    def grad(self) -> None:
        self._grad = None

    @property
    def grad_fn(self) -> Node | None:
        """The node that created this tensor (None for leaves)."""
        return self._grad_fn

    @property
    def is_leaf(self) -> _bool:
        """True for a tensor no recorded operation made (created by the user, or with requires_grad False)."""
        return self._grad_fn is None

    @property
    def node(self) -> Node | AccumulateGrad | None:
        """Where this tensor's cotangent goes: its grad_fn, or its AccumulateGrad if it is a leaf."""
        if self._grad_fn is not None:
            return self._grad_fn
        if not self._requires_grad:
            return None
        if self._accumulator is None:  # held strongly here; it holds this tensor weakly (no cycle)
            self._accumulator = AccumulateGrad(self)
        return self._accumulator

    @property
    def _version(self) -> _int:
        return self._version_counter.value

    @property
    def data(self) -> "Tensor":
        """This tensor's values, detached (shares memory and the version counter)."""
        return self.detach()

    @data.setter
    def data(self, value: "Tensor | ArrayLike") -> None:
        value = concrete(value.primal if isinstance(value, Tensor) else value)
        value = value if hasattr(value, "__setitem__") else np.asarray(value)
        self.primal = value

    def detach(self) -> "Tensor":
        """A tensor sharing this one's data, cut from the graph (torch.Tensor.detach).

        The result is a leaf that does not require grad: no gradient flows through it, so
        `x * x.detach()` differentiates as `c * x` with c the value of x. It shares memory and
        the version counter with self, so an in-place change to either shows in both and is
        caught by backward where the value was saved. Of a traced value (a Function's forward
        under a transform) it cuts the transform's derivative too: Note [tensors of traced
        values] in tape.py.

        Returns
        -------
        Tensor
            The same values, `requires_grad=False`, `grad_fn=None`.

        Examples
        --------
        >>> x = fgrad.tensor([1.0, 2.0], requires_grad=True)
        >>> (x * x.detach()).sum().backward(); x.grad  # x.detach() is a constant: the gradient is x
        tensor([1., 2.])
        >>> d = x.detach(); d[0] = 5.0; x  # shared memory
        tensor([5., 2.], requires_grad=True)
        """
        source = _readable(self)  # (of a dual, its primal: the tangent is dropped too, as torch's)
        primal = source.primal
        t = Tensor._wrap(primal if primal.__class__ is np.ndarray or not isinstance(primal, Tracer)
                         else stop_gradient(primal), None, 0)
        t._version_counter = source._version_counter
        return t

    def detach_(self) -> "Tensor":
        """Cut this tensor from the graph in place: it becomes a leaf that does not require grad.
        Returns self; raises RuntimeError for a view (call detach() instead).
        """
        if self._view is not None:
            raise RuntimeError("Can't detach views in-place. Use detach() instead.")
        self._grad_fn, self.index, self._requires_grad = None, 0, False
        return self

    def retain_grad(self) -> None:
        """Keep .grad for this non-leaf tensor after backward."""
        if self.is_leaf or self._retains_grad:
            return
        if not self._requires_grad:
            raise RuntimeError("can't retain_grad on Tensor that has requires_grad=False")
        self._retains_grad = True
        ref = weakref.ref(self)

        def keep(grad):
            t = ref()
            if t is not None:
                g = grad.detach()
                t._grad = g if t._grad is None else t._grad + g
        self.register_hook(keep)

    @property
    def retains_grad(self) -> _bool:
        """True when retain_grad() was called on this non-leaf tensor, so backward fills its .grad."""
        return self._retains_grad

    def register_hook(self, hook: "Callable[[Tensor], Tensor | None]") -> RemovableHandle:
        """hook(grad) runs when this tensor's gradient is computed; it may return a replacement."""
        if not self._requires_grad:
            raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
        if self._grad_fn is None:
            if self._leaf_hooks is None:
                self._leaf_hooks = []
            return RemovableHandle(self._leaf_hooks, hook)
        meta = self._grad_fn.meta
        if meta.tensor_hooks is None:
            meta.tensor_hooks = {}
        return RemovableHandle(meta.tensor_hooks.setdefault(self.index, []), hook)

    def register_post_accumulate_grad_hook(self, hook: "Callable[[Tensor], None]") -> RemovableHandle:
        """hook(tensor) runs after the gradient has been accumulated into this leaf's .grad."""
        if self._grad_fn is not None:
            raise RuntimeError("post accumulate grad hooks cannot be registered on non-leaf tensors")
        if not self._requires_grad:
            raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
        if self._post_acc_hooks is None:
            self._post_acc_hooks = []
        return RemovableHandle(self._post_acc_hooks, hook)

    def backward(self, gradient: "Tensor | ArrayLike | None" = None, retain_graph: _bool | None = None,
                 create_graph: _bool = False, inputs: "Tensor | Sequence[Tensor] | None" = None) -> None:
        """Accumulate d(self)/d(leaf) into every leaf's .grad (see fgrad.autograd.backward)."""
        autograd_backward(self, gradient, retain_graph, create_graph, inputs=inputs)

    # ---- conversion ------------------------------------------------------------------------
    def numpy(self, force: _bool = False) -> np.ndarray:
        """The tensor's values as a NumPy array, sharing memory on the CPU (a copy from a GPU).

        Raises RuntimeError when the tensor requires grad, unless `force` (detach() first, as torch).
        """
        if self._requires_grad and not force:
            raise RuntimeError("Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() instead.")
        array = _readable(self).primal
        return array if array.__class__ is np.ndarray else to_device("cpu").send(array)

    def __array__(self, dtype: DTypeLike | None = None, copy: _bool | None = None) -> np.ndarray:
        if self._requires_grad and is_grad_enabled():
            raise RuntimeError("Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() instead.")
        array = self.numpy(force=True)
        return array if dtype is None else array.astype(dtype)

    def __array_function__(self, func, types, args, kwargs):
        # NumPy's functions: fgrad's version where it has one (it differentiates); any other one
        # (np.save, np.savetxt) gets the arrays of the Tensors, as a torch Tensor converts for
        # NumPy, unless one requires grad (as numpy() refuses) or is of a traced value.
        if bridge.covering(func) is not None:
            return bridge.array_function(self, func, types, args, kwargs)
        return _numpy_on_arrays(self, func, types, args, kwargs)

    def item(self) -> _int | _float | complex:
        """The value of a one-entry tensor as a Python number (int, float, complex or bool); raises
        RuntimeError for any other size. Not differentiable.
        """
        array = _readable(self).primal
        if array.size != 1:
            raise RuntimeError(f"a Tensor with {array.size} elements cannot be converted to Scalar")
        return array.item()

    # PyTorch's conversions: a Tensor's value is concrete, and float(loss) is the user's to take
    # (functional traced values refuse them: Note [no silent conversions] in ir/value.py).
    def __float__(self) -> _float:
        return float(self.item())

    def __complex__(self) -> complex:
        return complex(self.item())

    def tolist(self) -> list[Any] | _int | _float | complex:
        """The tensor's values as nested Python lists of numbers (a number for a 0-D tensor). Not
        differentiable.
        """
        return _readable(self).primal.tolist()

    def clone(self) -> "Tensor":
        """A copy of this tensor's values that stays in the graph (torch.Tensor.clone).

        The copy has its own memory (in-place changes to it leave self alone) and records the
        copy, so a gradient through it flows back to self unchanged.

        Returns
        -------
        Tensor
            A new tensor of self's shape, dtype and device; with self's requires_grad.

        Examples
        --------
        >>> x = fgrad.tensor([1.0, 2.0], requires_grad=True)
        >>> c = x.clone(); c
        tensor([1., 2.], grad_fn=<CloneBackward0>)
        >>> (3 * c).sum().backward(); x.grad
        tensor([3., 3.])
        """
        return fnp.copy(self)

    def to(self, *args: "str | Device | DTypeLike | Tensor", **kwargs: Any) -> "Tensor":
        """to(device), to(dtype), to(device, dtype) or to(other) (other's dtype and device), and
        the keywords device=, dtype=, copy= (a copy even when nothing changes) and non_blocking=,
        as torch's. A dtype is a NumPy dtype or its name given as dtype= ('float32')."""
        dev, dtype = kwargs.pop("device", None), kwargs.pop("dtype", None)
        copy = kwargs.pop("copy", False)
        kwargs.pop("non_blocking", None)  # (transfers are synchronous)
        if kwargs:
            raise TypeError(f"Tensor.to() got an unexpected keyword argument {next(iter(kwargs))!r}")
        for a in args:
            if isinstance(a, Tensor):
                dtype, dev = a.dtype, device_of(peek(a))
            elif isinstance(a, (str, Device)):
                dev = a
            else:
                dtype = a
        out = self
        if dtype is not None and np.dtype(dtype) != self.dtype:
            out = promotion.astype(out, dtype)
        if dev is not None and _device_arg(dev) != device_of(peek(self)):
            out = device_put(out, dev)  # (recorded: the gradient goes back to this device)
        return out.clone() if copy and out is self else out

    def cpu(self) -> "Tensor":
        """This tensor on the CPU (self when already there); the transfer is recorded, so the gradient
        goes back to the original device.
        """
        return self.to("cpu")

    def cuda(self, device: _int = 0) -> "Tensor":
        """This tensor on GPU `device` (an index; needs CuPy); the transfer is recorded, so the gradient
        goes back to the original device.
        """
        return self.to(f"cuda:{device}")

    def float(self) -> "Tensor":
        """This tensor converted to float32 (self when already float32). Differentiable between floating
        dtypes.
        """
        return self.to(np.float32)

    def double(self) -> "Tensor":
        """This tensor converted to float64 (self when already float64). Differentiable between floating
        dtypes.
        """
        return self.to(np.float64)

    def long(self) -> "Tensor":
        """This tensor converted to int64 (floats truncated toward zero); no gradient flows through it."""
        return promotion.astype(self, np.int64)

    def int(self) -> "Tensor":
        """This tensor converted to int32 (floats truncated toward zero); no gradient flows through it."""
        return promotion.astype(self, np.int32)

    def bool(self) -> "Tensor":
        """This tensor converted to bool (nonzero entries True); no gradient flows through it."""
        return promotion.astype(self, bool)

    # ---- shape ---------------------------------------------------------------------------
    def size(self, dim: _int | None = None) -> tuple[_int, ...] | _int:
        """The shape as an fgrad.Size (a tuple), or the length of axis `dim` (negative counts from the end)."""
        return Size(self.shape) if dim is None else self.shape[shape_index(dim, self.ndim, "size")]

    def dim(self) -> _int:
        """The number of axes (0 for a scalar tensor); `ndimension` is the same method."""
        return self.ndim

    ndimension = dim

    def numel(self) -> _int:
        """The number of entries: the product of the shape (1 for a 0-D tensor)."""
        return int(self.primal.size)

    def view(self, *shape: _int | Sequence[_int]) -> "Tensor":
        """This tensor's values with a new shape (torch.Tensor.view and reshape; `reshape` is this method).

        The entries keep their row-major order, as numpy.reshape's. Differentiable: the gradient is
        the output's gradient reshaped back.

        Parameters
        ----------
        *shape : int or sequence of int
            The new shape, as ints (`view(2, 3)`) or one sequence (`view((2, 3))`); one entry may be
            -1, inferred from the number of entries.

        Returns
        -------
        Tensor
            A tensor of the new shape, in the graph.

        Raises
        ------
        ValueError
            The new shape does not hold exactly `numel()` entries.

        Examples
        --------
        >>> x = fgrad.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], requires_grad=True)
        >>> y = x.reshape(3, 2); y
        tensor([[1., 2.], [3., 4.], [5., 6.]], grad_fn=<ViewBackward0>)
        >>> x.view(-1).shape, fgrad.reshape(x, (3, -1)).shape
        ((6,), (3, 2))
        >>> (y * fgrad.tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])).sum().backward(); x.grad
        tensor([[1., 2., 3.], [4., 5., 6.]])
        """
        return fnp.reshape(self, shape[0] if len(shape) == 1 and not isinstance(shape[0], int) else shape)

    reshape = view

    def view_as(self, other: "Tensor") -> "Tensor":
        """This tensor's values with other's shape (view(other.shape)). Differentiable."""
        return self.view(other.shape)

    def flatten(self, start_dim: _int = 0, end_dim: _int = -1) -> "Tensor":
        """The axes start_dim..end_dim (inclusive; negative counts from the end) merged into one
        (torch.Tensor.flatten). Differentiable, as `view` of the merged shape.

        Parameters
        ----------
        start_dim : int
            The first axis merged (default 0).
        end_dim : int
            The last axis merged (default -1, the last axis).

        Returns
        -------
        Tensor
            A tensor with the axes in between replaced by one of their sizes' product; a 0-D tensor
            becomes 1-D.

        Raises
        ------
        IndexError
            start_dim or end_dim is not an axis of this tensor.
        RuntimeError
            start_dim comes after end_dim.

        Examples
        --------
        >>> x = fgrad.zeros(2, 3, 4)
        >>> x.flatten().shape, x.flatten(1).shape, fgrad.flatten(x, 0, 1).shape
        ((24,), (2, 12), (6, 4))
        """
        return self.view(flattened_shape(self.shape, start_dim, end_dim))

    def unsqueeze(self, dim: _int) -> "Tensor":
        """This tensor with a new axis of size 1 at position `dim` (torch.Tensor.unsqueeze).

        Differentiable: the gradient is the output's with that axis removed.

        Parameters
        ----------
        dim : int
            The new axis's position in the result, in [-ndim - 1, ndim]; negative counts from the end
            (-1 appends an axis).

        Returns
        -------
        Tensor
            A tensor with one more axis, of size 1.

        Examples
        --------
        >>> x = fgrad.tensor([1.0, 2.0, 3.0])
        >>> x.unsqueeze(0).shape, x.unsqueeze(-1).shape, fgrad.unsqueeze(x, 1)
        ((1, 3), (3, 1), tensor([[1.], [2.], [3.]]))
        """
        return fnp.expand_dims(self, wrap_dim(dim, self.ndim + 1, "unsqueeze"))

    def squeeze(self, dim: _int | None = None) -> "Tensor":
        """This tensor with its axes of size 1 removed (torch.Tensor.squeeze).

        Differentiable: the gradient is the output's reshaped back.

        Parameters
        ----------
        dim : int, optional
            Remove only this axis (negative counts from the end), and only if its size is 1; else
            self is returned unchanged, as torch's (numpy.squeeze raises there).

        Returns
        -------
        Tensor
            A tensor without those axes (self where `dim`'s size is not 1).

        Examples
        --------
        >>> x = fgrad.zeros(1, 3, 1)
        >>> x.squeeze().shape, x.squeeze(0).shape, x.squeeze(1).shape, fgrad.squeeze(x, -1).shape
        ((3,), (3, 1), (1, 3, 1), (1, 3))
        """
        if dim is None:
            return fnp.squeeze(self)
        dims = wrap_dims(dim if isinstance(dim, (list, tuple)) else [dim], self.ndim, "squeeze") or ()
        ones = tuple(d for d in dims if self.shape[d] == 1)  # (torch leaves the others, and a 0-D tensor)
        return fnp.squeeze(self, ones) if ones else self

    def permute(self, *dims: _int | Sequence[_int]) -> "Tensor":
        """This tensor with its axes reordered: axis i of the result is axis dims[i] (torch.Tensor.permute).

        Differentiable: the gradient is the output's under the inverse permutation.

        Parameters
        ----------
        *dims : int or sequence of int
            A permutation of the axes, as ints (`permute(2, 0, 1)`) or one sequence.

        Returns
        -------
        Tensor
            A tensor of shape `[self.shape[d] for d in dims]`.

        Raises
        ------
        IndexError
            A dim is out of range (torch's message).
        RuntimeError
            `dims` names an axis twice, or not every axis.

        Examples
        --------
        >>> x = fgrad.zeros(2, 3, 4)
        >>> x.permute(2, 0, 1).shape, fgrad.permute(x, (1, 0, 2)).shape
        ((4, 2, 3), (3, 2, 4))
        """
        dims = tuple(dims[0]) if len(dims) == 1 and not isinstance(dims[0], int) else dims
        if len(dims) != self.ndim:
            raise RuntimeError(f"permute(): the number of dims ({len(dims)}) does not match the tensor's "
                               f"({self.ndim})")
        return fnp.transpose(self, wrap_dims(dims, self.ndim, "permute") or ())

    def transpose(self, dim0: _int, dim1: _int) -> "Tensor":
        """This tensor with axes dim0 and dim1 swapped (torch.Tensor.transpose; numpy.swapaxes).

        Differentiable: the gradient is the output's with the two axes swapped back.

        Parameters
        ----------
        dim0, dim1 : int
            The two axes (negative counts from the end).

        Returns
        -------
        Tensor
            A tensor of self's shape with sizes dim0 and dim1 exchanged.

        Examples
        --------
        >>> x = fgrad.tensor([[1.0, 2.0, 3.0]], requires_grad=True)
        >>> x.transpose(0, 1)
        tensor([[1.], [2.], [3.]], grad_fn=<...>)
        >>> fgrad.transpose(fgrad.zeros(2, 3, 4), 0, -1).shape
        (4, 3, 2)
        """
        dim0, dim1 = wrap_dim(dim0, self.ndim, "transpose"), wrap_dim(dim1, self.ndim, "transpose")
        return fnp.swapaxes(self, dim0, dim1) if self.ndim else self

    def t(self) -> "Tensor":
        """The transpose of a 2-D tensor, a 0-D or 1-D tensor as it is (torch.Tensor.t). Differentiable.

        Returns
        -------
        Tensor
            transpose(0, 1) of a matrix; self's values otherwise.

        Raises
        ------
        RuntimeError
            The tensor has more than 2 axes (use transpose or permute).

        Examples
        --------
        >>> x = fgrad.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
        >>> x.t()
        tensor([[1., 3.], [2., 4.]], grad_fn=<PermuteBackward0>)
        >>> (x.t() * fgrad.tensor([[1.0, 0.0], [0.0, 0.0]])).sum().backward(); x.grad
        tensor([[1., 0.], [0., 0.]])
        >>> fgrad.t(fgrad.tensor([1.0, 2.0]))  # a 1-D tensor as it is
        tensor([1., 2.])
        """
        if self.ndim > 2:
            raise RuntimeError(f"t() expects a tensor with <= 2 dimensions, but self is {self.ndim}D")
        return fnp.transpose(self)

    def expand(self, *sizes: _int | Sequence[_int]) -> "Tensor":
        """This tensor broadcast to `sizes` (ints or one sequence; -1 keeps an axis's size; new axes go in
        front). Differentiable: the gradient is summed over the broadcast axes.
        """
        sizes = sizes[0] if len(sizes) == 1 and not isinstance(sizes[0], int) else sizes
        lead = len(sizes) - self.ndim
        shape = tuple(self.shape[i - lead] if s == -1 else s for i, s in enumerate(sizes))
        return fnp.broadcast_to(self, shape)

    def repeat(self, *sizes: _int | Sequence[_int]) -> "Tensor":
        """This tensor tiled sizes[i] times along axis i (torch.Tensor.repeat, numpy.tile). Differentiable."""
        return fnp.tile(self, sizes[0] if len(sizes) == 1 and not isinstance(sizes[0], int) else sizes)

    # ---- math with PyTorch's names ---------------------------------------------------------
    def sum(self, dim: _Axes = None, keepdim: _bool = False, dtype: DTypeLike | None = None, axis: _Axes = None,
            keepdims: _bool | None = None) -> "Tensor":
        """The sum of the entries over `dim` (torch.Tensor.sum; fgrad.sum is this method).

        Differentiable: each entry's gradient is the output's gradient at its position.

        Parameters
        ----------
        dim : int or tuple of int, optional
            The axes summed over; None (the default) sums all entries.
        keepdim : bool
            Keep the summed axes, with size 1 (default False).
        dtype : dtype, optional
            The result's (and the accumulator's) dtype.
        axis, keepdims
            NumPy's names for `dim` and `keepdim`, accepted too.

        Returns
        -------
        Tensor
            The sums: a 0-D tensor when all entries are summed.

        Examples
        --------
        >>> x = fgrad.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
        >>> x.sum(), x.sum(0), fgrad.sum(x, dim=1, keepdim=True).shape
        (tensor(10., grad_fn=<SumBackward0>), tensor([4., 6.], grad_fn=<SumBackward0>), (2, 1))
        >>> x.sum().backward(); x.grad
        tensor([[1., 1.], [1., 1.]])
        """
        axes = wrap_dims(_dim(dim, axis), self.ndim, "sum")
        return _result(fnp.sum(self, axis=axes, keepdims=_keep(keepdim, keepdims),
                               dtype=promotion.accumulator(self, dtype)))

    def mean(self, dim: _Axes = None, keepdim: _bool = False, dtype: DTypeLike | None = None, axis: _Axes = None,
             keepdims: _bool | None = None) -> "Tensor":
        """The mean of the entries over `dim` (torch.Tensor.mean; fgrad.mean is this method).

        Differentiable: each entry's gradient is the output's gradient divided by the number of
        entries averaged.

        Parameters
        ----------
        dim : int or tuple of int, optional
            The axes averaged over; None (the default) averages all entries.
        keepdim : bool
            Keep the averaged axes, with size 1 (default False).
        dtype : dtype, optional
            The result's (and the accumulator's) dtype.
        axis, keepdims
            NumPy's names for `dim` and `keepdim`, accepted too.

        Returns
        -------
        Tensor
            The means: a 0-D tensor when all entries are averaged.

        Examples
        --------
        >>> x = fgrad.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
        >>> x.mean(), fgrad.mean(x, dim=0)
        (tensor(2.5, grad_fn=<...>), tensor([2., 3.], grad_fn=<...>))
        >>> x.mean().backward(); x.grad
        tensor([[0.25, 0.25], [0.25, 0.25]])
        """
        kind = self.primal.dtype.kind if dtype is None else np.dtype(dtype).kind
        if kind not in "fc":  # (torch's: fgrad.numpy.mean of ints is NumPy's float64)
            raise RuntimeError(f"mean(): could not infer output dtype. {'Input' if dtype is None else 'Optional'} "
                               f"dtype must be either a floating point or complex dtype. Got: "
                               f"{_dtype_name(self.primal.dtype if dtype is None else dtype)}")
        axes = wrap_dims(_dim(dim, axis), self.ndim, "mean")
        return fnp.mean(self, axis=axes, keepdims=_keep(keepdim, keepdims), dtype=dtype)

    def nansum(self, dim: _Axes = None, keepdim: _bool = False, *, dtype: DTypeLike | None = None) -> "Tensor":
        """The sum over `dim` with NaN entries counted as zero (torch.Tensor.nansum; fgrad.nansum is this
        method). Integer and bool tensors sum in int64, as torch's; complex ones raise RuntimeError, as
        torch's. Differentiable: the gradient is the output's, and zero at the NaN entries.

        Examples
        --------
        >>> x = fgrad.tensor([1.0, float("nan"), 2.0], requires_grad=True)
        >>> y = x.nansum(); y.backward()
        >>> y, x.grad, fgrad.nansum(fgrad.tensor([1, 2], dtype=fgrad.int8))
        (tensor(3., grad_fn=<...>), tensor([1., 0., 1.]), tensor(3))
        """
        if self.primal.dtype.kind == "c":
            raise RuntimeError("nansum does not support complex inputs (as torch's)")
        axes = wrap_dims(dim, self.ndim, "nansum")
        return _result(fnp.nansum(self, axis=axes, keepdims=keepdim, dtype=promotion.accumulator(self, dtype)))

    def nanmean(self, dim: _Axes = None, keepdim: _bool = False, *, dtype: DTypeLike | None = None) -> "Tensor":
        """The mean over `dim` of the entries that are not NaN (torch.Tensor.nanmean; fgrad.nanmean is this
        method): NaN where all are. As torch's, of a floating tensor only (others raise RuntimeError,
        whatever dtype=). Differentiable: each non-NaN entry's gradient is the output's divided
        by their number.

        Examples
        --------
        >>> x = fgrad.tensor([1.0, float("nan"), 2.0], requires_grad=True)
        >>> y = x.nanmean(); y.backward()
        >>> y, x.grad
        (tensor(1.5, grad_fn=<...>), tensor([0.5, 0. , 0.5]))
        """
        if self.primal.dtype.kind != "f":
            raise RuntimeError(f"nanmean(): expected input to have floating point dtype but got "
                               f"{_dtype_name(self.primal.dtype)} (as torch's)")
        axes = wrap_dims(dim, self.ndim, "nanmean")
        return fnp.nanmean(self, axis=axes, keepdims=keepdim, dtype=dtype)

    def var(self, dim: _Axes = None, unbiased: _bool = True, keepdim: _bool = False,
            correction: _float | None = None) -> "Tensor":
        """The variance of the entries over `dim`: sum((x - mean)**2) / (N - correction) (torch.Tensor.var).

        Unbiased (Bessel's correction, N - 1) by default, as torch's; numpy.var's default is the
        biased one. fgrad.var is this method. Differentiable: the gradient of each entry is
        2 (x - mean) / (N - correction) times the output's.

        Parameters
        ----------
        dim : int or tuple of int, optional
            The axes reduced over; None (the default) all entries.
        unbiased : bool
            Divide by N - 1 (default True) or by N.
        keepdim : bool
            Keep the reduced axes, with size 1 (default False).
        correction : float, optional
            The number subtracted from N (torch's newer argument); given, it overrides `unbiased`.

        Returns
        -------
        Tensor
            The variances: a 0-D tensor when all entries are reduced.

        Examples
        --------
        >>> x = fgrad.tensor([1.0, 2.0, 4.0], requires_grad=True)
        >>> x.var(), x.var(unbiased=False), fgrad.var(x, correction=0)
        (tensor(2.33333333, grad_fn=<...>), tensor(1.55555556, grad_fn=<...>), tensor(1.55555556, grad_fn=<...>))
        >>> x.var().backward(); x.grad  # 2 (x - mean) / (N - 1)
        tensor([-1.33333333, -0.33333333,  1.66666667])
        """
        if self.primal.dtype.kind not in "fc":  # (torch's; fgrad.numpy.var of ints is NumPy's float64)
            raise RuntimeError("std and var only support floating point and complex dtypes")
        ddof = (1 if unbiased else 0) if correction is None else correction
        return fnp.var(self, axis=wrap_dims(dim, self.ndim, "var"), ddof=ddof, keepdims=keepdim)

    def std(self, dim: _Axes = None, unbiased: _bool = True, keepdim: _bool = False,
            correction: _float | None = None) -> "Tensor":
        """The standard deviation over `dim`: the square root of var(dim, unbiased, keepdim, correction)
        (torch.Tensor.std; fgrad.std is this method).

        Unbiased (N - 1) by default, as torch's. Differentiable: each entry's gradient is
        (x - mean) / ((N - correction) std) times the output's.

        Parameters
        ----------
        dim : int or tuple of int, optional
            The axes reduced over; None (the default) all entries.
        unbiased : bool
            Divide by N - 1 (default True) or by N.
        keepdim : bool
            Keep the reduced axes, with size 1 (default False).
        correction : float, optional
            The number subtracted from N; given, it overrides `unbiased`.

        Returns
        -------
        Tensor
            The standard deviations: a 0-D tensor when all entries are reduced.

        Examples
        --------
        >>> x = fgrad.tensor([1.0, 2.0, 4.0], requires_grad=True)
        >>> x.std(), fgrad.std(x, unbiased=False)
        (tensor(1.52752523, grad_fn=<...>), tensor(1.24721913, grad_fn=<...>))
        >>> x.std().backward(); x.grad
        tensor([-0.43643578, -0.10910895,  0.54554473])
        """
        wrap_dims(dim, self.ndim, "std")  # (its own name in the message)
        return fnp.sqrt(self.var(dim, unbiased, keepdim, correction))

    def prod(self, dim: _Axes = None, keepdim: _bool = False) -> "Tensor":
        """The product of the entries over `dim` (torch.Tensor.prod; fgrad.prod is this method).

        Differentiable: each entry's gradient is the product of the others (exact where entries
        are 0) times the output's gradient.

        Parameters
        ----------
        dim : int or tuple of int, optional
            The axes multiplied over; None (the default) all entries.
        keepdim : bool
            Keep the reduced axes, with size 1 (default False).

        Returns
        -------
        Tensor
            The products: a 0-D tensor when all entries are multiplied.

        Examples
        --------
        >>> x = fgrad.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
        >>> x.prod(), fgrad.prod(x, 1)
        (tensor(24., grad_fn=<ProdBackward0>), tensor([ 2., 12.], grad_fn=<ProdBackward0>))
        >>> x.prod().backward(); x.grad  # the product of the other entries
        tensor([[24., 12.], [ 8.,  6.]])
        """
        return _result(fnp.prod(self, axis=wrap_dims(dim, self.ndim, "prod"), keepdims=keepdim,
                                dtype=promotion.accumulator(self)))  # (uint8: int64, as torch's)

    def _extremum(self, fn, arg, dim, keepdim, other):
        if other is not None:
            return (fnp.maximum if fn is fnp.max else fnp.minimum)(self, other)
        if dim is None:
            return fn(self)
        dim = wrap_dim(dim, self.ndim, fn.__name__)
        if not self.ndim:  # (torch's 0-D tensor has one "dim", of size 1)
            return MinMax(*(v.reshape(()) for v in self.reshape(1)._extremum(fn, arg, 0, keepdim, None)))
        # The values are read at the indices, so the gradient goes to the index alone, as torch's
        # (fnp.max's would be shared among tied entries).
        indices = arg(self, axis=dim, keepdims=True)
        values = fnp.take_along_axis(self, indices, axis=dim)
        if not keepdim:
            values, indices = fnp.squeeze(values, dim), fnp.squeeze(indices, dim)
        return MinMax(values, indices)

    def max(self, dim: "_int | Tensor | None" = None, keepdim: _bool = False,
            other: "Tensor | None" = None) -> "Tensor | MinMax":
        """The largest entry, the largest along `dim` with their indices, or the elementwise maximum with
        another tensor (torch.Tensor.max; fgrad.max is this method).

        Differentiable in the values: over all entries a gradient shared evenly among tied
        maxima; along `dim` it goes to the returned index alone; elementwise, to the larger
        operand. A NaN entry is the maximum, as torch's.

        Parameters
        ----------
        dim : int or Tensor, optional
            The axis to reduce; None (the default) reduces all entries. A Tensor here is `other`.
        keepdim : bool
            Keep the reduced axis, with size 1 (only with an int `dim`).
        other : Tensor, optional
            Return the elementwise maximum of self and other (broadcast).

        Returns
        -------
        Tensor or MinMax
            A 0-D tensor without `dim`; along `dim`, a named tuple (values, indices), the indices an
            int64 tensor (torch.return_types.max's fields); with `other`, a tensor of the broadcast
            shape.

        Examples
        --------
        >>> x = fgrad.tensor([[1.0, 5.0], [4.0, 2.0]], requires_grad=True)
        >>> x.max()
        tensor(5., grad_fn=<...>)
        >>> values, indices = x.max(1); values, indices
        (tensor([5., 4.], grad_fn=<...>), tensor([1, 0]))
        >>> values.sum().backward(); x.grad
        tensor([[0., 1.], [1., 0.]])
        >>> fgrad.max(x, fgrad.tensor(3.0))  # elementwise
        tensor([[3., 5.], [4., 3.]], grad_fn=<MaximumBackward0>)
        """
        if isinstance(dim, Tensor):
            dim, other = None, dim
        return self._extremum(fnp.max, fnp.argmax, dim, keepdim, other)

    def min(self, dim: "_int | Tensor | None" = None, keepdim: _bool = False,
            other: "Tensor | None" = None) -> "Tensor | MinMax":
        """The smallest entry, the smallest along `dim` with their indices, or the elementwise minimum
        with another tensor (torch.Tensor.min; fgrad.min is this method).

        Differentiable in the values: over all entries a gradient shared evenly among tied
        minima; along `dim` it goes to the returned index alone; elementwise, to the smaller
        operand. A NaN entry is the minimum, as torch's.

        Parameters
        ----------
        dim : int or Tensor, optional
            The axis to reduce; None (the default) reduces all entries. A Tensor here is `other`.
        keepdim : bool
            Keep the reduced axis, with size 1 (only with an int `dim`).
        other : Tensor, optional
            Return the elementwise minimum of self and other (broadcast).

        Returns
        -------
        Tensor or MinMax
            A 0-D tensor without `dim`; along `dim`, a named tuple (values, indices), the indices an
            int64 tensor (torch.return_types.min's fields); with `other`, a tensor of the broadcast
            shape.

        Examples
        --------
        >>> x = fgrad.tensor([[1.0, 5.0], [4.0, 2.0]], requires_grad=True)
        >>> x.min().backward(); x.grad
        tensor([[1., 0.], [0., 0.]])
        >>> fgrad.min(x, dim=1)
        MinMax(values=tensor([1., 2.], grad_fn=<...>), indices=tensor([0, 1]))
        >>> x.min(fgrad.tensor(3.0))  # elementwise
        tensor([[1., 3.], [3., 2.]], grad_fn=<MinimumBackward0>)
        """
        if isinstance(dim, Tensor):
            dim, other = None, dim
        return self._extremum(fnp.min, fnp.argmin, dim, keepdim, other)

    def argmax(self, dim: _int | None = None, keepdim: _bool = False) -> "Tensor":
        """The index of the largest entry along `dim` (torch.Tensor.argmax; fgrad.argmax is this method).

        Not differentiable (the result is an integer tensor). With ties, the first index.

        Parameters
        ----------
        dim : int, optional
            The axis searched; None (the default) searches the flattened tensor.
        keepdim : bool
            Keep the searched axis, with size 1 (default False).

        Returns
        -------
        Tensor
            int64 indices: a 0-D tensor (an index into the flattened tensor) without `dim`.

        Examples
        --------
        >>> x = fgrad.tensor([[1.0, 5.0], [4.0, 2.0]])
        >>> x.argmax(), x.argmax(1), fgrad.argmax(x, 0, keepdim=True)
        (tensor(1), tensor([1, 0]), tensor([[1, 0]]))
        """
        return _arg(fnp.argmax, self, dim, keepdim)

    def argmin(self, dim: _int | None = None, keepdim: _bool = False) -> "Tensor":
        """The index of the smallest entry along `dim` (torch.Tensor.argmin; fgrad.argmin is this method).

        Not differentiable (the result is an integer tensor). With ties, the first index.

        Parameters
        ----------
        dim : int, optional
            The axis searched; None (the default) searches the flattened tensor.
        keepdim : bool
            Keep the searched axis, with size 1 (default False).

        Returns
        -------
        Tensor
            int64 indices: a 0-D tensor (an index into the flattened tensor) without `dim`.

        Examples
        --------
        >>> x = fgrad.tensor([[1.0, 5.0], [4.0, 2.0]])
        >>> x.argmin(), fgrad.argmin(x, dim=1)
        (tensor(0), tensor([0, 1]))
        """
        return _arg(fnp.argmin, self, dim, keepdim)

    def norm(self, p: _float | str | None = "fro", dim: _Axes = None, keepdim: _bool = False) -> "Tensor":
        """The vector p-norm of the entries over `dim` (torch.Tensor.norm; fgrad.norm is this method).

        p='fro', 2 or None: the Euclidean norm; 1: the sum of absolute values; inf: the largest
        one; 0: the number of nonzero entries (its gradient is zero); 'nuc': the nuclear norm (the
        sum of the singular values) of a 2-D tensor, or of the two axes `dim` names; else
        (sum |x|**p)**(1/p). Differentiable: the gradient at an all-zero input is 0, as torch's.

        Parameters
        ----------
        p : float, 'fro' or None
            The order (default 'fro', the Euclidean norm of all the entries reduced).
        dim : int or tuple of int, optional
            The axes reduced; None (the default) all entries, as one vector.
        keepdim : bool
            Keep the reduced axes, with size 1 (default False).

        Returns
        -------
        Tensor
            The norms: a 0-D tensor when all entries are reduced.

        Examples
        --------
        >>> x = fgrad.tensor([3.0, -4.0], requires_grad=True)
        >>> x.norm(), x.norm(1), fgrad.norm(x, float("inf"))
        (tensor(5., grad_fn=<...>), tensor(7., grad_fn=<...>), tensor(4., grad_fn=<...>))
        >>> x.norm().backward(); x.grad  # x / |x|
        tensor([ 0.6, -0.8])
        >>> fgrad.tensor([[3.0, 4.0], [1.0, 0.0]]).norm(dim=1)
        tensor([5., 1.])
        >>> fgrad.tensor([[3.0, 0.0], [0.0, -4.0]]).norm(p="nuc")
        tensor(7.)
        """
        if p == "nuc":  # (a matrix norm: the sum of the singular values of the two axes dim names)
            axes = (0, 1) if dim is None and self.ndim == 2 else dim
            if not isinstance(axes, (tuple, list)) or len(axes) != 2 or self.ndim < 2:
                raise RuntimeError(f"linalg.matrix_norm: the nuclear norm needs a tensor of at least 2 dimensions and "
                                   f"dim a 2-tuple; got {self.ndim} dimensions and dim={dim}")
            return fnp.linalg.norm(self, ord="nuc", axis=wrap_dims(tuple(axes), self.ndim, "norm"), keepdims=keepdim)
        # (fnp.linalg.vector_norm: torch's norm of any dims is a vector norm, and its rule is
        # 0 at a zero input where sqrt(sum(x * x))'s would be nan)
        ord = 2 if p in ("fro", None) else p
        axes = wrap_dims(dim, self.ndim, "norm")
        if ord == 0 and self._requires_grad and is_grad_enabled():  # (torch's has a grad_fn, of zero gradient)
            # (1 where nonzero, NaN too; |x| = 0 elsewhere, whose gradient there is 0: the count's)
            return fnp.sum(fnp.where(self != 0, 1.0, fnp.abs(self)), axis=axes, keepdims=keepdim)
        return fnp.linalg.vector_norm(self, axis=axes, keepdims=keepdim, ord=ord)

    def clamp(self, min: "Tensor | ArrayLike | None" = None, max: "Tensor | ArrayLike | None" = None) -> "Tensor":
        """This tensor limited to [min, max] elementwise (either may be None; `clip` is the same method).
        Differentiable: the gradient is 0 where a bound is active.
        """
        return promotion.clamped(self, min, max)

    clip = clamp

    def pow(self, exponent: "Tensor | ArrayLike") -> "Tensor":
        """self ** exponent, elementwise with broadcasting. Differentiable in both."""
        return self ** exponent

    def matmul(self, other: "Tensor | ArrayLike") -> "Tensor":
        """self @ other, the matrix product with NumPy's rules (`mm` is the same method). Differentiable."""
        return self @ other

    mm = matmul

    def dot(self, other: "Tensor | ArrayLike") -> "Tensor":
        """The inner product with `other` (numpy.dot's rules). Differentiable in both."""
        return fnp.dot(self, other)

    def neg(self) -> "Tensor":
        """-self, elementwise, as a new tensor (neg_ is the in-place one). Differentiable."""
        return -self

    def relu(self) -> "Tensor":
        """max(self, 0), elementwise. Differentiable: the gradient is 1 where self > 0, else 0."""
        return fnp.where(self > 0, self, 0.0)

    def softmax(self, dim: _int) -> "Tensor":
        """exp(self) normalized to sum 1 along `dim` (torch.Tensor.softmax; fgrad.softmax is this method).

        Computed stably (the largest entry subtracted first), so large entries do not overflow.
        Differentiable: the gradient is s * (g - sum(g * s, dim)) for s the softmax and g the
        output's gradient.

        Parameters
        ----------
        dim : int
            The axis normalized over (negative counts from the end).

        Returns
        -------
        Tensor
            Nonnegative values of self's shape, summing to 1 along `dim`.

        Examples
        --------
        >>> x = fgrad.tensor([1.0, 2.0, 3.0], requires_grad=True)
        >>> s = x.softmax(0); s
        tensor([0.09003057, 0.24472847, 0.66524096], grad_fn=<...>)
        >>> s[0].backward(); x.grad
        tensor([ 0.08192507, -0.02203304, -0.05989202])
        >>> fgrad.softmax(fgrad.tensor([1000.0, 1000.0]), dim=0)  # no overflow
        tensor([0.5, 0.5])
        """
        return _softmax.softmax(self, axis=wrap_dims(dim, self.ndim, "softmax"))

    def log_softmax(self, dim: _int) -> "Tensor":
        """log(softmax(self, dim)), computed stably as self minus its logsumexp along `dim`
        (torch.Tensor.log_softmax; fgrad.log_softmax is this method).

        Finite where softmax underflows to 0. Differentiable: the gradient is
        g - softmax(self) * sum(g, dim) for g the output's gradient.

        Parameters
        ----------
        dim : int
            The axis normalized over (negative counts from the end).

        Returns
        -------
        Tensor
            Log-probabilities of self's shape: their exp sums to 1 along `dim`.

        Examples
        --------
        >>> x = fgrad.tensor([1.0, 2.0, 3.0], requires_grad=True)
        >>> y = x.log_softmax(dim=0); y
        tensor([-2.40760596, -1.40760596, -0.40760596], grad_fn=<...>)
        >>> y[0].backward(); x.grad
        tensor([ 0.90996943, -0.24472847, -0.66524096])
        >>> fgrad.log_softmax(fgrad.tensor([0.0, -1000.0]), 0)  # finite where softmax is 0
        tensor([    0., -1000.])
        """
        return _softmax.log_softmax(self, axis=wrap_dims(dim, self.ndim, "log_softmax"))

    def all(self, dim: _Axes = None, keepdim: _bool = False) -> "Tensor":
        """Whether every entry is nonzero, over `dim` (all of them where None), as torch.Tensor.all:
        a bool Tensor (uint8 for a uint8 tensor, as torch's), True over no entries; `if t.all():`
        reads its one value. Not differentiable; fgrad.all is this method.

        Examples
        --------
        >>> fgrad.tensor([1.0, 2.0]).all(), fgrad.all(fgrad.tensor([[1.0, 0.0], [1.0, 1.0]]), dim=1)
        (tensor(True), tensor([False,  True]))
        """
        return _truth(fnp.all, self, dim, keepdim, "all")

    def any(self, dim: _Axes = None, keepdim: _bool = False) -> "Tensor":
        """Whether some entry is nonzero, over `dim` (all of them where None), as torch.Tensor.any:
        a bool Tensor (uint8 for a uint8 tensor, as torch's), False over no entries; `if t.any():`
        reads its one value. Not differentiable; fgrad.any is this method.

        Examples
        --------
        >>> fgrad.tensor([0.0, 2.0]).any(), fgrad.any(fgrad.tensor([[0.0, 0.0], [1.0, 0.0]]), dim=1)
        (tensor(True), tensor([False,  True]))
        >>> x = fgrad.tensor([1.0, float("nan")])
        >>> bool(fgrad.isnan(x).any())
        True
        """
        return _truth(fnp.any, self, dim, keepdim, "any")

    # ---- in-place ops: each bumps the version counter --------------------------------------
    def _inplace(self, result, op):
        if _of_traced(self) or _of_traced(result):
            raise _traced_inplace_error(op)
        if (self._view is not None or (self._requires_grad and self._grad_fn is None)) and is_grad_enabled():
            _check_inplace(self, op)
        casting = "same_kind"
        if isinstance(result, Tensor) and result.primal.dtype is not self.primal.dtype \
                and result.primal.dtype != self.primal.dtype:  # (torch's: computed in result_type, then cast)
            casting = "unsafe"  # (torch's can_cast, below, decides: int16 into uint8 is of one kind there)
            if not promotion.can_cast(result.primal.dtype, self.primal.dtype):
                raise RuntimeError(f"{op}: result type {_dtype_name(result.primal.dtype)} can't be cast to the "
                                   f"desired output type {_dtype_name(self.primal.dtype)}")
            if result._requires_grad:  # (recorded: self's history keeps self's dtype)
                result = promotion.astype(result, self.primal.dtype)
        value = result.primal if isinstance(result, Tensor) else concrete(result)
        if isinstance(result, Tensor) and result._grad_fn is not None:
            _protect_saved(result._grad_fn, self)
        _keep_own_outputs(self)
        try:
            array_module(self.primal).copyto(self.primal, value, casting=casting)
        except TypeError as exc:
            raise RuntimeError(f"{op}: result type {_dtype_name(np.result_type(value))} can't be cast to the "
                               f"desired output type {_dtype_name(self.primal.dtype)}") from exc
        except ValueError as exc:
            if not getattr(self.primal, "flags", None) or self.primal.flags.writeable:
                raise RuntimeError(f"{op}: the result of shape {np.shape(value)} does not fit the tensor's shape "
                                   f"{tuple(self.shape)}") from exc
            raise RuntimeError(f"{op}: this tensor's array is read-only: a functional transform keeps it for a "
                               f"derivative still to be taken (Note [what fgrad keeps is read-only]), or it came "
                               f"read-only from NumPy; write into a copy (t.clone())") from exc
        self._version_counter.value += 1
        if isinstance(result, Tensor) and result._requires_grad:
            self._rebase(result)
        return self

    def _rebase(self, result):
        """Make `result`'s history this tensor's (and, through views, its base's); then every
        other view of the same memory takes its history anew (Note [views follow their base])."""
        tensor = self
        rebased = [self]
        while True:
            tensor._grad_fn, tensor.index, tensor._requires_grad = result._grad_fn, result.index, True
            if tensor._view is None:
                break
            base, prim, params = tensor._view
            with_inverse = _view_inverse(base, prim, params, result)  # (the view primitive declares it)
            tensor, result = base, with_inverse
            rebased.append(tensor)
        if tensor._views is not None:
            _refresh_views(tensor, rebased)

    def pow_(self, exponent: "Tensor | ArrayLike") -> "Tensor":
        """self = self ** exponent in place (see add_). Returns self."""
        return self._inplace(self ** exponent, "pow_")

    def clamp_(self, min: "Tensor | ArrayLike | None" = None, max: "Tensor | ArrayLike | None" = None) -> "Tensor":
        """self limited to [min, max] in place (see add_ and clamp). Returns self."""
        return self._inplace(promotion.clamped(self, min, max), "clamp_")

    def neg_(self) -> "Tensor":
        """self = -self in place (see add_). Returns self."""
        return self._inplace(-self, "neg_")

    def exp_(self) -> "Tensor":
        """self = exp(self) in place (see add_). Returns self."""
        return self._inplace(fnp.exp(self), "exp_")

    def zero_(self) -> "Tensor":
        """Overwrite every entry with zero, in place; its old history gets a zero gradient. Returns self."""
        return self._overwrite(np.zeros((), self.primal.dtype), "zero_")

    def fill_(self, value: "Tensor | ArrayLike") -> "Tensor":
        """Overwrite every entry with `value` (a number or a 0-D tensor), in place; the old history gets a
        zero gradient, a Tensor value the summed gradient. Returns self.
        """
        return self._overwrite(value, "fill_")

    def copy_(self, src: "Tensor | ArrayLike") -> "Tensor":
        """Overwrite this tensor with `src` (broadcast to its shape and cast to its dtype), in place; the
        old history gets a zero gradient, `src` the gradient. Returns self.
        """
        return self._overwrite(src, "copy_")

    def _overwrite(self, value, op):
        """Write `value` over this tensor. In grad mode, when either side requires grad, the
        tensor's history becomes an `overwrite` node, as PyTorch's ZeroBackward/CopyBackwards:
        its old history gets a zero gradient, never the gradient of values no longer there."""
        value = promotion.fitted(value, self.primal.dtype)  # (an int out of range: torch's RuntimeError)
        tracked = isinstance(value, Tensor) and value._requires_grad
        if is_grad_enabled() and (self._requires_grad or tracked):
            return self._inplace(ew.overwrite(self, value if tracked else concrete(value)), op)
        if self._view is not None and is_grad_enabled():
            _check_inplace(self, op)
        with no_grad():
            return self._inplace(value.primal if isinstance(value, Tensor) else concrete(value), op)

    def __iadd__(self, other: "Tensor | ArrayLike") -> "Tensor":
        return self.add_(other)

    def __isub__(self, other: "Tensor | ArrayLike") -> "Tensor":
        return self.sub_(other)

    def __imul__(self, other: "Tensor | ArrayLike") -> "Tensor":
        return self.mul_(other)

    def __itruediv__(self, other: "Tensor | ArrayLike") -> "Tensor":
        return self.div_(other)

    def __ifloordiv__(self, other: "Tensor | ArrayLike") -> "Tensor":
        return self._inplace(self // other, "__ifloordiv__")

    def __imod__(self, other: "Tensor | ArrayLike") -> "Tensor":
        return self._inplace(self % other, "__imod__")

    def __iand__(self, other: "Tensor | ArrayLike") -> "Tensor":
        return self._inplace(self & other, "__iand__")

    def __ior__(self, other: "Tensor | ArrayLike") -> "Tensor":
        return self._inplace(self | other, "__ior__")

    def __ixor__(self, other: "Tensor | ArrayLike") -> "Tensor":
        return self._inplace(self ^ other, "__ixor__")

    def __setitem__(self, index: Any, value: "Tensor | ArrayLike") -> None:
        if _of_traced(value) and not _of_traced(self):  # (a traced self raises: traced values are immutable)
            raise _traced_inplace_error("__setitem__")
        index = ix.normalize_index(index.primal if isinstance(index, Tensor) else index)
        if value.__class__ is int and not -2 ** 63 <= value < 2 ** 63:  # (torch reads it as a C long long)
            raise ValueError(f"Overflow when unpacking long long (the Python int {value}, written into a "
                             f"{_dtype_name(self.primal.dtype)} tensor; torch's error)")
        value = promotion.fitted(value, self.primal.dtype)
        tracked = is_grad_enabled() and (self._requires_grad or (isinstance(value, Tensor) and value._requires_grad))
        if not tracked:  # (a leaf that requires grad is tracked: _inplace below raises its error)
            if self._view is not None and is_grad_enabled():
                _check_inplace(self, "__setitem__")
            self.primal[index] = value.primal if isinstance(value, Tensor) else concrete(value)
            self._version_counter.value += 1
            return
        old = ix.getitem(self, index=index)
        new = fnp.broadcast_to(value if isinstance(value, Tensor) else Tensor._wrap(value, None, 0), old.shape)
        shape = tuple(self.shape)
        self._inplace(self + ix.scatter_add(new - old, index=index, shape=shape), "__setitem__")

    def __repr__(self) -> str:
        body = np.array2string(np.asarray(peek(self.primal)), separator=", ", prefix="tensor(")
        extras = []
        if device_of(self.primal).kind != "cpu":
            extras.append(f"device='{device_of(self.primal)}'")
        dtype, default = self.primal.dtype, get_default_dtype()
        if self.primal.size == 0:  # (torch's: the size unless 1-D, the dtype unless the default float dtype)
            if self.primal.ndim != 1:
                extras.append(f"size={tuple(self.primal.shape)}")
            shown = dtype != default
        else:  # (torch's: the dtype unless the default float dtype, its complex dtype, int64 or bool)
            shown = dtype != default and dtype not in _UNSHOWN and dtype != np.result_type(default, np.complex64)
        if shown:
            extras.append(f"dtype={_dtype_name(dtype)}")
        if self._grad_fn is not None:
            extras.append(f"grad_fn=<{self._grad_fn.name()}>")
        elif self._requires_grad:
            extras.append("requires_grad=True")
        return "tensor(" + body + "".join(", " + e for e in extras) + ")"

    __str__ = __repr__

    def __hash__(self) -> _int:
        return id(self)

    def __reduce__(self):  # (its class too: a Parameter stays a Parameter through pickle and deepcopy)
        return (type(self), (self.primal, self._requires_grad))


def _numpy_on_arrays(self, func, types, args, kwargs):
    """NumPy's own `func`, which fgrad does not cover, on the arrays of the Tensors among its
    arguments (Tensor.__array_function__)."""
    name = bridge.qualified_name(func)
    for x in tree_leaves((args, kwargs)):
        if isinstance(x, Tracer):
            if _of_traced(x):  # (the bridge's error: NumPy cannot differentiate it)
                return bridge.array_function(self, func, types, args, kwargs)
            if x._requires_grad and is_grad_enabled():
                raise RuntimeError(f"{name}: Can't call numpy() on Tensor that requires grad ({name} is NumPy's "
                                   f"and would drop its gradient). Use tensor.detach() first, or fgrad.numpy's "
                                   f"functions where the gradient is wanted")
    args, kwargs = tree_map(lambda x: x.numpy(force=True) if isinstance(x, Tensor) else x, (args, kwargs))
    return func(*args, **kwargs)


def _device_arg(spec):
    """The Device that Tensor.to's positional `spec` names; a dtype's name there ('float32') is an
    error that says so (torch: "Invalid device string"), not an unknown device."""
    try:
        return to_device(spec)
    except ValueError:
        if isinstance(spec, str) and _is_dtype_name(spec):
            raise ValueError(f"Tensor.to: {spec!r} is a dtype, not a device (a string there names a device: 'cpu' or "
                             f"'cuda:N'); pass the dtype itself: t.to(np.{np.dtype(spec).name}) or "
                             f"t.to(dtype={spec!r})") from None
        raise


def _is_dtype_name(name):
    try:
        np.dtype(name)
    except TypeError:
        return False
    return True


def _of_traced(x):
    """Is `x` a traced value, or a Tensor of one (a dual of forward_ad, a Function's input under
    a transform)?"""
    return isinstance(x, Tracer) and (not isinstance(x, Tensor) or isinstance(x.primal, Tracer))


def _traced_inplace_error(op):
    return RuntimeError(f"{op}: an in-place operation on or with a Tensor of a traced value (a dual Tensor of "
                        f"forward_ad, or a Function's input under a functional transform) is not supported: the "
                        f"written Tensor would not carry the tangent or the transform's derivative. Use the "
                        f"out-of-place operation (y = x + 1, fnp.where, fgrad.cat) instead")


def _readable(t):
    """`t`, or for a dual Tensor of forward_ad its primal Tensor: conversions (numpy(), item(),
    tolist()) read a dual's primal, as torch's do (Note [dual tensors] in forward_ad.py). A
    Tensor of any other traced value stays itself (its conversions raise)."""
    while isinstance(t.primal, Tracer) and getattr(t.primal._trace, "reads_primal", False):
        t = t.primal.primal
    return t


def _check_assigned_grad(tensor, grad):
    """`tensor.grad = grad` takes a Tensor of the tensor's shape, dtype and device, as PyTorch's
    does: a .grad of another shape would be broadcast into every later accumulation."""
    if not isinstance(grad, Tensor):
        raise TypeError(f"assigned grad expected to be a Tensor or None but got grad of type "
                        f"{type(grad).__module__}.{type(grad).__qualname__}")
    if grad is tensor:
        raise RuntimeError("can't assign Variable as its own grad")
    if grad.primal.dtype != tensor.primal.dtype:
        raise RuntimeError(f"attempting to assign a gradient with dtype {_dtype_name(grad.primal.dtype)} to a tensor "
                           f"with dtype {_dtype_name(tensor.primal.dtype)}. Please ensure that the gradient and the "
                           f"tensor have the same dtype")
    if device_of(grad.primal) != device_of(tensor.primal):
        raise RuntimeError(f"attempting to assign a gradient on device '{device_of(grad.primal)}' to a tensor on "
                           f"device '{device_of(tensor.primal)}'. Please ensure that the gradient and the tensor are "
                           f"on the same device")
    if grad.primal.shape != tensor.primal.shape:
        raise RuntimeError(f"attempting to assign a gradient of size '{list(grad.primal.shape)}' to a tensor of size "
                           f"'{list(tensor.primal.shape)}'. Please ensure that the gradient and the tensor are the "
                           f"same size")


def _check_inplace(tensor, op):
    """In grad mode, refuse the in-place ops PyTorch refuses: on a leaf that requires grad, on a
    view of one, and on a view made without recording (in no_grad mode) of a tensor that records."""
    if tensor._grad_fn is None and tensor._requires_grad:
        raise RuntimeError(f"a leaf Variable that requires grad is being used in an in-place operation "
                           f"({op}). Wrap it in `with fgrad.no_grad():` or use an out-of-place op.")
    root = tensor
    while root._view is not None:
        root = root._view[0]
    if root is tensor or not root._requires_grad:
        return
    if root._grad_fn is None:
        raise RuntimeError(f"a view of a leaf Variable that requires grad is being used in an in-place operation "
                           f"({op}). Wrap it in `with fgrad.no_grad():` or use an out-of-place op.")
    if not tensor._requires_grad:
        raise RuntimeError(f"A view was created in no_grad mode and is being modified inplace with grad mode "
                           f"enabled ({op}). Given that this use case is ambiguous and error-prone, it is forbidden. "
                           f"You can clarify your code by moving both the view and the inplace either both inside "
                           f"the no_grad block (if you don't want the inplace to be tracked) or both outside (if you "
                           f"want the inplace to be tracked).")


def _keep_own_outputs(tensor):
    """An in-place op is about to overwrite `tensor`'s array (and its bases', through a view):
    a node that kept that array as its output (its rules read it) gets a copy of its own first.
    fgrad's rules read an output where PyTorch's often read the inputs (divide's, maximum's), so
    without the copy an in-place change PyTorch allows (`grad_input += ...` in a Function's
    backward, on a quotient) would stop backward with a version error."""
    while True:
        node = tensor._grad_fn
        out = node.out if node is not None else None
        if out is not None:
            if out.__class__ is tuple:
                i = tensor.index
                if out[i] is tensor.primal:
                    node.out = out[:i] + (out[i].copy(),) + out[i + 1:]
            elif out is tensor.primal:
                node.out = out.copy()
                if node.meta is not None and node.meta.saved:
                    node.meta.saved = [s for s in node.meta.saved if s[0] >= 0]
        if tensor._view is None:
            return
        tensor = tensor._view[0]


def _protect_saved(node, tensor):
    """The op computing an in-place result may have saved `tensor`'s array, which is about to be
    overwritten: give that node its own copy (and drop the now needless version guard)."""
    if node.primals is None or node.meta is None:
        return
    if any(p is tensor.primal for p in node.primals):
        node.primals = [p.copy() if p is tensor.primal else p for p in node.primals]
        if node.meta.saved:
            node.meta.saved = [s for s in node.meta.saved if s[1] is not tensor._version_counter or s[0] < 0]


def flattened_shape(shape, start_dim, end_dim):
    """`shape` with axes start_dim..end_dim (negative ones count from the end) made one, as
    torch.flatten's; a 0-d shape becomes (1,). Raises as torch's where the axes are out of range or
    in the wrong order (a modulo alone would flatten the wrong axes silently)."""
    s, e = wrap_dim(start_dim, len(shape), "flatten"), wrap_dim(end_dim, len(shape), "flatten")
    if not shape:
        return (1,)
    if s > e:
        raise RuntimeError("flatten() has invalid args: start_dim cannot come after end_dim")
    return tuple(shape[:s]) + (-1,) + tuple(shape[e + 1:])


def _result(x):
    """x as a Tensor: a sum or product cast to int64 (of a bool or integer tensor) is a plain array, as an
    integer cast has no derivative (a bool tensor's sum had come back as a NumPy scalar)."""
    return x if isinstance(x, Tensor) else Tensor(x)


def unflattened_shape(shape, dim, sizes):
    """`shape` with axis `dim` split into `sizes` (one may be -1), as torch.unflatten's and
    nn.Unflatten's; IndexError where dim is out of range (a modulo would split the wrong axis)."""
    d = wrap_dim(dim, len(shape), "unflatten")
    if not shape:  # (torch's error: a 0-D tensor has no axis to split)
        raise RuntimeError(f"unflatten(): dimension specified as {dim} but tensor has no dimensions")
    return tuple(shape[:d]) + tuple(sizes) + tuple(shape[d + 1:])


# The type of torch.nn.functional's functions: a Tensor in gives a Tensor out, an array an array
# (fgrad.func.functional_call runs the same functions on arrays and traced values).
TensorOrArray = TypeVar("TensorOrArray", Tensor, Array)

tape.Tensor = Tensor  # the tape wraps results in this class
promotion.install(Tensor)  # operators in torch's dtypes (Note [the Tensor face promotes as torch])
Tensor.astype = lambda self, dtype: promotion.astype(self, dtype)
Tensor.astype.__doc__ = ("This tensor cast to `dtype` (fgrad.numpy.astype), as a Tensor; differentiable between "
                         "floating dtypes.")
faces.tensor_face = lambda traced: Tensor._wrap(traced, None, 0)  # (Note [tensors of traced values] in tape.py)

# (exp, log, sqrt, sigmoid, ... are autograd/torch_functions.py's functions, bound there as methods:
# one home, with torch's dtype rules: an integer tensor computes in get_default_dtype())


def _truth(fn, x, dim, keepdim, who):
    """fnp.all or fnp.any of x over torch's dim, as a Tensor: bool, or uint8 for a uint8 x (torch's)."""
    out = fn(x, axis=wrap_dims(dim, x.ndim, who), keepdims=keepdim)
    if x.dtype == np.uint8:
        out = promotion.astype(out, np.uint8)
    return out if isinstance(out, Tensor) else Tensor._wrap(out, None, 0)


def _dim(dim, axis):
    return axis if dim is None else dim


def _arg(fn, x, dim, keepdim):
    """argmax or argmin along torch's dim (a 0-D tensor's only index is 0)."""
    if dim is None or x.ndim:
        return fn(x, axis=None if dim is None else wrap_dim(dim, x.ndim, fn.__name__), keepdims=keepdim)
    wrap_dim(dim, 0, fn.__name__)
    return fn(x)


def _keep(keepdim, keepdims):
    return keepdims if keepdims is not None else keepdim


def _refresh_views(root, rebased):
    """Note [views follow their base]: a view's history is made from its base's when the view
    is made. When an in-place op gives the base (or a view of it) a new history, every other
    live view of the same memory records its view op again on its base's new history, in
    creation order (a view of a view after its base), as PyTorch regenerates a view's
    grad_fn when its base changed. Else backward through a view would reach the values
    its memory held before the change: a wrong gradient, silently."""
    views, root._views = root._views, None  # (the refreshes register views of their own: dropped)
    live = []
    for ref in views:
        view = ref()
        if view is None:
            continue
        live.append(ref)
        if not any(view is t for t in rebased):
            base, prim, params = view._view
            fresh = prim(base, **params)
            view._grad_fn, view.index, view._requires_grad = fresh._grad_fn, fresh.index, fresh._requires_grad
    root._views = live


def _view_inverse(base, prim, params, view_value):
    """`base` with the region that `prim(base, **params)` viewed replaced by `view_value`."""
    if prim.view is VIEW:
        raise RuntimeError(f"fgrad: in-place modification of a {prim.name} view is not differentiable")
    return prim.view(base, view_value, **params)
