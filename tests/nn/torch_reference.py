"""The comparison every tests/nn/test_<family>.py makes: the same inputs (and parameters copied
through state_dict) run through fgrad and torch 2.13, outputs and gradients compared to 1e-10 in
float64 and 1e-5 in float32."""
import numpy as np

import fgrad

TOL = {np.float64: 1e-10, np.float32: 1e-5}


def to_torch(torch, a, requires_grad=False):
    t = torch.tensor(np.asarray(a))
    return t.requires_grad_(True) if requires_grad else t


def to_fgrad(a, requires_grad=False):
    return fgrad.tensor(np.asarray(a), requires_grad=requires_grad)


def _numpy(t):
    return t.detach().numpy() if hasattr(t, "detach") else np.asarray(t)


def assert_close(got, want, dtype, what):
    got, want = _numpy(got), _numpy(want)
    assert got.shape == want.shape, f"{what}: shape {got.shape} != torch's {want.shape}"
    assert got.dtype == want.dtype, f"{what}: dtype {got.dtype} != torch's {want.dtype}"
    tol = TOL[np.dtype(dtype).type]
    np.testing.assert_allclose(got, want, rtol=tol, atol=tol, err_msg=what)


def _flat(out):
    return list(out) if isinstance(out, (tuple, list)) else [out]


def compare(torch, f_fgrad, f_torch, arrays, dtype=np.float64, differentiable=None, seed=0, what=""):
    """f_fgrad(*tensors) against f_torch(*tensors) on the same arrays: the outputs, then the
    gradients of every floating input (or those flagged in `differentiable`) under one random
    cotangent per output. Returns the (fgrad, torch) input tensors for further checks."""
    arrays = [np.asarray(a, dtype=dtype) if np.asarray(a).dtype.kind == "f" else np.asarray(a) for a in arrays]
    flags = differentiable or [a.dtype.kind == "f" for a in arrays]
    fx = [to_fgrad(a, g) for a, g in zip(arrays, flags)]
    tx = [to_torch(torch, a, g) for a, g in zip(arrays, flags)]
    fo, to = _flat(f_fgrad(*fx)), _flat(f_torch(*tx))
    assert len(fo) == len(to), f"{what}: {len(fo)} outputs, torch {len(to)}"
    for i, (a, b) in enumerate(zip(fo, to)):
        assert_close(a, b, dtype, f"{what} output {i}")
    rng = np.random.default_rng(seed)
    pairs = [(a, b) for a, b in zip(fo, to) if b is not None and b.requires_grad]
    cts = [rng.standard_normal(tuple(b.shape)).astype(dtype) for _, b in pairs]
    fgrad.autograd.backward([a for a, _ in pairs], [fgrad.tensor(c) for c in cts])
    torch.autograd.backward([b for _, b in pairs], [torch.tensor(c) for c in cts])
    for i, (a, b, g) in enumerate(zip(fx, tx, flags)):
        if g:
            assert b.grad is not None and a.grad is not None, f"{what}: input {i} has no gradient"
            assert_close(a.grad, b.grad, dtype, f"{what} gradient of input {i}")
    return fx, tx


def copy_parameters(torch_module, fgrad_module):
    """torch's parameters and buffers into the fgrad module, through state dicts (strict)."""
    state = {k: fgrad.tensor(v.detach().numpy().copy()) for k, v in torch_module.state_dict().items()}
    fgrad_module.load_state_dict(state)


def compare_parameter_grads(torch_module, fgrad_module, dtype, what):
    want = dict(torch_module.named_parameters())
    got = dict(fgrad_module.named_parameters())
    assert sorted(got) == sorted(want), f"{what}: parameters {sorted(got)} != torch's {sorted(want)}"
    for name, p in want.items():
        assert got[name].grad is not None, f"{what}: {name} has no gradient"
        assert_close(got[name].grad, p.grad, dtype, f"{what} gradient of {name}")
