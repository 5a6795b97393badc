"""Issue 27, section 3: the Tensor face against PyTorch 2 (torch is the reference wherever it gives
a value). Complex Tensors never require grad; a Function's saved outputs keep their history for
a double backward (PyTorch's "Double Backward with Custom Functions" tutorial); an in-place op
on a value only its own node kept works; in-place ops on views of leaves and wrong `.grad`
assignments raise as PyTorch's do; saved-tensor hooks see saved outputs and run with grad mode
and the hooks off."""
import numpy as np
import pytest

import fgrad
import fgrad.numpy as fnp
from fgrad import autograd, nn
from fgrad.autograd.graph import saved_tensors_hooks

torch = pytest.importorskip("torch")


def _pair(values):
    """The same float64 leaf in fgrad and in torch."""
    values = np.asarray(values, dtype=np.float64)
    return fgrad.tensor(values, requires_grad=True), torch.tensor(values, requires_grad=True)


# ---- complex Tensors require grad as torch's (tests/autograd/test_complex_tensors.py: their gradients) --------
@pytest.mark.parametrize("make", [
    lambda: fgrad.tensor([1 + 1j], requires_grad=True),
    lambda: fgrad.tensor([1 + 1j]).requires_grad_(),
    lambda: fgrad.tensor([1.0]).to(np.complex128).requires_grad_(),
    lambda: fgrad.zeros(2, dtype=np.complex64, requires_grad=True),
    lambda: nn.Parameter(np.array([1j])),
], ids=["tensor", "requires_grad_", "to", "zeros", "Parameter"])
def test_a_complex_leaf_requires_grad_and_gets_torchs_gradient(make):
    # (z * z).abs().sum() gives z.grad = 2 conj(z) z / |z|, torch's; rules that did not
    # conjugate once gave -2+2j for z = 1+1j, the reason complex leaves were refused until now
    z = make()
    assert z.requires_grad
    (z * z).abs().sum().backward()
    t = torch.tensor(z.detach().numpy(), requires_grad=True)
    (t * t).abs().sum().backward()
    np.testing.assert_allclose(z.grad.numpy(), t.grad.numpy(), rtol=1e-6)


def test_complex_data_may_replace_the_data_of_a_tensor_that_requires_grad():
    x = fgrad.tensor([1.0 + 0j, 2.0], requires_grad=True)
    x.data = np.array([1j, 2j])
    (x * x).real.sum().backward()
    assert x.grad.tolist() == [-2j, -4j]  # torch's: conj(2 z)


def test_a_function_may_make_a_complex_output():
    class Rotate(autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * (1 + 1j)

        @staticmethod
        def backward(ctx, g):  # torch's convention: g * conj(1 + 1j), real part for a real input
            return (g * (1 - 1j)).real
    x = fgrad.tensor([1.0, 2.0], requires_grad=True)
    Rotate.apply(x).imag.sum().backward()
    assert x.grad.tolist() == [1.0, 1.0]


@pytest.mark.parametrize("loss", [
    lambda m, x: (x * 1j).abs().sum(),
    lambda m, x: (x * (1 + 1j)).abs().sum(),
    lambda m, x: ((x + 0j) * (x + 1j)).abs().sum(),
    lambda m, x: m.real(m.exp(x * 1j)).sum(),
    lambda m, x: (x * 1j * (1 + 1j)).real.sum(),
    lambda m, x: m.square(x * (1 + 1j)).abs().sum(),
])
def test_a_complex_value_computed_from_real_leaves_gives_torchs_gradient(loss):
    x, t = _pair([0.3, 0.7, 1.1])
    loss(fnp, x).backward()
    loss(torch, t).backward()
    np.testing.assert_allclose(x.grad.numpy(), t.grad.numpy(), rtol=1e-12)


def test_the_gradient_of_a_complex_intermediate_is_torchs():
    x, t = _pair([1.0, 2.0])
    grads = []
    for lib, leaf in ((autograd, x), (torch.autograd, t)):
        y = leaf * (1 + 1j)
        y.retain_grad()
        seen = []
        y.register_hook(lambda g, seen=seen: seen.append(g.detach().numpy().copy()))
        (y * y).abs().sum().backward(retain_graph=True)
        (g,) = lib.grad((y * y).imag.sum(), y)
        grads.append((y.grad.detach().numpy(), seen[0], g.detach().resolve_conj().numpy()
                      if hasattr(g, "resolve_conj") else g.detach().numpy()))
    for a, b in zip(*grads):
        np.testing.assert_allclose(a, b, rtol=1e-12)


# ---- a Function's saved outputs keep their history: PyTorch's double backward tutorial -----------
def _tutorial(lib):
    """The tutorial's Functions, written once for torch and once for fgrad."""
    Function = lib.autograd.Function
    exp = torch.exp if lib is torch else fnp.exp

    class Square(Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x ** 2

        @staticmethod
        def backward(ctx, grad_out):
            x, = ctx.saved_tensors
            return grad_out * 2 * x

    class Exp(Function):
        @staticmethod
        def forward(ctx, x):
            result = exp(x)
            ctx.save_for_backward(result)  # an output
            return result

        @staticmethod
        def backward(ctx, grad_out):
            result, = ctx.saved_tensors
            return result * grad_out

    class Sinh(Function):
        @staticmethod
        def forward(ctx, x):
            expx, expnegx = exp(x), exp(-x)
            ctx.save_for_backward(expx, expnegx)  # intermediates, returned as outputs
            return (expx - expnegx) / 2, expx, expnegx

        @staticmethod
        def backward(ctx, grad_out, _grad_out_exp, _grad_out_negexp):
            expx, expnegx = ctx.saved_tensors
            grad_input = grad_out * (expx + expnegx) / 2
            grad_input += _grad_out_exp * expx  # in place, on a gradient just computed
            grad_input -= _grad_out_negexp * expnegx
            return grad_input

    class Cube(Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x ** 3

        @staticmethod
        def backward(ctx, grad_out):
            x, = ctx.saved_tensors
            return CubeBackward.apply(grad_out, x)

    class CubeBackward(Function):
        @staticmethod
        def forward(ctx, grad_out, x):
            ctx.save_for_backward(x, grad_out)
            return grad_out * 3 * x ** 2

        @staticmethod
        def backward(ctx, grad_out):
            x, sav_grad_out = ctx.saved_tensors
            return grad_out * 3 * x ** 2, grad_out * sav_grad_out * 6 * x

    return {"Square": Square.apply, "Exp": Exp.apply, "Sinh": lambda x: Sinh.apply(x)[0], "Cube": Cube.apply}


@pytest.mark.parametrize("name", ["Square", "Exp", "Sinh", "Cube"])
def test_double_backward_tutorial_functions_pass_gradgradcheck_and_match_torch(name):
    rng = np.random.default_rng(0)
    values = rng.uniform(0.1, 1.0, (3, 3))
    f, tf = _tutorial(fgrad)[name], _tutorial(torch)[name]
    x, tx = _pair(values)
    assert fgrad.gradcheck(f, x) and fgrad.gradgradcheck(f, x)
    assert torch.autograd.gradcheck(tf, tx) and torch.autograd.gradgradcheck(tf, tx)
    w = rng.uniform(-1.0, 1.0, (3, 3))
    (g,) = autograd.grad((f(x) * fgrad.tensor(w)).sum(), x, create_graph=True)
    (gg,) = autograd.grad((g * g).sum(), x)
    (tg,) = torch.autograd.grad((tf(tx) * torch.tensor(w)).sum(), tx, create_graph=True)
    (tgg,) = torch.autograd.grad((tg * tg).sum(), tx)
    np.testing.assert_allclose(g.detach().numpy(), tg.detach().numpy(), rtol=1e-12)
    np.testing.assert_allclose(gg.numpy(), tgg.numpy(), rtol=1e-12)


def test_exp_saving_its_output_has_a_second_derivative():
    exp = _tutorial(fgrad)["Exp"]
    x = fgrad.tensor([0.5], requires_grad=True)
    (g,) = autograd.grad(exp(x).sum(), x, create_graph=True)
    (gg,) = autograd.grad(g.sum(), x)  # was: "does not require grad" (the saved output had no history)
    np.testing.assert_allclose(gg.numpy(), np.exp([0.5]))


def test_an_intermediate_saved_on_ctx_has_no_history_as_in_torch():
    # The tutorial's "what not to do" (SinhBad): neither library can differentiate grad_x again.
    for lib in (fgrad, torch):
        exp = torch.exp if lib is torch else fnp.exp

        class SinhBad(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                ctx.expx, ctx.expnegx = exp(x), exp(-x)
                return (ctx.expx - ctx.expnegx) / 2

            @staticmethod
            def backward(ctx, grad_out):
                return grad_out * (ctx.expx + ctx.expnegx) / 2
        x = lib.tensor([0.5], requires_grad=True, dtype=_dtype(lib, "float64"))
        (g,) = lib.autograd.grad(SinhBad.apply(x).sum(), x, create_graph=True)
        assert not g.requires_grad


def test_an_inplace_change_of_a_saved_output_after_apply_raises_as_in_torch():
    for lib in (fgrad, torch):
        exp = _tutorial(lib)["Exp"]
        x = lib.tensor([0.5], requires_grad=True)
        y = exp(x)
        y.mul_(2.0)
        with pytest.raises(RuntimeError, match="modified by an inplace operation"):
            y.sum().backward()


# ---- an in-place op on a value only its own node kept ---------------------------------------------
@pytest.mark.parametrize("make", [lambda a, b: a / b, lambda a, b: fnp.maximum(a, b) if isinstance(a, fgrad.Tensor)
                                  else torch.maximum(a, b)], ids=["divide", "maximum"])
def test_an_inplace_op_on_a_fresh_result_works_as_in_torch(make):
    # fgrad's divide and maximum read their output where torch's read their inputs: the node
    # keeps a copy of its output (it raised "modified by an inplace operation" before).
    (a, ta), (b, tb) = _pair([1.0, 4.0]), _pair([2.0, 3.0])
    for p, q in ((a, b), (ta, tb)):
        y = make(p, q)
        y += 1.0
        y *= p
        y.sum().backward()
    np.testing.assert_allclose(a.grad.numpy(), ta.grad.numpy())
    np.testing.assert_allclose(b.grad.numpy(), tb.grad.numpy())


def test_an_inplace_op_through_a_view_on_a_fresh_result_works():
    (a, ta), (b, tb) = _pair([1.0, 4.0, 9.0]), _pair([2.0, 3.0, 5.0])
    for p, q in ((a, b), (ta, tb)):
        y = p / q
        y[1:].mul_(p[1:])
        (y * y).sum().backward()
    np.testing.assert_allclose(a.grad.numpy(), ta.grad.numpy())
    np.testing.assert_allclose(b.grad.numpy(), tb.grad.numpy())


def test_an_inplace_op_on_exps_own_output_gives_the_right_gradient():
    # PyTorch refuses this one (ExpBackward0 saves its result); fgrad's node keeps a copy, and
    # the gradient is right: d(2 exp x)/dx.
    x = fgrad.tensor([0.5, 1.0], requires_grad=True)
    y = fnp.exp(x)
    y.mul_(2.0)
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), 2.0 * np.exp([0.5, 1.0]))


# ---- in-place ops on views of leaves, .grad assignments ------------------------------------------
@pytest.mark.parametrize("write", [
    lambda x: x[0:2].mul_(2.0),
    lambda x: x[0:2].add_(1.0),
    lambda x: x.view(3)[1:].zero_(),
    lambda x: x[0:2].__setitem__(0, 5.0),
    lambda x: x[0:2].__iadd__(1.0),
], ids=["mul_", "add_", "view_of_view_zero_", "setitem", "iadd"])
def test_an_inplace_op_on_a_view_of_a_leaf_that_requires_grad_raises_as_in_torch(write):
    x, tx = _pair([1.0, 2.0, 3.0])
    with pytest.raises(RuntimeError, match="a view of a leaf Variable that requires grad is being used in an "
                                           "in-place operation"):
        write(tx)
    with pytest.raises(RuntimeError, match="a view of a leaf Variable that requires grad is being used in an "
                                           "in-place operation"):
        write(x)
    np.testing.assert_array_equal(x.detach().numpy(), [1.0, 2.0, 3.0])
    with fgrad.no_grad():
        write(x)  # as in an optimizer step
    write(x.detach())  # a detached alias records nothing


@pytest.mark.parametrize("write", [lambda v: v.mul_(2.0), lambda v: v.zero_(), lambda v: v.__setitem__(0, 5.0)],
                         ids=["mul_", "zero_", "setitem"])
@pytest.mark.parametrize("base", ["leaf", "non-leaf"])
def test_an_inplace_op_in_grad_mode_on_a_view_made_in_no_grad_raises_as_in_torch(write, base):
    for lib in (fgrad, torch):
        x = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
        y = x if base == "leaf" else x * 1.0
        with lib.no_grad():
            v = y[0:2]
        with pytest.raises(RuntimeError, match=r"created in no_grad mode|a view of a leaf Variable"):
            write(v)


def test_a_view_made_before_its_base_required_grad_raises_as_in_torch():
    for lib in (fgrad, torch):
        a = lib.ones(3)
        b = a[0:2]
        a.requires_grad_()
        with pytest.raises(RuntimeError, match="a view of a leaf Variable that requires grad"):
            b.mul_(2.0)
    plain = fgrad.ones(3)
    plain[0:2].mul_(2.0)  # nothing requires grad: fine
    np.testing.assert_array_equal(plain.numpy(), [2.0, 2.0, 1.0])


def _dtype(lib, name):
    return getattr(torch, name) if lib is torch else np.dtype(name)


@pytest.mark.parametrize("grad, error, message", [
    (lambda t: t.ones(1, dtype=_dtype(t, "float64")), RuntimeError,
     "gradient of size '\\[1\\]' to a tensor of size '\\[3\\]'"),
    (lambda t: t.ones(1, 3, dtype=_dtype(t, "float64")), RuntimeError, "of size '\\[1, 3\\]'"),
    (lambda t: t.ones(3, dtype=_dtype(t, "float32")), RuntimeError, "assign a gradient with dtype"),
    (lambda t: t.ones(3, dtype=_dtype(t, "int64")), RuntimeError, "assign a gradient with dtype"),
    (lambda t: np.ones(3), TypeError, "assigned grad expected to be a Tensor or None but got grad of type "
                                      "numpy.ndarray"),
    (lambda t: 3.0, TypeError, "assigned grad expected to be a Tensor or None"),
], ids=["size", "rank", "float32", "int64", "ndarray", "float"])
def test_assigning_a_grad_that_does_not_fit_raises_as_in_torch(grad, error, message):
    x, tx = _pair([1.0, 2.0, 3.0])
    with pytest.raises(error, match=message):
        tx.grad = grad(torch)
    with pytest.raises(error, match=message):
        x.grad = grad(fgrad)
    assert x.grad is None
    (x * 2.0).sum().backward()  # not broadcast into the accumulation: there is nothing to broadcast
    np.testing.assert_array_equal(x.grad.numpy(), [2.0, 2.0, 2.0])


def test_assigning_a_grad_that_fits_works_and_accumulates():
    x = fgrad.tensor([1.0, 2.0, 3.0], requires_grad=True)
    with pytest.raises(RuntimeError, match="can't assign Variable as its own grad"):
        x.grad = x
    x.grad = fgrad.ones(3)
    (x * 2.0).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [3.0, 3.0, 3.0])
    x.grad = None
    del x.grad
    assert x.grad is None
    y = fgrad.tensor([[1.0, 2.0]])
    y.grad = fgrad.zeros(1, 2)  # a tensor that does not require grad may hold one too, as in torch
    with pytest.raises(RuntimeError, match="of size '\\[2\\]'"):
        y.grad = fgrad.zeros(2)


# ---- saved-tensor hooks -----------------------------------------------------------------------
def _with_hooks(lib, pack, unpack, f, values=(0.5, 1.5), create_graph=False):
    x = lib.tensor(values, requires_grad=True, dtype=_dtype(lib, "float64"))
    hooks = torch.autograd.graph.saved_tensors_hooks if lib is torch else saved_tensors_hooks
    with hooks(pack, unpack):
        y = f(lib, x)
    if not create_graph:
        y.sum().backward()
        return [x.grad.numpy()]
    (g,) = lib.autograd.grad(y.sum(), x, create_graph=True)
    (gg,) = lib.autograd.grad(g.sum(), x)
    return [g.detach().numpy(), gg.numpy()]


def _exp(lib, x):
    return lib.exp(x) if lib is torch else fnp.exp(x)


def _function_exp(lib, x):
    return _tutorial(lib)["Exp"](x)


def _sin_times(lib, x):
    return (torch.sin(x) if lib is torch else fnp.sin(x)) * x


@pytest.mark.parametrize("f", [_exp, _function_exp, _sin_times], ids=["exp", "Function_Exp", "sin_times_x"])
@pytest.mark.parametrize("create_graph", [False, True], ids=["backward", "double_backward"])
def test_an_unpack_hook_applies_to_every_saved_value_as_in_torch(f, create_graph):
    double = lambda t: t * 2  # noqa: E731
    got = _with_hooks(fgrad, lambda t: t, double, f, create_graph=create_graph)
    want = _with_hooks(torch, lambda t: t, double, f, create_graph=create_graph)
    for a, b in zip(got, want):
        np.testing.assert_allclose(a, b, rtol=1e-12)
    if f is _exp:  # exp's output was never packed: 2 exp(x) is the hook at work
        np.testing.assert_allclose(got[0], 2.0 * np.exp([0.5, 1.5]))


@pytest.mark.parametrize("f", [_exp, _sin_times, _function_exp], ids=["exp", "sin_times_x", "Function_Exp"])
def test_a_pack_hook_that_computes_runs_without_grad_or_hooks_as_in_torch(f):
    def run(lib):
        calls = []

        def pack(t):
            calls.append(lib.is_grad_enabled())
            with lib.enable_grad():  # even so: the hooks are off while a pack hook runs
                return t * 1.0
        return _with_hooks(lib, pack, lambda t: t, f)[0], calls
    (got, calls), (want, torch_calls) = run(fgrad), run(torch)  # (was: RecursionError)
    np.testing.assert_allclose(got, want, rtol=1e-12)
    assert calls == torch_calls and not any(calls)


def test_saved_outputs_of_a_multiple_result_op_go_through_the_hooks():
    rng = np.random.default_rng(1)
    a = rng.normal(size=(3, 3))
    a = a + a.T
    packed, unpacked = [], []

    def pack(t):
        packed.append(t.shape)
        return t.detach().numpy().copy()  # offloaded: the node keeps only this

    def unpack(array):
        unpacked.append(array.shape)
        return fgrad.tensor(array)
    x = fgrad.tensor(a, requires_grad=True)
    with saved_tensors_hooks(pack, unpack):
        w, v = fnp.linalg.eigh(x)
    assert w.grad_fn.out == (None, None)  # placeholders: the outputs themselves are not kept
    (w.sum() + (v[:, 0] ** 2 * fgrad.tensor([1.0, 2.0, 3.0])).sum()).backward()
    tx = torch.tensor(a, requires_grad=True)
    tw, tv = torch.linalg.eigh(tx)
    (tw.sum() + (tv[:, 0] ** 2 * torch.tensor([1.0, 2.0, 3.0], dtype=torch.float64)).sum()).backward()
    np.testing.assert_allclose(x.grad.numpy(), tx.grad.numpy(), atol=1e-10)
    assert (3,) in packed and (3, 3) in packed and sorted(packed) == sorted(unpacked)
