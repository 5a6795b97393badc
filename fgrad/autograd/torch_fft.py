"""fgrad.fft: torch.fft's functions on Tensors, by torch's names and signatures (`n`/`s`, `dim`, `norm`).

Each is fgrad.numpy.fft's function of the same name (differentiable, complex results complex128 for
float64 input, as torch's), with torch's argument names: `dim` for NumPy's `axis`/`axes`, and the
2-D functions' dim=(-2, -1). fftfreq and rfftfreq return Tensors of torch's default float dtype here
(float64, fgrad's default).
"""
import numpy as np

from ..backend import Device
from ..numpy import fft as _fft
from ..typing import ArrayLike, Callable, DTypeLike, Sequence
from .dims import wrap_dim, wrap_dims
from .tensor import Tensor

__all__ = ["fft", "fft2", "fftfreq", "fftn", "fftshift", "hfft", "ifft", "ifft2", "ifftn", "ifftshift", "ihfft",
           "irfft", "irfft2", "irfftn", "rfft", "rfft2", "rfftfreq", "rfftn"]


def _t(x):
    return x if isinstance(x, Tensor) else Tensor(x)


def _example(name, data):
    """The example of a generated function: it against numpy.fft's of the same name, and its gradient."""
    return (f"\n\nExamples\n--------\n"
            f">>> import fgrad.fft\n"
            f">>> x = fgrad.tensor({data}, requires_grad=True)\n"
            f">>> bool(np.allclose(fgrad.fft.{name}(x).detach().numpy(), np.fft.{name}({data})))\n"
            f"True\n"
            f">>> fgrad.gradcheck(fgrad.fft.{name}, (x,))  # the gradient against finite differences\n"
            f"True\n")


def _one(name: str) -> Callable[..., Tensor]:
    def fn(input: Tensor | ArrayLike, n: int | None = None, dim: int = -1, norm: str | None = None) -> Tensor:
        return _t(getattr(_fft, name)(input, n=n, axis=wrap_dim(dim, np.ndim(input), f"fft.{name}"), norm=norm))
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = (f"torch.fft.{name}(input, n=None, dim=-1, norm=None): numpy.fft.{name} along `dim`, `input` cut or\n"
                  f"zero-padded to length `n`; norm 'backward' (None), 'ortho' or 'forward'. Differentiable in input\n"
                  f"(real or complex); returns a Tensor." + _example(name, "[1.0, 2.0, 0.5, -1.0]"))
    return fn


def _many(name: str, default_dim: tuple[int, ...] | None) -> Callable[..., Tensor]:
    def fn(input: Tensor | ArrayLike, s: Sequence[int] | None = None, dim: int | Sequence[int] | None = default_dim,
           norm: str | None = None) -> Tensor:
        dim = wrap_dims(dim, np.ndim(input), f"fft.{name}")
        if dim is None and s is not None:
            dim = tuple(range(-len(s), 0))
        return _t(getattr(_fft, name)(input, s=s, axes=dim, norm=norm))
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = (f"torch.fft.{name}(input, s=None, dim={default_dim}, norm=None):\n"
                  f"numpy.fft.{name} over the axes `dim` (None: all, or the last len(s)), sized `s`;\n"
                  f"norm 'backward' (None), 'ortho' or 'forward'. Differentiable in input; returns a Tensor."
                  + _example(name, "[[1.0, 2.0, 0.5], [-1.0, 0.0, 3.0]]"))
    return fn


fft, ifft, rfft, irfft, hfft, ihfft = (_one(n) for n in ("fft", "ifft", "rfft", "irfft", "hfft", "ihfft"))
fft2, ifft2, rfft2, irfft2 = (_many(n, (-2, -1)) for n in ("fft2", "ifft2", "rfft2", "irfft2"))
fftn, ifftn, rfftn, irfftn = (_many(n, None) for n in ("fftn", "ifftn", "rfftn", "irfftn"))


def fftfreq(n: int, d: float = 1.0, *, dtype: DTypeLike | None = None, device: str | Device | None = None,
            requires_grad: bool = False) -> Tensor:
    """The sample frequencies of an n-point fft with sample spacing d: [0, 1, ..., -1] / (d * n)
    (torch.fft.fftfreq), a Tensor (dtype= to convert).

    Examples
    --------
    >>> fgrad.fft.fftfreq(4, d=0.5)
    tensor([ 0. ,  0.5, -1. , -0.5])
    """
    out = Tensor(_fft.fftfreq(n, d) if dtype is None else _fft.fftfreq(n, d).astype(dtype),
                 requires_grad=requires_grad)
    return out if device is None else out.to(device)


def rfftfreq(n: int, d: float = 1.0, *, dtype: DTypeLike | None = None, device: str | Device | None = None,
             requires_grad: bool = False) -> Tensor:
    """The sample frequencies of an n-point rfft with sample spacing d: [0, 1, ..., n // 2] / (d * n)
    (torch.fft.rfftfreq), a Tensor (dtype= to convert).

    Examples
    --------
    >>> fgrad.fft.rfftfreq(4, d=0.5)
    tensor([0. , 0.5, 1. ])
    """
    out = Tensor(_fft.rfftfreq(n, d) if dtype is None else _fft.rfftfreq(n, d).astype(dtype),
                 requires_grad=requires_grad)
    return out if device is None else out.to(device)


def fftshift(input: Tensor | ArrayLike, dim: int | Sequence[int] | None = None) -> Tensor:
    """input with the zero frequency moved to the middle along `dim` (None: every axis), as
    torch.fft.fftshift. Differentiable; returns a Tensor.

    Examples
    --------
    >>> x = fgrad.tensor([0.0, 1.0, 2.0, -2.0, -1.0], requires_grad=True)
    >>> y = fgrad.fft.fftshift(x); (y * fgrad.arange(5.0)).sum().backward()
    >>> y, x.grad  # a permutation: the gradient is permuted back
    (tensor([-2., -1.,  0.,  1.,  2.], grad_fn=<...>), tensor([2., 3., 4., 0., 1.]))
    """
    return _t(_fft.fftshift(input, axes=wrap_dims(dim, np.ndim(input), "fft.fftshift")))


def ifftshift(input: Tensor | ArrayLike, dim: int | Sequence[int] | None = None) -> Tensor:
    """The inverse of fftshift along `dim` (None: every axis), as torch.fft.ifftshift. Differentiable.

    Examples
    --------
    >>> fgrad.fft.ifftshift(fgrad.tensor([-2.0, -1.0, 0.0, 1.0, 2.0]))
    tensor([ 0.,  1.,  2., -2., -1.])
    """
    return _t(_fft.ifftshift(input, axes=wrap_dims(dim, np.ndim(input), "fft.ifftshift")))
