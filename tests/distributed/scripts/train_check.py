"""Run by tests/distributed/test_distributed_mpi.py: `train_check.py train CKPT` under
`mpiexec -n 2` (and on its own, a world of one), then `train_check.py resume CKPT` under
`mpiexec -n 3` and on its own.

train: a small MLP trained data-parallel for 20 steps, each rank on its shard of a global batch
of 12, against one process training on the whole batch, step for step to 1e-12: the
functional face (data_parallel, eager and compiled, with SGD momentum and with ZeRO-1 Adam,
its gradients reduced first or reduce-scattered), and the imperative face
(DistributedDataParallel with several buckets, whose first all-reduce starts before backward
has finished); no_sync; find_unused_parameters; the ranks' parameters broadcast from rank 0.
After 10 ZeRO steps, rank 0 writes a checkpoint. resume: read it, on any number of ranks, and
go on for the last 10 steps, to the same numbers. Prints `train ok on rank r of n: k checks`.
"""
import sys

import numpy as np

import fgrad
import fgrad.distributed as dist
import fgrad.numpy as fnp
from fgrad.nn import functional as F
from fgrad.nn.parallel import DistributedDataParallel

MODE, CKPT = sys.argv[1], sys.argv[2]
dist.init(timeout=60)
R, N = dist.rank(), dist.world_size()
B, D, H, K, STEPS = 12, 20, 16, 5, 20
CHECKS = [0]
rng = np.random.default_rng(0)
X = rng.standard_normal((STEPS, B, D))
LABELS = rng.integers(0, K, size=(STEPS, B))
Y = np.eye(K)[LABELS]


def shard(a):
    """This rank's rows of a global batch (equal shards: 12 divides among 1, 2, 3 ranks)."""
    return a[R * B // N:(R + 1) * B // N]


def close(got, want, what, rtol=1e-12, atol=1e-13):
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=rtol, atol=atol, err_msg=f"rank {R}: {what}")
    CHECKS[0] += 1


def close_trees(got, want, what):
    for k in want:
        close(got[k], want[k], f"{what}[{k!r}]")


def loss(params, x, y):
    h = fnp.tanh(x @ params["W1"] + params["b1"])
    z = h @ params["W2"] + params["b2"]
    zs = z - fnp.max(z, axis=1, keepdims=True)
    return -fnp.sum(y * (zs - fnp.log(fnp.sum(fnp.exp(zs), axis=1, keepdims=True)))) / x.shape[0]


def init_params():
    r = np.random.default_rng(1)
    return {"W1": r.standard_normal((D, H)) / np.sqrt(D), "b1": 0.1 * r.standard_normal(H),
            "W2": r.standard_normal((H, K)) / np.sqrt(H), "b2": 0.1 * r.standard_normal(K)}


vg = fgrad.value_and_grad(loss)


def sgd_momentum(params, grads, bufs, lr=0.1, momentum=0.9):
    for k in params:
        bufs[k] = grads[k].copy() if k not in bufs else momentum * bufs[k] + grads[k]
        params[k] -= lr * bufs[k]


def flat(tree):
    return np.concatenate([np.ravel(tree[k]) for k in ("W1", "b1", "W2", "b2")])


def adam_reference(steps):
    """Adam on the whole batch, in one process: params after each step."""
    rule, params = dist.adam(lr=0.01), flat(init_params())
    state, out = rule.init(params), []
    for k in range(steps):
        _, g = vg(_unflat(params), X[k], Y[k])
        params, state = rule.update(params, flat(g), state)
        out.append(params)
    return out


def _unflat(v):
    shapes, out, i = {"W1": (D, H), "b1": (H,), "W2": (H, K), "b2": (K,)}, {}, 0
    for k, s in shapes.items():
        n = int(np.prod(s))
        out[k], i = v[i:i + n].reshape(s), i + n
    return out


def functional_face():
    for compiled in (False, True):
        step = dist.data_parallel(vg)
        step = fgrad.compile(step) if compiled else step
        params, ref, bufs, ref_bufs = init_params(), init_params(), {}, {}
        if R > 0 and not compiled:
            for v in params.values():
                v += 0.5  # (the first step overwrites them with rank 0's, in place)
        for k in range(STEPS):
            value, grads = step(params, shard(X[k]), shard(Y[k]))
            ref_value, ref_grads = vg(ref, X[k], Y[k])
            close(value, ref_value, f"data_parallel loss, step {k}, compiled={compiled}")
            close_trees(grads, ref_grads, f"data_parallel grads, step {k}, compiled={compiled}")
            sgd_momentum(params, grads, bufs)
            sgd_momentum(ref, ref_grads, ref_bufs)
        close_trees(params, ref, f"data_parallel params after {STEPS} steps, compiled={compiled}")


def zero_step(opt, dp, params, state, k, reduced):
    if reduced:
        _, grads = dp(params, shard(X[k]), shard(Y[k]))
    else:
        _, grads = vg(params, shard(X[k]), shard(Y[k]))  # (this rank's own: the optimizer reduce-scatters)
    return opt.update(grads, state, params, reduced=reduced)


def zero_face():
    ref = adam_reference(STEPS)
    opt = dist.ShardedOptimizer(dist.adam(lr=0.01))
    for reduced in (True, False):
        dp, params = dist.data_parallel(vg), init_params()
        state = opt.init(params)
        assert state["exp_avg"].size == -(-flat(params).size // N), "each rank keeps one shard of the state"
        for k in range(STEPS if not reduced else STEPS // 2):
            params, state = zero_step(opt, dp, params, state, k, reduced)
            close(flat(params), ref[k], f"ZeRO-1 params, step {k}, reduced={reduced}")
        if reduced:
            dist.save({"params": params, "opt": opt.state_dict(state, params), "step": STEPS // 2}, CKPT)
    compiled = fgrad.compile(lambda p, s, x, y: opt.update(dist.data_parallel(vg)(p, x, y)[1], s, p))
    params = init_params()
    state = opt.init(params)
    for k in range(4):
        params, state = compiled(params, state, shard(X[k]), shard(Y[k]))
        close(flat(params), ref[k], f"compiled ZeRO-1 step {k}")


def resume():
    ref = adam_reference(STEPS)
    ckpt = dist.load(CKPT)
    opt = dist.ShardedOptimizer(dist.adam(lr=0.01))
    params, dp = ckpt["params"], dist.data_parallel(vg)
    state = opt.load_state_dict(ckpt["opt"], params)
    for k in range(ckpt["step"], STEPS):
        params, state = zero_step(opt, dp, params, state, k, reduced=True)
        close(flat(params), ref[k], f"resumed on {N} ranks, step {k}")


class Probe(fgrad.nn.Module):
    """The identity, whose output's gradient hook notes what the reducer has done by then:
    it runs while backward still has the first layer's nodes to walk."""

    def __init__(self):
        super().__init__()
        self.reducer, self.seen = None, []

    def forward(self, h):
        if self.reducer is not None:
            h.register_hook(lambda g: self.seen.append(list(self.reducer.log)))
        return h


def mlp(probe=None):
    fgrad.manual_seed(0)
    layers = [fgrad.nn.Linear(D, H), fgrad.nn.Tanh(), fgrad.nn.Linear(H, K)]
    return fgrad.nn.Sequential(*(layers[:1] + [probe] + layers[1:] if probe is not None else layers))


def imperative_face():
    probe = Probe()
    model, ref = mlp(probe), mlp()
    if R > 0:
        for p in model.parameters():
            p.primal += 0.5  # (DistributedDataParallel makes them rank 0's)
    ddp = DistributedDataParallel(model, bucket_cap_mb=0.0005)  # (512 bytes: a bucket per parameter or two)
    assert len(ddp.buckets) >= 3, ddp.buckets
    probe.reducer = ddp.reducer
    opt = fgrad.optim.SGD(ddp.parameters(), lr=0.1, momentum=0.9)
    ref_opt = fgrad.optim.SGD(ref.parameters(), lr=0.1, momentum=0.9)
    for k in range(STEPS):
        opt.zero_grad()
        F.cross_entropy(ddp(fgrad.tensor(shard(X[k]))), fgrad.tensor(shard(LABELS[k]))).backward()
        ref_opt.zero_grad()
        F.cross_entropy(ref(fgrad.tensor(X[k])), fgrad.tensor(LABELS[k])).backward()
        for (name, p), q in zip(model.named_parameters(), ref.parameters()):
            close(p.grad.numpy(), q.grad.numpy(), f"DDP grad {name}, step {k}")
        # overlap: the first bucket's all-reduce had started when backward still had the first
        # layer to walk; every bucket had started by the end
        assert ("start", 0) in probe.seen[-1] and ("ready", "0.weight") not in probe.seen[-1], probe.seen[-1]
        assert [e for e in ddp.bucket_log if e[0] == "start"] == [("start", i) for i in range(len(ddp.buckets))]
        CHECKS[0] += 2
        opt.step()
        ref_opt.step()
    for (name, p), q in zip(model.named_parameters(), ref.parameters()):
        close(p.detach().numpy(), q.detach().numpy(), f"DDP {name} after {STEPS} steps")
    return ddp, ref


def no_sync(ddp, ref):
    ddp.zero_grad()
    ref.zero_grad()
    x1, x2, y1, y2 = X[0], X[1], LABELS[0], LABELS[1]
    with ddp.no_sync():
        F.cross_entropy(ddp(fgrad.tensor(shard(x1))), fgrad.tensor(shard(y1))).backward()
    local = mlp()
    for p, q in zip(local.parameters(), ddp.module.parameters()):
        p.primal[...] = q.primal
    F.cross_entropy(local(fgrad.tensor(shard(x1))), fgrad.tensor(shard(y1))).backward()
    for p, q in zip(ddp.module.parameters(), local.parameters()):
        close(p.grad.numpy(), q.grad.numpy(), "under no_sync the gradient stays this rank's own")
    F.cross_entropy(ddp(fgrad.tensor(shard(x2))), fgrad.tensor(shard(y2))).backward()
    F.cross_entropy(ref(fgrad.tensor(x1)), fgrad.tensor(y1)).backward()
    F.cross_entropy(ref(fgrad.tensor(x2)), fgrad.tensor(y2)).backward()
    for p, q in zip(ddp.module.parameters(), ref.parameters()):
        close(p.grad.numpy(), q.grad.numpy(), "no_sync then a synced backward: the mean of the accumulated sums")


class Branchy(fgrad.nn.Module):
    """a on every rank, b on rank 0 only, c on none."""

    def __init__(self):
        super().__init__()
        fgrad.manual_seed(3)
        self.a, self.b, self.c = fgrad.nn.Linear(D, K), fgrad.nn.Linear(D, K), fgrad.nn.Linear(D, K)

    def forward(self, x, rank):
        out = self.a(x)
        return out + self.b(x) if rank == 0 else out


def unused_parameters():
    ddp = DistributedDataParallel(Branchy(), find_unused_parameters=True)
    F.cross_entropy(ddp(fgrad.tensor(shard(X[2])), R), fgrad.tensor(shard(LABELS[2]))).backward()
    ref, grads = Branchy(), {}
    for r in range(N):  # every rank's loss, from the shards (each rank can make all of them)
        ref.zero_grad()
        rows = slice(r * B // N, (r + 1) * B // N)
        F.cross_entropy(ref(fgrad.tensor(X[2][rows]), r), fgrad.tensor(LABELS[2][rows])).backward()
        for name, p in ref.named_parameters():
            if p.grad is not None:
                grads[name] = grads.get(name, 0) + p.grad.numpy() / N
    for name, p in ddp.module.named_parameters():
        if name.startswith("c."):
            assert p.grad is None, f"rank {R}: {name} is used by no rank, its .grad stays None"
            CHECKS[0] += 1
        else:
            close(p.grad.numpy(), grads[name], f"find_unused_parameters: {name}")
    strict = DistributedDataParallel(Branchy())
    try:
        F.cross_entropy(strict(fgrad.tensor(shard(X[2])), 0), fgrad.tensor(shard(LABELS[2]))).backward()
    except RuntimeError as e:
        assert "c.weight" in str(e) and "find_unused_parameters=True" in str(e), e
        CHECKS[0] += 1
    else:
        raise AssertionError(f"rank {R}: a parameter no rank used did not raise")
    dist.barrier()


if MODE == "train":
    functional_face()
    zero_face()
    no_sync(*imperative_face())
    unused_parameters()
else:
    resume()
print(f"{MODE} ok on rank {R} of {N}: {CHECKS[0]} checks", flush=True)
