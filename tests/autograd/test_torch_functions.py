"""torch's functions and Tensor methods (fgrad/autograd/torch_functions.py) against torch 2.13: the
same values, and the same gradients after backward, for the same float64 inputs."""
import io
import pickle

import numpy as np
import pytest

import fgrad

torch = pytest.importorskip("torch")

RNG = np.random.default_rng(0)
A, B = RNG.normal(size=(3, 4)), RNG.normal(size=(3, 4))
M, N = RNG.normal(size=(4, 4)) + 4 * np.eye(4), RNG.normal(size=(4, 2))
S3 = RNG.normal(size=(2, 3, 4))
V, W = RNG.normal(size=(3,)), RNG.normal(size=(3,))
IDX = np.array([[0, 2, 1, 0], [1, 1, 0, 2]])
COLS = np.array([3, 0, 0])
MASK = A > 0

# name -> (expression of (lib, *tensors, consts), float inputs); consts are index arrays, as tensors of lib
CASES = {
    "cat": (lambda L, a, b: L.cat([a, b], dim=1), (A, B)),
    "concat": (lambda L, a, b: L.concat((a, b)), (A, B)),
    "stack": (lambda L, a, b: L.stack([a, b], dim=-1), (A, B)),
    "where": (lambda L, a, b: L.where(a > b, a, b), (A, B)),
    "exp,log,sqrt": (lambda L, a: L.exp(a) + L.log(L.abs(a)) + L.sqrt(a * a + 1), (A,)),
    "sin,cos,tanh,sigmoid,erf": (lambda L, a: L.sin(a) * L.cos(a) + L.tanh(a) + L.sigmoid(a) + L.erf(a), (A,)),
    "square,reciprocal,relu,sign": (lambda L, a: L.square(a) + L.reciprocal(a + 5) + L.relu(a) * L.sign(a), (A,)),
    "sum,mean(dim,keepdim)": (lambda L, a: L.sum(a, 1, keepdim=True) + L.mean(a, dim=0), (A,)),
    "max(dim)": (lambda L, a: L.max(a, dim=1).values + L.min(a, 1)[0], (A,)),
    "argmax": (lambda L, a: L.argmax(a, dim=1), (A,)),
    "maximum,minimum,clamp": (lambda L, a, b: L.maximum(a, b) - L.minimum(a, b) + L.clamp(a, -0.5, 0.5), (A, B)),
    "pow,lerp": (lambda L, a, b: L.pow(L.abs(a), 1.5) + L.lerp(a, b, 0.3), (A, B)),
    "matmul,mm": (lambda L, m, n: L.matmul(m, n) + L.mm(m, n), (M, N)),
    "bmm": (lambda L, s: L.bmm(s, s.transpose(1, 2)), (S3,)),
    "addmm": (lambda L, n, m: L.addmm(n, m, n, beta=0.5, alpha=2.0), (N, M)),
    "einsum": (lambda L, a, b: L.einsum("ij,kj->ik", a, b), (A, B)),
    "einsum(list)": (lambda L, a, b: L.einsum("ij,ij->i", [a, b]), (A, B)),
    "dot,outer,kron": (lambda L, v, w: L.dot(v, w) + L.outer(v, w).sum() + L.kron(v, w).sum(), (V, W)),
    "cross": (lambda L, v, w: L.cross(v, w, dim=0), (V, W)),
    "tensordot": (lambda L, a, b: L.tensordot(a, b, dims=([1], [1])), (A, B)),
    "norm": (lambda L, a: L.norm(a, dim=1), (A,)),
    "diag,tril,triu,trace": (lambda L, m: L.diag(m).sum() + L.tril(m, -1) + L.triu(m, 1) + L.trace(m), (M,)),
    "diag(1-D)": (lambda L, v: L.diag(v, 1), (V,)),
    "det,inverse,logdet,slogdet": (lambda L, m: L.det(m) + L.inverse(m) + L.logdet(m) + L.slogdet(m)[1], (M,)),
    "reshape,flatten,squeeze,unsqueeze": (lambda L, s: L.flatten(L.unsqueeze(L.reshape(s, (4, 6)), 0), 1), (S3,)),
    "transpose,permute,movedim,t": (lambda L, s: L.transpose(s, 0, 2) + L.permute(s, (2, 1, 0)) +
                                    L.movedim(s, 0, 2).transpose(0, 1), (S3,)),
    "chunk": (lambda L, a: L.cat([c * (i + 1) for i, c in enumerate(L.chunk(a, 3, dim=1))], 1), (A,)),
    "split(int),split(list)": (lambda L, a: L.split(a, 3, dim=1)[1].sum() + L.split(a, [1, 2])[1].sum(0), (A,)),
    "unbind,narrow": (lambda L, a: L.unbind(a, 1)[2] + L.narrow(a, 1, 1, 2).sum(1), (A,)),
    "flip,roll,tile,repeat_interleave": (lambda L, a: L.flip(a, [0, 1]).sum() + L.roll(a, 1, 1) +
                                          L.tile(a, (1, 2))[:, :4] + L.repeat_interleave(a, 2, dim=1)[:, ::2], (A,)),
    "cumsum,cumprod,logsumexp": (lambda L, a: L.cumsum(a, 1) + L.cumprod(a, dim=0) + L.logsumexp(a, 1, True), (A,)),
    "sort": (lambda L, a: L.sort(a, dim=1, descending=True).values * 2 + L.sort(a, 0)[1], (A,)),
    "topk": (lambda L, a: L.topk(a, 2, dim=1).values + L.topk(a, 2, largest=False)[1], (A,)),
    "isnan,isinf,isfinite": (lambda L, a: L.isnan(a) | L.isinf(a) | ~L.isfinite(a), (A,)),
}
CONST_CASES = {  # (with index or mask arguments, made as tensors of each library)
    "gather": (lambda L, a, i: L.gather(a, 1, i[:, :3]) + a.gather(0, i)[:, :3], (A,), (IDX,)),
    "index_select": (lambda L, a, c: L.index_select(a, 1, c), (A,), (COLS,)),
    "scatter": (lambda L, a, i, b: L.scatter(a, 0, i, b), (A,), (np.array([[0, 2, 1], [1, 0, 2]]),
                                                                             RNG.normal(size=(2, 3)))),
    "scatter_add": (lambda L, a, i, b: L.scatter_add(a, 1, i, b), (A,), (np.array([[0, 0, 1], [3, 3, 3], [1, 2, 1]]),
                                                                         RNG.normal(size=(3, 3)))),
    "masked_fill,masked_select": (lambda L, a, m: L.masked_fill(a, m, 0.5) + L.masked_select(a, m).sum(), (A,),
                                  (MASK,)),
}


def _run(lib, fn, floats, consts=()):
    make = fgrad.tensor if lib is fgrad else torch.tensor
    xs = [make(x.copy(), requires_grad=True) for x in floats]
    out = fn(lib, *xs, *[make(c) for c in consts])
    value = out.detach().numpy() if hasattr(out, "detach") else np.asarray(out)
    grads = None
    if getattr(out, "requires_grad", False):
        weights = np.random.default_rng(1).normal(size=tuple(out.shape))
        (out * make(weights)).sum().backward()
        grads = [x.grad.numpy() if x.grad is not None else None for x in xs]
    return value, grads


def _same(ours, theirs):
    (value, grads), (want, want_grads) = ours, theirs
    np.testing.assert_allclose(value, want, rtol=1e-10, atol=1e-12)
    assert (grads is None) == (want_grads is None)
    for g, w in zip(grads or (), want_grads or ()):
        np.testing.assert_allclose(g, w, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("name", list(CASES))
def test_functions_match_torch(name):
    fn, floats = CASES[name]
    _same(_run(fgrad, fn, floats), _run(torch, fn, floats))


@pytest.mark.parametrize("name", list(CONST_CASES))
def test_indexing_functions_match_torch(name):
    fn, floats, consts = CONST_CASES[name]
    _same(_run(fgrad, fn, floats, consts), _run(torch, fn, floats, consts))


METHOD_CASES = {
    "expand_as,reshape_as,view_as": lambda t: t[0:1].expand_as(t) + t.reshape_as(t) + t.view_as(t),
    "add(alpha),sub(alpha),mul,div": lambda t: t.add(t, alpha=2) - t.sub(1.0, alpha=3) + t.mul(t) + t.div(2.0),
    "lt,le,gt,ge,eq,ne": lambda t: (t.lt(0) | t.le(0.1)) & (t.gt(-1) | t.ge(0.5)) & t.eq(t) & ~t.ne(t),
    "fmod,remainder,frac,floor,ceil,trunc": lambda t: t.fmod(0.3) + t.remainder(0.3) + (t * 3).frac() + t.floor() +
    t.ceil() + t.trunc(),
    "dist,type_as,contiguous": lambda t: t.dist(t * 2) + t.type_as(t).contiguous(),
    "masked_fill_ (on a copy)": lambda t: t.clone().masked_fill_(t > 0, 1.0),
    "new_zeros,new_ones,new_full,new_tensor": lambda t: t.new_zeros((3, 4)) + t.new_ones(3, 4) + t.new_full((3, 4), 2.0)
    + t.new_tensor(np.ones((3, 4))) + t,
}


@pytest.mark.parametrize("name", list(METHOD_CASES))
def test_methods_match_torch(name):
    fn = METHOD_CASES[name]
    _same(_run(fgrad, lambda L, a: fn(a), (A,)), _run(torch, lambda L, a: fn(a), (A,)))


def test_facts_of_tensors_are_torchs():
    ours, theirs = fgrad.tensor(S3), torch.tensor(S3)
    for method in ("stride", "element_size", "nelement", "numel", "is_floating_point", "is_complex", "is_contiguous"):
        assert getattr(ours, method)() == getattr(theirs, method)(), method
    assert ours.size() == theirs.size() and ours.size().numel() == theirs.size().numel()
    assert fgrad.numel(ours) == torch.numel(theirs) and fgrad.is_tensor(ours) and not fgrad.is_tensor(S3)
    assert fgrad.equal(ours, ours * 1) and not fgrad.equal(ours, ours + 1) and fgrad.allclose(ours, ours + 1e-12)
    assert (fgrad.pi, fgrad.e, fgrad.inf) == (torch.pi, torch.e, torch.inf) and np.isnan(fgrad.nan)
    for name in ("float32", "float64", "float16", "int64", "int32", "int16", "int8", "uint8", "bool", "complex64",
                 "complex128", "long", "int", "double", "float", "half", "cfloat", "cdouble", "short"):
        assert str(getattr(fgrad, name)) == str(getattr(torch, name)).replace("torch.", ""), name
    assert fgrad.zeros(2, dtype=fgrad.long).dtype == fgrad.int64 and ours.half().dtype == fgrad.float16


def test_random_fills_and_their_streams():
    t = fgrad.zeros(1000)
    t.uniform_(-2.0, 3.0)
    assert -2.0 <= t.min().item() and t.max().item() <= 3.0 and abs(t.mean().item() - 0.5) < 0.2
    t.normal_(1.0, 0.5, generator=fgrad.Generator().manual_seed(0))
    again = fgrad.zeros(1000).normal_(1.0, 0.5, generator=fgrad.Generator().manual_seed(0))
    assert fgrad.equal(t, again) and abs(t.std().item() - 0.5) < 0.05
    leaf = fgrad.zeros(3, requires_grad=True)
    leaf.uniform_()  # (under no_grad, as nn.init's: a leaf may be filled)
    assert leaf.requires_grad and leaf.is_leaf


def test_inference_mode_is_a_context_and_a_decorator():
    x = fgrad.tensor(np.ones(2), requires_grad=True)
    with fgrad.inference_mode():
        assert not (x * 2).requires_grad
    with fgrad.inference_mode(False):
        assert (x * 2).requires_grad

    @fgrad.inference_mode
    def bare(v):
        return v * 2

    @fgrad.inference_mode()
    def called(v):
        return v * 2
    assert not bare(x).requires_grad and not called(x).requires_grad and (x * 2).requires_grad


def test_save_and_load_round_trip_state_and_refuse_code(tmp_path):
    model = fgrad.nn.Linear(3, 2)
    optimizer = fgrad.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    model(fgrad.tensor(np.ones((1, 3)))).sum().backward()
    optimizer.step()
    path = tmp_path / "checkpoint.pt"
    fgrad.save({"model": model.state_dict(), "optimizer": optimizer.state_dict(), "step": 1}, path)
    loaded = fgrad.load(path)
    assert loaded["step"] == 1 and list(loaded["model"]) == ["weight", "bias"]
    for key, value in model.state_dict().items():
        assert fgrad.equal(loaded["model"][key], value)
    fresh = fgrad.nn.Linear(3, 2)
    fresh.load_state_dict(loaded["model"])
    assert fgrad.equal(fresh.weight, model.weight)
    buffer = io.BytesIO()
    fgrad.save(fgrad.nn.Parameter(fgrad.tensor(np.ones(2))), buffer)
    buffer.seek(0)
    assert isinstance(fgrad.load(buffer, map_location="cpu"), fgrad.nn.Parameter)

    class Payload:
        def __reduce__(self):
            return (print, ("this ran on load",))
    bad = io.BytesIO(pickle.dumps(Payload()))
    with pytest.raises(pickle.UnpicklingError, match=r"builtins\.print"):
        fgrad.load(bad)
    bad.seek(0)
    assert fgrad.load(bad, weights_only=False) is None  # (trusted: it runs)


def test_default_dtype_is_inferred_as_torch_infers_it():
    made = [lambda L: L.tensor([1.0, 2.0]), lambda L: L.tensor(1j), lambda L: L.tensor([1, 2]),
            lambda L: L.zeros(2), lambda L: L.ones(2), lambda L: L.full((2,), 1.5), lambda L: L.full((2,), 3),
            lambda L: L.arange(3.0), lambda L: L.arange(3), lambda L: L.linspace(0, 1, 3), lambda L: L.eye(2),
            lambda L: L.randn(2), lambda L: L.rand(2), lambda L: L.nn.Linear(2, 2).weight,
            lambda L: L.tensor(np.ones(2, dtype=np.float64))]
    before = torch.get_default_dtype()
    try:
        for default in ("float32", "float64"):
            fgrad.set_default_dtype(getattr(fgrad, default))
            torch.set_default_dtype(getattr(torch, default))
            assert str(fgrad.get_default_dtype()) == default
            for i, make in enumerate(made):
                assert str(make(fgrad).dtype) == str(make(torch).dtype).replace("torch.", ""), (default, i)
        with pytest.raises(TypeError, match="only floating-point types"):
            fgrad.set_default_dtype(fgrad.int64)
    finally:
        fgrad.set_default_dtype(fgrad.float64)
        torch.set_default_dtype(before)


def test_random_draws():
    g = fgrad.Generator().manual_seed(3)
    perm = fgrad.randperm(10, generator=g)
    assert sorted(perm.tolist()) == list(range(10)) and perm.dtype == fgrad.int64
    assert fgrad.equal(perm, fgrad.randperm(10, generator=fgrad.Generator().manual_seed(3)))
    draws = fgrad.normal(fgrad.full((20000,), 2.0), 0.5)
    assert abs(draws.mean().item() - 2.0) < 0.02 and abs(draws.std().item() - 0.5) < 0.02
    assert tuple(fgrad.normal(0.0, 1.0, (3, 2)).shape) == (3, 2)
    coins = fgrad.bernoulli(fgrad.full((20000,), 0.3))
    assert set(np.unique(coins.numpy())) <= {0.0, 1.0} and abs(coins.mean().item() - 0.3) < 0.02
    picks = fgrad.multinomial(fgrad.tensor([[0.0, 1.0, 3.0]]), 20000, replacement=True)
    assert abs((picks == 2).float().mean().item() - 0.75) < 0.02 and (picks != 0).all()
    distinct = fgrad.multinomial(fgrad.tensor([[1.0, 1.0, 1.0, 1.0]]), 4)
    assert sorted(distinct[0].tolist()) == [0, 1, 2, 3]
    for call, message in ((lambda: fgrad.multinomial(fgrad.tensor([[1.0, 0.0]]), 2), "not enough"),
                          (lambda: fgrad.bernoulli(fgrad.tensor([1.5])), "between 0 and 1"),
                          (lambda: fgrad.normal(0.0, -1.0, (2,)), "std >= 0.0")):
        with pytest.raises(RuntimeError, match=message):
            call()
    like = fgrad.randn_like(fgrad.zeros(3, dtype=fgrad.float32))
    assert like.dtype == fgrad.float32 and tuple(fgrad.rand_like(like).shape) == (3,)


def test_sort_and_topk_order_nan_and_ties_as_torch():
    x = np.array([[1.0, np.nan, 3.0, np.inf, np.nan, 2.0, 3.0], [0.0, -1.0, 0.0, np.nan, 5.0, -np.inf, 2.0]])
    for descending in (False, True):
        ours = fgrad.sort(fgrad.tensor(x), dim=1, descending=descending)
        theirs = torch.sort(torch.tensor(x), dim=1, descending=descending, stable=True)
        assert ours.indices.tolist() == theirs.indices.tolist(), descending
        np.testing.assert_array_equal(ours.values.numpy(), theirs.values.numpy())
    for largest in (True, False):
        ours, theirs = fgrad.topk(fgrad.tensor(x), 3, largest=largest), torch.topk(torch.tensor(x), 3, largest=largest)
        np.testing.assert_array_equal(ours.values.numpy(), theirs.values.numpy())


TIES = np.array([[2.0, 2.0, 1.0], [0.0, 3.0, 3.0]])
ZERO_ROW = np.array([[0.0, 0.0, 0.0], [3.0, -4.0, 1.0]])
EDGE_CASES = {  # (float inputs where the obvious formula's derivative differs from torch's)
    "max(dim),min(dim) of ties: the gradient to the index alone": (
        lambda L, a: L.max(a, 1).values + a.min(dim=1, keepdim=True)[0].sum(1), (TIES,)),
    "max(),min() of ties: the gradient shared": (lambda L, a: a.max() + L.min(a), (TIES,)),
    "norm at a zero vector: gradient 0": (lambda L, a: a.norm(dim=1) + L.norm(a, 1, dim=1), (ZERO_ROW,)),
    "norm p=3, inf, keepdim, dims": (lambda L, a: a.norm(3, dim=0, keepdim=True).sum() + a.norm(float("inf"))
                                     + a.norm(dim=(0, 1)), (A,)),
}


@pytest.mark.parametrize("name", list(EDGE_CASES))
def test_edge_cases_match_torch(name):
    fn, floats = EDGE_CASES[name]
    _same(_run(fgrad, fn, floats), _run(torch, fn, floats))


@pytest.mark.parametrize("start, end, error", [(1, 0, RuntimeError), (2, -2, RuntimeError), (3, -1, IndexError),
                                               (0, -4, IndexError)])
def test_flatten_of_wrong_axes_raises_as_torch(start, end, error):
    """(a modulo alone flattened the wrong axes silently: flatten(1, 0) of (2, 3, 4) gave (2, 1, 3, 4))"""
    for make in (fgrad.tensor, torch.tensor):
        with pytest.raises(error, match=r"start_dim cannot come after end_dim|Dimension out of range"):
            make(S3).flatten(start, end)


@pytest.mark.parametrize("call", [lambda L, a, i: L.gather(a, 1, i), lambda L, a, i: L.index_select(a, 1, i[0]),
                                  lambda L, a, i: L.scatter_add(a, 1, i, a[:, :2])])
def test_an_index_out_of_range_raises_as_torch(call):
    for lib, make in ((fgrad, fgrad.tensor), (torch, torch.tensor)):
        with pytest.raises((RuntimeError, IndexError), match=r"out of .*bounds"):
            call(lib, make(A), make(np.array([[0, -1], [1, 2]])))


def test_functions_carry_torchs_names():
    module = fgrad.autograd.torch_functions
    for name in module.__all__:  # (fgrad.abs was named "absolute", NumPy's name)
        fn = getattr(fgrad, name)
        if getattr(fn, "__module__", None) == module.__name__:
            # (concat, concatenate = cat; clip = clamp; fix = trunc; divide = div, multiply = mul, subtract = sub;
            # arccos = acos and the other arc names; negative = neg; greater = gt and the other comparisons)
            assert fn.__name__ in (name, "cat", "clamp", "trunc", "div", "mul", "sub", "acos", "asin", "atan", "acosh",
                                   "asinh", "atanh", "neg", "ne", "lt", "le", "gt", "ge"), name
