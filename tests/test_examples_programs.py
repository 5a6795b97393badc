"""The programs of examples/ (besides digits_cnn, tests/test_examples.py) run with short
settings and compute the right numbers: each test checks a derivative against finite
differences or a closed form, an optimum against a known one, or a reference library."""
import importlib.util
import pathlib

import numpy as np
import pytest

import fgrad
from fgrad.testing import check_grads

EXAMPLES = pathlib.Path(__file__).resolve().parent.parent / "examples"


def _load(name):
    spec = importlib.util.spec_from_file_location(name, EXAMPLES / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_logistic_regression_reaches_scikit_learns_optimum():
    pytest.importorskip("sklearn")
    from sklearn.linear_model import LogisticRegression
    ex = _load("logistic_regression_scipy")
    X, y = ex.load_data()
    l2 = 1e-2
    w0 = np.random.default_rng(0).standard_normal(X.shape[1] + 1) / 10
    check_grads(lambda w: ex.loss(w, X, y, l2), (w0,), order=2, modes=("rev",))
    result = ex.fit(X, y, l2)
    assert result.success and np.linalg.norm(result.jac) < 1e-4
    # scikit-learn minimises C * sum(log loss) + |w|^2 / 2: the same optimum for C = 1 / (n l2)
    reference = LogisticRegression(C=1 / (len(y) * l2), tol=1e-12, max_iter=10_000).fit(X, y)
    np.testing.assert_allclose(result.x[:-1], reference.coef_[0], atol=1e-4)
    np.testing.assert_allclose(result.x[-1], reference.intercept_[0], atol=1e-4)
    assert ex.accuracy(result.x, X, y) > 0.97


def test_gaussian_process_likelihood_and_its_gradient_match_scikit_learn_and_the_fit_is_stationary():
    pytest.importorskip("sklearn")
    from sklearn.gaussian_process import GaussianProcessRegressor
    from sklearn.gaussian_process.kernels import RBF, ConstantKernel, WhiteKernel
    ex = _load("gaussian_process")
    x, y = ex.make_data()
    reference = GaussianProcessRegressor(ConstantKernel() * RBF() + WhiteKernel(), alpha=1e-8).fit(x[:, None], y)
    theta = np.array([0.3, -0.2, -2.0])  # (log l, log s^2, log noise); sklearn's: (log s^2, log l, ...)
    value, grad = fgrad.value_and_grad(ex.negative_log_marginal_likelihood)(theta, x, y)
    ref_value, ref_grad = reference.log_marginal_likelihood(theta[[1, 0, 2]], eval_gradient=True)
    np.testing.assert_allclose(value, -ref_value, rtol=1e-10)
    np.testing.assert_allclose(grad, -ref_grad[[1, 0, 2]], rtol=1e-7)
    check_grads(lambda t: ex.negative_log_marginal_likelihood(t, x, y), (theta,), order=2, modes=("rev", "fwd"))
    result = ex.fit(x, y)
    assert result.success
    # at the optimum scikit-learn's own gradient vanishes too, and its optimiser finds no better point
    _, ref_grad = reference.log_marginal_likelihood(result.x[[1, 0, 2]], eval_gradient=True)
    assert np.abs(ref_grad).max() < 1e-4
    assert result.fun <= -reference.log_marginal_likelihood_value_ + 1e-6
    np.testing.assert_allclose(np.sqrt(np.exp(result.x[2])), 0.1, rtol=0.3)  # the noise it was made with


def test_dp_sgd_per_example_gradients_match_a_loop_and_torch_func_and_training_learns():
    pytest.importorskip("sklearn")
    ex = _load("dp_sgd")
    x, y, _, _ = ex.load_data()
    params, xb, yb = ex.init_params(), x[:8], y[:8]
    grads = ex.per_example_grads(params, xb, yb)
    for i in range(8):
        one = fgrad.grad(ex.example_loss)(params, xb[i], yb[i])
        for k in params:
            np.testing.assert_allclose(grads[k][i], one[k], rtol=1e-12, atol=1e-14)
    check_grads(lambda p: ex.example_loss(p, xb[0], yb[0]), (params,), order=1, modes=("rev",))
    torch = pytest.importorskip("torch")

    def torch_loss(p, xi, one_hot):  # (torch's vmap cannot index by a batched label: a one-hot instead)
        logits = torch.tanh(xi @ p["W1"] + p["b1"]) @ p["W2"] + p["b2"]
        return torch.logsumexp(logits, 0) - (logits * one_hot).sum()

    tparams = {k: torch.tensor(v) for k, v in params.items()}
    tgrads = torch.func.vmap(torch.func.grad(torch_loss), in_dims=(None, 0, 0))(tparams, torch.tensor(xb),
                                                                               torch.tensor(np.eye(10)[yb]))
    for k in params:
        np.testing.assert_allclose(grads[k], tgrads[k].numpy(), rtol=1e-10, atol=1e-13)
    # without noise, the private gradient is the mean of gradients each clipped to norm <= clip
    clip = 0.05
    private = ex.clip_and_noise(grads, clip, 0.0, np.random.default_rng(0))
    norms = [np.sqrt(sum(np.sum(grads[k][i] ** 2) for k in params)) for i in range(8)]
    assert max(norms) > clip  # (so clipping acts)
    for k in params:
        expected = sum(grads[k][i] * min(1.0, clip / norms[i]) for i in range(8)) / 8
        np.testing.assert_allclose(private[k], expected, rtol=1e-12, atol=1e-15)
    _, losses, test_accuracy = ex.train(steps=150)
    assert np.mean(losses[-10:]) < 0.3 * np.mean(losses[:10]) and test_accuracy > 0.8


def test_hessian_free_newton_products_are_the_closed_form_hessians_and_it_reaches_the_minimum():
    import scipy.optimize
    ex = _load("hessian_free_newton")
    rng = np.random.default_rng(0)
    x, v = rng.standard_normal(7), rng.standard_normal(7)
    value, hv = fgrad.hvp(ex.rosenbrock, (x,), (v,))
    np.testing.assert_allclose(value, scipy.optimize.rosen(x), rtol=1e-14)
    np.testing.assert_allclose(hv, scipy.optimize.rosen_hess(x) @ v, rtol=1e-12, atol=1e-10)  # its closed form
    x, history, products = ex.newton_cg(ex.rosenbrock, np.zeros(20))
    np.testing.assert_allclose(x, np.ones(20), atol=1e-8)
    assert history[-1] < 1e-16 and len(history) < 120 and products < 600
    assert history[-2] < 1e-6 * history[-4]  # the last steps converge fast (Newton's, not gradient descent's)


def test_neural_ode_adjoint_gradient_matches_finite_differences_and_training_fits():
    ex = _load("neural_ode")
    t, y_true = ex.make_trajectory(n_times=6)
    params = ex.init_params(hidden=4)

    def tight(p):  # a tight solver, so that finite differences see the ODE's derivative, not the solver's steps
        return ex.loss(p, y_true[0], t, y_true, rtol=1e-10, atol=1e-10)

    check_grads(tight, (params,), order=1, modes=("rev",), eps=1e-5, rtol=1e-5, atol=1e-7)
    _, losses = ex.train(steps=40, n_times=10, progress=False)
    assert losses[-1] < 0.4 * losses[0]  # measured: 1.75 -> 0.56


def test_lstm_forecaster_trains_as_torch_does_step_for_step_and_learns():
    ex = _load("lstm_forecast")
    result = ex.train(epochs=1, n_train=1024, progress=False)
    assert result["test_mse"][1] < 0.2 * result["test_mse"][0]  # measured: 0.51 -> 0.052
    torch = pytest.importorskip("torch")
    torch.set_num_threads(1)

    class TorchForecaster(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.lstm = torch.nn.LSTM(1, 32, batch_first=True)
            self.head = torch.nn.Linear(32, 1)

        def forward(self, x):
            return self.head(self.lstm(x)[0][:, -1])

    fgrad.manual_seed(0)
    model, tmodel = ex.Forecaster(), TorchForecaster().double()
    with torch.no_grad():
        for name, p in tmodel.named_parameters():
            p.copy_(torch.tensor(model.state_dict()[name].numpy()))
    x, y = ex.make_data(6 * 32)
    x, y = x.astype(np.float64), y.astype(np.float64)
    optimizer = fgrad.optim.Adam(model.parameters(), lr=1e-2)
    toptimizer = torch.optim.Adam(tmodel.parameters(), lr=1e-2)
    for i in range(6):
        xb, yb = x[32 * i:32 * (i + 1)], y[32 * i:32 * (i + 1)]
        loss = ex.train_step(model, optimizer, fgrad.tensor(xb), fgrad.tensor(yb), max_norm=0.1)
        toptimizer.zero_grad()
        tloss = torch.nn.functional.mse_loss(tmodel(torch.tensor(xb)), torch.tensor(yb))
        tloss.backward()
        torch.nn.utils.clip_grad_norm_(tmodel.parameters(), 0.1)  # (small: so that clipping acts)
        toptimizer.step()
        assert abs(loss - tloss.item()) <= 1e-10 * abs(tloss.item()), (i, loss, tloss.item())
    for name, p in tmodel.named_parameters():
        np.testing.assert_allclose(model.state_dict()[name].numpy(), p.detach().numpy(), rtol=1e-9, atol=1e-12)


def test_implicit_fixed_point_gradient_equals_unrolling_and_finite_differences_and_training_fits():
    ex = _load("implicit_fixed_point")
    params, (x, y) = ex.init_params(), ex.make_data(n=16)
    inner = {k: params[k] for k in ("W", "U", "b")}
    z = ex.fixed_point(ex.layer, inner, x)
    np.testing.assert_allclose(ex.layer(inner, x, z), z, atol=1e-11)  # a fixed point
    implicit = fgrad.grad(ex.loss)(params, x, y)

    def unrolled_loss(p):  # differentiated through 200 iterations (contraction 0.5: converged far below 1e-12)
        return np.mean((ex.unrolled(ex.layer, {k: p[k] for k in ("W", "U", "b")}, x) @ p["V"] - y) ** 2)

    for k, g in fgrad.grad(unrolled_loss)(params).items():
        np.testing.assert_allclose(implicit[k], g, rtol=1e-9, atol=1e-12)
    check_grads(lambda p: ex.loss(p, x, y), (params,), order=1, modes=("rev",))
    d_x = fgrad.grad(lambda x: fgrad.numpy.sum(ex.fixed_point(ex.layer, inner, x) ** 2))(x)  # the input's cotangent
    check_grads(lambda x: fgrad.numpy.sum(ex.fixed_point(ex.layer, inner, x) ** 2), (x,), order=1, modes=("rev",))
    assert np.abs(d_x).max() > 0.1
    _, losses = ex.train(steps=100)
    assert losses[-1] < 0.15 * losses[0]  # measured: 0.34 -> 0.020


def test_projectile_gradient_through_400_compiled_steps_matches_the_closed_form_and_hits_the_target():
    ex = _load("projectile_compile")
    target, v0 = np.array([60.0, 5.0]), np.array([20.0, 15.0])
    # without drag, semi-implicit Euler's position after N steps is v0 N dt + g dt^2 N (N + 1) / 2, exactly
    N, dt = 400, 0.01
    final = v0 * N * dt + ex.GRAVITY * dt ** 2 * N * (N + 1) / 2
    value, grad = ex.miss_and_grad(v0, target, 0.0, N, dt)
    np.testing.assert_allclose(value, np.sum((final - target) ** 2), rtol=1e-12)
    np.testing.assert_allclose(grad, 2 * (final - target) * N * dt, rtol=1e-11)
    # with drag: the compiled program against the uncompiled transform and against finite differences
    value, grad = ex.miss_and_grad(v0, target, 0.02, N, dt)
    plain = fgrad.value_and_grad(ex.miss)(v0, target, 0.02, N, dt)
    np.testing.assert_allclose(value, plain[0], rtol=1e-13)
    np.testing.assert_allclose(grad, plain[1], rtol=1e-12)
    check_grads(lambda v: ex.miss(v, target, 0.02, N, dt), (v0,), order=1, modes=("rev", "fwd"))
    velocity, misses = ex.aim(target)
    assert np.linalg.norm(ex.simulate(velocity)[-1] - target) < 1e-4 and len(misses) < 40
    assert ex.miss_and_grad.cache_info().traces == 2  # drag 0.0 and 0.02: then replays only


def test_complex_deconvolution_gradient_is_jaxs_and_the_conjugate_of_torchs_and_descent_reaches_wiener():
    ex = _load("complex_deconvolution")
    y, K, _ = ex.make_problem(n=32)
    lam = 0.05
    z = y + 0.1 * np.exp(1j * np.arange(32.0))
    g = fgrad.grad(ex.loss)(z, y, K, lam)
    # JAX's convention by hand: dL/dx - i dL/dy, by central differences along the real and imaginary axes
    def along(direction, h=1e-6):
        return np.array([(ex.loss(z + h * direction * e, y, K, lam) - ex.loss(z - h * direction * e, y, K, lam))
                         / (2 * h) for e in np.eye(32)])
    np.testing.assert_allclose(g, along(1.0) - 1j * along(1j), rtol=1e-6, atol=1e-8)
    check_grads(lambda z: ex.loss(z, y, K, lam), (z,), order=1, modes=("rev", "fwd"))
    torch = pytest.importorskip("torch")
    tz = torch.tensor(z, requires_grad=True)
    tloss = ((torch.fft.ifft(torch.fft.fft(tz) * torch.tensor(K)) - torch.tensor(y)).abs() ** 2).sum() \
        + lam * (tz.abs() ** 2).sum()
    tloss.backward()
    np.testing.assert_allclose(np.conj(g), tz.grad.numpy(), rtol=1e-10, atol=1e-12)  # torch's is the conjugate
    fz = fgrad.tensor(z, requires_grad=True)  # and fgrad's Tensor face gives torch's
    ex.loss(fz, y, K, lam).backward()
    np.testing.assert_allclose(fz.grad.numpy(), tz.grad.numpy(), rtol=1e-10, atol=1e-12)
    y, K, _ = ex.make_problem()
    z, losses = ex.deconvolve(y, K, lam)
    np.testing.assert_allclose(z, ex.closed_form(y, K, lam), atol=1e-6)  # measured: 1.2e-7
    assert losses[-1] < losses[0]


def _adam_reference(ex, steps, batch_size=64, lr=1e-2, seed=0):
    """examples/data_parallel.py's training, by hand on one process: torch's Adam on the whole batch."""
    X, Y = ex.make_data()
    params, order, losses = ex.init_params(seed), np.random.default_rng(seed).permutation(len(X)), []
    m = {k: np.zeros_like(v) for k, v in params.items()}
    v = {k: np.zeros_like(v) for k, v in params.items()}
    for i in range(steps):
        batch = order[(i * batch_size) % len(X):][:batch_size]
        value, grads = fgrad.value_and_grad(ex.loss)(params, X[batch], Y[batch])
        losses.append(float(value))
        for k in params:
            m[k] = 0.9 * m[k] + 0.1 * grads[k]
            v[k] = 0.999 * v[k] + 0.001 * grads[k] ** 2
            params[k] = params[k] - lr * (m[k] / (1 - 0.9 ** (i + 1))) / (np.sqrt(v[k] / (1 - 0.999 ** (i + 1))) + 1e-8)
    return params, losses


def test_data_parallel_alone_trains_as_adam_on_the_whole_batch():
    ex = _load("data_parallel")
    params, losses = ex.train(steps=30)
    ref_params, ref_losses = _adam_reference(ex, 30)
    np.testing.assert_allclose(losses, ref_losses, rtol=1e-12)
    for k in params:
        np.testing.assert_allclose(params[k], ref_params[k], rtol=1e-10, atol=1e-13)
    assert np.mean(losses[-5:]) < 0.8 * np.mean(losses[:5])


def test_data_parallel_on_2_ranks_gives_the_single_process_numbers():  # (0.7 s where mpiexec runs)
    import re

    from .distributed.harness import mpirun, needs_mpi
    needs_mpi()
    rc, output, _ = mpirun(2, str(EXAMPLES / "data_parallel.py"))
    assert rc == 0, output
    # (non-greedy: the two ranks' lines may arrive joined, without the newline between them)
    found = re.findall(r"rank (\d) of 2: .*?final loss ([-\d.e]+), sum of W2 ([-\d.e]+)", output)
    assert sorted(r for r, _, _ in found) == ["0", "1"], output
    ref_params, ref_losses = _adam_reference(_load("data_parallel"), 100)
    for _, final, w2 in found:  # the mean of two half-batch means: the whole batch's, up to rounding
        np.testing.assert_allclose(float(final), ref_losses[-1], rtol=1e-9)
        np.testing.assert_allclose(float(w2), np.sum(ref_params["W2"]), rtol=1e-9)


SCRIPTS = [
    ("logistic_regression_scipy", r"train accuracy 0\.98"),
    ("gaussian_process", r"noise std 0\.1"),
    ("dp_sgd", r"test accuracy 0\.9"),
    ("hessian_free_newton", r"max \|x - 1\| = \d\.\d\de-1[45]"),
    ("implicit_fixed_point", r"loss 0\.3423 -> 0\.0142"),
    ("projectile_compile", r"by \d\.\de-1\d m"),
    ("complex_deconvolution", r"\|z - closed form\| \d\.\de-0[7-9]"),
    ("data_parallel", r"rank 0 of 1: loss 1\.0572 -> 0\.4014"),
]


@pytest.mark.parametrize("name, printed", SCRIPTS, ids=[name for name, _ in SCRIPTS])
def test_the_quick_programs_run_as_scripts_and_print_what_their_docstrings_say(name, printed):
    import re
    import subprocess
    import sys
    if name in ("logistic_regression_scipy", "dp_sgd"):
        pytest.importorskip("sklearn")
    out = subprocess.run([sys.executable, str(EXAMPLES / f"{name}.py")], capture_output=True, text=True, timeout=120,
                         cwd=EXAMPLES.parent)
    assert out.returncode == 0, out.stderr
    assert re.search(printed, out.stdout), out.stdout
