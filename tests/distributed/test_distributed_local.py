"""fgrad.distributed in this process, a world of one (issue 30): what every collective is when
there is one rank, what each refuses and how it says so, the rules wired into every transform,
data_parallel, ShardedOptimizer's rules against fgrad.optim, DistributedDataParallel's buckets,
hooks, no_sync and unused parameters, save/load, and the agreement messages. No MPI needed:
tests/distributed/test_distributed_mpi.py runs the many-rank cases."""
import numpy as np
import pytest

import fgrad
import fgrad.distributed as dist
import fgrad.numpy as fnp
from fgrad.distributed import agreement, world
from fgrad.distributed.collectives import all_reduce_p
from fgrad.nn import functional as F
from fgrad.nn.parallel import DistributedDataParallel
from fgrad.testing import check_grads

X = np.array([[0.5, -1.0, 2.0], [1.5, 0.25, -0.75]])


def test_a_world_of_one():
    w = dist.init()
    assert (w.rank, w.size, dist.rank(), dist.world_size()) == (0, 1, 0, 1) and dist.is_initialized()
    dist.barrier()


def test_collectives_in_a_world_of_one_copy_their_leaves():
    tree = {"a": X, "b": [np.float32(2.0), 3.0], "c": np.arange(3)}
    for op in ("sum", "max", "min"):
        out = dist.all_reduce(tree, op=op)
        np.testing.assert_array_equal(out["a"], X)
        assert not np.shares_memory(out["a"], X) and out["c"].dtype == tree["c"].dtype
        assert type(out["b"][1]) is np.float64 and out["b"][0].dtype == np.float32
    assert dist.all_reduce(2.5, op="mean") == 2.5
    np.testing.assert_array_equal(dist.broadcast(X), X)
    np.testing.assert_array_equal(dist.reduce(X, op="mean"), X)
    assert dist.all_gather(X).shape == (1, 2, 3) and dist.all_gather(X, axis=-1).shape == (2, 3, 1)
    np.testing.assert_array_equal(dist.all_gather(X, axis=1, tiled=True), X)
    np.testing.assert_array_equal(dist.reduce_scatter(X[:1]), X[0])
    np.testing.assert_array_equal(dist.reduce_scatter(X, axis=1, tiled=True), X)
    assert dist.all_reduce({}) == {}


@pytest.mark.parametrize("call,error,words", [
    (lambda: dist.all_reduce(X, op="prod"), ValueError, ["all_reduce", "'prod'", "'sum'"]),
    (lambda: dist.all_reduce({"m": X > 0}), TypeError, ["x['m']", "bool", "cast"]),
    (lambda: dist.all_reduce({"n": np.arange(3)}, op="mean"), TypeError, ["x['n']", "int64", "float"]),
    (lambda: dist.all_reduce(X * 1j, op="max"), TypeError, ["max", "complex"]),
    (lambda: dist.broadcast(X, root=1), ValueError, ["root", "0 to 0", "1"]),
    (lambda: dist.reduce(X, root=-1), ValueError, ["root", "-1"]),
    (lambda: dist.reduce(X, op="max"), ValueError, ["reduce", "'max'"]),
    (lambda: dist.all_gather([X], axis=3), ValueError, ["axis 3", "x[0]", "(2, 3)"]),
    (lambda: dist.all_gather(np.float64(1.0), tiled=True), ValueError, ["tiled", "0-d"]),
    (lambda: dist.reduce_scatter({"w": X}), ValueError, ["x['w']", "2 entries along axis 0", "one entry per rank"]),
])
def test_what_a_collective_refuses_names_the_leaf(call, error, words):
    with pytest.raises(error) as e:
        call()
    for w in words:
        assert w in str(e.value), (w, str(e.value))


COLLECTIVES = {
    "all_reduce sum": lambda x: dist.all_reduce(x),
    "all_reduce mean": lambda x: dist.all_reduce(x, op="mean"),
    "all_reduce max": lambda x: dist.all_reduce(x, op="max"),
    "all_reduce min": lambda x: dist.all_reduce(x, op="min"),
    "broadcast": lambda x: dist.broadcast(x),
    "reduce": lambda x: dist.reduce(x, op="mean"),
    "all_gather": lambda x: dist.all_gather(x, axis=1),
    "all_gather tiled": lambda x: dist.all_gather(x, tiled=True),
    "reduce_scatter": lambda x: dist.reduce_scatter(x[None]),
    "reduce_scatter tiled": lambda x: dist.reduce_scatter(x, axis=1, tiled=True),
}


@pytest.mark.parametrize("name", COLLECTIVES)
def test_the_rules_are_wired_into_every_transform(name):
    """In a world of one each collective is the identity (up to a reshape), so these check the
    wiring: vjp, jvp and their second order, vmap, compile and the Tensor face. The numbers of
    many ranks are tests/distributed/scripts/collectives_check.py's."""
    c = COLLECTIVES[name]

    def f(x):
        return fnp.sin(c(x * x)) * 2.0
    check_grads(f, (X,), order=2)
    batch = np.stack([X, 2 * X, -X])
    np.testing.assert_allclose(fgrad.vmap(f)(batch), np.stack([f(x) for x in batch]))
    np.testing.assert_allclose(fgrad.vmap(f, in_axes=2)(batch.transpose(1, 2, 0)), np.stack([f(x) for x in batch]))
    g = fgrad.compile(fgrad.grad(lambda x: fnp.sum(f(x))))
    np.testing.assert_allclose(g(X), fgrad.grad(lambda x: fnp.sum(f(x)))(X))
    np.testing.assert_allclose(g(X + 1), fgrad.grad(lambda x: fnp.sum(f(x)))(X + 1))
    t = fgrad.tensor(X, requires_grad=True)
    fnp.sum(f(t)).backward()
    np.testing.assert_allclose(t.grad.numpy(), fgrad.grad(lambda x: fnp.sum(f(x)))(X))


def test_compile_stages_a_collective_even_of_constants_and_keeps_every_one():
    const = np.ones(2)

    def f(x):
        dist.all_reduce(const)           # constants alone, its result unused
        a, b = dist.all_reduce(x), dist.all_reduce(x)
        return fnp.sum(a * b)
    text = str(fgrad.compile(f).lower(np.arange(2.0)))
    assert text.count("all_reduce(") == 3, text
    assert all_reduce_p.effectful and all_reduce_p.name == "all_reduce"


def test_data_parallel_in_a_world_of_one_is_value_and_grad():
    def loss(w, x):
        return fnp.sum(fnp.tanh(x @ w) ** 2), x.shape[0]
    w = np.array([0.3, -0.2, 0.1])
    (value, aux), g = dist.data_parallel(fgrad.value_and_grad(loss, has_aux=True), has_aux=True)(w, X)
    (ref, _), ref_g = fgrad.value_and_grad(loss, has_aux=True)(w, X)
    assert value == ref and aux == 2 and isinstance(value, float)
    np.testing.assert_array_equal(g, ref_g)
    both = dist.data_parallel(fgrad.value_and_grad(lambda w, v: fnp.sum(w * v), argnums=(0, 1)), argnums=(0, 1))
    _, (gw, gv) = both(w, 2 * w)
    np.testing.assert_array_equal(gw, 2 * w)
    np.testing.assert_array_equal(gv, w)


@pytest.mark.parametrize("make", [
    (lambda: dist.sgd(lr=0.1, momentum=0.9, weight_decay=0.01),
     lambda ps: fgrad.optim.SGD(ps, lr=0.1, momentum=0.9, weight_decay=0.01)),
    (lambda: dist.sgd(lr=0.1, momentum=0.9, nesterov=True), lambda ps: fgrad.optim.SGD(ps, lr=0.1, momentum=0.9,
                                                                                        nesterov=True)),
    (lambda: dist.adam(lr=0.05, weight_decay=0.1), lambda ps: fgrad.optim.Adam(ps, lr=0.05, weight_decay=0.1)),
])
def test_the_sharded_optimizers_rules_are_fgrad_optims(make):
    rule, optimizer = make
    params = {"w": X.copy(), "b": np.array([0.1, -0.3])}
    opt = dist.ShardedOptimizer(rule())
    state = opt.init(params)
    tensors = [fgrad.nn.Parameter(params["b"].copy()), fgrad.nn.Parameter(X.copy())]  # (leaves in optree's order)
    torch_like = optimizer(tensors)
    for k in range(5):
        grads = {"w": np.sin(X * (k + 1)), "b": np.cos(np.array([1.0, 2.0]) * k)}
        params, state = opt.update(grads, state, params)
        tensors[0].grad, tensors[1].grad = fgrad.tensor(grads["b"]), fgrad.tensor(grads["w"])
        torch_like.step()
        np.testing.assert_allclose(params["w"], tensors[1].detach().numpy(), rtol=1e-14, atol=1e-15)
        np.testing.assert_allclose(params["b"], tensors[0].detach().numpy(), rtol=1e-14, atol=1e-15)


def test_the_sharded_state_round_trips_and_refuses_what_does_not_fit(tmp_path):
    opt = dist.ShardedOptimizer(dist.adam())
    params = {"w": X.copy()}
    params, state = opt.update({"w": X}, opt.init(params), params)
    dist.save({"p": params, "opt": opt.state_dict(state, params)}, tmp_path / "ck.pkl")
    back = dist.load(tmp_path / "ck.pkl")
    state2 = opt.load_state_dict(back["opt"], back["p"])
    np.testing.assert_array_equal(state2["exp_avg"], state["exp_avg"])
    assert state2["step"] == 1
    with pytest.raises(ValueError, match="holds adam's state, this optimizer runs sgd"):
        dist.ShardedOptimizer(dist.sgd()).load_state_dict(back["opt"], params)
    with pytest.raises(ValueError, match="holds 6 numbers, the parameters 3"):
        opt.load_state_dict(back["opt"], {"w": np.ones(3)})
    with pytest.raises(TypeError, match="one floating dtype"):
        opt.init({"w": X, "n": np.arange(2)})
    with pytest.raises(TypeError, match="sgd"):
        dist.ShardedOptimizer(object())
    with pytest.raises(FileNotFoundError):
        dist.load(tmp_path / "missing.pkl")


def mlp():
    fgrad.manual_seed(0)
    return fgrad.nn.Sequential(fgrad.nn.Linear(3, 4), fgrad.nn.Tanh(), fgrad.nn.Linear(4, 2))


def test_ddp_buckets_follow_the_cap_reverse_order_and_rank_0s_order():
    ddp = DistributedDataParallel(mlp(), bucket_cap_mb=80 / 2 ** 20)  # (80 bytes: 10 float64 numbers)
    assert ddp.buckets == [["2.bias", "2.weight"], ["0.bias"], ["0.weight"]]
    F.cross_entropy(ddp(fgrad.tensor(X)), fgrad.tensor(np.array([0, 1]))).backward()
    assert ddp.bucket_log == [("ready", "2.bias"), ("ready", "2.weight"), ("start", 0), ("ready", "0.bias"),
                              ("start", 1), ("ready", "0.weight"), ("start", 2), ("done",)]
    F.cross_entropy(ddp(fgrad.tensor(X)), fgrad.tensor(np.array([0, 1]))).backward()  # (rebuilt: the same order)
    assert ddp.buckets == [["2.bias", "2.weight"], ["0.bias"], ["0.weight"]]
    assert DistributedDataParallel(mlp()).buckets == [["2.bias", "2.weight", "0.bias", "0.weight"]]


def test_ddp_gradients_are_the_modules_and_no_sync_accumulates():
    ddp, ref = DistributedDataParallel(mlp(), bucket_cap_mb=1e-5), mlp()
    x, y = fgrad.tensor(X), fgrad.tensor(np.array([1, 0]))
    for _ in range(2):
        with ddp.no_sync():
            F.cross_entropy(ddp(x), y).backward()
        assert ddp.bucket_log == [] or ddp.bucket_log[-1] == ("done",)
        F.cross_entropy(ref(x), y).backward()
    F.cross_entropy(ddp(x), y).backward()
    F.cross_entropy(ref(x), y).backward()
    for p, q in zip(ddp.parameters(), ref.parameters()):
        np.testing.assert_allclose(p.grad.numpy(), q.grad.numpy(), rtol=1e-15)


def test_ddp_refuses_a_second_backward_and_an_unused_parameter_and_finds_unused_ones():
    ddp = DistributedDataParallel(mlp())
    loss = F.cross_entropy(ddp(fgrad.tensor(X)), fgrad.tensor(np.array([1, 0])))
    loss.backward(retain_graph=True)
    with pytest.raises(RuntimeError, match=r"'2\.bias' got a gradient after this iteration's gradients were reduced"):
        loss.backward()

    class Two(fgrad.nn.Module):
        def __init__(self):
            super().__init__()
            self.used, self.spare = fgrad.nn.Linear(3, 2), fgrad.nn.Linear(3, 2)

        def forward(self, x):
            return self.used(x)
    strict = DistributedDataParallel(Two())
    with pytest.raises(RuntimeError, match=r"\['spare.weight', 'spare.bias'\] received no gradient.*"
                                           r"find_unused_parameters=True"):
        strict(fgrad.tensor(X)).sum().backward()
    loose = DistributedDataParallel(Two(), find_unused_parameters=True)
    loose(fgrad.tensor(X)).sum().backward()
    assert loose.module.spare.weight.grad is None and loose.module.used.weight.grad is not None
    assert ("ready", "spare.weight") in loose.bucket_log


def test_ddp_checks_what_it_is_given():
    with pytest.raises(TypeError, match=r"fgrad\.nn\.Module"):
        DistributedDataParallel(lambda x: x)
    with pytest.raises(ValueError, match="bucket_cap_mb must be positive"):
        DistributedDataParallel(mlp(), bucket_cap_mb=0)
    frozen = mlp()
    for p in frozen.parameters():
        p.requires_grad_(False)
    with pytest.raises(RuntimeError, match="no parameter that requires grad"):
        DistributedDataParallel(frozen)
    with fgrad.no_grad():
        DistributedDataParallel(mlp())(fgrad.tensor(X))  # (no backward follows: nothing armed)


def test_init_refuses_a_bad_timeout_and_a_launcher_without_mpi4py(monkeypatch):
    with pytest.raises(ValueError, match="must be positive"):
        world._timeout(0)
    with pytest.raises(ValueError, match="number of seconds"):
        world._timeout("soon")
    monkeypatch.setitem(__import__("sys").modules, "mpi4py", None)  # (import mpi4py now fails)
    monkeypatch.setenv("PMI_SIZE", "4")
    with pytest.raises(RuntimeError, match=r"started 4 processes \(PMI_SIZE=4.*pip install 'fgrad\[distributed\]'"):
        world._start(10.0)
    monkeypatch.setenv("PMI_SIZE", "1")
    assert world._start(10.0).kind == "local"


def test_the_agreement_says_what_differs():
    call = agreement.Call("all_reduce", "op='sum'", ("x['w']", "x['b']"))
    base = agreement.signature(4, call, [np.ones(3), np.ones(2)])
    assert str(call) == "all_reduce(op='sum') of 2 leaves"
    d = agreement.digest(base)
    assert 0 <= d < 2 ** 63 and d == agreement.digest(base) != agreement.digest(agreement.signature(5, call, [
        np.ones(3), np.ones(2)]))
    other = agreement.signature(4, call, [np.ones(3), np.ones(5, np.float32)])
    assert agreement.explain([base, base, other]) == ("x['b']: rank 0 has dtype float64 and shape (2,), rank 2 has "
                                                      "dtype float32 and shape (5,)")
    renamed = agreement.signature(4, agreement.Call("all_reduce", "op='sum'", ("x['w']", "x['c']")),
                                  [np.ones(3), np.ones(2)])
    assert "rank 0 has x['b'], which rank 1 has not; rank 1 has x['c'], which rank 0 has not" in \
        agreement.explain([base, renamed])
    bcast = agreement.signature(4, agreement.Call("broadcast", "root=0", ()), [])
    assert agreement.explain([base, bcast]) == ("rank 0 calls all_reduce(op='sum') as its collective #4, rank 1 calls "
                                                "broadcast(root=0) as its collective #4")
    later = agreement.signature(5, call, [np.ones(3), np.ones(2)])
    assert "rank 0 is at its collective #4, rank 1 at its #5" in agreement.explain([base, later])


@pytest.mark.parametrize("module", ["fgrad.distributed.collectives", "fgrad.distributed.world",
                                    "fgrad.distributed.sharded", "fgrad.distributed.optimizers",
                                    "fgrad.distributed.saving", "fgrad.distributed.averaging",
                                    "fgrad.autograd.callbacks", "fgrad.nn.parallel.distributed"])
def test_the_docstring_examples_run(module):
    import doctest
    import importlib
    result = doctest.testmod(importlib.import_module(module))
    assert result.attempted > 0 and result.failed == 0, result
