"""getitem's cotangents in a plain backward pass are summed as pieces and made dense once
(Note [scattered cotangents] in fgrad/ops/indexing.py): n slices of one array cost O(n), not
n arrays of its size. Each case is compared with the dense path (the lazy one switched off)."""
import numpy as np
import pytest

import fgrad
import fgrad.numpy as fnp
from fgrad.ops import indexing

rng = np.random.default_rng(0)


def slices(x):  # concatenating every slice of x: the case that grew as n^2
    return fnp.sum(fnp.concatenate([x[i:i + 1] for i in range(x.shape[0])]) ** 2)


def overlapping(x):  # slices that overlap, ints, steps, Ellipsis and None, a dense use beside them
    return (fnp.sum(x[1:3] * x[0:2]) + x[2] * 3.0 + fnp.sum(x[::2] ** 2) + fnp.sum(x[..., None][1:, 0])
            + fnp.sum(fnp.sin(x)))


def of_intermediate(x):  # the sliced value is a node, not a leaf; a 2-d one
    y = fnp.tanh(x.reshape(2, 3))
    return fnp.sum(y[0] * y[1]) + fnp.sum(y[:, 1:] ** 3)


def of_split(x):  # the sliced value is an output of a multiple-result node
    a, b = fnp.split(x, 2)
    return fnp.sum(a[0:2] * b[1:3]) + b[0]


def shared_by_a_sum(x):  # z = a + b hands z's scattered cotangent to a and b: a's later pieces are a's only
    a, b = x[:4] * 2.0, x[4:] * 3.0
    w = fnp.sum(a[3:4])
    z = a + b
    return fnp.sum(z[0:2]) + fnp.sum(z[2:3]) + w


def through_partials(x):  # scattered cotangents met by each inline step: -g, d * g, a dtype fit
    y = -x[1:]
    return fnp.sum(fnp.exp(y)[:2]) + fnp.sum((x.astype(np.float32) * 2.0)[1:3]) + fnp.sum(fnp.sin(y)[::2])


CASES = [(slices, (7,)), (overlapping, (5,)), (of_intermediate, (6,)), (of_split, (6,)), (shared_by_a_sum, (8,)),
         (through_partials, (5,))]


def dense_only(monkeypatch):
    monkeypatch.setattr(indexing, "_scatters_lazily", lambda g, x, index: False)


@pytest.mark.parametrize("f, shape", CASES, ids=[f.__name__ for f, _ in CASES])
def test_scattered_cotangents_match_the_dense_path(f, shape, monkeypatch):
    x = rng.normal(size=shape)
    lazy = fgrad.grad(f)(x)
    hess_lazy = fgrad.hessian(f)(x)
    dense_only(monkeypatch)
    assert np.allclose(lazy, fgrad.grad(f)(x), rtol=1e-13, atol=1e-13)
    assert np.allclose(hess_lazy, fgrad.hessian(f)(x))


def test_slices_make_no_dense_scatter_each(monkeypatch):
    made = []
    dense_scatter = indexing.scatter_add.impl
    monkeypatch.setattr(indexing.scatter_add, "impl", lambda *a, **p: made.append(1) or dense_scatter(*a, **p))
    x = rng.normal(size=50)
    assert np.allclose(fgrad.grad(slices)(x), 2 * x)
    assert made == []  # (without the lazy path: one array of x's size per slice)


def test_the_tensor_face_and_its_hooks_see_dense_gradients(monkeypatch):
    def grad_and_hooks():
        seen = []
        x = fgrad.tensor(np.linspace(-1.0, 1.0, 4), requires_grad=True)
        y = x * 2.0
        y.register_hook(lambda g: seen.append(type(g.numpy()).__name__))
        ((fnp.concatenate([y[i:i + 1] for i in range(4)]) ** 2).sum() + y[1:3].sum()).backward()
        return x.grad.numpy(), seen

    lazy, seen = grad_and_hooks()
    assert seen == ["ndarray"]
    dense_only(monkeypatch)
    assert np.allclose(lazy, grad_and_hooks()[0])


def test_scattered_pieces_meet_tensor_cotangents():
    # grad over a Tensor: the slices' cotangents are plain arrays, x * w's a Tensor's
    t, w = fgrad.tensor([1.0, 2.0, 3.0]), fgrad.tensor([2.0, 3.0, 4.0])
    g = fgrad.grad(lambda x: fnp.sum(x[0:2]) + fnp.sum(x[1:]) + fnp.sum(x * w))(t)
    assert np.allclose(np.asarray(g), [3.0, 5.0, 5.0])


def test_a_sum_of_scattered_cotangents_leaves_both_as_they_were():
    g = np.ones(2)
    a, b = indexing.Scattered(g, (slice(0, 2),), (4,)), indexing.Scattered(2 * g, (slice(2, 4),), (4,))
    ab, aa = a + b, a + a
    assert np.array_equal(a.dense(), [1, 1, 0, 0]) and np.array_equal(b.dense(), [0, 0, 2, 2])
    assert np.array_equal(ab.dense(), [1, 1, 2, 2]) and np.array_equal(aa.dense(), [2, 2, 0, 0])
    assert np.array_equal((ab + a).dense(), [2, 2, 2, 2]) and np.array_equal(ab.dense(), [1, 1, 2, 2])
