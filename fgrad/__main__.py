"""`python -m fgrad`: a one-minute tour, run on a fresh install."""
import time

import numpy as np

import fgrad
import fgrad.numpy as fnp


def main():
    print(f"fgrad {fgrad.__version__}: differentiate NumPy programs\n")

    # 1. A derivative, and a second one.
    def f(x):
        return fnp.sin(x) * fnp.exp(-x * x)

    x = 0.5
    print("1. f(x) = sin(x) exp(-x^2) at x = 0.5")
    print(f"   f'(x)  = {fgrad.grad(f)(x):+.12f}")
    print(f"   f''(x) = {fgrad.grad(fgrad.grad(f))(x):+.12f}\n")

    # 2. Logistic regression by gradient descent on data made here.
    rng = np.random.default_rng(0)
    X = rng.standard_normal((200, 3))
    true_w = np.array([2.0, -1.0, 0.5])
    y = (X @ true_w + 0.3 * rng.standard_normal(200) > 0).astype(np.float64)

    def loss(params, X, y):
        w, b = params
        logits = X @ w + b
        return fnp.mean(fnp.logaddexp(0.0, logits) - y * logits)  # binary cross-entropy, stable

    params = (np.zeros(3), 0.0)
    value_and_grad = fgrad.value_and_grad(loss)
    print("2. Logistic regression, 200 points, gradient descent")
    for step in range(201):
        value, (gw, gb) = value_and_grad(params, X, y)
        params = (params[0] - 1.0 * gw, params[1] - 1.0 * gb)
        if step % 50 == 0:
            print(f"   step {step:3d}  loss {value:.6f}")
    w, b = params
    accuracy = np.mean(((X @ w + b) > 0) == (y > 0))
    print(f"   weights {np.round(w, 3)}, bias {b:.3f}, training accuracy {accuracy:.1%}\n")

    # 3. The tape of one call.
    print("3. The traced tape of one call of the loss (4 data points):")
    graph = fgrad.make_graph(lambda p: loss(p, X[:4], y[:4]))(params)
    print("   " + str(graph).replace("\n", "\n   ") + "\n")

    # 4. One gradient checked against central finite differences.
    analytic = fgrad.grad(loss)(params, X, y)[0]
    numeric = fgrad.testing.numerical_jacobian(lambda w: loss((w, params[1]), X, y), (params[0],))
    err = np.max(np.abs(analytic - numeric))
    print(f"4. d loss / d w: analytic {np.round(analytic, 10)}")
    print(f"                 numeric  {np.round(numeric, 10)}")
    print(f"   max difference {err:.2e} -> {'OK' if err < 1e-6 else 'MISMATCH'}\n")

    # 5. Per-example gradients: vmap of grad, one batched pass, no loop over the points.
    per_example = fgrad.vmap(fgrad.grad(loss), in_axes=(None, 0, 0))(params, X[:, None], y[:, None])
    mean_err = np.max(np.abs(per_example[0].mean(axis=0) - analytic))
    print(f"5. per-example gradients of w: shape {per_example[0].shape}; their mean equals the gradient "
          f"(max difference {mean_err:.1e})\n")

    # 6. The gradient step compiled: traced once into a flat program, then replayed.
    compiled = fgrad.compile(value_and_grad)
    start = (np.zeros(3), 0.0)
    compiled(start, X, y)  # (the first call traces)
    times = {}
    for name, fn in (("eager", value_and_grad), ("compiled", compiled)):
        t0 = time.perf_counter()
        for _ in range(100):
            out = fn(start, X, y)
        times[name] = (time.perf_counter() - t0) / 100
    same = np.max(np.abs(out[1][0] - value_and_grad(start, X, y)[1][0]))
    print(f"6. fgrad.compile(value_and_grad(loss)): {times['eager'] * 1e6:.0f} us eager, "
          f"{times['compiled'] * 1e6:.0f} us replayed (measured now); same gradient (max difference {same:.1e}); "
          f"{compiled.cache_info()}")
    return 0 if err < 1e-6 and mean_err < 1e-12 and same == 0.0 else 1


if __name__ == "__main__":
    raise SystemExit(main())
