"""dtype conversion and the parts of a complex value: convert, real, imag, conj.

Real and complex values meet here. Every derivative that crosses between them goes through
one of these primitives, or through `as_dtype` (the fitting of a derivative to its primal,
ops/broadcasting.py), so this module is the one place that knows what the crossing does.

Note [complex derivatives]: fgrad's rules follow JAX's convention. A jvp rule is the linear
map of tangents (R-linear: a complex number is a pair of reals); a vjp rule is its
transpose, not its conjugate transpose, under the pairing <a, b> = Re(sum(a * b)), no
conjugate anywhere. So a holomorphic op keeps its real rules unchanged: the cotangent is
`f'(z) * g`, the tangent `f'(z) * t`, for sin as for multiply, matmul or solve. Only the
non-holomorphic maps need rules of their own, and they are few:

- real:  t -> Re t,  g -> g + 0j;    imag: t -> Im t,  g -> -1j * g;    conj: t, g -> conj;
- a real-to-complex cast: t -> t + 0j, g -> Re g; the complex-to-real cast (NumPy's astype,
  which drops the imaginary part): t -> Re t, g -> g + 0j.

The second line is also what happens wherever a real value meets a complex one (`x * 1j`,
`x + 0j`): the cotangent reaching a real input is the real part of what the rule gives
(`as_dtype`, as JAX's convert_element_type transposes). An elementwise real-valued function
of complex input then needs only its partial in the right form: abs's is conj(z)/|z| (its
tangent is Re(conj(z)/|z| * t), taken by fitting the tangent to the real output), and angle
is arctan2 of the parts. So `grad` of a real-valued f of complex z is df/dx - i df/dy, what
jax.grad returns (jax.grad(abs(z)**2)(3+4j) == 6-8j), and `grad(..., holomorphic=True)` of a
holomorphic f is f'(z). The Tensor face reports PyTorch's convention instead, the conjugate,
converting at its boundary only (Note [the Tensor face's complex gradients] in
autograd/tape.py; docs/complex.md). A real input never reaches any of this: its paths test a
dtype at most, where a cast was needed anyway.
"""
import numpy as np

from .primitive import Primitive

__all__ = ["as_dtype", "cast", "conj", "convert", "imag", "real"]


def cast(x, dtype):
    """`x` in `dtype` (the convert kernel; a cast with no derivative for integer dtypes)."""
    return x.astype(dtype) if hasattr(x, "astype") else np.asarray(x, dtype)


def as_dtype(v, dtype):
    """A tangent or cotangent `v` cast to `dtype`; a complex one going to a real dtype keeps
    its real part (Note [complex derivatives]), where a plain cast would warn and drop it."""
    if v.dtype.kind == "c" and dtype.kind != "c":
        v = real(v)
        if v.dtype == dtype:
            return v
    return convert(v, dtype=dtype)


def _unary_batch(prim):
    return lambda args, dims, **params: (prim(args[0], **params), dims[0])


def _part(name):
    """The kernel of x.real or x.imag: a new array (NumPy's is a view into x's memory)."""
    def kernel(x):
        part = getattr(x, name)
        return part.copy() if hasattr(part, "copy") else part
    return kernel


convert = Primitive("convert", cast, saves="nothing", torch_name="ToCopy")
convert.defbatch(_unary_batch(convert)).defvjp(lambda g, ans, x, dtype: as_dtype(g, x.dtype)).defjvp(
    lambda t, ans, x, dtype: as_dtype(t, np.dtype(dtype)))

# The parts of a complex value: bound only for complex input (fgrad.numpy's real, imag and
# conj give a real value itself, or zeros, without a node). Each rule reads x's dtype alone.
real = Primitive("real", _part("real"), saves="nothing", torch_name="Real")
real.defbatch(_unary_batch(real)).defvjp(lambda g, ans, x: convert(g, dtype=x.dtype)).defjvp(
    lambda t, ans, x: real(t))
imag = Primitive("imag", _part("imag"), saves="nothing", torch_name="Imag")
imag.defbatch(_unary_batch(imag)).defvjp(lambda g, ans, x: convert(g, dtype=x.dtype) * -1j).defjvp(
    lambda t, ans, x: imag(t))
conj = Primitive("conj", np.conjugate, saves="nothing", torch_name="Conj")
conj.defbatch(_unary_batch(conj)).defvjp(lambda g, ans, x: conj(g)).defjvp(lambda t, ans, x: conj(t))
