"""torch's namespaces on Tensors (fgrad.linalg, fgrad.fft, fgrad.special: fgrad/autograd/torch_linalg.py,
torch_fft.py, torch_special.py) and torch's complex and distance functions, against torch 2.13: the same
values, and the same gradients after backward, for the same float64 (and complex128) inputs."""
import numpy as np
import pytest

import fgrad

torch = pytest.importorskip("torch")

RNG = np.random.default_rng(0)
SPD = (lambda m: m @ m.T + 4 * np.eye(4))(RNG.normal(size=(4, 4)))
SPD3 = np.stack([SPD, SPD + np.diag([1.0, 2.0, 3.0, 4.0])])
M = RNG.normal(size=(4, 4)) + 4 * np.eye(4)
M3 = RNG.normal(size=(2, 4, 4)) + 4 * np.eye(4)
R = RNG.normal(size=(5, 3))        # a tall matrix
R3 = RNG.normal(size=(2, 5, 3))
B = RNG.normal(size=(4, 2))
B3 = RNG.normal(size=(2, 4))       # a batch of vectors for M3 (torch's rule: B.shape == A.shape[:-1])
V, W = RNG.normal(size=(2, 3)), RNG.normal(size=(2, 3))
UPPER = np.triu(M)
X = RNG.normal(size=(3, 4))
Z = RNG.normal(size=(3, 4)) + 1j * RNG.normal(size=(3, 4))
POS = RNG.uniform(0.2, 0.8, size=(3, 4))


def _pairs(out):
    """The tensors of a result (a tensor, or a tuple of them)."""
    return list(out) if isinstance(out, (tuple, list)) else [out]


def _run(lib, fn, inputs):
    make = fgrad.tensor if lib is fgrad else torch.tensor
    xs = [make(x.copy(), requires_grad=True) for x in inputs]
    outs = [o for o in _pairs(fn(lib, *xs)) if o is not None]
    values = [np.asarray(o.detach().resolve_conj() if lib is torch else o.detach()) for o in outs]
    weights = np.random.default_rng(1)
    loss = 0
    for o in outs:
        w = [make(weights.normal(size=tuple(o.shape))) for _ in range(2)]
        if not o.requires_grad:
            continue
        loss = loss + ((o.real * w[0] + o.imag * w[1]).sum() if o.is_complex() else (o * w[0]).sum())
    grads = None
    if not isinstance(loss, int):
        loss.backward()
        grads = [np.asarray(x.grad.resolve_conj() if lib is torch else x.grad) if x.grad is not None else None
                 for x in xs]
    return values, grads


def _same(ours, theirs, rtol=1e-9, atol=1e-11):
    (values, grads), (want, want_grads) = ours, theirs
    assert len(values) == len(want)
    for v, w in zip(values, want):
        assert v.shape == w.shape and v.dtype == w.dtype, (v.shape, w.shape, v.dtype, w.dtype)
        np.testing.assert_allclose(v, w, rtol=rtol, atol=atol)
    assert (grads is None) == (want_grads is None)
    for g, w in zip(grads or (), want_grads or ()):
        assert (g is None) == (w is None)
        if g is not None:
            np.testing.assert_allclose(g, w, rtol=rtol, atol=atol)


LINALG = {
    "norm": (lambda L, a: [L.linalg.norm(a), L.linalg.norm(a, dim=1), L.linalg.norm(a, ord=1),
                           L.linalg.norm(a, "nuc"), L.linalg.norm(a, 2, dim=(0, 1), keepdim=True),
                           L.linalg.norm(a, float("inf"), dim=0)], (R,)),
    "vector_norm": (lambda L, a: [L.linalg.vector_norm(a), L.linalg.vector_norm(a, 3, dim=(1, 2)),
                                  L.linalg.vector_norm(a, float("inf"), dim=-1, keepdim=True),
                                  L.linalg.vector_norm(a, 1, dim=0)], (R3,)),
    "matrix_norm": (lambda L, a: [L.linalg.matrix_norm(a), L.linalg.matrix_norm(a, "nuc", dim=(0, 2)),
                                  L.linalg.matrix_norm(a, 2, keepdim=True), L.linalg.matrix_norm(a, -1)], (R3,)),
    "cond": (lambda L, a: [L.linalg.cond(a), L.linalg.cond(a.detach(), "fro")], (M3,)),
    "det,slogdet,inv": (lambda L, a: [L.linalg.det(a), *L.linalg.slogdet(a), L.linalg.inv(a),
                                      L.linalg.inv_ex(a).inverse], (M3,)),
    "solve(matrix)": (lambda L, a, b: L.linalg.solve(a, b), (M, B)),
    "solve(batched vectors)": (lambda L, a, b: L.linalg.solve(a, b), (M3, B3)),
    "solve(left=False)": (lambda L, a, b: L.linalg.solve(a, b.T, left=False), (M, B)),
    "solve_triangular": (lambda L, a, b: [L.linalg.solve_triangular(a, b, upper=True),
                                          L.linalg.solve_triangular(a.T, b, upper=False, unitriangular=True),
                                          L.linalg.solve_triangular(a, b.T, upper=True, left=False)], (UPPER, B)),
    "pinv": (lambda L, a: [L.linalg.pinv(a), L.linalg.pinv(a, atol=1e-3), L.linalg.pinv(a, rtol=1e-6)], (R3,)),
    "pinv(hermitian)": (lambda L, a: L.linalg.pinv(a, hermitian=True), (SPD,)),
    "lstsq": (lambda L, a, b: [*L.linalg.lstsq(a, b), *L.linalg.lstsq(a, b, driver="gelsd"),
                               *L.linalg.lstsq(a, b, driver="gels")], (R, R[:, :2] + 1)),
    "lstsq(stack)": (lambda L, a, b: L.linalg.lstsq(a, b, driver="gelss")[:3], (R3, R3[..., :2] + 1)),
    "matrix_power,matrix_exp": (lambda L, a: [L.linalg.matrix_power(a, 3), L.linalg.matrix_power(a, -2),
                                              L.linalg.matrix_power(a, 0), L.linalg.matrix_exp(a / 4)], (M3,)),
    "matrix_rank": (lambda L, a: [L.linalg.matrix_rank(a), L.linalg.matrix_rank(a, atol=1.0, rtol=0.1)], (R3,)),
    "cholesky": (lambda L, a: [L.linalg.cholesky(a), L.linalg.cholesky(a, upper=True),
                               L.linalg.cholesky_ex(a).L], (SPD3,)),
    "qr": (lambda L, a: [*L.linalg.qr(a), L.linalg.qr(a.detach(), mode="complete")[0],
                           L.linalg.qr(a.detach(), mode="r")[1]], (R3,)),
    "eigh": (lambda L, a: (lambda w, q: [w, q * q, L.linalg.eigvalsh(a, UPLO="U")])(*L.linalg.eigh(a)), (SPD3,)),
    # (the order of eig's eigenvalues is LAPACK's, not the same from NumPy and torch: symmetric functions)
    "eig,eigvals": (lambda L, a: (lambda w, v: [w.sum(-1), (w * w).sum(-1), w.abs().prod(-1),
                                                ((v * v.conj()).real * w.abs()[..., None, :]).sum(-1),
                                                L.linalg.eigvals(a).abs().sum(-1)])(*L.linalg.eig(a)), (M3,)),
    "svd": (lambda L, a: (lambda u, s, vh: [s, (u * u)[..., :3], vh * vh, L.linalg.svdvals(a),
                                            L.linalg.svd(a, full_matrices=False)[0] ** 2])(
        *L.linalg.svd(a, full_matrices=False)), (R3,)),
    "svd(full_matrices)": (lambda L, a: [t.abs() for t in L.linalg.svd(a.detach())], (R3,)),
    "cross,vecdot,multi_dot": (lambda L, v, w: [L.linalg.cross(v, w), L.linalg.vecdot(v, w, dim=0),
                                                L.linalg.multi_dot([v, w.T, v])], (V, W)),
    "diagonal,matmul,vander": (lambda L, a: [L.linalg.diagonal(a), L.linalg.diagonal(a, offset=1, dim1=0, dim2=2),
                                             L.linalg.matmul(a, a), L.linalg.vander(a[0, 0], N=3)], (M3,)),
    "tensorinv,tensorsolve": (lambda L, a, b: [L.linalg.tensorinv(a.reshape(4, 2, 2), ind=1),
                                               L.linalg.tensorsolve(a.reshape(2, 2, 4), b[:, 0].reshape(2, 2))],
                              (M, B)),
}


@pytest.mark.parametrize("name", list(LINALG))
def test_linalg_matches_torch(name):
    fn, inputs = LINALG[name]
    _same(_run(fgrad, fn, inputs), _run(torch, fn, inputs))


def test_linalg_namespace():
    import fgrad.linalg
    from fgrad.linalg import norm
    assert fgrad.linalg is fgrad.autograd.torch_linalg and norm is fgrad.linalg.norm
    for fn, fields in (("eigh", ("eigenvalues", "eigenvectors")), ("eig", ("eigenvalues", "eigenvectors")),
                       ("svd", ("U", "S", "Vh")), ("qr", ("Q", "R")), ("slogdet", ("sign", "logabsdet"))):
        ours, theirs = getattr(fgrad.linalg, fn)(fgrad.tensor(SPD)), getattr(torch.linalg, fn)(torch.tensor(SPD))
        for field in fields:
            np.testing.assert_allclose(np.abs(getattr(ours, field).numpy()), np.abs(getattr(theirs, field).numpy()),
                                       atol=1e-10)
    assert fgrad.linalg.svd(fgrad.tensor(R)).U.shape == (5, 5)  # full_matrices=True, as torch's
    with pytest.raises(RuntimeError):
        fgrad.linalg.norm(fgrad.tensor(R3), ord=2)


FFT = {
    "fft,ifft": (lambda L, x, z: [L.fft.fft(x), L.fft.fft(z, n=6, dim=0), L.fft.ifft(z, norm="ortho"),
                                  L.fft.ifft(x, n=3, norm="forward")], (X, Z)),
    "rfft,irfft,hfft,ihfft": (lambda L, x, z: [L.fft.rfft(x), L.fft.rfft(x, n=6, dim=0, norm="ortho"),
                                               L.fft.irfft(z), L.fft.irfft(z, n=5, dim=0),
                                               L.fft.hfft(z, norm="forward"), L.fft.ihfft(x)], (X, Z)),
    "fft2,ifft2,rfft2,irfft2": (lambda L, x, z: [L.fft.fft2(z), L.fft.ifft2(x, s=(2, 6)), L.fft.rfft2(x, norm="ortho"),
                                                 L.fft.irfft2(z), L.fft.irfft2(z, s=(3, 4), dim=(0, 1))], (X, Z)),
    "fftn,ifftn,rfftn,irfftn": (lambda L, x, z: [L.fft.fftn(x), L.fft.ifftn(z, dim=(0,)), L.fft.rfftn(x, s=(4,)),
                                                 L.fft.irfftn(z), L.fft.irfftn(z, s=(2, 6))], (X, Z)),
    "fftshift,ifftshift": (lambda L, x, z: [L.fft.fftshift(x), L.fft.ifftshift(z, dim=1),
                                            L.fft.fftshift(z, dim=(0, 1))], (X, Z)),
    "fftfreq,rfftfreq": (lambda L, x: [L.fft.fftfreq(5), L.fft.fftfreq(6, 0.1), L.fft.rfftfreq(7, d=2.0)], (X,)),
}


@pytest.mark.parametrize("name", list(FFT))
def test_fft_matches_torch(name):
    fn, inputs = FFT[name]
    ours, theirs = _run(fgrad, fn, inputs), (lambda: (torch.set_default_dtype(torch.float64),
                                                      _run(torch, fn, inputs))[1])()
    torch.set_default_dtype(torch.float32)
    _same(ours, theirs)


SPECIAL = {
    "erf,erfc,erfcx,erfinv": (lambda L, x, p: [L.special.erf(x), L.special.erfc(x), L.special.erfcx(x),
                                               L.special.erfinv(2 * p - 1)], (X, POS)),
    "expit,logit": (lambda L, x, p: [L.special.expit(x), L.special.logit(p), L.special.logit(p, eps=0.3)], (X, POS)),
    "xlogy,xlog1py,entr": (lambda L, x, p: [L.special.xlogy(x, p), L.special.xlog1py(x, p), L.special.entr(p)],
                           (X, POS)),
    "gammaln,digamma,psi,polygamma,multigammaln": (lambda L, x, p: [
        L.special.gammaln(x), L.special.digamma(p), L.special.psi(x), L.special.polygamma(2, p),
        L.special.multigammaln(p + 2, 3)], (X, POS)),
    "i0,i0e,i1,i1e": (lambda L, x: [L.special.i0(x), L.special.i0e(x), L.special.i1(x), L.special.i1e(x)], (X,)),
    "ndtr,ndtri,log_ndtr": (lambda L, x, p: [L.special.ndtr(x), L.special.ndtri(p), L.special.log_ndtr(x - 3)],
                            (X, POS)),
    "sinc,round,expm1,exp2,log1p": (lambda L, x, p: [L.special.sinc(x), L.special.round(x * 10),
                                                     L.special.round(x, decimals=2), L.special.expm1(x),
                                                     L.special.exp2(x), L.special.log1p(p)], (X, POS)),
    "logsumexp,softmax,log_softmax": (lambda L, x: [L.special.logsumexp(x, 1), L.special.logsumexp(x, (0, 1), True),
                                                    L.special.softmax(x, 0), L.special.log_softmax(x, dim=1)], (X,)),
    # (torch does not differentiate bessel_j0/j1: values only)
    "bessel_j0,bessel_j1,gammainc,gammaincc,zeta": (lambda L, x, p: [
        L.special.bessel_j0(x.detach()), L.special.bessel_j1(x.detach()), L.special.gammainc(p.detach() + 1, p),
        L.special.gammaincc(p.detach() + 1, p), L.special.zeta(p.detach() + 2, p)], (X, POS)),
}


@pytest.mark.parametrize("name", list(SPECIAL))
def test_special_matches_torch(name):
    fn, inputs = SPECIAL[name]
    _same(_run(fgrad, fn, inputs), _run(torch, fn, inputs))


NANS = np.array([[1.0, np.nan, -2.0], [np.inf, 0.5, -np.inf]])
FUNCTIONS = {
    "view_as_real,view_as_complex": (lambda L, z, x: [L.view_as_real(z), L.view_as_complex(x.reshape(3, 2, 2)),
                                                      L.view_as_real(L.view_as_complex(x.reshape(6, 2)) * z[0, 0])],
                                     (Z, X)),
    "complex,polar": (lambda L, x, p: [L.complex(x, p), L.polar(p, x)], (X, POS)),
    "angle": (lambda L, z, x: [L.angle(z), z.angle(), L.angle(x), x.angle() * x], (Z, X)),
    "cdist": (lambda L, a, b: [L.cdist(a, b), L.cdist(a, b, p=1.0), L.cdist(a, b, p=3.0),
                               L.cdist(a, b, p=float("inf"))], (R3, RNG.normal(size=(2, 4, 3)))),
    "cholesky,cholesky_solve": (lambda L, a, b: [L.linalg.cholesky(a), a.cholesky(), a.cholesky(upper=True),
                                                 L.cholesky_solve(b, L.linalg.cholesky(a)),
                                                 b.cholesky_solve(L.linalg.cholesky(a, upper=True), upper=True)],
                                (SPD3, RNG.normal(size=(2, 4, 3)))),
    "diagonal": (lambda L, a: [L.diagonal(a), a.diagonal(1), L.diagonal(a, offset=-1, dim1=1, dim2=2),
                               a.diagonal(dim1=-1, dim2=0)], (M3,)),
    # (the defaults' float64 max, values only: times a weight it would overflow)
    "nan_to_num": (lambda L, a: [L.nan_to_num(a.detach()), a.nan_to_num(nan=1.5, posinf=9.0, neginf=-1.0),
                                 L.nan_to_num(a, posinf=2.0, neginf=-3.0)], (NANS,)),
}


@pytest.mark.parametrize("name", list(FUNCTIONS))
def test_functions_and_methods_match_torch(name):
    fn, inputs = FUNCTIONS[name]
    _same(_run(fgrad, fn, inputs), _run(torch, fn, inputs))
