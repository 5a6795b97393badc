"""A 0-D tensor's dim 0 and -1 in the Tensor face, against torch (issue 31): gather, scatter,
scatter_add, index_select and topk take it as of shape (1,) (they had raised IndexError: tuple
index out of range); narrow, split, chunk, diff and unflatten refuse a 0-D tensor with torch's
RuntimeError, unbind with its IndexError (narrow/split/chunk had raised IndexError, unflatten had
given a 1-D tensor). Values, dtypes, shapes and gradients where torch computes."""
import numpy as np
import pytest

import fgrad

torch = pytest.importorskip("torch")

CALLS = {  # name: call(module, x, dim)
    "gather": lambda m, x, d: m.gather(x, d, m.tensor(0)),
    "gather 1-D index": lambda m, x, d: m.gather(x, d, m.tensor([0, 0])),
    "gather index 1": lambda m, x, d: m.gather(x, d, m.tensor(1)),
    "scatter": lambda m, x, d: m.scatter(x, d, m.tensor(0), m.tensor(5.0, dtype=m.float64)),
    "scatter_add": lambda m, x, d: m.scatter_add(x, d, m.tensor(0), m.tensor(5.0, dtype=m.float64)),
    "index_select": lambda m, x, d: m.index_select(x, d, m.tensor([0])),
    "index_select 0-D index": lambda m, x, d: m.index_select(x, d, m.tensor(0)),
    "index_select two": lambda m, x, d: m.index_select(x, d, m.tensor([0, 0])),
    "topk 1": lambda m, x, d: m.topk(x, 1, d)[0],
    "topk indices": lambda m, x, d: m.topk(x, 1, d)[1],
    "topk 0": lambda m, x, d: m.topk(x, 0, d)[0],
    "topk 2": lambda m, x, d: m.topk(x, 2, d)[0],
    "narrow": lambda m, x, d: x.narrow(d, 0, 1),
    "split": lambda m, x, d: x.split(1, d)[0],
    "chunk": lambda m, x, d: x.chunk(1, d)[0],
    "diff": lambda m, x, d: x.diff(dim=d),
    "unflatten": lambda m, x, d: x.unflatten(d, (1,)),
    "unbind": lambda m, x, d: x.unbind(d)[0],
    "select": lambda m, x, d: x.select(d, 0),
    "squeeze": lambda m, x, d: x.squeeze(d),
    "argsort": lambda m, x, d: m.argsort(x, d),
    "sort": lambda m, x, d: m.sort(x, d)[0],
    "softmax": lambda m, x, d: m.softmax(x, d),
    "cumsum": lambda m, x, d: m.cumsum(x, d),
    "var": lambda m, x, d: x.var(d, correction=0),
}


def _outcome(fn):
    try:
        return fn(), None
    except Exception as e:  # (torch's error type is the answer)
        return None, type(e)


@pytest.mark.parametrize("dim", [0, -1, 1, -2])
@pytest.mark.parametrize("name", sorted(CALLS))
def test_zero_dim_tensor_dims_as_torch(name, dim):
    t = torch.tensor(1.5, dtype=torch.float64, requires_grad=True)
    f = fgrad.tensor(1.5, requires_grad=True)
    want, error = _outcome(lambda: CALLS[name](torch, t, dim))
    if error is not None:
        with pytest.raises(error):
            CALLS[name](fgrad, f, dim)
        return
    got = CALLS[name](fgrad, f, dim)
    assert tuple(got.shape) == tuple(want.shape) and str(got.dtype) == str(want.dtype).removeprefix("torch.")
    np.testing.assert_allclose(got.detach().numpy(), want.detach().numpy())
    if want.requires_grad:
        want.sum().backward()
        got.sum().backward()
        np.testing.assert_allclose(f.grad.numpy(), t.grad.numpy())
