"""The peers: HIPS autograd, PyTorch (eager backward and torch.func), JAX (eager and jit), MyGrad.

Each peer runs the same workload functions as fgrad (benchmarks/workloads.py), with its
own array namespace. A peer is imported only here, only by the benchmark worker, after the
thread pinning in benchmarks/env.py; one that is not installed is reported, never faked.
A setup returns a zero-argument callable that is timed, or a string: the reason this peer
has no such API (reported as "n/a").
"""
import importlib

import numpy as np

from . import workloads as wl

__all__ = ["PEER_MODULES", "import_status", "peer_impls", "to_numpy"]

# impl name -> the module that must import for it to run
PEER_MODULES = {
    "autograd": "autograd",
    "torch": "torch",
    "torch.func": "torch",
    "jax": "jax",
    "jax.jit": "jax",
    "mygrad": "mygrad",
}

_import_errors = {}


def import_status(module):
    """None when `module` imports, else the reason it does not (cached)."""
    if module not in _import_errors:
        try:
            importlib.import_module(module)
            _import_errors[module] = None
        except ImportError as e:
            _import_errors[module] = f"not installed ({e.name or module})"
        except Exception as e:  # a broken install is reported, not hidden
            _import_errors[module] = f"import failed: {type(e).__name__}: {e}"
    return _import_errors[module]


def to_numpy(x):
    """Any implementation's result as NumPy (leaf by leaf), for the check against the reference."""
    if isinstance(x, (tuple, list)):
        return [to_numpy(i) for i in x]
    if type(x).__module__.startswith("torch"):
        return x.detach().cpu().numpy()
    if hasattr(x, "data") and type(x).__module__.startswith("mygrad"):
        return np.asarray(x.data)
    return np.asarray(x)


_W2_KEYS = ("W1", "b1", "W2", "b2", "X", "Y")


# ---- HIPS autograd ---------------------------------------------------------------------------
def _autograd_setup(case):
    import autograd
    import autograd.numpy as anp
    d, key = case.data, case.workload
    if key == "W1":
        g = autograd.grad(lambda x: wl.w1_loss(x, anp))
        x = d["x"]
        return lambda: g(x)
    if key == "W2":
        g = autograd.grad(lambda W1, b1, W2, b2, X, Y: wl.mlp_loss(W1, b1, W2, b2, X, Y, anp), (0, 1, 2, 3))
        args = tuple(d[k] for k in _W2_KEYS)
        return lambda: g(*args)
    if key == "W3":
        h = autograd.hessian(lambda x: wl.rosenbrock(x, anp))
        x = d["x"]
        return lambda: h(x)
    if key == "W4":
        A, x, v = d["A"], d["x"], d["v"]
        hvp = autograd.hessian_tensor_product(lambda x: wl.hvp_objective(x, A, anp))  # grad of <grad f, v>
        return lambda: hvp(x, v)
    if key == "W5":
        n = d["n_ops"]
        g = autograd.grad(lambda x: wl.w5_chain(x, anp, n))
        x = d["x"]
        return lambda: g(x)
    if key == "W6":
        if d["mode"] == "fwd":
            return "no forward-mode Jacobian (autograd.jacobian is reverse mode)"
        W, x = d["W"], d["x"]
        j = autograd.jacobian(lambda x: wl.jac_map(x, W, anp))
        return lambda: j(x)
    if key == "W7":
        return "no vmap in HIPS autograd"
    if key == "W8":
        g = autograd.grad(lambda x, k, y: wl.fft_conv_loss(x, k, y, anp), (0, 1))
        args = tuple(d[k] for k in wl.W8_ARGS)
        return lambda: g(*args)
    raise KeyError(key)


# ---- PyTorch ---------------------------------------------------------------------------------------
class TorchNamespace:
    """The NumPy names the workloads use, on torch tensors."""

    def __init__(self):
        import torch
        self.torch = torch
        for name in ("sin", "cos", "tanh", "exp", "log", "sqrt", "arcsin", "arctanh"):
            setattr(self, name, getattr(torch, name))
        self.fft = torch.fft  # (rfft2 and irfft2 with s=: NumPy's names and signatures)

    def sum(self, x, axis=None, keepdims=False):
        return self.torch.sum(x) if axis is None else self.torch.sum(x, dim=axis, keepdim=keepdims)

    def max(self, x, axis=None, keepdims=False):
        return self.torch.amax(x) if axis is None else self.torch.amax(x, dim=axis, keepdim=keepdims)

    def take(self, x, i):
        """np.take without an axis: the flat elements of x at the integer indices i. By gather,
        which torch.func.vmap batches (torch.take has no batching rule in torch 2.13: it warns
        and falls back to a loop over the examples)."""
        return self.torch.gather(x.reshape(-1), 0, i.reshape(-1)).reshape(i.shape)


def _torch_tensors(d, keys, grad=False):
    import torch
    out = []
    for k in keys:
        v = d[k]
        t = torch.tensor(v, dtype=torch.float64) if np.ndim(v) == 0 else torch.from_numpy(np.ascontiguousarray(v))
        out.append(t.requires_grad_(grad) if grad else t)
    return out


_torch_backward = wl.backward_step


def _torch_setup(case):
    import torch
    import torch.autograd.functional as taf
    T = TorchNamespace()
    d, key = case.data, case.workload
    if key == "W1":
        (x,) = _torch_tensors(d, ("x",), grad=True)
        step = _torch_backward(lambda x: wl.w1_loss(x, T), [x])
        return lambda: step()[0]
    if key == "W2":
        params = _torch_tensors(d, _W2_KEYS[:4], grad=True)
        X, Y = _torch_tensors(d, _W2_KEYS[4:])
        return _torch_backward(lambda W1, b1, W2, b2, X, Y: wl.mlp_loss(W1, b1, W2, b2, X, Y, T), params, (X, Y))
    if key == "W3":
        (x,) = _torch_tensors(d, ("x",))
        f = lambda x: wl.rosenbrock(x, T)  # noqa: E731
        return lambda: taf.hessian(f, x)
    if key == "W4":
        A, x0, v = _torch_tensors(d, ("A", "x", "v"))
        x = x0.clone().requires_grad_(True)

        def double_backward():
            (g,) = torch.autograd.grad(wl.hvp_objective(x, A, T), x, create_graph=True)
            (hv,) = torch.autograd.grad(g, x, grad_outputs=v)
            return hv
        return double_backward
    if key == "W5":
        (x,) = _torch_tensors(d, ("x",), grad=True)
        n = d["n_ops"]
        step = _torch_backward(lambda x: wl.w5_chain(x, T, n), [x])
        return lambda: step()[0]
    if key == "W6":
        W, x = _torch_tensors(d, ("W", "x"))
        f = lambda x: wl.jac_map(x, W, T)  # noqa: E731
        if d["mode"] == "fwd":  # torch's forward-mode Jacobian needs vectorize=True
            return lambda: taf.jacobian(f, x, vectorize=True, strategy="forward-mode")
        return lambda: taf.jacobian(f, x)
    if key == "W7":
        return "no vmap in eager torch (the torch.func row)"
    if key == "W8":
        x, k = _torch_tensors(d, ("x", "k"), grad=True)
        (y,) = _torch_tensors(d, ("y",))
        return _torch_backward(lambda x, k, y: wl.fft_conv_loss(x, k, y, T), [x, k], (y,))
    raise KeyError(key)


def _torch_func_setup(case):
    import torch.func as tf
    T = TorchNamespace()
    d, key = case.data, case.workload
    if key == "W1":
        g = tf.grad(lambda x: wl.w1_loss(x, T))
        (x,) = _torch_tensors(d, ("x",))
        return lambda: g(x)
    if key == "W2":
        g = tf.grad(lambda W1, b1, W2, b2, X, Y: wl.mlp_loss(W1, b1, W2, b2, X, Y, T), argnums=(0, 1, 2, 3))
        args = _torch_tensors(d, _W2_KEYS)
        return lambda: g(*args)
    if key == "W3":
        h = tf.hessian(lambda x: wl.rosenbrock(x, T))
        (x,) = _torch_tensors(d, ("x",))
        return lambda: h(x)
    if key == "W4":
        A, x, v = _torch_tensors(d, ("A", "x", "v"))
        g = tf.grad(lambda x: wl.hvp_objective(x, A, T))
        return lambda: tf.jvp(g, (x,), (v,))[1]
    if key == "W5":
        n = d["n_ops"]
        g = tf.grad(lambda x: wl.w5_chain(x, T, n))
        (x,) = _torch_tensors(d, ("x",))
        return lambda: g(x)
    if key == "W6":
        W, x = _torch_tensors(d, ("W", "x"))
        jac = tf.jacfwd if d["mode"] == "fwd" else tf.jacrev
        j = jac(lambda x: wl.jac_map(x, W, T))
        return lambda: j(x)
    if key == "W7":
        g = tf.vmap(tf.grad(lambda p, x, y: wl.per_example_loss(p, x, y, T)), in_dims=(None, 0, 0))
        params = tuple(_torch_tensors(d, wl.W7_PARAMS))
        X, y = _torch_tensors(d, ("X", "y"))
        return lambda: g(params, X, y)
    if key == "W8":
        g = tf.grad(lambda x, k, y: wl.fft_conv_loss(x, k, y, T), argnums=(0, 1))
        args = _torch_tensors(d, wl.W8_ARGS)
        return lambda: g(*args)
    raise KeyError(key)


# ---- JAX -----------------------------------------------------------------------------------------------
def _jax_program(case):
    """The JAX function of the workload (not jitted) and its arguments."""
    import jax
    import jax.numpy as jnp
    d, key = case.data, case.workload
    if key == "W1":
        return jax.grad(lambda x: wl.w1_loss(x, jnp)), (jnp.asarray(d["x"]),)
    if key == "W2":
        g = jax.grad(lambda W1, b1, W2, b2, X, Y: wl.mlp_loss(W1, b1, W2, b2, X, Y, jnp), argnums=(0, 1, 2, 3))
        return g, tuple(jnp.asarray(d[k]) for k in _W2_KEYS)
    if key == "W3":
        return jax.hessian(lambda x: wl.rosenbrock(x, jnp)), (jnp.asarray(d["x"]),)
    if key == "W4":
        def hvp(A, x, v):
            return jax.jvp(jax.grad(lambda x: wl.hvp_objective(x, A, jnp)), (x,), (v,))[1]
        return hvp, tuple(jnp.asarray(d[k]) for k in ("A", "x", "v"))
    if key == "W5":
        n = d["n_ops"]
        return jax.grad(lambda x: wl.w5_chain(x, jnp, n)), (jnp.asarray(d["x"], dtype=jnp.float64),)
    if key == "W6":
        jac = jax.jacfwd if d["mode"] == "fwd" else jax.jacrev
        return jac(lambda x, W: wl.jac_map(x, W, jnp)), (jnp.asarray(d["x"]), jnp.asarray(d["W"]))
    if key == "W7":
        g = jax.vmap(jax.grad(lambda p, x, y: wl.per_example_loss(p, x, y, jnp)), in_axes=(None, 0, 0))
        return g, (tuple(jnp.asarray(d[k]) for k in wl.W7_PARAMS), jnp.asarray(d["X"]), jnp.asarray(d["y"]))
    if key == "W8":
        g = jax.grad(lambda x, k, y: wl.fft_conv_loss(x, k, y, jnp), argnums=(0, 1))
        return g, tuple(jnp.asarray(d[k]) for k in wl.W8_ARGS)
    raise KeyError(key)


def _jax_setup(case):
    import jax
    fn, args = _jax_program(case)
    return lambda: jax.block_until_ready(fn(*args))


def _jax_jit_setup(case):
    import jax
    fn, args = _jax_program(case)
    fn = jax.jit(fn)
    return lambda: jax.block_until_ready(fn(*args))


# ---- MyGrad ----------------------------------------------------------------------------------------------
def _mygrad_setup(case):
    import mygrad as mg
    d, key = case.data, case.workload

    def backward(loss_fn, arrays, consts=()):
        def step():
            params = [mg.tensor(a, copy=False) for a in arrays]
            loss_fn(*params, *consts).backward()
            return [p.grad for p in params]
        return step
    if key == "W1":
        step = backward(lambda x: wl.w1_loss(x, mg), [d["x"]])
        return lambda: step()[0]
    if key == "W2":
        X, Y = d["X"], d["Y"]
        return backward(lambda W1, b1, W2, b2: wl.mlp_loss(W1, b1, W2, b2, X, Y, mg), [d[k] for k in _W2_KEYS[:4]])
    if key == "W5":
        n = d["n_ops"]
        step = backward(lambda x: wl.w5_chain(x, mg, n), [np.float64(d["x"])])
        return lambda: step()[0]
    if key in ("W3", "W4"):
        return "no higher-order derivatives in MyGrad"
    if key == "W6":
        return "no Jacobian API in MyGrad"
    if key == "W7":
        return "no vmap in MyGrad"
    if key == "W8":
        return "no FFT in MyGrad"
    raise KeyError(key)


def peer_impls():
    return [
        wl.Impl("autograd", _autograd_setup, "HIPS autograd"),
        wl.Impl("torch", _torch_setup, "eager .backward() / torch.autograd(.functional)"),
        wl.Impl("torch.func", _torch_func_setup, "torch.func transforms"),
        wl.Impl("jax", _jax_setup, "eager (no jit)"),
        wl.Impl("jax.jit", _jax_jit_setup, "jit, for reference (compile excluded)"),
        wl.Impl("mygrad", _mygrad_setup, "MyGrad"),
    ]
