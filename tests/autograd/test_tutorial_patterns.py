"""PyTorch's autograd tutorials, condensed: one test per tutorial runs its key pattern on fgrad's
torch face, in our own small programs, and checks what the tutorial checks (and torch's numbers,
where torch is installed). The tutorials themselves run with `torch` pointed at fgrad (issue 31)."""
import copy
import math

import numpy as np
import pytest

import fgrad
import fgrad.autograd.forward_ad as fwAD
import fgrad.nn.functional as F
from fgrad import nn
from fgrad.func import functional_call, grad, hessian, jacfwd, jacrev, jvp, stack_module_state, vjp, vmap


def _torch():
    return pytest.importorskip("torch")


def _to_torch(torch, model, reference):
    """`reference` (a torch module of the same structure) with `model`'s parameters, in float64."""
    reference = reference.double()
    reference.load_state_dict({k: torch.tensor(v.numpy()) for k, v in model.state_dict().items()})
    return reference


class LeNet(nn.Module):
    """The blitz tutorial's network, shrunk: conv, relu, max pool, twice, then linear layers."""

    def __init__(self, nn=nn):
        super().__init__()
        self.conv1, self.conv2 = nn.Conv2d(1, 3, 3), nn.Conv2d(3, 4, 3)
        self.fc1, self.fc2 = nn.Linear(4 * 2 * 2, 6), nn.Linear(6, 2)

    def forward(self, x, F=F, flatten=fgrad.flatten):
        x = F.max_pool2d(F.relu(self.conv1(x)), (2, 2))
        x = F.max_pool2d(F.relu(self.conv2(x)), 2)
        return self.fc2(F.relu(self.fc1(flatten(x, 1))))


# 1. blitz: a network's gradients and one SGD step; gradients of a vector by a given gradient
def test_blitz_backward_sgd_and_vector_backward():
    fgrad.manual_seed(0)
    net = LeNet()
    x, target = fgrad.randn(2, 1, 14, 14), fgrad.randn(2, 2)
    loss = nn.MSELoss()(net(x), target)
    net.zero_grad()
    loss.backward()
    opt = fgrad.optim.SGD(net.parameters(), lr=0.01, momentum=0.9)
    opt.step()
    a = fgrad.tensor([2.0, 3.0], requires_grad=True)
    b = fgrad.tensor([6.0, 4.0], requires_grad=True)
    (3 * a ** 3 - b ** 2).backward(gradient=fgrad.tensor([1.0, 1.0]))
    assert bool((a.grad == 9 * a ** 2).all()) and bool((b.grad == -2 * b).all())
    for p in net.parameters():  # freezing all but a new head: only the head gets gradients
        p.requires_grad = False
    net.fc2 = nn.Linear(6, 2)
    net(x).sum().backward()
    assert [n for n, p in net.named_parameters() if p.grad is not None and p.requires_grad] == ["fc2.weight",
                                                                                                "fc2.bias"]


def test_blitz_network_matches_torch():
    torch = _torch()

    class TorchLeNet(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.conv1, self.conv2 = torch.nn.Conv2d(1, 3, 3), torch.nn.Conv2d(3, 4, 3)
            self.fc1, self.fc2 = torch.nn.Linear(16, 6), torch.nn.Linear(6, 2)

        def forward(self, x):
            return LeNet.forward(self, x, F=torch.nn.functional, flatten=torch.flatten)

    fgrad.manual_seed(1)
    ours = LeNet()
    theirs = _to_torch(torch, ours, TorchLeNet())
    x, g = np.random.default_rng(0).normal(size=(2, 1, 14, 14)), np.random.default_rng(1).normal(size=(2, 2))
    out, want = ours(fgrad.tensor(x)), theirs(torch.tensor(x))
    out.backward(fgrad.tensor(g))
    want.backward(torch.tensor(g))
    np.testing.assert_allclose(out.detach().numpy(), want.detach().numpy(), rtol=1e-10, atol=1e-12)
    for (name, p), q in zip(ours.named_parameters(), theirs.parameters()):
        np.testing.assert_allclose(p.grad.numpy(), q.grad.numpy(), rtol=1e-10, atol=1e-12, err_msg=name)


# 2. autograd quickstart: a logistic layer's gradients; backward twice accumulates, zero_ resets
def test_quickstart_gradients_accumulate():
    x, y = np.ones(5), np.zeros(3)
    w0, b0 = np.random.default_rng(2).normal(size=(5, 3)), np.random.default_rng(3).normal(size=3)
    w, b = fgrad.tensor(w0, requires_grad=True), fgrad.tensor(b0, requires_grad=True)
    F.binary_cross_entropy_with_logits(fgrad.matmul(fgrad.tensor(x), w) + b, fgrad.tensor(y)).backward()
    p = 1 / (1 + np.exp(-(x @ w0 + b0)))
    np.testing.assert_allclose(b.grad.numpy(), p / 3, rtol=1e-12)
    np.testing.assert_allclose(w.grad.numpy(), np.outer(x, p / 3), rtol=1e-12)
    with fgrad.no_grad():
        assert not (fgrad.matmul(fgrad.tensor(x), w) + b).requires_grad
    inp = fgrad.eye(4, 5, requires_grad=True)
    out = (inp + 1).pow(2).t()
    out.backward(fgrad.ones_like(out), retain_graph=True)
    once = inp.grad.numpy().copy()
    out.backward(fgrad.ones_like(out), retain_graph=True)
    np.testing.assert_array_equal(inp.grad.numpy(), 2 * once)
    inp.grad.zero_()
    out.backward(fgrad.ones_like(out))
    np.testing.assert_array_equal(inp.grad.numpy(), once)


# 3. forward-mode AD: dual parameters set on a module equal functional_call's and fgrad.func.jvp's
def test_forward_ad_dual_parameters_on_a_linear_model():
    fgrad.manual_seed(4)
    model, x = nn.Linear(5, 4), fgrad.randn(6, 5)
    params = {k: v.detach() for k, v in model.named_parameters()}
    tangents = {k: fgrad.rand_like(v) for k, v in params.items()}
    with fwAD.dual_level():
        duals = {k: fwAD.make_dual(v, tangents[k]) for k, v in params.items()}
        by_call = fwAD.unpack_dual(functional_call(model, duals, (x,))).tangent
        for k in params:
            delattr(model, k)
            setattr(model, k, duals[k])
        by_attributes = fwAD.unpack_dual(model(x)).tangent
    _, by_jvp = jvp(lambda p: functional_call(nn.Linear(5, 4), p, (x,)), (params,), (tangents,))
    want = x.numpy() @ tangents["weight"].numpy().T + tangents["bias"].numpy()
    for got in (by_call, by_attributes, by_jvp):
        np.testing.assert_allclose(got.numpy(), want, rtol=1e-12)


# 4. per-sample gradients: vmap(grad(loss of functional_call)) equals a loop of backward passes
def test_per_sample_gradients_by_vmap_equal_the_loop():
    fgrad.manual_seed(5)
    model = LeNet()
    data, targets = fgrad.randn(4, 1, 14, 14), fgrad.randint(2, (4,))

    def loss(params, sample, target):
        out = functional_call(model, params, (sample.unsqueeze(0),))
        return F.nll_loss(F.log_softmax(out, dim=1), target.unsqueeze(0))

    params = {k: v.detach() for k, v in model.named_parameters()}
    batched = vmap(grad(loss), in_dims=(None, 0, 0))(params, data, targets)
    for i in range(4):
        looped = fgrad.autograd.grad(loss(dict(model.named_parameters()), data[i], targets[i]),
                                     list(model.parameters()))
        for (name, g), want in zip(batched.items(), looped):
            np.testing.assert_allclose(g[i].numpy(), want.numpy(), rtol=1e-9, atol=1e-12, err_msg=name)


# 5. Jacobians and Hessians: rows by autograd.grad, vmap(vjp), jacrev and jacfwd agree; the
#    batch Jacobian by the sum trick; Hessians three ways; hvp forward-over-reverse and rev-rev
def test_jacobians_hessians_and_hvps_agree():
    fgrad.manual_seed(6)
    weight, bias, x = fgrad.randn(5, 3), fgrad.randn(5), fgrad.randn(3)

    def predict(weight, bias, x):
        return F.linear(x, weight, bias).tanh()

    xp = x.clone().requires_grad_()
    rows = fgrad.stack([fgrad.autograd.grad(predict(weight, bias, xp), xp, e)[0] for e in fgrad.eye(5)])
    _, pull = vjp(lambda v: predict(weight, bias, v), x)
    (by_vmap,) = vmap(pull)(fgrad.eye(5))
    for other in (by_vmap, jacrev(predict, argnums=2)(weight, bias, x), jacfwd(predict, argnums=2)(weight, bias, x)):
        np.testing.assert_allclose(other.numpy(), rows.numpy(), rtol=1e-12, atol=1e-14)
    xs = fgrad.randn(4, 3)
    per_example = vmap(jacrev(predict, argnums=2), in_dims=(None, None, 0))(weight, bias, xs)
    summed = jacrev(lambda w, b, v: predict(w, b, v).sum(0), argnums=2)(weight, bias, xs).movedim(1, 0)
    np.testing.assert_allclose(summed.numpy(), per_example.numpy(), rtol=1e-12, atol=1e-14)
    h = hessian(predict, argnums=2)(weight, bias, x)
    for other in (jacfwd(jacfwd(predict, argnums=2), argnums=2)(weight, bias, x),
                  jacrev(jacrev(predict, argnums=2), argnums=2)(weight, bias, x)):
        np.testing.assert_allclose(other.numpy(), h.numpy(), rtol=1e-10, atol=1e-12)

    def f(v):
        return v.sin().sum()
    t = fgrad.randn(3)
    fwd_rev = jvp(grad(f), (x,), (t,))[1]
    rev_rev = vjp(grad(f), x)[1](t)[0]
    np.testing.assert_allclose(fwd_rev.numpy(), -np.sin(x.numpy()) * t.numpy(), rtol=1e-12)
    np.testing.assert_allclose(rev_rev.numpy(), fwd_rev.numpy(), rtol=1e-12)


# 6. neural tangent kernels: Jacobian contraction and NTK-vector products give one kernel
def test_ntk_by_jacobian_contraction_and_by_ntk_vector_products():
    fgrad.manual_seed(7)
    net = nn.Sequential(nn.Conv2d(2, 3, 3), nn.ReLU(), nn.Flatten(), nn.Linear(3 * 3 * 3, 2))
    params = {k: v.detach() for k, v in net.named_parameters()}
    x1, x2 = fgrad.randn(3, 2, 5, 5), fgrad.randn(2, 2, 5, 5)

    def single(params, x):
        return functional_call(net, params, (x.unsqueeze(0),)).squeeze(0)

    def jacobians(x):
        return [j.flatten(2) for j in vmap(jacrev(single), (None, 0))(params, x).values()]
    contraction = fgrad.stack([fgrad.einsum("Naf,Mbf->NMab", a, b)
                               for a, b in zip(jacobians(x1), jacobians(x2))]).sum(0)

    def ntk(a, b):
        out, pull = vjp(lambda p: single(p, a), params)
        basis = fgrad.eye(out.numel(), dtype=out.dtype).view(out.numel(), -1)
        return vmap(lambda e: jvp(lambda p: single(p, b), (params,), pull(e))[1])(basis)
    products = vmap(vmap(ntk, (None, 0)), (0, None))(x1, x2)
    np.testing.assert_allclose(products.numpy(), contraction.numpy(), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(fgrad.einsum("NMKK->NM", products).numpy(),
                               np.trace(contraction.numpy(), axis1=2, axis2=3), rtol=1e-10)


# 7. model ensembling: stacked states under vmap, through a meta-device copy, equal the loop
def test_ensembling_by_stack_module_state_and_vmap():
    fgrad.manual_seed(8)
    models = [nn.Sequential(nn.Flatten(), nn.Linear(6, 5), nn.ReLU(), nn.Linear(5, 3)) for _ in range(4)]
    params, buffers = stack_module_state(models)
    base = copy.deepcopy(models[0]).to("meta")

    def fmodel(params, buffers, x):
        return functional_call(base, (params, buffers), (x,))
    minibatches = fgrad.randn(4, 7, 2, 3)
    each = vmap(fmodel)(params, buffers, minibatches)
    same = vmap(fmodel, in_dims=(0, 0, None))(params, buffers, minibatches[0])
    for k, m in enumerate(models):
        np.testing.assert_allclose(each[k].detach().numpy(), m(minibatches[k]).detach().numpy(), rtol=1e-12)
        np.testing.assert_allclose(same[k].detach().numpy(), m(minibatches[0]).detach().numpy(), rtol=1e-12)


# 8. Learning PyTorch with Examples: the third-order fits of sin converge as the tutorial's do
class Legendre3(fgrad.autograd.Function):
    @staticmethod
    def forward(ctx, v):
        ctx.save_for_backward(v)
        return 0.5 * (5 * v ** 3 - 3 * v)

    @staticmethod
    def backward(ctx, g):
        (v,) = ctx.saved_tensors
        return g * 1.5 * (5 * v ** 2 - 1)


def test_polynomial_fits_of_sin_converge():
    x = fgrad.linspace(-math.pi, math.pi, 2000)
    y = fgrad.sin(x)
    fgrad.manual_seed(9)
    model = nn.Sequential(nn.Linear(3, 1), nn.Flatten(0, 1))
    opt = fgrad.optim.SGD(model.parameters(), lr=1e-6)
    xx = x.unsqueeze(-1).pow(fgrad.tensor([1, 2, 3]))
    loss_fn = nn.MSELoss(reduction="sum")
    for _ in range(2000):
        loss = loss_fn(model(xx), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
    assert loss.item() < 15  # (from thousands; the tutorial prints about 9 after 2000 steps)
    assert abs(model[0].weight[0, 0].item() - 0.85) < 0.05 and abs(model[0].weight[0, 2].item() + 0.092) < 0.01
    a, b, c, d = (fgrad.full((), v, requires_grad=True) for v in (0.0, -1.0, 0.0, 0.3))
    for _ in range(2000):
        loss = (a + b * Legendre3.apply(c + d * x) - y).pow(2).sum()
        loss.backward()
        with fgrad.no_grad():
            for p in (a, b, c, d):
                p -= 5e-6 * p.grad
                p.grad = None
    assert loss.item() < 10  # (the tutorial ends near 8.9, y = -2.2 * P3(0.255 x))
    assert abs(d.item() - 0.255) < 0.01 and abs(b.item() + 2.21) < 0.05


# 9. double backward through custom Functions: saved inputs, saved outputs, intermediates
#    returned as outputs, and a backward that is itself a Function
class Cube(fgrad.autograd.Function):
    @staticmethod
    def forward(ctx, v):
        ctx.save_for_backward(v)
        return v ** 3

    @staticmethod
    def backward(ctx, g):
        (v,) = ctx.saved_tensors
        return CubeGrad.apply(g, v)


class CubeGrad(fgrad.autograd.Function):
    @staticmethod
    def forward(ctx, g, v):
        ctx.save_for_backward(g, v)
        return 3 * g * v ** 2

    @staticmethod
    def backward(ctx, gg):
        g, v = ctx.saved_tensors
        return 3 * gg * v ** 2, 6 * gg * g * v


class SinhWithParts(fgrad.autograd.Function):
    @staticmethod
    def forward(ctx, v):
        up, down = fgrad.exp(v), fgrad.exp(-v)
        ctx.save_for_backward(up, down)
        return (up - down) / 2, up, down

    @staticmethod
    def backward(ctx, g, g_up, g_down):
        up, down = ctx.saved_tensors
        return g * (up + down) / 2 + g_up * up - g_down * down


class SinhOnCtx(fgrad.autograd.Function):
    @staticmethod
    def forward(ctx, v):
        ctx.up, ctx.down = fgrad.exp(v), fgrad.exp(-v)
        return (ctx.up - ctx.down) / 2

    @staticmethod
    def backward(ctx, g):
        return g * (ctx.up + ctx.down) / 2


def test_custom_functions_double_backward():
    v = fgrad.tensor(np.array([[0.3, -0.7], [1.2, 0.1]]), requires_grad=True)
    for f in (Cube.apply, lambda t: SinhWithParts.apply(t)[0]):
        assert fgrad.autograd.gradcheck(f, (v,)) and fgrad.autograd.gradgradcheck(f, (v,))
    (g,) = fgrad.autograd.grad(Cube.apply(v).sum(), v, create_graph=True)
    np.testing.assert_allclose(fgrad.autograd.grad(g.sum(), v)[0].numpy(), 6 * v.detach().numpy(), rtol=1e-12)
    (g,) = fgrad.autograd.grad(SinhOnCtx.apply(v).sum(), v, create_graph=True)
    assert not g.requires_grad  # (what ctx held is cut from the graph: no second derivative)


# 10. fusing convolution and batch norm in one Function: it recomputes the convolution in
#     backward, and agrees with the unfused layers (batch norm with eps outside the root)
def _bn(v, eps):
    mean = v.mean(dim=(0, 2, 3), keepdim=True)
    return (v - mean) / (v.var(dim=(0, 2, 3), keepdim=True, unbiased=True).sqrt() + eps)


class FusedConvBN(fgrad.autograd.Function):
    @staticmethod
    def forward(ctx, x, w, eps=1e-3):
        ctx.save_for_backward(x, w)
        ctx.eps = eps
        return _bn(F.conv2d(x, w), eps)

    @staticmethod
    def backward(ctx, g):
        x, w = ctx.saved_tensors
        with fgrad.enable_grad():
            x_, w_ = x.detach().requires_grad_(), w.detach().requires_grad_()
            out = _bn(F.conv2d(x_, w_), ctx.eps)
        return (*fgrad.autograd.grad(out, (x_, w_), g), None)


def test_fused_conv_bn_function_matches_the_unfused_layers():
    rng = np.random.default_rng(10)
    x0, w0 = rng.random((3, 2, 5, 5)), rng.random((4, 2, 3, 3))
    x, w = fgrad.tensor(x0, requires_grad=True), fgrad.tensor(w0, requires_grad=True)
    assert fgrad.autograd.gradcheck(FusedConvBN.apply, (x, w))
    g = fgrad.tensor(rng.normal(size=(3, 4, 3, 3)))
    fused = FusedConvBN.apply(x, w)
    fused.backward(g)
    xu, wu = fgrad.tensor(x0, requires_grad=True), fgrad.tensor(w0, requires_grad=True)
    unfused = _bn(F.conv2d(xu, wu), 1e-3)
    unfused.backward(g)
    np.testing.assert_allclose(fused.detach().numpy(), unfused.detach().numpy(), rtol=1e-12)
    for a, b in ((x, xu), (w, wu)):
        np.testing.assert_allclose(a.grad.numpy(), b.grad.numpy(), rtol=1e-10, atol=1e-12)
    # with eps inside the root, the unfused layer is nn's batch norm (training, no running stats)
    bn = nn.BatchNorm2d(4, affine=False, track_running_stats=False, eps=1e-3)
    conv = F.conv2d(fgrad.tensor(x0), fgrad.tensor(w0))
    mean = conv.mean(dim=(0, 2, 3), keepdim=True)
    biased = ((conv - mean) ** 2).mean(dim=(0, 2, 3), keepdim=True)
    np.testing.assert_allclose(bn(conv).numpy(), ((conv - mean) / (biased + 1e-3).sqrt()).numpy(), rtol=1e-12)


# 11. Extending PyTorch: torch 2's forward + setup_context, needs_input_grad, unmaterialized
#     gradients, intermediates as outputs for double backward, a Module on a Function
class AffineFn(fgrad.autograd.Function):
    @staticmethod
    def forward(x, w, b=None):
        out = x.mm(w.t())
        return out if b is None else out + b.unsqueeze(0).expand_as(out)

    @staticmethod
    def setup_context(ctx, inputs, output):
        ctx.save_for_backward(*inputs[:2])
        ctx.has_bias = len(inputs) > 2 and inputs[2] is not None

    @staticmethod
    def backward(ctx, g):
        x, w = ctx.saved_tensors
        gx = g.mm(w) if ctx.needs_input_grad[0] else None
        gw = g.t().mm(x) if ctx.needs_input_grad[1] else None
        return gx, gw, (g.sum(0) if ctx.has_bias and ctx.needs_input_grad[2] else None)


SEEN = []  # the gradients Scale.backward got for its second output


class Scale(fgrad.autograd.Function):

    @staticmethod
    def forward(x, k):
        return x * k, x.detach() * 0

    @staticmethod
    def setup_context(ctx, inputs, output):
        ctx.set_materialize_grads(False)
        ctx.k = inputs[1]

    @staticmethod
    def backward(ctx, g, g_unused):
        SEEN.append(g_unused)
        return None if g is None else g * ctx.k, None


class Affine(nn.Module):
    def __init__(self, n_in, n_out, bias=True):
        super().__init__()
        self.weight = nn.Parameter(fgrad.empty(n_out, n_in))
        if bias:
            self.bias = nn.Parameter(fgrad.empty(n_out))
        else:
            self.register_parameter("bias", None)
        nn.init.uniform_(self.weight, -0.1, 0.1)
        if self.bias is not None:
            nn.init.uniform_(self.bias, -0.1, 0.1)

    def forward(self, x):
        return AffineFn.apply(x, self.weight, self.bias)

    def extra_repr(self):
        return f"in={self.weight.shape[1]}, out={self.weight.shape[0]}, bias={self.bias is not None}"


def test_extending_functions_and_modules():
    rng = np.random.default_rng(11)
    x = fgrad.tensor(rng.normal(size=(4, 3)), requires_grad=True)
    w = fgrad.tensor(rng.normal(size=(2, 3)), requires_grad=True)
    b = fgrad.tensor(rng.normal(size=2), requires_grad=True)
    assert fgrad.autograd.gradcheck(AffineFn.apply, (x, w, b)) and fgrad.autograd.gradcheck(AffineFn.apply, (x, w))
    assert fgrad.autograd.gradgradcheck(AffineFn.apply, (x, w, b))
    SEEN.clear()
    Scale.apply(x, 2.5)[0].sum().backward()
    assert SEEN == [None]
    m = Affine(3, 2, bias=False)
    assert [n for n, _ in m.named_parameters()] == ["weight"] and repr(m) == "Affine(in=3, out=2, bias=False)"
    m(x).sum().backward()
    np.testing.assert_allclose(m.weight.grad.numpy(), np.tile(x.detach().numpy().sum(0), (2, 1)), rtol=1e-12)
