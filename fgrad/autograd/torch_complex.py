"""torch's complex-number, distance and remaining matrix functions on Tensors (fgrad.view_as_real,
fgrad.complex, fgrad.polar, fgrad.angle, fgrad.cdist, fgrad.cholesky_solve, fgrad.diagonal,
fgrad.nan_to_num) and the Tensor methods of the same names (t.angle(), t.cholesky(), ...).

Each is written on fgrad.numpy's functions (and the triangular_solve op), differentiable by the
rules those have, following torch where it differs from NumPy: view_as_real's trailing axis of 2,
angle of a real tensor (0 or pi, with a zero gradient), diagonal's dim1/dim2, cholesky_solve's
(B, L) order. view_as_real and view_as_complex return new tensors here (torch's share memory).
"""
import numpy as np

from .. import numpy as fnp
from ..numpy import linalg as fla
from ..ops.linalg import triangular_solve as _triangular_solve
from ..typing import ArrayLike
from .dims import wrap_pair
from .dtypes import name as _dtype_name
from .tensor import Tensor

__all__ = ["angle", "cdist", "cholesky", "cholesky_solve", "complex", "diagonal", "nan_to_num", "polar",
           "view_as_complex", "view_as_real"]


def _t(x):
    return x if isinstance(x, Tensor) else Tensor(x)


def view_as_real(input: Tensor | ArrayLike) -> Tensor:
    """A complex tensor as a real one with a trailing axis of 2 (real part, imaginary part), as
    torch.view_as_real (a copy here, not a view). Differentiable.

    Examples
    --------
    >>> fgrad.view_as_real(fgrad.tensor([1.0 + 2.0j, 0.5 - 3.0j]))
    tensor([[ 1. ,  2. ], [ 0.5, -3. ]])
    """
    if input.dtype.kind != "c":
        raise RuntimeError("view_as_real is only supported for complex tensors")
    return _t(fnp.stack([fnp.real(input), fnp.imag(input)], axis=-1))


def view_as_complex(input: Tensor) -> Tensor:
    """A real tensor whose last axis has size 2 as the complex tensor real + 1j * imag, as
    torch.view_as_complex (a copy here). Differentiable.

    Examples
    --------
    >>> fgrad.view_as_complex(fgrad.tensor([[1.0, 2.0], [0.0, -3.0]]))
    tensor([1.+2.j, 0.-3.j])
    """
    if input.ndim == 0 or input.shape[-1] != 2:
        raise RuntimeError("Tensor must have a last dimension of size 2")
    return complex(input[..., 0], input[..., 1])


def complex(real: Tensor | ArrayLike, imag: Tensor | ArrayLike) -> Tensor:
    """The complex tensor real + 1j * imag from two real tensors of one floating dtype, broadcasting
    (torch.complex: float64 parts give complex128). Differentiable in both.

    Examples
    --------
    >>> re = fgrad.tensor([1.0], requires_grad=True)
    >>> z = fgrad.complex(re, fgrad.tensor([2.0])); z.abs().sum().backward()
    >>> z, round(re.grad.item(), 4)  # d|z|/d re = re / |z|
    (tensor([1.+2.j], grad_fn=<...>), 0.4472)
    """
    if real.dtype != imag.dtype or real.dtype.kind != "f":
        raise RuntimeError(f"Expected both inputs to be Float or Double tensors but got "
                           f"{_dtype_name(real.dtype)} and {_dtype_name(imag.dtype)}")
    one = np.ones((), dtype=np.result_type(real.dtype, np.complex64))
    return _t(fnp.astype(real, one.dtype) + fnp.astype(imag, one.dtype) * (1j * one))


def polar(abs: Tensor | ArrayLike, angle: Tensor | ArrayLike) -> Tensor:
    """The complex tensor abs * (cos(angle) + 1j * sin(angle)) (torch.polar). Differentiable in both.

    Examples
    --------
    >>> z = fgrad.polar(fgrad.tensor([2.0]), fgrad.tensor([np.pi / 2]))
    >>> bool(fgrad.allclose(z, fgrad.tensor([2.0j])))
    True
    """
    return complex(abs * fnp.cos(angle), abs * fnp.sin(angle))


def angle(input: Tensor | ArrayLike) -> Tensor:
    """The argument of each entry in radians, in (-pi, pi] (torch.angle). For a real tensor: 0 where
    input >= 0, pi where it is negative (NaN stays NaN), with a zero gradient, as torch's. Differentiable
    for complex input.

    Examples
    --------
    >>> fgrad.angle(fgrad.tensor([1.0j, -1.0 + 0j])) / np.pi, fgrad.angle(fgrad.tensor([-2.0, 3.0]))
    (tensor([0.5, 1. ]), tensor([3.14159265, 0.        ]))
    """
    if input.dtype.kind == "c":
        return _t(fnp.angle(input))
    zero = fnp.zeros_like(input) * input  # (0 with a zero gradient; NaN where input is NaN)
    return _t(fnp.where(input < 0, np.pi + zero, zero))


def cdist(x1: Tensor | ArrayLike, x2: Tensor | ArrayLike, p: float = 2.0, compute_mode: str | None = None) -> Tensor:
    """The p-norm distances between the rows of x1 (..., P, M) and of x2 (..., R, M), a (..., P, R)
    tensor (torch.cdist; batches broadcast). Differentiable in both (where the distance is not 0).

    Examples
    --------
    >>> x1 = fgrad.tensor([[0.0, 0.0], [0.0, 4.0]], requires_grad=True)
    >>> d = fgrad.cdist(x1, fgrad.tensor([[3.0, 4.0]])); d.sum().backward()
    >>> d, x1.grad[0]  # the gradient of |x - y| is (x - y) / |x - y|
    (tensor([[5.], [3.]], grad_fn=<...>), tensor([-0.6, -0.8]))
    """
    diff = x1[..., :, None, :] - x2[..., None, :, :]
    return _t(fla.vector_norm(diff, axis=-1, ord=p))


def _adjoint(a):
    return fnp.conj(fla.matrix_transpose(a))


def _tri_solve(a, b, lower):
    shape = np.broadcast_shapes(tuple(a.shape[:-2]), tuple(b.shape[:-2]))
    a = fnp.broadcast_to(a, shape + tuple(a.shape[-2:]))
    b = fnp.broadcast_to(b, shape + tuple(b.shape[-2:]))
    return _triangular_solve(a, b, lower=lower, trans=0, unit_diagonal=False)


def cholesky_solve(B: Tensor | ArrayLike, L: Tensor | ArrayLike, upper: bool = False) -> Tensor:
    """X with A X = B, A = L L^H given by its Cholesky factor L (upper=True: A = U^H U, L holding U), as
    torch.cholesky_solve (B first); B (..., n, k), batches broadcasting. Differentiable in B and L.

    Examples
    --------
    >>> A = fgrad.tensor([[4.0, 2.0], [2.0, 2.0]])
    >>> X = fgrad.cholesky_solve(fgrad.tensor([[2.0], [0.0]]), fgrad.cholesky(A))
    >>> X, bool(fgrad.allclose(A @ X, fgrad.tensor([[2.0], [0.0]])))
    (tensor([[ 1.], [-1.]]), True)
    """
    if upper:
        return _t(_tri_solve(L, _tri_solve(_adjoint(L), B, True), False))
    return _t(_tri_solve(_adjoint(L), _tri_solve(L, B, True), False))


def cholesky(input: Tensor | ArrayLike, upper: bool = False) -> Tensor:
    """The Cholesky factor of a Hermitian positive-definite matrix or stack, lower (A = L L^H) or upper
    (A = U^H U), as torch.cholesky and Tensor.cholesky. Differentiable.

    Examples
    --------
    >>> fgrad.cholesky(fgrad.tensor([[4.0, 2.0], [2.0, 2.0]]), upper=True)
    tensor([[2., 1.], [0., 1.]])
    """
    return _t(fla.cholesky(input, upper=upper))


def diagonal(input: Tensor | ArrayLike, offset: int = 0, dim1: int = 0, dim2: int = 1) -> Tensor:
    """The diagonal `offset` over the axes dim1 and dim2 (torch.diagonal: the first two axes), those axes
    removed and the diagonal appended last. Differentiable.

    Examples
    --------
    >>> fgrad.diagonal(fgrad.tensor([[1.0, 2.0], [3.0, 4.0]]), offset=1)
    tensor([2.])
    """
    return _t(fnp.diagonal(input, offset, *wrap_pair(dim1, dim2, np.ndim(input), "diagonal")))


def nan_to_num(input: Tensor | ArrayLike, nan: float = 0.0, posinf: float | None = None,
               neginf: float | None = None) -> Tensor:
    """input with NaN replaced by `nan`, +inf by `posinf` and -inf by `neginf` (None: the dtype's largest and
    smallest finite values), as torch.nan_to_num. Differentiable: the gradient is zero at replaced entries.

    Examples
    --------
    >>> x = fgrad.tensor([np.nan, 1.0, np.inf], requires_grad=True)
    >>> y = fgrad.nan_to_num(x, posinf=9.0); y.sum().backward()
    >>> y, x.grad  # no gradient at the replaced entries
    (tensor([0., 1., 9.], grad_fn=<...>), tensor([0., 1., 0.]))
    """
    return _t(fnp.nan_to_num(input, nan=nan, posinf=posinf, neginf=neginf))


METHODS = ("angle", "cholesky", "cholesky_solve", "diagonal", "nan_to_num")


def _bind():
    for name in METHODS:  # (Tensor.diagonal was NumPy's ndarray.diagonal; torch's names replace it)
        if name not in Tensor.__dict__:
            setattr(Tensor, name, globals()[name])


_bind()
