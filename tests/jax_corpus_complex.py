"""The corpus of complex functions: tests/jax_corpus.py's mechanism (a `Case` per function,
written once against a NumPy-like module `np_`), for complex values.

Each case says whether the function is holomorphic (then jacfwd, jacrev and, for a scalar
output, grad with `holomorphic=True` are compared too); tests/test_jax_complex.py compares
fgrad with JAX in x64 on its value, jvp and vjp (random complex tangents and cotangents),
grad of a real scalar output, jacrev of real outputs and jacfwd of real inputs. Register a
case with `@complex_case(*args, holomorphic=...)`; the FFT functions of fgrad.numpy.fft
belong here too.
"""
import numpy as np

from .jax_corpus import Case

__all__ = ["COMPLEX_CASES", "ComplexCase", "complex_case"]

_rng = np.random.default_rng(20260612)


class ComplexCase(Case):
    """A corpus entry of complex values; `holomorphic`: f is holomorphic in all its arguments."""

    __slots__ = ("holomorphic",)

    def __init__(self, name, fn, args, holomorphic, argnums=None, requires=(), rtol=None):
        Case.__init__(self, name, fn, args, argnums, requires, rtol)
        self.holomorphic = holomorphic


COMPLEX_CASES = []


def complex_case(*args, holomorphic=False, argnums=None, requires=(), rtol=None, name=None):
    def register(fn):
        n = name or fn.__name__
        assert n not in {c.name for c in COMPLEX_CASES}, f"duplicate corpus name {n}"
        COMPLEX_CASES.append(ComplexCase(n, fn, args, holomorphic, argnums, requires, rtol))
        return fn
    return register


def c(*shape, scale=1.0):
    """Complex samples, both parts uniform in [-scale, scale]."""
    return scale * (_rng.uniform(-1, 1, shape) + 1j * _rng.uniform(-1, 1, shape))


def r(*shape):
    return _rng.uniform(-1, 1, shape)


def well(n):
    """A well-conditioned complex matrix."""
    return c(n, n) + 2 * n * np.eye(n) / 2


def hermitian(n):
    a = c(n, n)
    return a + a.conj().T + 2 * n * np.eye(n)


# ---- holomorphic elementwise ------------------------------------------------------------------
@complex_case(c(4), holomorphic=True)
def exp_sin(np_, z):
    return np_.exp(z) * np_.sin(z)


@complex_case(c(4) + 2, holomorphic=True)
def log_sqrt(np_, z):
    return np_.log(z) + np_.sqrt(z)


@complex_case(c(4) + 2, holomorphic=True)
def log1p_log2_log10(np_, z):
    return np_.log1p(z) - np_.log2(z) + np_.log10(z)


@complex_case(c(4), holomorphic=True)
def expm1_exp2(np_, z):
    return np_.expm1(z) * np_.exp2(z)


@complex_case(c(4, scale=0.8), holomorphic=True)
def tan_cos(np_, z):
    return np_.tan(z) + np_.cos(z)


@complex_case(c(4), holomorphic=True)
def hyperbolics(np_, z):
    return np_.sinh(z) * np_.cosh(z) - np_.tanh(z)


@complex_case(c(4, scale=0.5), holomorphic=True)
def inverse_trig(np_, z):
    return np_.arcsin(z) + np_.arccos(z) * np_.arctan(z)


@complex_case(c(4, scale=0.5), holomorphic=True)
def inverse_hyperbolic(np_, z):
    return np_.arcsinh(z) + np_.arctanh(z)


@complex_case(c(4, scale=0.5) + 2.0, holomorphic=True)
def arccosh_right(np_, z):
    return np_.arccosh(z)


@complex_case(c(4) + 2, c(4), holomorphic=True)
def power_complex_exponent(np_, z, w):
    return np_.power(z, w)


@complex_case(c(4), holomorphic=True)
def integer_powers(np_, z):
    return z ** 3 + np_.square(z) - 2 * z


@complex_case(c(4) + 2, holomorphic=True)
def reciprocal_divide(np_, z):
    return np_.reciprocal(z) + 1.0 / (z * z)


@complex_case(c(3), c(3) + 2, holomorphic=True)
def quotient(np_, z, w):
    return z / w - w / (z + 3)


@complex_case(c(3), c(3), holomorphic=True)
def product_sum(np_, z, w):
    return z * w + z - w


@complex_case(c(4), holomorphic=True)
def negative_positive(np_, z):
    return -np_.negative(z) * 2.0 + np_.positive(z)


@complex_case(c(5), holomorphic=True)
def polynomial(np_, z):
    return ((z * 0.5 + 1.0) * z - 2.0) * z + 0.25


# ---- non-holomorphic: the parts, abs, angle, casts -----------------------------------------------
@complex_case(c(4))
def abs_squared_sum(np_, z):
    return np_.sum(np_.abs(z) ** 2)


@complex_case(c(4))
def abs_of_product(np_, z):
    return np_.abs(z * (1 - 2j))


@complex_case(c(4))
def real_imag_mix(np_, z):
    return np_.real(z) * np_.imag(z) + np_.real(z * z)


@complex_case(c(4))
def conj_times(np_, z):
    return np_.conj(z) * z + np_.conjugate(z) * 1j


@complex_case(c(4))
def angle_of(np_, z):
    return np_.angle(z)


@complex_case(c(4))
def angle_degrees(np_, z):
    return np_.angle(z * z, deg=True)


@complex_case(c(4))
def attributes(np_, z):
    return z.real ** 2 - z.imag + z.conj().imag


@complex_case(r(4))
def real_to_complex_phase(np_, x):
    return np_.exp(1j * x)


@complex_case(r(3), r(3))
def complex_of_two_reals(np_, x, y):
    return np_.exp(x + 1j * y) * (x - 2j)


@complex_case(r(4))
def real_to_complex_sqrt(np_, x):
    return np_.sqrt(x + 0j) * np_.cos(x)


@complex_case(r(4))
def real_plus_zero_j(np_, x):
    return np_.abs(np_.sqrt(x + 0j))


@complex_case(r(4))
def astype_complex(np_, x):
    return np_.astype(x, np_.complex128) * (1 + 2j)


@complex_case(c(4))
def complex_to_real_parts(np_, z):
    return np_.sum(np_.real(z) ** 3 - np_.imag(z) * np_.real(z))


@complex_case(r(3), r(3))
def complex_from_parts(np_, x, y):
    return np_.abs(x + 1j * y) ** 3


@complex_case(c(4), r(4))
def mixed_real_complex(np_, z, x):
    return np_.sum(np_.abs(z * x + x ** 2))


@complex_case(c(4))
def sqrt_abs(np_, z):
    return np_.sqrt(np_.abs(z) + 1.0) * z


@complex_case(c(4))
def log_abs(np_, z):
    return np_.log(np_.abs(z))


@complex_case(c(4), c(4))
def hermitian_inner(np_, z, w):
    return np_.real(np_.sum(np_.conj(z) * w))


@complex_case(c(4))
def where_on_real_part(np_, z):
    return np_.where(np_.real(z) > 0, z * z, np_.conj(z))


# ---- reductions ---------------------------------------------------------------------------------
@complex_case(c(3, 4), holomorphic=True)
def sum_axes(np_, z):
    return np_.sum(z, axis=1) + np_.sum(z * z)


@complex_case(c(3, 4), holomorphic=True)
def mean_axis0(np_, z):
    return np_.mean(z, axis=0)


@complex_case(c(2, 3) + 1.5, holomorphic=True)
def prod_axis(np_, z):
    return np_.prod(z, axis=1)


@complex_case(c(3, 4), holomorphic=True)
def cumsum_axis(np_, z):
    return np_.cumsum(z, axis=1)


@complex_case(c(4) + 1.5, holomorphic=True)
def cumprod_vector(np_, z):
    return np_.cumprod(z)


@complex_case(c(3, 4))
def var_of_complex(np_, z):
    return np_.var(z)


@complex_case(c(3, 4))
def std_axis(np_, z):
    return np_.std(z, axis=0)


@complex_case(c(3, 4))
def abs_mean(np_, z):
    return np_.mean(np_.abs(z) ** 2, axis=1)


# ---- products -----------------------------------------------------------------------------------
@complex_case(c(3, 4), c(4, 2), holomorphic=True)
def matmul_pair(np_, a, b):
    return a @ b


@complex_case(c(3, 4), c(4), holomorphic=True)
def matvec(np_, a, v):
    return np_.dot(a, v)


@complex_case(c(5), c(5))
def vdot_conjugates(np_, z, w):
    return np_.vdot(z, w)


@complex_case(c(2, 3), c(4, 3), holomorphic=True)
def inner_product(np_, a, b):
    return np_.inner(a, b)


@complex_case(c(3), c(2), holomorphic=True)
def outer_product(np_, z, w):
    return np_.outer(z, w)


@complex_case(c(2, 3), c(3, 4), holomorphic=True)
def einsum_contract(np_, a, b):
    return np_.einsum("ij,jk->ik", a, b)


@complex_case(c(2, 2), c(2, 3), holomorphic=True)
def kron_pair(np_, a, b):
    return np_.kron(a, b)


@complex_case(c(2, 3, 4), c(4, 3), holomorphic=True)
def tensordot_axes(np_, a, b):
    return np_.tensordot(a, b, axes=([1, 2], [1, 0]))


@complex_case(c(3, 3))
def matmul_adjoint(np_, a):
    return np_.real(np_.trace(a @ np_.conj(a).T))


# ---- shaping and indexing ---------------------------------------------------------------------------
@complex_case(c(2, 6), holomorphic=True)
def reshape_transpose(np_, z):
    return np_.transpose(np_.reshape(z, (3, 4))) * 2.0


@complex_case(c(4, 3), holomorphic=True)
def slicing(np_, z):
    return z[1:3, ::2] + z[0, :2]


@complex_case(c(5), holomorphic=True)
def fancy_index(np_, z):
    return z[np_.array([0, 2, 2, 4])] * z[-1]


@complex_case(c(2, 3), c(2, 3), holomorphic=True)
def concatenate_stack(np_, a, b):
    return np_.concatenate([a, np_.stack([b[0], a[1]])], axis=1)


@complex_case(c(3, 4), holomorphic=True)
def flip_roll(np_, z):
    return np_.flip(z, 1) + np_.roll(z, 1, axis=0)


@complex_case(c(3), holomorphic=True)
def broadcast_expand(np_, z):
    return np_.broadcast_to(z, (2, 3)) * np_.expand_dims(z, 1)[:2]


@complex_case(c(4, 4), holomorphic=True)
def diagonal_trace(np_, z):
    return np_.diagonal(z) * np_.trace(z)


# ---- linalg ----------------------------------------------------------------------------------------------
@complex_case(well(3), c(3), holomorphic=True)
def solve_complex(np_, a, b):
    return np_.linalg.solve(a, b)


@complex_case(well(3), holomorphic=True)
def inv_complex(np_, a):
    return np_.linalg.inv(a)


@complex_case(well(3), holomorphic=True)
def det_complex(np_, a):
    return np_.linalg.det(a)


@complex_case(well(3))
def slogdet_parts(np_, a):
    sign, logabs = np_.linalg.slogdet(a)
    return np_.real(sign) + np_.imag(sign) * 2 + logabs


@complex_case(hermitian(3))
def cholesky_hermitian(np_, a):
    return np_.abs(np_.linalg.cholesky(a)) ** 2


@complex_case(hermitian(3))
def eigvalsh_hermitian(np_, a):
    return np_.linalg.eigvalsh(a)


@complex_case(hermitian(3))
def eigh_vectors_invariant(np_, a):
    w, v = np_.linalg.eigh(a)
    return w * 2 + np_.abs(v[0]) ** 2


@complex_case(c(4, 3))
def svd_values(np_, a):
    return np_.linalg.svd(a, compute_uv=False)


@complex_case(c(3, 4))
def svd_polar(np_, a):
    u, s, vh = np_.linalg.svd(a, full_matrices=False)
    return np_.abs(u @ vh) + s[0]


@complex_case(c(4, 3))
def qr_r_diagonal(np_, a):
    q, rr = np_.linalg.qr(a)
    return np_.abs(q) + np_.real(rr[0])


@complex_case(c(4, 3))
def pinv_complex(np_, a):
    return np_.abs(np_.linalg.pinv(a))


@complex_case(well(3), holomorphic=True)
def matrix_power_complex(np_, a):
    return np_.linalg.matrix_power(a, 3)


@complex_case(c(3, 4))
def norms(np_, a):
    return np_.linalg.norm(a) + np_.linalg.norm(a, "nuc") + np_.linalg.norm(a[0], 1)


@complex_case(well(3))
def eigvals_complex(np_, a):
    return np_.abs(np_.sum(np_.linalg.eigvals(a) ** 2))


# ---- numpy.fft, scipy.fft and fftconvolve -----------------------------------------------------
def scipy_module(np_, name):
    """scipy.<name> ("fft", "signal") for this module: fgrad.scipy's, jax.scipy's or SciPy's."""
    import importlib
    prefix = "jax.scipy" if np_.__name__.startswith("jax") else \
        "fgrad.scipy" if np_.__name__.startswith("fgrad") else "scipy"
    return importlib.import_module(f"{prefix}.{name}")


@complex_case(r(8))
def fft_power_spectrum(np_, x):
    return np_.sum(np_.abs(np_.fft.fft(x)) ** 2 * np_.arange(8.0))


@complex_case(c(5), holomorphic=True)
def fft_padded(np_, z):
    return np_.fft.fft(z, n=8) * np_.fft.ifft(z, n=3)[0]


@complex_case(c(4, 3), holomorphic=True)
def fft_ifft_ortho_axis0(np_, z):
    return np_.fft.ifft(np_.fft.fft(z, axis=0, norm="ortho") ** 2, axis=0, norm="ortho")


@complex_case(r(7))
def fft_rfft_irfft_round_trip(np_, x):
    filt = np_.exp(-0.3j * np_.arange(4.0))
    return np_.fft.irfft(np_.fft.rfft(x) * filt, n=7) + np_.fft.irfft(np_.fft.rfft(x, n=10), n=7, norm="forward")


@complex_case(c(5))
def fft_irfft_of_complex(np_, z):
    return np_.fft.irfft(z, n=9)[:8] + np_.fft.irfft(z, norm="ortho")


@complex_case(c(4, 6), holomorphic=True)
def fft_fft2_ortho(np_, z):
    return np_.fft.fft2(z, norm="ortho") * np_.fft.ifft2(z, s=(4, 3))[0, 0]


@complex_case(c(2, 3, 4), holomorphic=True)
def fft_fftn_forward(np_, z):
    return np_.fft.fftn(z, axes=(0, 2), norm="forward") + np_.fft.ifftn(z)


@complex_case(r(4, 5))
def fft_rfftn_energy(np_, x):
    return np_.abs(np_.fft.rfftn(x, s=(4, 6), axes=(0, 1))) ** 2 + np_.real(np_.fft.rfft2(x, norm="ortho"))[0, 0]


@complex_case(c(3, 4))
def fft_irfft2_and_irfftn(np_, z):
    return np_.sum(np_.fft.irfft2(z, s=(3, 5)) ** 2) + np_.sum(np_.fft.irfftn(z, axes=(1, 0)) * np_.arange(4.0))


@complex_case(c(5))
def fft_hfft_ihfft(np_, z):
    return np_.fft.hfft(z, n=7) + np_.abs(np_.fft.ihfft(np_.real(z) * np_.imag(z), norm="ortho")).sum()


@complex_case(r(6))
def fft_shifted_spectrum(np_, x):
    freqs = np_.fft.fftshift(np_.fft.fftfreq(6, 0.5))
    return np_.fft.ifftshift(np_.fft.fftshift(np_.abs(np_.fft.fft(x))) * freqs)


@complex_case(r(6))
def fft_dct_ortho(np_, x):
    f = scipy_module(np_, "fft")
    return f.dct(x, norm="ortho") + f.idct(x ** 2, n=6) + f.dct(x, n=4)[0]


@complex_case(r(3, 4))
def fft_dctn_idctn(np_, x):
    f = scipy_module(np_, "fft")
    return f.idctn(f.dctn(x, norm="ortho") * np_.arange(12.0).reshape(3, 4), norm="ortho") + f.dctn(x, axes=[1])


@complex_case(r(5, 6), r(3, 2))
def fft_fftconvolve_same(np_, x, k):
    return scipy_module(np_, "signal").fftconvolve(x, k, mode="same")


@complex_case(c(7), c(3), holomorphic=True)
def fft_fftconvolve_complex(np_, z, k):
    s = scipy_module(np_, "signal")
    return s.fftconvolve(z, k) + np_.sum(s.fftconvolve(z, k, mode="valid"))
