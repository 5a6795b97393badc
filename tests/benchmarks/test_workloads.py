"""Each benchmark workload, at small sizes: fgrad's result equals the NumPy reference.

Not a timing. It reuses benchmarks/workloads.py, the definitions that
`python -m benchmarks` times, and needs none of the peers.
"""
import importlib.util
import os
import subprocess
import sys

import numpy as np
import pytest

from benchmarks import checked, floor
from benchmarks import workloads as wl

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CASES = [case for key in wl.WORKLOADS for case in wl.make_cases(key, "test")]


@pytest.mark.parametrize("case", CASES, ids=[c.label for c in CASES])
def test_fgrad_matches_numpy_reference(case):
    """Both faces: the functional transforms and the Tensor face (where it applies)."""
    for impl in wl.fgrad_impls():
        if case.only is not None and impl.name not in case.only:
            continue
        run = impl.setup(case)
        if isinstance(run, str):  # not applicable to this workload
            continue
        got = run()
        got = [np.asarray(g) for g in got] if isinstance(got, (list, tuple)) else np.asarray(got)
        err = wl.check_close(got, case.reference_for(impl.name), case.rtol, case.atol)
        assert err is None, f"{case.label} ({impl.name}): {err}"


@pytest.mark.parametrize("case", CASES, ids=[c.label for c in CASES])
def test_tape_floor_matches_numpy_reference(case):
    # The floor row (benchmarks/floor.py) is timed beside fgrad, so it must compute the same thing.
    (impl,) = floor.floor_impls()
    run = impl.setup(case)
    if isinstance(run, str):
        assert case.workload not in ("W1", "W4", "W5"), run
        return
    err = wl.check_close(np.asarray(run()), case.reference, case.rtol, case.atol)
    assert err is None, f"{case.label} (tape floor): {err}"


def test_tape_floor_leaves_no_state_behind():
    # One grad at a time, but an exception inside must not leave its tape or value kind set.
    with pytest.raises(ZeroDivisionError):
        floor.grad(lambda v: floor.m.sin(v) * (1 / 0), np.ones(3))
    assert not floor._tape and floor._values is floor._ArrayValues
    np.testing.assert_allclose(floor.grad(lambda v: floor.m.sum(v * v), np.arange(3.0)), [0.0, 2.0, 4.0])


@pytest.mark.parametrize("case", CASES, ids=[c.label for c in CASES])
def test_checked_tape_matches_numpy_reference(case):
    # The checked row (benchmarks/checked.py) is timed beside fgrad too.
    (impl,) = checked.checked_impls()
    run = impl.setup(case)
    if isinstance(run, str):
        assert case.workload not in ("W1", "W5"), run
        return
    err = wl.check_close(np.asarray(run()), case.reference, case.rtol, case.atol)
    assert err is None, f"{case.label} (checked tape): {err}"


def test_checked_tape_makes_its_checks():
    m = checked.m
    # Broadcasting against a constant is undone, and a dtype change is fitted back.
    np.testing.assert_allclose(checked.grad(lambda v: m.sum(v * np.ones((2, 3))), np.arange(3.0)), [2.0, 2.0, 2.0])
    g = checked.grad(lambda v: m.sum(v * np.ones(3)), np.ones(3, np.float32))
    assert g.dtype == np.float32
    # A traced value that escapes its grad raises, naming the op; nothing stays current.
    leaked = []
    checked.grad(lambda v: leaked.append(v) or m.sum(v), np.ones(2))
    with pytest.raises(TypeError, match=r"sin got a traced value .* already returned"):
        m.sin(leaked[0])
    assert checked._state.trace is None
    with pytest.raises(TypeError, match="floating-point"):
        checked.grad(m.sum, np.arange(3))
    with pytest.raises(TypeError, match="scalar"):
        checked.grad(lambda v: v * 2.0, np.ones(3))


@pytest.mark.parametrize("case", CASES, ids=[c.label for c in CASES])
def test_numpy_implementations_are_the_reference(case):
    for impl in wl.numpy_impls():
        run = impl.setup(case)
        if run is not None:
            assert wl.check_close(run(), case.reference_for(impl.name)) is None, impl.name


def test_every_workload_has_small_cases():
    assert {c.workload for c in CASES} == set(wl.WORKLOADS)


@pytest.mark.parametrize("key", ["W1", "W5"])
def test_hand_written_chain_matches_finite_differences(key):
    # The references themselves are hand-written: check them against central differences.
    case = wl.make_cases(key, "test")[0]
    eps = 1e-6
    if key == "W1":
        x = case.data["x"]
        f = lambda x: float(np.sum(wl.w1_loss(x, np)))  # noqa: E731
        fd = np.array([(f(x + eps * e) - f(x - eps * e)) / (2 * eps) for e in np.eye(x.size)])
        np.testing.assert_allclose(case.reference, fd, rtol=1e-5, atol=1e-9)
    else:
        n = case.data["n_ops"]
        f = lambda x: wl.w5_chain(np.float64(x), np, n)  # noqa: E731
        x = case.data["x"]
        np.testing.assert_allclose(case.reference, (f(x + eps) - f(x - eps)) / (2 * eps), rtol=1e-6)


def test_mlp_reference_matches_finite_differences():
    case = wl.make_cases("W2", "test")[0]
    d = case.data
    args = [d[k] for k in ("W1", "b1", "W2", "b2")]
    eps = 1e-6
    rng = np.random.default_rng(0)
    for i, ref in enumerate(case.reference):
        for _ in range(3):
            idx = tuple(rng.integers(0, s) for s in args[i].shape)
            plus, minus = [a.copy() for a in args], [a.copy() for a in args]
            plus[i][idx] += eps
            minus[i][idx] -= eps
            fd = (wl.mlp_loss(*plus, d["X"], d["Y"], np) - wl.mlp_loss(*minus, d["X"], d["Y"], np)) / (2 * eps)
            np.testing.assert_allclose(ref[idx], fd, rtol=1e-5, atol=1e-9)


def test_per_example_reference_matches_finite_differences():
    # W7's hand-written per-example gradients, entry by entry, against each example's own loss.
    (case,) = wl.make_cases("W7", "test")
    d = case.data
    params = [d[k] for k in wl.W7_PARAMS]
    eps = 1e-6
    rng = np.random.default_rng(1)
    for b in (0, d["X"].shape[0] - 1):
        loss = lambda ps: wl.per_example_loss(ps, d["X"][b], d["y"][b], np)  # noqa: E731
        for i, ref in enumerate(case.reference):
            assert ref.shape == (d["X"].shape[0],) + params[i].shape
            for _ in range(3):
                idx = tuple(rng.integers(0, s) for s in params[i].shape)
                plus, minus = [a.copy() for a in params], [a.copy() for a in params]
                plus[i][idx] += eps
                minus[i][idx] -= eps
                np.testing.assert_allclose(ref[(b,) + idx], (loss(plus) - loss(minus)) / (2 * eps),
                                           rtol=1e-5, atol=1e-9)


_EVERY_IMPL = """
import sys
from benchmarks import env as benv
benv.pin_threads()
from benchmarks import checked, floor, peers
from benchmarks import workloads as wl
(case,) = wl.make_cases(sys.argv[1], "test")
ran, bad = [], []
for impl in wl.numpy_impls() + floor.floor_impls() + checked.checked_impls() + wl.fgrad_impls() + peers.peer_impls():
    module = peers.PEER_MODULES.get(impl.name)
    if module is not None and peers.import_status(module):
        continue
    fn = impl.setup(case)
    if fn is None or isinstance(fn, str):
        continue
    err = wl.check_close(peers.to_numpy(fn()), case.reference, rtol=1e-10, atol=1e-12)
    (bad if err else ran).append(f"{impl.name}: {err}" if err else impl.name)
print(",".join(ran))
assert not bad, bad
"""


def test_every_installed_implementation_matches_numpy_on_w7():
    # The peers, in a process of their own with the benchmark environment (as the worker runs
    # them), so this process imports none of them (and JAX's x64 flag stays out of the suite).
    from benchmarks import env as benv
    proc = subprocess.run([sys.executable, "-c", _EVERY_IMPL, "W7"], cwd=REPO, env=benv.subprocess_env(REPO),
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    ran = proc.stdout.strip().splitlines()[-1].split(",")
    assert {"numpy", "fgrad"} <= set(ran), ran
    for peer in ("torch.func", "jax", "jax.jit"):
        module = {"torch.func": "torch"}.get(peer, "jax")
        assert peer in ran or importlib.util.find_spec(module) is None, ran


def test_second_order_references_match_finite_differences():
    (case,) = wl.make_cases("W3", "test")
    x = case.data["x"]
    grad = lambda x: np.array([(wl.rosenbrock(x + 1e-6 * e, np) - wl.rosenbrock(x - 1e-6 * e, np)) / 2e-6  # noqa: E731
                               for e in np.eye(x.size)])
    H = np.array([(grad(x + 1e-4 * e) - grad(x - 1e-4 * e)) / 2e-4 for e in np.eye(x.size)])
    np.testing.assert_allclose(case.reference, H, rtol=1e-4, atol=1e-3)

    (case,) = wl.make_cases("W4", "test")
    A, x, v = case.data["A"], case.data["x"], case.data["v"]
    g = lambda x: 2 * A.T @ (np.tanh(A @ x) * (1 - np.tanh(A @ x) ** 2))  # noqa: E731
    np.testing.assert_allclose(case.reference, (g(x + 1e-6 * v) - g(x - 1e-6 * v)) / 2e-6, rtol=1e-5, atol=1e-8)


def test_check_close_rejects_wrong_values():
    ref = np.array([1e-7, -2e-7])
    assert wl.check_close(ref * (1 + 1e-9), ref) is None
    assert wl.check_close(np.zeros(2), ref) is not None          # a zero gradient is not a tiny one
    assert wl.check_close(ref[:1], ref) is not None              # shape
    assert wl.check_close([ref, ref], ref) is not None           # number of outputs
    assert wl.check_close(np.array([np.nan, 0.0]), ref) is not None


def test_workloads_import_no_peer():
    code = ("import sys, benchmarks.workloads as w\n"
            "[w.make_cases(k, 'test') for k in w.WORKLOADS]\n"
            "bad = {'torch', 'autograd', 'mygrad', 'jax'} & set(sys.modules)\n"
            "assert not bad, bad\n")
    subprocess.run([sys.executable, "-c", code], cwd=REPO, check=True, timeout=60)
