"""Gaussian-process regression: the negative log marginal likelihood of an RBF kernel plus
noise, through a Cholesky factorisation, differentiated with respect to the kernel's three
hyperparameters (log length scale, log signal variance, log noise variance) and minimised
with scipy.optimize; then the posterior mean at new points.

    python examples/gaussian_process.py       # fits 40 noisy samples of sin(3x) in well under a second
"""
import numpy as np
import scipy.optimize

import fgrad
import fgrad.numpy as fnp
from fgrad.scipy.linalg import cho_solve, solve_triangular


def make_data(n=40, noise=0.1, seed=0):
    """n points x in [-2, 2] and y = sin(3x) + noise."""
    rng = np.random.default_rng(seed)
    x = np.sort(rng.uniform(-2.0, 2.0, n))
    return x, np.sin(3 * x) + noise * rng.standard_normal(n)


def kernel(log_params, a, b):
    """RBF kernel s^2 exp(-|a - b|^2 / (2 l^2)) between 1-d point sets a and b."""
    length, signal = fnp.exp(log_params[0]), fnp.exp(log_params[1])
    return signal * fnp.exp(-0.5 * ((a[:, None] - b[None, :]) / length) ** 2)


def negative_log_marginal_likelihood(log_params, x, y):
    """-log p(y | x, theta) = y^T K^-1 y / 2 + log det(K) / 2 + n log(2 pi) / 2, K = k(x, x) + noise I."""
    K = kernel(log_params, x, x) + (fnp.exp(log_params[2]) + 1e-8) * fnp.eye(len(x))
    L = fnp.linalg.cholesky(K)
    alpha = solve_triangular(L, y, lower=True)  # L^-1 y: |alpha|^2 = y^T K^-1 y
    return 0.5 * fnp.sum(alpha ** 2) + fnp.sum(fnp.log(fnp.diagonal(L))) + 0.5 * len(x) * np.log(2 * np.pi)


def fit(x, y, start=(0.0, 0.0, -1.0)):
    """Minimise the negative log marginal likelihood over the log hyperparameters (L-BFGS-B)."""
    objective = fgrad.value_and_grad(negative_log_marginal_likelihood)
    return scipy.optimize.minimize(objective, np.array(start), args=(x, y), jac=True, method="L-BFGS-B",
                                   options={"ftol": 1e-14, "gtol": 1e-9})


def predict(log_params, x, y, x_new):
    """Posterior mean at x_new."""
    K = kernel(log_params, x, x) + (np.exp(log_params[2]) + 1e-8) * np.eye(len(x))
    factor = (np.linalg.cholesky(K), True)
    return kernel(log_params, x_new, x) @ cho_solve(factor, y)


def main():
    x, y = make_data()
    result = fit(x, y)
    length, signal, noise = np.exp(result.x)
    x_new = np.linspace(-2, 2, 9)
    error = np.abs(predict(result.x, x, y, x_new) - np.sin(3 * x_new)).max()
    print(f"length scale {length:.3f}, signal variance {signal:.3f}, noise std {np.sqrt(noise):.3f} "
          f"(true 0.1); -log p(y) {result.fun:.4f}; posterior mean within {error:.3f} of sin(3x)")


if __name__ == "__main__":
    main()
