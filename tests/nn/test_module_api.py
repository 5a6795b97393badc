"""fgrad.nn.Module's API against torch 2.13's: the same names, orders, state dicts, messages,
dtype moves and hook arguments for the same model."""
import collections

import numpy as np
import pytest

import fgrad
from fgrad import nn, optim

torch = pytest.importorskip("torch")


class Block:
    """The same model in either library: a shared Linear, a ModuleDict, buffers (one not persistent,
    one integer), a ParameterList."""

    def __init__(self, lib):
        n = lib.nn

        class Net(n.Module):
            def __init__(self):
                super().__init__()
                self.shared = n.Linear(3, 3)
                self.body = n.Sequential(self.shared, n.Tanh(), n.ModuleList([n.Linear(3, 2), n.Identity()]))
                self.heads = n.ModuleDict({"a": n.Linear(2, 1), "b": self.shared})
                self.extra = n.ParameterList([n.Parameter(lib.zeros(2, dtype=lib.float64)) for _ in range(2)])
                self.register_buffer("mean", lib.zeros(3, dtype=lib.float64))
                self.register_buffer("scratch", lib.ones(1, dtype=lib.float64), persistent=False)
                self.register_buffer("steps", lib.zeros(1, dtype=lib.int64))

            def forward(self, x):
                h = self.body[2][0](self.body[1](self.body[0](x - self.mean)))
                return self.heads["a"](h) + self.extra[0].sum()

        self.net = Net()


def _fgrad_lib():
    class Lib:
        nn = fgrad.nn
        float64, int64 = np.float64, np.int64

        @staticmethod
        def zeros(*shape, dtype):
            return fgrad.zeros(*shape, dtype=dtype)

        @staticmethod
        def ones(*shape, dtype):
            return fgrad.ones(*shape, dtype=dtype)
    return Lib


def _models():
    ours, theirs = Block(_fgrad_lib()).net, Block(torch).net.double()
    theirs.steps = theirs.steps.long()
    with torch.no_grad():
        for value in theirs.state_dict().values():
            if value.dtype.is_floating_point:
                value.copy_(torch.randn(value.shape, dtype=value.dtype))
    ours.load_state_dict({k: v.numpy() for k, v in theirs.state_dict().items()})
    return ours, theirs


def test_names_and_orders_are_torchs():
    ours, theirs = _models()
    for method in ("named_parameters", "named_buffers", "named_modules", "named_children", "state_dict"):
        got = [k for k, _ in (getattr(ours, method)().items() if method == "state_dict" else getattr(ours, method)())]
        want = [k for k, _ in (getattr(theirs, method)().items() if method == "state_dict" else
                               getattr(theirs, method)())]
        assert got == want, method
    assert [n for n, _ in ours.named_parameters(remove_duplicate=False)] == \
        [n for n, _ in theirs.named_parameters(remove_duplicate=False)]
    assert [n for n, _ in ours.named_parameters(recurse=False)] == \
        [n for n, _ in theirs.named_parameters(recurse=False)]
    assert [type(m).__name__ for m in ours.modules()] == [type(m).__name__ for m in theirs.modules()]
    visited, their_visited = [], []
    ours.apply(lambda m: visited.append(type(m).__name__))
    theirs.apply(lambda m: their_visited.append(type(m).__name__))
    assert visited == their_visited
    assert ours.get_submodule("body.2.0") is ours.body[2][0]
    assert ours.get_parameter("heads.a.bias") is ours.heads["a"].bias and ours.get_buffer("mean") is ours.mean


def test_a_loaded_state_dict_gives_torchs_outputs_and_gradients():
    ours, theirs = _models()
    x = np.random.default_rng(0).normal(size=(4, 3))
    out = ours(fgrad.tensor(x))
    want = theirs(torch.tensor(x))
    np.testing.assert_allclose(out.detach().numpy(), want.detach().numpy(), rtol=1e-12)
    out.sum().backward()
    want.sum().backward()
    for (name, p), (_, q) in zip(ours.named_parameters(), theirs.named_parameters()):
        if q.grad is None:  # (extra.1: forward does not use it)
            assert p.grad is None, name
        else:
            np.testing.assert_allclose(p.grad.numpy(), q.grad.numpy(), rtol=1e-12, atol=1e-15, err_msg=name)


def test_load_state_dict_reports_keys_as_torch():
    ours, theirs = _models()
    state = {k: v.numpy() for k, v in theirs.state_dict().items()}
    del state["mean"]
    state["stray"] = np.zeros(1)
    for model, sd in ((ours, state), (theirs, {k: torch.tensor(v) for k, v in state.items()})):
        with pytest.raises(RuntimeError) as error:
            model.load_state_dict(sd)
        message = str(error.value).replace("torch.Size(", "").replace("])", "]")
        assert 'Missing key(s) in state_dict: "mean"' in message
        assert 'Unexpected key(s) in state_dict: "stray"' in message
    result = ours.load_state_dict(state, strict=False)
    assert result.missing_keys == ["mean"] and result.unexpected_keys == ["stray"]
    assert repr(ours.load_state_dict({k: v.numpy() for k, v in theirs.state_dict().items()})) == \
        repr(theirs.load_state_dict(theirs.state_dict())) == "<All keys matched successfully>"
    bad = {k: v.numpy() for k, v in theirs.state_dict().items()}
    bad["mean"] = np.zeros(4)
    with pytest.raises(RuntimeError, match=r"size mismatch for mean: copying a param with shape \(4,\) from "
                                           r"checkpoint, the shape in current model is \(3,\)"):
        ours.load_state_dict(bad, strict=False)


def test_load_state_dict_copies_in_place_in_the_parameters_dtype():
    model = nn.Linear(2, 2, dtype=np.float32)
    weight = model.weight
    values = np.arange(4.0).reshape(2, 2)
    model.load_state_dict({"weight": values, "bias": np.zeros(2)})
    assert model.weight is weight and weight.dtype == np.float32
    values[0, 0] = 99.0  # (the module holds a copy)
    assert model.weight.detach().numpy()[0, 0] == 0.0
    model.load_state_dict({"weight": fgrad.tensor(values), "bias": np.zeros(2)}, assign=True)
    assert model.weight is not weight and isinstance(model.weight, nn.Parameter) and model.weight.requires_grad


def test_state_dict_round_trips_through_save_and_pickle(tmp_path):
    import pickle
    ours, _ = _models()
    blob = pickle.dumps(ours.state_dict())
    fresh = Block(_fgrad_lib()).net
    fresh.load_state_dict(pickle.loads(blob))
    for (k, a), (_, b) in zip(ours.state_dict().items(), fresh.state_dict().items()):
        np.testing.assert_array_equal(a.numpy(), b.numpy(), err_msg=k)


def test_to_moves_floating_tensors_in_place_as_torch():
    ours, theirs = _models()
    params = list(ours.parameters())
    opt = optim.SGD(ours.parameters(), lr=0.1)
    ours.float()
    theirs.float()
    assert all(p is q for p, q in zip(params, ours.parameters()))  # (the optimizer's parameters still)
    for (name, a), (_, b) in zip(ours.state_dict().items(), theirs.state_dict().items()):
        assert a.dtype == np.dtype(str(b.dtype).replace("torch.", "")), name
    assert ours.steps.dtype == np.int64 and ours.scratch.dtype == np.float32
    ours(fgrad.tensor(np.ones((1, 3), dtype=np.float32))).sum().backward()
    opt.step()
    assert all(p.dtype == np.float32 and p.grad.dtype == np.float32 for p in ours.parameters() if p.grad is not None)
    ours.double()
    assert all(p.dtype == np.float64 and p.grad.dtype == np.float64 for p in ours.parameters() if p.grad is not None)
    with pytest.raises(TypeError, match="only accepts floating point or complex dtypes"):
        ours.to(np.int64)
    with pytest.raises(TypeError, match="only accepts floating point or complex dtypes"):
        theirs.to(torch.int64)
    assert ours.to("cpu") is ours and ours.to(fgrad.tensor(np.zeros(1, np.float32))).mean.dtype == np.float32


def test_requires_grad_and_zero_grad():
    model = nn.Linear(2, 1)
    model(fgrad.tensor(np.ones((1, 2)))).sum().backward()
    model.zero_grad(set_to_none=False)
    assert model.weight.grad.numpy().tolist() == [[0.0, 0.0]]
    model.zero_grad()
    assert model.weight.grad is None
    assert model.requires_grad_(False) is model and not any(p.requires_grad for p in model.parameters())


def test_registration_errors_are_torchs():
    for lib, tensor in ((nn, fgrad.tensor), (torch.nn, torch.tensor)):
        model = lib.Linear(2, 1)
        with pytest.raises(KeyError, match="attribute 'in_features' already exists"):
            model.register_buffer("in_features", tensor([1.0]))
        with pytest.raises(KeyError, match="contain"):
            model.register_buffer("a.b", tensor([1.0]))
        with pytest.raises(TypeError, match="cannot assign 'int' object to buffer 'c'"):
            model.register_buffer("c", 3)
        model.register_buffer("c", tensor([1.0]))
        with pytest.raises(TypeError, match="cannot assign 'int' as buffer 'c'"):
            model.c = 3
        with pytest.raises(AttributeError, match="has no attribute `nothing`"):
            model.get_submodule("nothing")
        with pytest.raises(TypeError, match="is not a Module subclass"):
            model.add_module("x", 3)


def _hooked(lib, tensor, calls):
    model = lib.Sequential(lib.Linear(3, 2), lib.Tanh())
    handles = [
        model.register_forward_pre_hook(lambda m, args: (args[0] * 2.0,)),
        model.register_forward_pre_hook(lambda m, args: calls.append("pre, prepended"), prepend=True),
        model.register_forward_hook(lambda m, args, out: out + 1.0),
        model.register_forward_hook(lambda m, args, kwargs, out: calls.append(("kwargs", kwargs)), with_kwargs=True),
        model.register_full_backward_pre_hook(lambda m, grad_output: calls.append("backward pre")),
        model.register_full_backward_hook(lambda m, grad_input, grad_output: calls.append(
            ("backward", [None if g is None else np.asarray(g.detach().numpy()) for g in grad_input],
             [np.asarray(g.detach().numpy()) for g in grad_output]))),
        model.register_full_backward_hook(lambda m, grad_input, grad_output: (grad_input[0] * 10.0,)),
    ]
    return model, handles


def test_forward_and_backward_hooks_see_and_change_what_torchs_do():
    x = np.random.default_rng(1).normal(size=(4, 3))
    results = {}
    for name, lib, tensor in (("fgrad", nn, fgrad.tensor), ("torch", torch.nn, torch.tensor)):
        calls = []
        model, handles = _hooked(lib, tensor, calls)
        if name == "torch":
            model.double()
            with torch.no_grad():
                for p, q in zip(model.parameters(), results["fgrad"]["params"]):
                    p.copy_(torch.tensor(q))
        params = [p.detach().numpy().copy() for p in model.parameters()]
        xt = tensor(x, requires_grad=True)
        out = model(xt)
        (out * tensor(np.arange(8.0).reshape(4, 2))).sum().backward()
        results[name] = dict(params=params, out=out.detach().numpy(), calls=calls, x_grad=xt.grad.numpy())
        for h in handles:
            h.remove()
        plain = model(tensor(x)).detach().numpy()
        results[name]["plain"] = plain
    ours, theirs = results["fgrad"], results["torch"]
    np.testing.assert_allclose(ours["out"], theirs["out"], rtol=1e-12)
    np.testing.assert_allclose(ours["x_grad"], theirs["x_grad"], rtol=1e-12)  # (10x: the hook's replacement)
    np.testing.assert_allclose(ours["plain"], theirs["plain"], rtol=1e-12)  # (removed: none runs)
    assert [c if isinstance(c, str) else c[0] for c in ours["calls"]] == \
        [c if isinstance(c, str) else c[0] for c in theirs["calls"]]
    (_, gi, go), (_, tgi, tgo) = ours["calls"][-1], theirs["calls"][-1]
    np.testing.assert_allclose(gi[0], tgi[0], rtol=1e-12)
    np.testing.assert_allclose(go[0], tgo[0], rtol=1e-12)


def test_backward_hook_without_inputs_requiring_grad_gets_none():
    for lib, tensor in ((nn, fgrad.tensor), (torch.nn, torch.tensor)):
        seen = []
        model = lib.Linear(2, 1)
        model.register_full_backward_hook(lambda m, gi, go: seen.append((gi, len(go))))
        with pytest.warns(UserWarning, match="since no inputs require gradients"):
            model(tensor(np.ones((1, 2), dtype=np.float32 if lib is torch.nn else np.float64))).sum().backward()
        assert seen == [((None,), 1)]


def test_containers_register_as_torchs():
    for lib in (nn, torch.nn):
        layers = lib.ModuleList([lib.Linear(1, 1), lib.Linear(1, 1)])
        layers.append(lib.Linear(1, 1))
        layers.insert(0, lib.Identity())
        del layers[1]
        d = lib.ModuleDict(collections.OrderedDict(b=lib.Linear(1, 1)))
        d["a"] = lib.Linear(1, 1)
        holder = lib.Module()
        holder.layers, holder.d = layers, d
        holder.p = lib.ParameterDict({"w": lib.Parameter(fgrad.tensor(np.zeros(1)) if lib is nn else torch.zeros(1))})
        names = [n for n, _ in holder.named_parameters()]
        if lib is nn:
            ours = names
        else:
            assert ours == names
        assert len(layers) == 3 and list(d.keys()) == ["b", "a"] and "a" in d
    seq = nn.Sequential(collections.OrderedDict(first=nn.Linear(2, 2), act=nn.ReLU()))
    assert [n for n, _ in seq.named_parameters()] == ["first.weight", "first.bias"] and len(seq[1:]) == 1


def test_a_float32_linear_stays_float32():
    model = nn.Sequential(nn.Linear(3, 2, dtype=np.float32), nn.Flatten(), nn.Unflatten(1, (2, 1)))
    out = model(fgrad.tensor(np.ones((4, 3), dtype=np.float32)))
    assert out.dtype == np.float32 and tuple(out.shape) == (4, 2, 1)
    assert tuple(torch.nn.Unflatten(1, (2, 1))(torch.ones(4, 2)).shape) == (4, 2, 1)
    for layer, x in ((model[0], fgrad.tensor(np.ones((4, 3)))), (torch.nn.Linear(3, 2), torch.ones(4, 3).double())):
        with pytest.raises(RuntimeError, match="mat1 and mat2 must have the same dtype, but got Double and Float"):
            layer(x)


def test_functional_call_takes_buffers():
    model = Block(_fgrad_lib()).net
    x = fgrad.tensor(np.ones((1, 3)))
    shifted = fgrad.func.functional_call(model, {"mean": np.ones(3)}, (x,))
    np.testing.assert_allclose(shifted.detach().numpy(), model(fgrad.tensor(np.zeros((1, 3)))).detach().numpy())
