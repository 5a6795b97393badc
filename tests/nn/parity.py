"""Shared by tests/nn's layer tests: run one layer in fgrad and in torch on the same inputs and
parameters, and compare outputs and gradients (of the inputs and of every parameter) to 1e-10
in float64, 1e-5 in float32 (issue 31's tolerances)."""
import numpy as np

import fgrad

TOL = {np.float64: 1e-10, np.float32: 1e-5, np.int64: 0}


def close(got, want, dtype, what):
    got = got.detach().numpy() if hasattr(got, "detach") else np.asarray(got)
    want = want.detach().numpy() if hasattr(want, "detach") else np.asarray(want)
    assert got.shape == want.shape, (what, got.shape, want.shape)
    assert got.dtype == want.dtype, (what, got.dtype, want.dtype)
    tol = TOL[dtype]
    np.testing.assert_allclose(got, want, rtol=tol, atol=tol, err_msg=what)


def copy_parameters(fmodule, tmodule):
    """fgrad's parameters and buffers onto torch's module, by name (fgrad's draws differ from torch's)."""
    import torch
    fstate = fmodule.state_dict()
    with torch.no_grad():
        for name, t in tmodule.state_dict().items():
            t.copy_(torch.from_numpy(np.array(fstate[name].detach().numpy())))


def run_both(ffun, tfun, arrays, dtype, seed=0, differentiable=None):
    """ffun(*fgrad tensors) against tfun(*torch tensors) on `arrays` (cast to dtype when floating):
    the outputs, then the gradients of a random linear function of the output. Returns the
    input tensors of both (their .grad is compared here)."""
    import torch
    rng = np.random.default_rng(seed)
    arrays = [a.astype(dtype) if np.issubdtype(a.dtype, np.floating) else a for a in arrays]
    grads = [np.issubdtype(a.dtype, np.floating) for a in arrays] if differentiable is None else differentiable
    fins = [fgrad.tensor(a, requires_grad=g) for a, g in zip(arrays, grads)]
    tins = [torch.tensor(a, requires_grad=g) for a, g in zip(arrays, grads)]
    fout, tout = ffun(*fins), tfun(*tins)
    close(fout, tout, dtype, "output")
    cot = rng.standard_normal(tuple(tout.shape)).astype(dtype)
    (fout * fgrad.tensor(cot)).sum().backward()
    (tout * torch.tensor(cot)).sum().backward()
    for i, (f, t, g) in enumerate(zip(fins, tins, grads)):
        if g:
            close(f.grad, t.grad, dtype, f"gradient of input {i}")
    return fins, tins


def module_parity(fmodule, tmodule, arrays, dtype, seed=0):
    """A Module and torch's counterpart (parameters copied from fgrad's) on the same input: outputs,
    input gradients and parameter gradients."""
    fmodule.to(getattr(fgrad, np.dtype(dtype).name))
    tmodule.to(getattr(__import__("torch"), np.dtype(dtype).name))
    copy_parameters(fmodule, tmodule)
    run_both(fmodule, tmodule, arrays, dtype, seed)
    tparams = dict(tmodule.named_parameters())
    names = [n for n, _ in fmodule.named_parameters()]
    assert names == list(tparams), (names, list(tparams))
    for name, p in fmodule.named_parameters():
        close(p.grad, tparams[name].grad, dtype, f"gradient of {name}")
