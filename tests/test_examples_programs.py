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
