"""The engine's threads: concurrent backward passes, workers for heavy branches, re-entrant
backward, errors in workers, and the thread-locals a worker takes over from its driver."""
import threading
import traceback
import typing

import numpy as np
import pytest

import fgrad
from fgrad import autograd
from fgrad.engine import threads

BIG = (300, 300)  # 90,000 elements: above threads.HEAVY, so such a node may go to a worker
# The engine's tests run on the CPU and on a second (NumPy-backed) device, whose nodes go to
# that device's worker thread: multi-device scheduling, tested without a GPU.
DEVICES = [pytest.param(fgrad.device("cpu"), id="cpu"),
           pytest.param(fgrad.backend.register_numpy_device(1), id="cpu:1")]


@pytest.fixture
def two_threads():
    before = fgrad.get_num_threads()
    fgrad.set_num_threads(2)
    yield
    fgrad.set_num_threads(before)


class Spy(autograd.Function):
    """The identity; its backward notes the thread it ran on and the grad mode there."""
    seen: typing.ClassVar[list] = []

    @staticmethod
    def forward(ctx, x):
        return x * 1.0

    @staticmethod
    def backward(ctx, g):
        Spy.seen.append((threading.current_thread().name, fgrad.is_grad_enabled()))
        return g


def two_branches(x):
    """Two independent heavy branches of x, summed: once the sums are done both Spy nodes are
    ready, so the second goes to a worker."""
    return Spy.apply(x.tanh()).sum() + Spy.apply(x.sin()).sum()


def two_branches_grad(x):
    return 1 - np.tanh(x) ** 2 + np.cos(x)


def test_set_num_threads_checks_its_argument():
    with pytest.raises(ValueError, match="positive int"):
        fgrad.set_num_threads(0)


@pytest.mark.parametrize("device", DEVICES)
def test_independent_heavy_branches_run_on_a_worker_in_the_drivers_grad_mode(two_threads, device):
    x = fgrad.tensor(device.send(np.random.default_rng(0).standard_normal(BIG)), requires_grad=True)
    worker = "fgrad-cpu_" if device == "cpu" else f"fgrad-{device}_"  # the CPU pool, or the device's worker
    for _ in range(5):  # (on a loaded machine the driver may reach the second branch before a worker wakes)
        Spy.seen.clear()
        x.grad = None
        two_branches(x).backward()
        assert len(Spy.seen) == 2
        if any(name.startswith(worker) for name, _ in Spy.seen):
            break
    assert any(name.startswith(worker) for name, _ in Spy.seen), Spy.seen
    assert all(mode is False for _, mode in Spy.seen)  # backward runs under no_grad, on the worker too
    assert x.grad.device == device
    np.testing.assert_allclose(x.grad.numpy(), two_branches_grad(np.asarray(x.primal)), rtol=1e-12)


def test_small_graphs_stay_on_the_calling_thread(two_threads):
    x = fgrad.tensor(np.ones(4), requires_grad=True)
    Spy.seen.clear()
    two_branches(x).backward()
    assert [name for name, _ in Spy.seen] == [threading.current_thread().name] * 2


def test_one_thread_and_two_give_the_same_gradients():
    x = np.random.default_rng(1).standard_normal(BIG)
    results = []
    for n in (1, 2):
        before = fgrad.get_num_threads()
        fgrad.set_num_threads(n)
        try:
            t = fgrad.tensor(x, requires_grad=True)
            two_branches(t).backward()
            results.append(t.grad.numpy())
        finally:
            fgrad.set_num_threads(before)
    np.testing.assert_array_equal(results[0], results[1])


@pytest.mark.parametrize("device", DEVICES)
def test_eight_threads_sharing_leaves_sum_exactly(two_threads, device):
    w = fgrad.tensor(device.send(np.zeros(5)), requires_grad=True)
    xs = [np.arange(5.0) + k for k in range(8)]  # integers: every order of the sum is exact

    def work(x):
        x = fgrad.tensor(device.send(x))
        for _ in range(200):
            (w * x).sum().backward()
    pool = [threading.Thread(target=work, args=(x,)) for x in xs]
    for t in pool:
        t.start()
    for t in pool:
        t.join()
    assert w.grad.device == device
    np.testing.assert_array_equal(w.grad.numpy(), 200 * np.sum(xs, axis=0))


def test_threads_running_backward_on_separate_graphs(two_threads):
    errors, grads = [], {}

    def work(k):
        try:
            x = fgrad.tensor(np.full(BIG, float(k)), requires_grad=True)
            for _ in range(5):
                x.grad = None
                two_branches(x).backward()
            grads[k] = x.grad.numpy()
        except Exception as exc:  # pragma: no cover  (reported below)
            errors.append(exc)
    pool = [threading.Thread(target=work, args=(k,)) for k in range(4)]
    for t in pool:
        t.start()
    for t in pool:
        t.join()
    assert not errors
    for k, g in grads.items():
        np.testing.assert_allclose(g, np.full(BIG, two_branches_grad(float(k))), rtol=1e-12)


class Reentrant(autograd.Function):
    """y = x ** 2, whose backward computes 2x by a backward pass of its own."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * x

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        with fgrad.enable_grad():
            inner = fgrad.tensor(x.detach().primal, requires_grad=True)
            (d,) = autograd.grad(two_branches(inner) * 0.0 + (inner * inner).sum(), inner)
        return g * d


@pytest.mark.parametrize("device", DEVICES)
def test_reentrant_backward_on_workers_does_not_deadlock(two_threads, device):
    x = fgrad.tensor(device.send(np.random.default_rng(2).standard_normal(BIG)), requires_grad=True)
    loss = Reentrant.apply(x.tanh()).sum() + Reentrant.apply(x.sin()).sum()
    loss.backward()
    xv = np.asarray(x.primal)
    t, s = np.tanh(xv), np.sin(xv)
    assert x.grad.device == device
    np.testing.assert_allclose(x.grad.numpy(), 2 * t * (1 - t * t) + 2 * s * np.cos(xv), rtol=1e-10)


class Fails(Spy):
    """Spy's forward; its backward raises, noting the thread it ran on."""

    started = threading.Event()

    @staticmethod
    def backward(ctx, g):
        Fails.thread = threading.current_thread().name
        Fails.started.set()
        raise ArithmeticError("raised in a backward rule")


class AwaitsFails(Spy):
    """Spy's forward; its backward (on the calling thread) waits until Fails runs on the worker,
    so the engine never takes Fails's node back from a pool slow to start (a loaded machine)."""

    @staticmethod
    def backward(ctx, g):
        Fails.started.wait(timeout=10)
        return g


def test_an_error_in_a_worker_reaches_the_caller_with_its_traceback(two_threads):
    x = fgrad.tensor(np.ones(BIG), requires_grad=True)
    Fails.started.clear()
    loss = AwaitsFails.apply(x.tanh()).sum() + Fails.apply(x.sin()).sum()  # (the second branch goes to a worker)
    with pytest.raises(ArithmeticError, match="raised in a backward rule") as info:
        loss.backward()
    assert Fails.thread.startswith("fgrad-cpu")
    frames = traceback.extract_tb(info.value.__traceback__)
    assert any(f.name == "backward" and f.filename == __file__ for f in frames)  # the rule's own frame
    # the engine is still usable: nothing was left running
    y = fgrad.tensor(np.ones(BIG), requires_grad=True)
    two_branches(y).backward()
    assert y.grad is not None


def test_a_chain_of_100000_nodes_with_threads_on(two_threads):
    x = fgrad.tensor(np.array([0.5]), requires_grad=True)
    y = x
    for _ in range(100_000):
        y = y * 1.0
    y.sum().backward()
    assert x.grad.tolist() == [1.0]


def test_offload_is_off_with_one_thread():
    before = fgrad.get_num_threads()
    fgrad.set_num_threads(1)
    try:
        assert threads.Offload.wanted() is False
    finally:
        fgrad.set_num_threads(before)


def test_fgrad_num_threads_sets_the_default():
    import os
    import subprocess
    import sys
    code = "import fgrad; print(fgrad.get_num_threads())"
    env = dict(os.environ, FGRAD_NUM_THREADS="3")
    assert subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True).stdout.strip() == "3"
    env["FGRAD_NUM_THREADS"] = "0"
    bad = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert bad.returncode != 0 and "FGRAD_NUM_THREADS must be a positive int" in bad.stderr


# ---- the functional transforms: a tape turns into a graph at its first heavy node ----------------
def _spy_vjp(seen):
    @fgrad.custom_vjp
    def spy(x):
        return x * 1.0

    def bwd(res, g):
        seen.append(threading.current_thread().name)
        return (g,)
    spy.defvjp(lambda x: (x * 1.0, None), bwd)
    return spy


def test_grad_runs_independent_heavy_branches_on_a_worker(two_threads):
    import fgrad.numpy as fnp
    seen = []
    spy = _spy_vjp(seen)
    x = np.random.default_rng(3).standard_normal(BIG)

    def f(x):
        return fnp.sum(spy(fnp.tanh(x))) + fnp.sum(spy(fnp.sin(x)))
    g = fgrad.grad(f)(x)
    assert len(seen) == 2 and any(name.startswith("fgrad-cpu_") for name in seen), seen
    np.testing.assert_allclose(g, two_branches_grad(x), rtol=1e-12)
    fgrad.set_num_threads(1)
    seen.clear()
    np.testing.assert_array_equal(fgrad.grad(f)(x), g)
    assert seen == [threading.current_thread().name] * 2


def test_a_tape_of_small_ops_never_counts_dependencies(two_threads, monkeypatch):
    import fgrad.numpy as fnp
    from fgrad.engine import backward
    calls = []
    monkeypatch.setattr(backward, "_count_dependencies", lambda roots: calls.append(1) or {})
    g = fgrad.grad(lambda x: fnp.sum(fnp.tanh(x) @ np.ones((4, 4))))(np.ones((3, 4)))
    assert calls == [] and g.shape == (3, 4)
