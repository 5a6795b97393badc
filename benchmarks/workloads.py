"""The benchmark workloads W1..W8: data, the hand-written NumPy reference, and fgrad.

Everything here imports only NumPy and fgrad, so the unit test
(tests/benchmarks/test_workloads.py) reuses the exact definitions that are timed.
The peers (autograd, PyTorch, JAX, MyGrad) live in benchmarks/peers.py.

Each workload's function is written once, against an array namespace `m` (fgrad.numpy,
numpy, autograd.numpy, jax.numpy, mygrad, or a thin torch adapter) that supplies the
named functions; arithmetic uses Python operators. So every library runs the same
program, and the timings compare the differentiation machinery, not the model code.

A Case carries its inputs, the NumPy reference value every implementation must match
before it is timed, and the name of the baseline implementation its ratio is taken to.
"""
import numpy as np

__all__ = [
    "SIZES",
    "W1_CYCLE",
    "W5_CYCLE",
    "WORKLOADS",
    "Case",
    "Impl",
    "chain_runner",
    "chain_source",
    "check_close",
    "fft_conv_loss",
    "fgrad_impls",
    "hvp_objective",
    "jac_map",
    "make_cases",
    "mlp_loss",
    "numpy_impls",
    "per_example_loss",
    "rosenbrock",
]

# ---- sizes ---------------------------------------------------------------------------
# "full" is what the issue asks for; "quick" keeps the timed program the same where that is
# cheap and shrinks only what is slow; "test" is small enough for a unit test.
SIZES = {
    "full": {"W1": 16, "W2": (128, 784, 256, 10), "W3": (64, 256), "W4": 512, "W5": (20_000, 1_000_000), "W6": 200,
             "W7": (256, 64, 128, 10), "W8": 256},
    "quick": {"W1": 16, "W2": (128, 784, 256, 10), "W3": (64,), "W4": 512, "W5": (2_000, 100_000), "W6": 50,
              "W7": (256, 64, 128, 10), "W8": 256},
    "test": {"W1": 16, "W2": (8, 20, 12, 5), "W3": (8,), "W4": 16, "W5": (200, 2_000), "W6": 6, "W7": (8, 5, 7, 3),
             "W8": 8},
}

TITLES = {
    "W1": "tiny ops: grad of sum of a 100-op elementwise chain, x (16,)",
    "W2": "MLP 784-256(tanh)-10, log-softmax cross-entropy, batch 128: grad of 4 params",
    "W3": "Hessian of the extended Rosenbrock function",
    "W4": "Hessian-vector product of sum(tanh(A @ x)**2), forward over reverse",
    "W5": "deep chain: scalar x, sequential ops, grad",
    "W6": "Jacobian of tanh(W @ x)",
    "W7": "per-example gradients: MLP 64-128(tanh)-10, log-softmax cross-entropy, batch 256: vmap(grad) of 4 params",
    "W8": "2-D FFT convolution: grad of sum((irfft2(rfft2(x) * rfft2(k)) - y)**2), 256x256, of image and kernel",
}


class Case:
    """One timed problem: inputs, the reference value, and how to report it."""

    def __init__(self, workload, name, data, reference, *, baseline="numpy", ops=None,
                 single_run=False, expect=None, only=None, rtol=1e-6, atol=1e-9):
        self.workload = workload
        self.name = name
        self.data = data                # dict of NumPy inputs (peers convert them in setup)
        self.reference = reference      # the NumPy value every implementation must match
        self.baseline = baseline        # the implementation whose time is the ratio's denominator
        self.ops = ops                  # ops in the program: the table also reports time per op
        self.single_run = single_run    # time one verified call only (the 1,000,000-op chain)
        self.expect = expect or {}      # impl -> its own reference (the f(x) baseline of W4)
        self.only = only                # impls allowed in this case (None: all)
        self.rtol, self.atol = rtol, atol

    @property
    def label(self):
        return f"{self.workload} {self.name}"

    def reference_for(self, impl):
        return self.expect.get(impl, self.reference)


class Impl:
    """An implementation of a workload: `setup(case)` returns a zero-argument callable.

    Conversion of inputs, `jit` tracing and the like belong in setup; the callable is
    what is timed and must return the result (anything `to_numpy` understands).
    `skip` is a reason string when this implementation does not apply to the case.
    """

    def __init__(self, name, setup, note=""):
        self.name = name
        self.setup = setup
        self.note = note


def check_close(got, ref, rtol=1e-6, atol=1e-9):
    """None when `got` matches `ref` (leaf by leaf, same shapes), else a short reason.

    atol is relative to the largest magnitude in the reference, so a tiny gradient is not
    matched by an all-zero one.
    """
    got_leaves, ref_leaves = _leaves(got), _leaves(ref)
    if len(got_leaves) != len(ref_leaves):
        return f"{len(got_leaves)} outputs, expected {len(ref_leaves)}"
    for i, (g, r) in enumerate(zip(got_leaves, ref_leaves)):
        g = np.asarray(g, dtype=np.float64)
        r = np.asarray(r, dtype=np.float64)
        if g.shape != r.shape:
            return f"output {i}: shape {g.shape}, expected {r.shape}"
        scale = float(np.max(np.abs(r))) if r.size else 0.0
        tol = atol * max(scale, 1e-300) + rtol * np.abs(r)
        err = np.abs(g - r)
        if not np.all(np.isfinite(g)) or np.any(err > tol):
            k = int(np.argmax(err - tol)) if err.size else 0
            return (f"output {i}: max abs err {float(np.max(err)):.3g} at flat index {k} "
                    f"(got {float(g.ravel()[k]):.10g}, expected {float(r.ravel()[k]):.10g})")
    return None


def _leaves(x):
    if isinstance(x, (tuple, list)):
        out = []
        for item in x:
            out.extend(_leaves(item))
        return out
    return [x]


# ---- chains of elementwise ops (W1, W5) ----------------------------------------------
# One op per entry: (name, constant). Unary functions come from the namespace `m`.
_FORWARD = {
    "sin": "m.sin(x)", "cos": "m.cos(x)", "tanh": "m.tanh(x)", "exp": "m.exp(x)", "log": "m.log(x)",
    "arcsin": "m.arcsin(x)", "arctanh": "m.arctanh(x)",
    "mul": "x * {c!r}", "add": "x + {c!r}", "sub": "x - {c!r}", "square": "x * x", "neg": "-x",
}

# W1: a fixed chain of 100 ops on x of shape (16,): this 10-op cycle, 10 times.
# Values stay in range (exp(-x*x) is in (0, 1], cos in [-1, 1]).
W1_CYCLE = (("sin", None), ("mul", 1.01), ("add", 0.3), ("tanh", None), ("square", None),
            ("neg", None), ("exp", None), ("cos", None), ("sub", 0.2), ("mul", 0.9))
W1_REPEATS = 10

# W5: a scalar chain of 10-op cycles. The pairs (sin, arcsin), (exp, log), (tanh, arctanh),
# (+0.25, -0.25) keep x near where it started, while each cycle scales by 1.00001, so after
# 1,000,000 ops x has grown e-fold from 0.3 (still inside arcsin's and arctanh's domains) and
# the derivative, the product of all 1e6 local derivatives, is e: a check that fails when
# any factor is wrong or dropped.
W5_CYCLE = (("sin", None), ("arcsin", None), ("exp", None), ("log", None), ("add", 0.25),
            ("tanh", None), ("arctanh", None), ("sub", 0.25), ("mul", 1.00002), ("mul", 0.99999))
W5_X0 = 0.3


def chain_source(cycle, repeats, name="chain", reduce_sum=False):
    """Source of `def name(x, m)`: `cycle` unrolled `repeats` times (as a user would write it)."""
    lines = [f"def {name}(x, m):"]
    for _ in range(repeats):
        for op, c in cycle:
            lines.append("    x = " + _FORWARD[op].format(c=c))
    lines.append("    return m.sum(x)" if reduce_sum else "    return x")
    return "\n".join(lines) + "\n"


def _compile(source, name, env=None):
    scope = dict(env or {})
    exec(compile(source, f"<benchmarks {name}>", "exec"), scope)
    return scope[name]


w1_loss = _compile(chain_source(W1_CYCLE, W1_REPEATS, "w1_loss", reduce_sum=True), "w1_loss")
_w5_cycle = _compile(chain_source(W5_CYCLE, 1, "w5_cycle"), "w5_cycle")


def w5_chain(x, m, n_ops):
    """The W5 scalar chain of `n_ops` ops (a multiple of the 10-op cycle)."""
    cycle = _w5_cycle
    for _ in range(n_ops // len(W5_CYCLE)):
        x = cycle(x, m)
    return x


def chain_runner(case, grad, m):
    """For W1 and W5: a call of `grad(fun, x)` (a reference tape's) on the chain written in
    the namespace `m`; None for the other workloads."""
    d = case.data
    if case.workload == "W1":
        x = d["x"]
        return lambda: grad(lambda v: w1_loss(v, m), x)
    if case.workload == "W5":
        x, n = d["x"], d["n_ops"]
        return lambda: grad(lambda u: w5_chain(u, m, n), x)
    return None


# Hand-written reverse mode for a chain: the forward pass saves each op's local derivative,
# the backward pass multiplies them in reverse order (skipping the ones that are 1).
_LOCAL = {
    "sin": ("d = m.cos(x)", "x = m.sin(x)"),
    "cos": ("d = -m.sin(x)", "x = m.cos(x)"),
    "tanh": ("x = m.tanh(x)", "d = 1.0 - x * x"),
    "exp": ("x = m.exp(x)", "d = x"),
    "log": ("d = 1.0 / x", "x = m.log(x)"),
    "arcsin": ("d = 1.0 / m.sqrt(1.0 - x * x)", "x = m.arcsin(x)"),
    "arctanh": ("d = 1.0 / (1.0 - x * x)", "x = m.arctanh(x)"),
    "mul": ("d = {c!r}", "x = x * {c!r}"),
    "square": ("d = 2.0 * x", "x = x * x"),
    "neg": ("d = -1.0", "x = -x"),
    "add": (None, "x = x + {c!r}"),
    "sub": (None, "x = x - {c!r}"),
}


def _hand_cycle_source(cycle, repeats, name):
    """`def name(x, m, ds)`: the forward pass, appending local derivatives to ds."""
    lines = [f"def {name}(x, m, ds):", "    push = ds.append"]
    for _ in range(repeats):
        for op, c in cycle:
            for stmt in _LOCAL[op]:
                if stmt is not None:
                    lines.append("    " + stmt.format(c=c))
            if _LOCAL[op][0] is not None:
                lines.append("    push(d)")
    lines.append("    return x")
    return "\n".join(lines) + "\n"


_w1_hand_forward = _compile(_hand_cycle_source(W1_CYCLE, W1_REPEATS, "w1_forward"), "w1_forward")
_w5_hand_cycle = _compile(_hand_cycle_source(W5_CYCLE, 1, "w5_forward"), "w5_forward")


def w1_numpy_grad(x):
    """Hand-written forward + backward of W1 in NumPy."""
    ds = []
    _w1_hand_forward(x, np, ds)
    g = np.ones_like(x)
    for d in reversed(ds):
        g = g * d
    return g


def w5_numpy_grad(x, n_ops):
    """Hand-written forward + backward of W5 on NumPy float64 scalars."""
    ds = []
    cycle = _w5_hand_cycle
    x = np.float64(x)
    for _ in range(n_ops // len(W5_CYCLE)):
        x = cycle(x, np, ds)
    g = np.float64(1.0)
    for d in reversed(ds):
        g = g * d
    return g


# ---- W2: MLP ---------------------------------------------------------------------------
def mlp_loss(W1, b1, W2, b2, X, Y, m):
    """Mean cross-entropy of log-softmax(tanh(X @ W1 + b1) @ W2 + b2) against one-hot Y."""
    h = m.tanh(X @ W1 + b1)
    z = h @ W2 + b2
    zs = z - m.max(z, axis=1, keepdims=True)
    logp = zs - m.log(m.sum(m.exp(zs), axis=1, keepdims=True))
    return -m.sum(Y * logp) / X.shape[0]


def mlp_numpy_grad(W1, b1, W2, b2, X, Y):
    """Hand-written forward + backward of W2 in NumPy: the four gradients."""
    h = np.tanh(X @ W1 + b1)
    z = h @ W2 + b2
    e = np.exp(z - z.max(axis=1, keepdims=True))
    p = e / e.sum(axis=1, keepdims=True)
    dz = (p - Y) * (1.0 / X.shape[0])          # rows of Y sum to 1
    dW2 = h.T @ dz
    db2 = dz.sum(axis=0)
    da = (dz @ W2.T) * (1.0 - h * h)
    dW1 = X.T @ da
    db1 = da.sum(axis=0)
    return dW1, db1, dW2, db2


def _mlp_data(sizes, rng):
    batch, n_in, n_hidden, n_out = sizes
    X = rng.standard_normal((batch, n_in))
    labels = rng.integers(0, n_out, size=batch)
    Y = np.zeros((batch, n_out))
    Y[np.arange(batch), labels] = 1.0
    return {
        "W1": rng.standard_normal((n_in, n_hidden)) / np.sqrt(n_in), "b1": 0.1 * rng.standard_normal(n_hidden),
        "W2": rng.standard_normal((n_hidden, n_out)) / np.sqrt(n_hidden), "b2": 0.1 * rng.standard_normal(n_out),
        "X": X, "Y": Y,
    }


# ---- W3: extended Rosenbrock -----------------------------------------------------------
def rosenbrock(x, m):
    """Extended Rosenbrock: sum over pairs of 100 (x[2i+1] - x[2i]**2)**2 + (1 - x[2i])**2."""
    a = x[0::2]
    b = x[1::2]
    return m.sum(100.0 * (b - a ** 2) ** 2 + (1.0 - a) ** 2)


def rosenbrock_numpy_hessian(x):
    """The analytic Hessian: 2x2 blocks [[1200 a^2 - 400 b + 2, -400 a], [-400 a, 200]]."""
    a, b = x[0::2], x[1::2]
    n = x.shape[0]
    H = np.zeros((n, n))
    i = np.arange(0, n, 2)
    H[i, i] = 1200.0 * a * a - 400.0 * b + 2.0
    H[i, i + 1] = H[i + 1, i] = -400.0 * a
    H[i + 1, i + 1] = 200.0
    return H


# ---- W4: Hessian-vector product ----------------------------------------------------------
def hvp_objective(x, A, m):
    """f(x) = sum(tanh(A @ x)**2)."""
    return m.sum(m.tanh(A @ x) ** 2)


def hvp_numpy(A, x, v):
    """Hand-written H @ v of f: A^T [(2 - 6 t^2)(1 - t^2) * (A v)], t = tanh(A x)."""
    t = np.tanh(A @ x)
    tt = t * t
    return ((2.0 - 6.0 * tt) * (1.0 - tt) * (A @ v)) @ A


def hvp_numpy_f(A, x):
    """The W4 baseline: evaluating f once in NumPy."""
    return np.sum(np.tanh(A @ x) ** 2)


# ---- W6: Jacobian ----------------------------------------------------------------------------
def jac_map(x, W, m):
    """g(x) = tanh(W @ x)."""
    return m.tanh(W @ x)


def jac_numpy(W, x):
    """Hand-written Jacobian: diag(1 - tanh^2) @ W, as a row scaling."""
    t = np.tanh(W @ x)
    return (1.0 - t * t)[:, None] * W


# ---- W7: per-example gradients -----------------------------------------------------------------
def per_example_loss(params, x, y, m):
    """One example's cross-entropy: -log_softmax(tanh(x @ W1 + b1) @ W2 + b2)[y], x of shape
    (n_in,), y an integer label. vmap(grad(.), in_axes=(None, 0, 0)) maps it over the batch.

    The label is picked with `m.take` (NumPy's name, in every namespace), not `logp[y]`:
    fgrad and JAX index with a batched integer under vmap, but torch.func's vmap turns a
    0-d index into a Python int (.item()) and raises."""
    W1, b1, W2, b2 = params
    h = m.tanh(x @ W1 + b1)
    z = h @ W2 + b2
    zs = z - m.max(z)
    logp = zs - m.log(m.sum(m.exp(zs)))
    return -m.take(logp, y)


def per_example_numpy_grads(W1, b1, W2, b2, X, y):
    """Hand-written per-example gradients: each of shape (batch, *param.shape), the outer
    products over the batch by einsum (no loop over the examples)."""
    H = np.tanh(X @ W1 + b1)
    Z = H @ W2 + b2
    E = np.exp(Z - Z.max(axis=1, keepdims=True))
    dz = E / E.sum(axis=1, keepdims=True)          # softmax, then minus the one-hot label
    dz[np.arange(X.shape[0]), y] -= 1.0
    da = (dz @ W2.T) * (1.0 - H * H)
    return np.einsum("bi,bj->bij", X, da), da, np.einsum("bi,bj->bij", H, dz), dz


def _per_example_data(sizes, rng):
    batch, n_in, n_hidden, n_out = sizes
    return {
        "W1": rng.standard_normal((n_in, n_hidden)) / np.sqrt(n_in), "b1": 0.1 * rng.standard_normal(n_hidden),
        "W2": rng.standard_normal((n_hidden, n_out)) / np.sqrt(n_hidden), "b2": 0.1 * rng.standard_normal(n_out),
        "X": rng.standard_normal((batch, n_in)), "y": rng.integers(0, n_out, size=batch),
    }


W7_PARAMS = ("W1", "b1", "W2", "b2")


# ---- W8: a 2-D convolution through the FFT ------------------------------------------------------
def fft_conv_loss(x, k, y, m):
    """The squared error of a circular 2-D convolution of image x with kernel k, computed
    through the FFT (rfft2, a product of spectra, irfft2 back to x's shape), against y."""
    c = m.fft.irfft2(m.fft.rfft2(x) * m.fft.rfft2(k), s=x.shape)
    r = c - y
    return m.sum(r * r)


def fft_conv_numpy_grad(x, k, y):
    """Hand-written gradients: with g = 2 (x conv k - y), the cotangent of x is g correlated
    (circularly) with k, that of k g correlated with x: products with conjugate spectra."""
    X, K = np.fft.rfft2(x), np.fft.rfft2(k)
    G = np.fft.rfft2(2.0 * (np.fft.irfft2(X * K, s=x.shape) - y))
    return np.fft.irfft2(G * np.conj(K), s=x.shape), np.fft.irfft2(G * np.conj(X), s=x.shape)


W8_ARGS = ("x", "k", "y")


# ---- cases -------------------------------------------------------------------------------
WORKLOADS = ("W1", "W2", "W3", "W4", "W5", "W6", "W7", "W8")


def make_cases(key, scale="full"):
    """The Cases of workload `key` at `scale` ("full", "quick" or "test")."""
    size = SIZES[scale][key]
    rng = np.random.default_rng(20240603 + WORKLOADS.index(key))
    if key == "W1":
        x = rng.standard_normal(size)
        return [Case(key, f"x({size},) 100 ops", {"x": x}, w1_numpy_grad(x), ops=len(W1_CYCLE) * W1_REPEATS)]
    if key == "W2":
        data = _mlp_data(size, rng)
        ref = mlp_numpy_grad(*(data[k] for k in ("W1", "b1", "W2", "b2", "X", "Y")))
        return [Case(key, f"{size[1]}-{size[2]}-{size[3]} batch {size[0]}", data, ref)]
    if key == "W3":
        cases = []
        for n in size:
            x = rng.uniform(-1.5, 1.5, n)
            cases.append(Case(key, f"n={n}", {"x": x}, rosenbrock_numpy_hessian(x)))
        return cases
    if key == "W4":
        n = size
        A = rng.standard_normal((n, n)) / np.sqrt(n)
        x, v = rng.standard_normal(n), rng.standard_normal(n)
        # The ratio's denominator is f(x) in NumPy (the "ratio to f(x)"); the
        # hand-written HVP is there as the limit, checked like every other row.
        return [Case(key, f"A {n}x{n}", {"A": A, "x": x, "v": v}, hvp_numpy(A, x, v),
                     baseline="numpy f(x)", expect={"numpy f(x)": hvp_numpy_f(A, x)})]
    if key == "W5":
        n_small, n_big = size
        cases = [Case(key, f"{n_small} ops", {"x": W5_X0, "n_ops": n_small}, w5_numpy_grad(W5_X0, n_small),
                      ops=n_small)]
        cases.append(Case(key, f"{n_big} ops", {"x": W5_X0, "n_ops": n_big}, w5_numpy_grad(W5_X0, n_big),
                          ops=n_big, single_run=True, only=("numpy", "fgrad", "fgrad.compile"), rtol=1e-5))
        return cases
    if key == "W6":
        n = size
        W = rng.standard_normal((n, n)) / np.sqrt(n)
        x = rng.standard_normal(n)
        ref = jac_numpy(W, x)
        return [Case(key, f"jacfwd W {n}x{n}", {"W": W, "x": x, "mode": "fwd"}, ref),
                Case(key, f"jacrev W {n}x{n}", {"W": W, "x": x, "mode": "rev"}, ref)]
    if key == "W7":
        data = _per_example_data(size, rng)
        ref = per_example_numpy_grads(*(data[k] for k in W7_PARAMS + ("X", "y")))
        return [Case(key, f"{size[1]}-{size[2]}-{size[3]} batch {size[0]}", data, ref)]
    if key == "W8":
        n = size
        x, y = rng.standard_normal((n, n)), rng.standard_normal((n, n))
        k = np.zeros((n, n))
        k[:5, :5] = rng.standard_normal((5, 5)) / 5  # (a 5x5 filter, zero-padded to the image's size)
        return [Case(key, f"{n}x{n}", {"x": x, "k": k, "y": y}, list(fft_conv_numpy_grad(x, k, y)))]
    raise KeyError(key)


# ---- the NumPy implementations (the baseline, and the limit) --------------------------------
def _numpy_setup(case):
    d, key = case.data, case.workload
    if key == "W1":
        x = d["x"]
        return lambda: w1_numpy_grad(x)
    if key == "W2":
        args = tuple(d[k] for k in ("W1", "b1", "W2", "b2", "X", "Y"))
        return lambda: mlp_numpy_grad(*args)
    if key == "W3":
        x = d["x"]
        return lambda: rosenbrock_numpy_hessian(x)
    if key == "W4":
        A, x, v = d["A"], d["x"], d["v"]
        return lambda: hvp_numpy(A, x, v)
    if key == "W5":
        x, n = d["x"], d["n_ops"]
        return lambda: w5_numpy_grad(x, n)
    if key == "W6":
        W, x = d["W"], d["x"]
        return lambda: jac_numpy(W, x)
    if key == "W7":
        args = tuple(d[k] for k in W7_PARAMS + ("X", "y"))
        return lambda: per_example_numpy_grads(*args)
    if key == "W8":
        args = tuple(d[k] for k in W8_ARGS)
        return lambda: fft_conv_numpy_grad(*args)
    raise KeyError(key)


def _numpy_f_setup(case):
    if case.workload != "W4":
        return None
    A, x = case.data["A"], case.data["x"]
    return lambda: hvp_numpy_f(A, x)


def numpy_impls():
    return [Impl("numpy", _numpy_setup, "hand-written forward + backward"),
            Impl("numpy f(x)", _numpy_f_setup, "W4 only: f evaluated once")]


# ---- fgrad -------------------------------------------------------------------------------------
def _fgrad_setup(case, compiled=False, fuse=True):
    """fgrad's functional transforms on the workload; with `compiled`, the same composition
    under fgrad.compile (its first call, timed as the check, traces; the rounds replay), with
    fusion `fuse` (True, False or "libm": compile/fusion.py)."""
    import fgrad
    import fgrad.numpy as fnp
    from fgrad.compile import fusion
    fusion.FUSE_AFTER = 0  # (fused when traced: the first call, the check, then includes numba's compile)
    jit = (lambda f: fgrad.compile(f, fuse=fuse)) if compiled else (lambda f: f)
    d, key = case.data, case.workload
    if key == "W1":
        g = jit(fgrad.grad(lambda x: w1_loss(x, fnp)))
        x = d["x"]
        return lambda: g(x)
    if key == "W2":
        g = jit(fgrad.grad(lambda W1, b1, W2, b2, X, Y: mlp_loss(W1, b1, W2, b2, X, Y, fnp), argnums=(0, 1, 2, 3)))
        args = tuple(d[k] for k in ("W1", "b1", "W2", "b2", "X", "Y"))
        return lambda: g(*args)
    if key == "W3":
        h = jit(fgrad.hessian(lambda x: rosenbrock(x, fnp)))
        x = d["x"]
        return lambda: h(x)
    if key == "W4":
        A, x, v = d["A"], d["x"], d["v"]
        f = lambda x: hvp_objective(x, A, fnp)  # noqa: E731
        hvp = jit(lambda x, v: fgrad.hvp(f, (x,), (v,))[1])
        return lambda: hvp(x, v)
    if key == "W5":
        n = d["n_ops"]
        g = jit(fgrad.grad(lambda x: w5_chain(x, fnp, n)))
        # (compiled: x as a float64 scalar, which is traced; a Python float would be a constant)
        x = np.float64(d["x"]) if compiled else d["x"]
        return lambda: g(x)
    if key == "W6":
        W, x = d["W"], d["x"]
        jac = fgrad.jacfwd if d["mode"] == "fwd" else fgrad.jacrev
        j = jit(jac(lambda x: jac_map(x, W, fnp)))
        return lambda: j(x)
    if key == "W7":
        g = jit(fgrad.vmap(fgrad.grad(lambda p, x, y: per_example_loss(p, x, y, fnp)), in_axes=(None, 0, 0)))
        params = tuple(d[k] for k in W7_PARAMS)
        X, y = d["X"], d["y"]
        return lambda: g(params, X, y)
    if key == "W8":
        g = jit(fgrad.grad(lambda x, k, y: fft_conv_loss(x, k, y, fnp), argnums=(0, 1)))
        args = tuple(d[k] for k in W8_ARGS)
        return lambda: g(*args)
    raise KeyError(key)


def backward_step(loss_fn, params, consts=()):
    """Eager `.backward()`, as a training step does it: grads set to None, forward, backward
    (PyTorch tensors and fgrad tensors alike)."""
    def step():
        for p in params:
            p.grad = None
        loss_fn(*params, *consts).backward()
        return [p.grad for p in params]
    return step


def _fgrad_tensor_setup(case):
    """fgrad's PyTorch-style face: tensors with requires_grad and .backward(), as a training step."""
    import fgrad
    import fgrad.numpy as fnp
    d, key = case.data, case.workload

    def backward(loss_fn, arrays, consts=()):
        return backward_step(loss_fn, [fgrad.tensor(a, requires_grad=True) for a in arrays], consts)
    if key == "W1":
        step = backward(lambda x: w1_loss(x, fnp), [d["x"]])
        return lambda: step()[0]
    if key == "W2":
        X, Y = d["X"], d["Y"]
        return backward(lambda W1, b1, W2, b2: mlp_loss(W1, b1, W2, b2, X, Y, fnp),
                        [d[k] for k in ("W1", "b1", "W2", "b2")])
    if key == "W4":
        A, v = d["A"], d["v"]
        x = fgrad.tensor(d["x"], requires_grad=True)

        def double_backward():
            (g,) = fgrad.autograd.grad(hvp_objective(x, A, fnp), x, create_graph=True)
            (hv,) = fgrad.autograd.grad(g, x, grad_outputs=fgrad.tensor(v))
            return hv
        return double_backward
    if key == "W5":
        n = d["n_ops"]
        step = backward(lambda x: w5_chain(x, fnp, n), [np.float64(d["x"])])
        return lambda: step()[0]
    if key == "W7":
        return "per-example gradients are the functional API's (the fgrad row: vmap of grad)"
    if key == "W8":
        y = d["y"]
        return backward(lambda x, k: fft_conv_loss(x, k, y, fnp), [d["x"], d["k"]])
    return "Hessians and Jacobians are the functional API's (the fgrad row)"


def fgrad_impls():
    return [Impl("fgrad", _fgrad_setup, "eager"),
            Impl("fgrad.compile", lambda case: _fgrad_setup(case, compiled=True),
                 "trace once, replay (the first call, which traces, is the check)"),
            Impl("fgrad.compile unfused", lambda case: _fgrad_setup(case, compiled=True, fuse=False),
                 "fgrad.compile(fuse=False): no numba kernels"),
            Impl("fgrad.compile libm", lambda case: _fgrad_setup(case, compiled=True, fuse="libm"),
                 'fgrad.compile(fuse="libm"): the transcendental functions fused too (last-bit differences)'),
            Impl("fgrad.Tensor", _fgrad_tensor_setup, "imperative face: .backward(), autograd.grad double backward")]
