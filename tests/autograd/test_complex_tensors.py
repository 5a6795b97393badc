"""The Tensor face on complex values against PyTorch (Note [the Tensor face's complex gradients]
in fgrad/autograd/tape.py): `.grad` after backward, autograd.grad, hooks, a Function and
gradcheck (its slow and fast modes) give torch's numbers, the conjugates of the functional
face's. Skipped where torch is not installed."""
from types import SimpleNamespace

import numpy as np
import pytest

import fgrad
import fgrad.numpy as fnp

torch = pytest.importorskip("torch")

FG = SimpleNamespace(
    sin=fnp.sin, cos=fnp.cos, tan=fnp.tan, exp=fnp.exp, log=fnp.log, sqrt=fnp.sqrt, tanh=fnp.tanh, sinh=fnp.sinh,
    cosh=fnp.cosh, asin=fnp.arcsin, atan=fnp.arctan, abs=fnp.abs, conj=fnp.conj, real=fnp.real, imag=fnp.imag,
    angle=fnp.angle, sgn=fnp.sign, reciprocal=fnp.reciprocal, sum=fnp.sum, mean=fnp.mean, prod=fnp.prod,
    cumsum=lambda x, d: fnp.cumsum(x, axis=d), cumprod=lambda x, d: fnp.cumprod(x, axis=d), matmul=fnp.matmul,
    outer=fnp.outer, kron=fnp.kron, vdot=fnp.vdot, einsum=fnp.einsum, var=fnp.var, where=fnp.where,
    stack=fnp.stack, tensordot=lambda a, b: fnp.tensordot(a, b, axes=1), inv=fnp.linalg.inv, det=fnp.linalg.det,
    solve=fnp.linalg.solve, fft=fnp.fft.fft, ifft=fnp.fft.ifft, fft2=fnp.fft.fft2, rfft=fnp.fft.rfft,
    irfft=fnp.fft.irfft, hfft=fnp.fft.hfft)
TORCH = SimpleNamespace(
    sin=torch.sin, cos=torch.cos, tan=torch.tan, exp=torch.exp, log=torch.log, sqrt=torch.sqrt, tanh=torch.tanh,
    sinh=torch.sinh, cosh=torch.cosh, asin=torch.asin, atan=torch.atan, abs=torch.abs, conj=torch.conj,
    real=torch.real, imag=torch.imag, angle=torch.angle, sgn=torch.sgn, reciprocal=torch.reciprocal, sum=torch.sum,
    mean=torch.mean, prod=torch.prod, cumsum=torch.cumsum, cumprod=torch.cumprod, matmul=torch.matmul,
    outer=torch.outer, kron=torch.kron, vdot=torch.vdot, einsum=torch.einsum,
    var=lambda x: torch.var(x, correction=0), where=torch.where, stack=torch.stack,
    tensordot=lambda a, b: torch.tensordot(a, b, dims=1), inv=torch.linalg.inv, det=torch.linalg.det,
    solve=torch.linalg.solve, fft=torch.fft.fft, ifft=torch.fft.ifft, fft2=torch.fft.fft2, rfft=torch.fft.rfft,
    irfft=torch.fft.irfft, hfft=torch.fft.hfft)

_rng = np.random.default_rng(7)


def c(*shape, scale=1.0):
    return scale * (_rng.uniform(-1, 1, shape) + 1j * _rng.uniform(-1, 1, shape))


Z, W = c(4), c(4)
M, N = c(3, 3) + 2 * np.eye(3), c(3, 3)
X = _rng.uniform(-1, 1, 4)

# name -> (f(m, *args), args): every argument differentiated, every output a real loss (or, for
# the complex ones, a complex output given a gradient)
CASES = {
    "abs_squared": (lambda m, z: m.sum(m.abs(z) ** 2), (Z,)),
    "abs": (lambda m, z: m.sum(m.abs(z)), (Z,)),
    "real_of_square": (lambda m, z: m.sum(m.real(z * z)), (Z,)),
    "imag_squared": (lambda m, z: m.sum(m.imag(z) ** 2), (Z,)),
    "conj_product": (lambda m, z, w: m.sum(m.real(m.conj(z) * w)), (Z, W)),
    "angle": (lambda m, z: m.sum(m.angle(z)), (Z,)),
    "sgn": (lambda m, z: m.sum(m.real(m.sgn(z) * (1 + 2j))), (Z,)),
    "sin_exp": (lambda m, z: m.sum(m.abs(m.sin(z) * m.exp(z))), (Z,)),
    "log_sqrt": (lambda m, z: m.sum(m.real(m.log(z + 3) + m.sqrt(z + 2))), (Z,)),
    "tan_tanh": (lambda m, z: m.sum(m.imag(m.tan(z) + m.tanh(z))), (Z,)),
    "hyperbolic": (lambda m, z: m.sum(m.abs(m.sinh(z) - m.cosh(z)) ** 2), (Z,)),
    "inverse_trig": (lambda m, z: m.sum(m.real(m.asin(z * 0.5) * m.atan(z * 0.5))), (Z,)),
    "reciprocal_divide": (lambda m, z, w: m.sum(m.abs(m.reciprocal(z + 2) / (w + 2))), (Z, W)),
    "power": (lambda m, z: m.sum(m.real(z ** 3 + (z + 2) ** 0.5)), (Z,)),
    "mean_var": (lambda m, z: m.var(z) + m.real(m.mean(z * z)), (Z,)),
    "prod_cumsum": (lambda m, z: m.abs(m.prod(z + 1)) + m.sum(m.imag(m.cumsum(z, 0))), (Z,)),
    "cumprod": (lambda m, z: m.sum(m.real(m.cumprod(z + 1, 0))), (Z,)),
    "matmul": (lambda m, a, b: m.sum(m.abs(m.matmul(a, b))), (M, N)),
    "vdot_outer": (lambda m, z, w: m.abs(m.vdot(z, w)) + m.sum(m.real(m.outer(z, w))), (Z, W)),
    "kron_einsum": (lambda m, a, b: m.sum(m.abs(m.kron(a, b))) + m.real(m.einsum("ij,ji->", a, b)), (M, N)),
    "tensordot": (lambda m, a, z: m.sum(m.imag(m.tensordot(a, z[:3]))), (M, Z)),
    "real_to_complex": (lambda m, x: m.sum(m.abs(x * (1 + 2j) + 1j) ** 2), (X,)),
    "where_stack": (lambda m, z: m.sum(m.abs(m.stack([z, m.where(m.real(z) > 0, z, 2 * z)]))), (Z,)),
    "inv_det": (lambda m, a: m.abs(m.det(a)) + m.sum(m.real(m.inv(a))), (M,)),
    "solve": (lambda m, a, z: m.sum(m.abs(m.solve(a, z[:3]))), (M, Z)),
    "fft_power": (lambda m, z: m.sum(m.abs(m.fft(z, 6)) ** 3), (Z,)),
    "fft2_ortho_ifft": (lambda m, a: m.sum(m.real(m.fft2(a, norm="ortho") ** 2)) + m.sum(m.imag(m.ifft(a, 5)) ** 2),
                        (M,)),
    "rfft_irfft": (lambda m, x: m.sum(m.irfft(m.rfft(x, 6) ** 2, 7) ** 2), (X,)),
    "hfft": (lambda m, z: m.sum(m.hfft(z, 5) ** 2 * m.real(z[0])), (Z,)),
}


def array(t):
    """A Tensor's values (a torch one's with its conjugate bit resolved)."""
    t = t.detach()
    return t.resolve_conj().numpy() if isinstance(t, torch.Tensor) else t.numpy()


def _fgrad_leaves(args):
    return [fgrad.tensor(a, requires_grad=True) for a in args]


def _torch_leaves(args):
    return [torch.tensor(a, requires_grad=True) for a in args]


@pytest.mark.parametrize("name", list(CASES))
def test_grad_after_backward_is_torchs(name):
    f, args = CASES[name]
    ours, theirs = _fgrad_leaves(args), _torch_leaves(args)
    f(FG, *ours).backward()
    f(TORCH, *theirs).backward()
    for a, b in zip(ours, theirs):
        assert array(a.grad).dtype == array(b.grad).dtype
        np.testing.assert_allclose(array(a.grad), array(b.grad), rtol=1e-10, atol=1e-12, err_msg=name)


@pytest.mark.parametrize("name", list(CASES))
def test_autograd_grad_and_the_functional_face(name):
    """autograd.grad gives the same as .grad, and the functional face's gradient is its conjugate."""
    f, args = CASES[name]
    ours = _fgrad_leaves(args)
    grads = fgrad.autograd.grad(f(FG, *ours), ours)
    functional = fgrad.grad(lambda *a: f(FG, *a), argnums=tuple(range(len(args))))(*args)
    theirs = _torch_leaves(args)
    expected = torch.autograd.grad(f(TORCH, *theirs), theirs)
    for g, h, e in zip(grads, functional, expected):
        np.testing.assert_allclose(array(g), array(e), rtol=1e-10, atol=1e-12, err_msg=name)
        np.testing.assert_allclose(np.conj(h), array(e), rtol=1e-10, atol=1e-12, err_msg=name)


@pytest.mark.parametrize("fast_mode", [False, True])
@pytest.mark.parametrize("name", ["abs_squared", "sgn", "conj_product", "matmul", "real_to_complex", "angle",
                                  "inv_det"])
def test_gradcheck_passes(name, fast_mode):
    f, args = CASES[name]
    assert fgrad.gradcheck(lambda *a: f(FG, *a), tuple(_fgrad_leaves(args)), fast_mode=fast_mode)


def test_gradcheck_of_complex_outputs_and_a_wrong_function():
    """gradcheck of a complex output (both directions of it), and a Function whose backward
    forgets torch's conjugate: torch's gradcheck and fgrad's both refuse it."""
    z = Z[:2]
    assert fgrad.gradcheck(lambda t: FG.sin(t) * FG.conj(t), (fgrad.tensor(z, requires_grad=True),))
    assert fgrad.gradcheck(lambda t: FG.sin(t) * FG.conj(t), (fgrad.tensor(z, requires_grad=True),), fast_mode=True)

    from torch.autograd.gradcheck import GradcheckError
    with pytest.raises(GradcheckError):
        torch.autograd.gradcheck(_square(torch, conjugate=False).apply, (torch.tensor(z, requires_grad=True),))
    for fast in (False, True):
        with pytest.raises(fgrad.testing.GradcheckError):
            fgrad.gradcheck(_square(fgrad, conjugate=False).apply, (fgrad.tensor(z, requires_grad=True),),
                            fast_mode=fast)


def _square(lib, conjugate=True):
    """z * z as a Function of `lib` (fgrad or torch); conjugate=False forgets the conjugate
    PyTorch's convention needs (grad_out * conj(f'(z))), a backward both gradchecks refuse."""
    class Square(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * x

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return g * ((2 * x).conj() if conjugate else 2 * x)
    return Square


def test_a_function_and_hooks_see_torchs_gradients():
    seen = {"fgrad": [], "torch": []}

    def run(lib, m, leaf, key):
        y = _square(lib).apply(leaf)
        y.register_hook(lambda g: seen[key].append(array(g)))
        w = m.sin(y)
        w.register_hook(lambda g: seen[key].append(array(g)) or g * 2)  # a replacement
        leaf.register_hook(lambda g: seen[key].append(array(g)))
        m.sum(m.abs(w) ** 2).backward()
        return array(leaf.grad)

    ours = run(fgrad, FG, fgrad.tensor(Z, requires_grad=True), "fgrad")
    theirs = run(torch, TORCH, torch.tensor(Z, requires_grad=True), "torch")
    np.testing.assert_allclose(ours, theirs, rtol=1e-10)
    for a, b in zip(seen["fgrad"], seen["torch"], strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-10)
    # under a functional transform the Function keeps torch's convention inside: grad is JAX's
    g = fgrad.grad(lambda z: fnp.sum(fnp.abs(_square(fgrad).apply(z)) ** 2))(Z)
    np.testing.assert_allclose(g, fgrad.grad(lambda z: fnp.sum(fnp.abs(z * z) ** 2))(Z), rtol=1e-12)


def test_complex_outputs_need_a_gradient_and_take_torchs():
    z = fgrad.tensor(Z, requires_grad=True)
    with pytest.raises(RuntimeError, match="grad can be implicitly created only for real scalar outputs"):
        FG.sum(z * z).backward()
    v = c(4)
    (z * z).backward(gradient=fgrad.tensor(v))
    t = torch.tensor(Z, requires_grad=True)
    (t * t).backward(gradient=torch.tensor(v))
    np.testing.assert_allclose(array(z.grad), array(t.grad), rtol=1e-12)
    # create_graph: a double backward through the conjugations
    z = fgrad.tensor(Z, requires_grad=True)
    (g,) = fgrad.autograd.grad(FG.sum(FG.abs(z) ** 4), z, create_graph=True)
    FG.sum(FG.real(g * FG.conj(g))).backward()
    t = torch.tensor(Z, requires_grad=True)
    (h,) = torch.autograd.grad(torch.sum(torch.abs(t) ** 4), t, create_graph=True)
    torch.sum(torch.real(h * torch.conj(h))).backward()
    np.testing.assert_allclose(array(z.grad), array(t.grad), rtol=1e-10)


def test_retain_grad_non_leaf_inputs_and_post_accumulate_hooks():
    z, t = fgrad.tensor(Z, requires_grad=True), torch.tensor(Z, requires_grad=True)
    results = []
    for lib, m, leaf in ((fgrad, FG, z), (torch, TORCH, t)):
        y = m.exp(leaf)
        y.retain_grad()
        after = []
        leaf.register_post_accumulate_grad_hook(lambda p, after=after: after.append(array(p.grad).copy()))
        m.sum(m.abs(y)).backward()
        u = m.sin(leaf)
        (gu,) = lib.autograd.grad(m.sum(m.imag(u * u)), u)
        results.append((array(y.grad), after[0], array(gu)))
    for a, b in zip(*results):
        np.testing.assert_allclose(a, b, rtol=1e-10)


def test_the_comparison_is_large():
    assert len(CASES) >= 20


def test_forward_ad_of_complex_duals_is_torchs():
    """Tangents are the same in both conventions (the jvp is the linear map itself)."""
    import torch.autograd.forward_ad as tfw

    import fgrad.autograd.forward_ad as fwAD
    t = c(2)
    with fwAD.dual_level():
        y = fwAD.make_dual(fgrad.tensor(Z[:2], requires_grad=True), fgrad.tensor(t))
        ours = fwAD.unpack_dual(FG.sin(y) * FG.conj(y) + FG.abs(y)).tangent
    with tfw.dual_level():
        y = tfw.make_dual(torch.tensor(Z[:2]), torch.tensor(t))
        theirs = tfw.unpack_dual(TORCH.sin(y) * TORCH.conj(y) + TORCH.abs(y)).tangent
    np.testing.assert_allclose(array(ours), array(theirs), rtol=1e-12)
