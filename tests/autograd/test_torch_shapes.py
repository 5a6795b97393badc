"""fgrad/autograd/torch_shapes.py against torch 2.13: values, dtypes, shapes, gradients (float64,
1e-10) and torch's errors, for 0-D to 3-D tensors, negative dims, float64/float32/int64."""
import warnings

import numpy as np
import pytest

import fgrad

torch = pytest.importorskip("torch")

RNG = np.random.default_rng(31)
DTYPES = [np.float64, np.float32, np.int64]


def data(shape, dtype=np.float64):
    a = RNG.normal(size=shape) * 3
    return (np.round(a) if np.dtype(dtype).kind in "iu" else a).astype(dtype)


def pair(a, grad=False):
    """The same values as an fgrad and a torch tensor (grad: both require it)."""
    a = np.asarray(a)
    return fgrad.tensor(a.copy(), requires_grad=grad), torch.tensor(a.copy(), requires_grad=grad)


def check(ours, theirs, tol=1e-10):
    """Same structure, shapes, dtypes and values."""
    if isinstance(theirs, (tuple, list)):
        assert isinstance(ours, tuple) and len(ours) == len(theirs)
        for o, t in zip(ours, theirs):
            check(o, t, tol)
        return
    if isinstance(theirs, torch.Size):
        assert ours == tuple(theirs) and isinstance(ours, fgrad.Size)
        return
    if not isinstance(theirs, torch.Tensor):
        assert ours == theirs and type(ours) is type(theirs)
        return
    assert isinstance(ours, fgrad.Tensor)
    want = theirs.detach().numpy()
    got = ours.detach().numpy()
    assert got.shape == want.shape
    assert got.dtype == want.dtype, (got.dtype, want.dtype)
    np.testing.assert_allclose(got, want, rtol=tol if want.dtype == np.float64 else 1e-5, atol=tol, equal_nan=True)


def outputs(out):
    return list(out) if isinstance(out, (tuple, list)) else [out]


def check_grad(fn, torch_fn, *arrays):
    """d(sum(w * out))/d(inputs) of fn (fgrad) and torch_fn (torch), float64, 1e-10."""
    ours = [fgrad.tensor(np.asarray(a, np.float64), requires_grad=True) for a in arrays]
    theirs = [torch.tensor(np.asarray(a, np.float64), requires_grad=True) for a in arrays]
    o, t = outputs(fn(*ours)), outputs(torch_fn(*theirs))
    weights = [RNG.normal(size=tuple(x.shape)) for x in t]
    if not any(a.numel() for a in t):
        return
    ours_loss = sum(fgrad.sum(a * fgrad.tensor(w)) for a, w in zip(o, weights) if a.numel())
    theirs_loss = sum((a * torch.tensor(w)).sum() for a, w in zip(t, weights) if a.numel())
    if ours_loss.requires_grad:  # (else no entry of an input reaches the result)
        ours_loss.backward()
    if theirs_loss.requires_grad:
        theirs_loss.backward()
    for a, b in zip(ours, theirs):
        want = np.zeros(b.shape) if b.grad is None else b.grad.numpy()
        got = np.zeros(tuple(a.shape)) if a.grad is None else a.grad.numpy()
        np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-10)


# ---- grids and broadcasting ----------------------------------------------------------------------
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("indexing", ["ij", "xy", None])
@pytest.mark.parametrize("shapes", [[(3,)], [(2,), (3,)], [(), (4,)], [(2,), (3,), (4,)], [(0,), (2,)]])
def test_meshgrid(dtype, indexing, shapes):
    arrays = [data(s, dtype) for s in shapes]
    ours, theirs = zip(*(pair(a) for a in arrays))
    keywords = {} if indexing is None else {"indexing": indexing}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        check(fgrad.meshgrid(*ours, **keywords), torch.meshgrid(*theirs, **keywords))
        check(fgrad.meshgrid(list(ours), **keywords), torch.meshgrid(list(theirs), **keywords))
    if dtype == np.float64:
        check_grad(lambda *t: fgrad.meshgrid(*t, indexing=indexing or "ij"),
                   lambda *t: torch.meshgrid(*t, indexing=indexing or "ij"), *arrays)


def test_meshgrid_errors():
    with pytest.raises(RuntimeError, match=r"non-empty TensorList"):
        fgrad.meshgrid()
    with pytest.raises(RuntimeError, match=r"Expected 0D or 1D tensor"):
        fgrad.meshgrid(fgrad.ones(2, 2))
    with pytest.raises(RuntimeError, match=r"same dtype"):
        fgrad.meshgrid(fgrad.ones(2), fgrad.tensor([1, 2]))
    with pytest.raises(RuntimeError, match='indexing must be one of "xy" or "ij"'):
        fgrad.meshgrid(fgrad.ones(2), indexing="foo")


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape, size", [((), (3,)), ((), ()), ((3,), (2, 3)), ((2, 1), (-1, 4)),
                                         ((2, 1), (3, 2, -1)), ((1, 3), (2, 0, 3)), ((3,), (3,)), ((1,), (0,))])
def test_broadcast_to(dtype, shape, size):
    a = data(shape, dtype)
    x, t = pair(a)
    check(fgrad.broadcast_to(x, size), torch.broadcast_to(t, size))
    check(x.broadcast_to(size), t.broadcast_to(size))
    if dtype == np.float64:
        check_grad(lambda u: fgrad.broadcast_to(u, size), lambda u: torch.broadcast_to(u, size), a)


def test_broadcast_to_errors():
    x = fgrad.ones(2, 3)
    with pytest.raises(RuntimeError, match=r"isn't allowed in a leading, non-existing dimension 0"):
        fgrad.broadcast_to(x, (-1, 2, 3))
    with pytest.raises(RuntimeError, match=r"must match the existing size \(3\) at non-singleton dimension 1"):
        fgrad.broadcast_to(x, (2, 4))
    with pytest.raises(RuntimeError, match=r"number of sizes provided \(1\) must be greater or equal"):
        fgrad.broadcast_to(x, (3,))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shapes", [[(3,)], [(2, 1), (3,)], [(), (2, 3)], [(4, 1, 2), (3, 1), ()], [(0, 1), (3,)]])
def test_broadcast_tensors(dtype, shapes):
    arrays = [data(s, dtype) for s in shapes]
    ours, theirs = zip(*(pair(a) for a in arrays))
    check(fgrad.broadcast_tensors(*ours), torch.broadcast_tensors(*theirs))
    if dtype == np.float64:
        check_grad(fgrad.broadcast_tensors, torch.broadcast_tensors, *arrays)


def test_broadcast_tensors_errors():
    with pytest.raises(RuntimeError, match=r"size of tensor a \(3\) must match the size of tensor b \(4\)"):
        fgrad.broadcast_tensors(fgrad.ones(3), fgrad.ones(4))
    assert fgrad.broadcast_tensors() == torch.broadcast_tensors() == ()


@pytest.mark.parametrize("shapes", [[], [()], [(3, 1), (2,), 1], [5, (2, 1)], [(0,), (1,)], [(2, 0, 1), (3,)]])
def test_broadcast_shapes(shapes):
    check(fgrad.broadcast_shapes(*shapes), torch.broadcast_shapes(*shapes))


def test_broadcast_shapes_errors():
    with pytest.raises(RuntimeError, match=r"Attempting to broadcast a dimension of length 5 at -1"):
        fgrad.broadcast_shapes((3, 1), (2,), 5)
    with pytest.raises(ValueError, match=r"negative length"):
        fgrad.broadcast_shapes((-1,), (3,))


# ---- at least N dims, joining ------------------------------------------------------------------
@pytest.mark.parametrize("name", ["atleast_1d", "atleast_2d", "atleast_3d"])
@pytest.mark.parametrize("shape", [(), (3,), (2, 3), (2, 3, 4), (1, 2, 3, 2)])
def test_atleast(name, shape):
    a = data(shape)
    x, t = pair(a)
    ours, theirs = getattr(fgrad, name), getattr(torch, name)
    check(ours(x), theirs(t))
    check(ours(x, x), theirs(t, t))
    check(ours([x]), theirs([t]))
    check(ours(), theirs())
    check_grad(ours, theirs, a)


@pytest.mark.parametrize("name", ["hstack", "vstack", "dstack", "column_stack", "row_stack"])
@pytest.mark.parametrize("shapes", [[(), ()], [(3,), (3,)], [(2,), (2,), (2,)], [(2, 3), (2, 3)],
                                    [(2, 1, 3), (2, 1, 3)], [(3,)]])
@pytest.mark.parametrize("dtypes", [(np.float64,), (np.float32,), (np.int64,), (np.int64, np.float32)])
def test_stacks(name, shapes, dtypes):
    arrays = [data(s, dtypes[i % len(dtypes)]) for i, s in enumerate(shapes)]
    ours, theirs = zip(*(pair(a) for a in arrays))
    check(getattr(fgrad, name)(list(ours)), getattr(torch, name)(list(theirs)))
    check(getattr(fgrad, name)(tuple(ours)), getattr(torch, name)(tuple(theirs)))
    if dtypes == (np.float64,):
        check_grad(lambda *t: getattr(fgrad, name)(t), lambda *t: getattr(torch, name)(t), *arrays)


@pytest.mark.parametrize("name, parts", [("hstack", [(2, 1), (2, 3)]), ("vstack", [(2,), (3, 2)]),
                                         ("dstack", [(2, 2, 1), (2, 2)]), ("column_stack", [(2,), (2, 3), ()])])
def test_stacks_of_several_shapes(name, parts):
    arrays = [data(s) for s in parts]
    if name == "column_stack":
        arrays[-1] = data((2,))
    ours, theirs = zip(*(pair(a) for a in arrays))
    check(getattr(fgrad, name)(ours), getattr(torch, name)(theirs))
    check_grad(lambda *t: getattr(fgrad, name)(t), lambda *t: getattr(torch, name)(t), *arrays)


@pytest.mark.parametrize("name", ["hstack", "vstack", "dstack", "column_stack"])
def test_stacks_errors(name):
    with pytest.raises(RuntimeError, match=f"{name} expects a non-empty TensorList"):
        getattr(fgrad, name)([])
    with pytest.raises(TypeError, match=r"must be tuple of Tensors, not Tensor"):
        getattr(fgrad, name)(fgrad.ones(2))


# ---- splitting -----------------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape, dim", [((7,), 0), ((7,), -1), ((2, 6), 1), ((2, 6), -1), ((5, 2, 3), 0),
                                        ((5, 2, 3), -2), ((0, 3), 0)])
@pytest.mark.parametrize("sections", [1, 2, 3, 4, 8, [1, 3], [1, -1, 10, 2], (-8, 3), [], [0], "tensor0",
                                      "tensor1"])
def test_tensor_split(dtype, shape, dim, sections):
    a = data(shape, dtype)
    x, t = pair(a)
    ours_s = theirs_s = sections
    if sections == "tensor0":
        ours_s, theirs_s = fgrad.tensor(3), torch.tensor(3)
    elif sections == "tensor1":
        ours_s, theirs_s = fgrad.tensor([1, 4]), torch.tensor([1, 4])
    check(fgrad.tensor_split(x, ours_s, dim), torch.tensor_split(t, theirs_s, dim))
    check(x.tensor_split(ours_s, dim=dim), t.tensor_split(theirs_s, dim=dim))
    if dtype == np.float64:
        check_grad(lambda u: fgrad.tensor_split(u, ours_s, dim), lambda u: torch.tensor_split(u, theirs_s, dim), a)


def test_tensor_split_errors():
    x = fgrad.arange(6.0)
    with pytest.raises(RuntimeError, match=r"zero-dimensional or one-dimensional tensor, but got a tensor with 2 dims"):
        fgrad.tensor_split(x, fgrad.tensor([[1, 4]]))
    with pytest.raises(RuntimeError, match=r"to have dtype of long, but got Float"):
        fgrad.tensor_split(x, fgrad.tensor([1.0, 4.0], dtype=fgrad.float32))
    with pytest.raises(RuntimeError, match=r"to have dtype of long, but got Int"):
        fgrad.tensor_split(x, fgrad.tensor([1], dtype=fgrad.int32))
    with pytest.raises(RuntimeError, match=r"number of sections must be larger than 0, got 0"):
        fgrad.tensor_split(x, 0)
    with pytest.raises(RuntimeError, match=r"at least a 1-dimensional tensor, but got a tensor with 0 dims"):
        fgrad.tensor_split(fgrad.tensor(1.0), 2)
    with pytest.raises(IndexError, match=r"Dimension out of range"):
        fgrad.tensor_split(x, 2, dim=1)


@pytest.mark.parametrize("name, shape", [("hsplit", (6,)), ("hsplit", (2, 6)), ("hsplit", (3, 6, 2)),
                                         ("vsplit", (6, 2)), ("vsplit", (6, 3, 2)), ("dsplit", (2, 3, 6)),
                                         ("dsplit", (1, 2, 6, 2))])
@pytest.mark.parametrize("sections", [1, 2, 3, [1, 4], [2], [0, 10], []])
@pytest.mark.parametrize("dtype", [np.float64, np.int64])
def test_hsplit_vsplit_dsplit(name, shape, sections, dtype):
    a = data(shape, dtype)
    x, t = pair(a)
    check(getattr(fgrad, name)(x, sections), getattr(torch, name)(t, sections))
    check(getattr(x, name)(sections), getattr(t, name)(sections))
    if dtype == np.float64:
        check_grad(lambda u: getattr(fgrad, name)(u, sections), lambda u: getattr(torch, name)(u, sections), a)


def test_hsplit_vsplit_dsplit_errors():
    with pytest.raises(RuntimeError, match=r"along dimension 0, but the size of the dimension 6 is not divisible by "
                                           r"the split_size 4!"):
        fgrad.hsplit(fgrad.arange(6.0), 4)
    with pytest.raises(RuntimeError, match=r"along dimension 1, but the size of the dimension 3 is not divisible"):
        fgrad.hsplit(fgrad.zeros(2, 3), 2)
    with pytest.raises(RuntimeError, match=r"split_size 0!"):
        fgrad.hsplit(fgrad.zeros(6), 0)
    with pytest.raises(RuntimeError, match=r"torch.hsplit requires a tensor with at least 1 dimension, but got a "
                                           r"tensor with 0 dimensions!"):
        fgrad.hsplit(fgrad.tensor(1.0), 1)
    with pytest.raises(RuntimeError, match=r"torch.vsplit requires a tensor with at least 2 dimension"):
        fgrad.vsplit(fgrad.zeros(6), 1)
    with pytest.raises(RuntimeError, match=r"torch.dsplit requires a tensor with at least 3 dimension"):
        fgrad.dsplit(fgrad.zeros(3, 2), 1)
    with pytest.raises(RuntimeError, match=r"along dimension 2, but the size of the dimension 3 is not divisible"):
        fgrad.dsplit(fgrad.zeros(1, 2, 3), 2)
    with pytest.raises(TypeError, match=r"invalid combination of arguments"):
        fgrad.hsplit(fgrad.zeros(6), fgrad.tensor([1]))


# ---- moving and reversing axes --------------------------------------------------------------------
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape, a, b", [((), 0, -1), ((3,), 0, -1), ((2, 3), 0, 1), ((2, 3), -1, -2),
                                         ((2, 3, 4), 0, 2), ((2, 3, 4), -1, 1), ((2, 3, 4), 1, 1)])
def test_swapaxes_swapdims(dtype, shape, a, b):
    arr = data(shape, dtype)
    x, t = pair(arr)
    for name in ("swapaxes", "swapdims"):
        check(getattr(fgrad, name)(x, a, b), getattr(torch, name)(t, a, b))
        check(getattr(x, name)(a, b), getattr(t, name)(a, b))
        if dtype == np.float64:
            check_grad(lambda u: getattr(fgrad, name)(u, a, b), lambda u: getattr(torch, name)(u, a, b), arr)
    with pytest.raises(IndexError, match=r"Dimension out of range"):
        fgrad.swapaxes(x, 0, max(len(shape), 1))


@pytest.mark.parametrize("shape, source, destination", [((), 0, -1), ((2, 3), 0, 1), ((2, 3, 4), -1, 0),
                                                        ((2, 3, 4), [0, 1], [-1, -2]), ((2, 3, 4), (0,), (2,))])
def test_moveaxis(shape, source, destination):
    a = data(shape)
    x, t = pair(a)
    check(fgrad.moveaxis(x, source, destination), torch.moveaxis(t, source, destination))
    check(x.moveaxis(source, destination), t.moveaxis(source, destination))
    check_grad(lambda u: fgrad.moveaxis(u, source, destination), lambda u: torch.moveaxis(u, source, destination), a)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(), (3,), (2, 3), (2, 0, 3), (2, 3, 4)])
def test_ravel(dtype, shape):
    a = data(shape, dtype)
    x, t = pair(a)
    check(fgrad.ravel(x), torch.ravel(t))
    check(x.ravel(), t.ravel())
    if dtype == np.float64:
        check_grad(fgrad.ravel, torch.ravel, a)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(), (3,), (2, 3), (2, 3, 4)])
def test_flipud_fliplr(dtype, shape):
    a = data(shape, dtype)
    x, t = pair(a)
    for name, need in (("flipud", 1), ("fliplr", 2)):
        if len(shape) < need:
            with pytest.raises(RuntimeError, match=f"Input must be >= {need}-d."):
                getattr(fgrad, name)(x)
            with pytest.raises(RuntimeError, match=f"Input must be >= {need}-d."):
                getattr(torch, name)(t)
            continue
        check(getattr(fgrad, name)(x), getattr(torch, name)(t))
        check(getattr(x, name)(), getattr(t, name)())
        if dtype == np.float64:
            check_grad(getattr(fgrad, name), getattr(torch, name), a)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape, dims", [((2, 3), (0, 1)), ((2, 3), [1, 0]), ((2, 3), (-1, 0)),
                                         ((2, 3, 4), (0, 2)), ((2, 3, 4), (-1, -2)), ((2, 3, 4), [2, 0])])
@pytest.mark.parametrize("k", [-5, -1, 0, 1, 2, 3, 4, 6])
def test_rot90(dtype, shape, dims, k):
    a = data(shape, dtype)
    x, t = pair(a)
    check(fgrad.rot90(x, k, dims), torch.rot90(t, k, dims))
    check(x.rot90(k, dims), t.rot90(k, dims))
    if dtype == np.float64 and k in (-1, 0, 1, 2):
        check_grad(lambda u: fgrad.rot90(u, k, dims), lambda u: torch.rot90(u, k, dims), a)
    if dims == (0, 1):
        check(fgrad.rot90(x), torch.rot90(t))


def test_rot90_errors():
    x = fgrad.zeros(2, 3)
    with pytest.raises(RuntimeError, match=r"expected total rotation dims == 2, but got dims = 1"):
        fgrad.rot90(x, 1, [0])
    with pytest.raises(RuntimeError, match=r"expected total dims >= 2, but got total dims = 1"):
        fgrad.rot90(fgrad.zeros(3), 1)
    with pytest.raises(RuntimeError, match=r"expected rotation dims to be different, but got dim0 = 0 and dim1 = -2"):
        fgrad.rot90(x, 1, [0, -2])
    with pytest.raises(RuntimeError, match=r"expected rotation dims to be different"):
        fgrad.rot90(x, 1, [1, 1])
    with pytest.raises(IndexError, match=r"Dimension out of range"):
        fgrad.rot90(x, 1, [0, 2])


# ---- triangles, blocks, combinations ------------------------------------------------------------------
@pytest.mark.parametrize("name", ["tril_indices", "triu_indices"])
@pytest.mark.parametrize("row, col", [(0, 0), (0, 4), (1, 1), (3, 3), (3, 5), (5, 2)])
@pytest.mark.parametrize("offset", [-10, -2, -1, 0, 1, 3, 10])
def test_tril_triu_indices(name, row, col, offset):
    check(getattr(fgrad, name)(row, col, offset), getattr(torch, name)(row, col, offset))
    if offset == 0:
        check(getattr(fgrad, name)(row, col), getattr(torch, name)(row, col))
        check(getattr(fgrad, name)(row, col, dtype=fgrad.int32), getattr(torch, name)(row, col, dtype=torch.int32))


def test_tril_triu_indices_errors():
    with pytest.raises(RuntimeError, match=r"row must be non-negative, got-1"):
        fgrad.tril_indices(-1, 4)
    with pytest.raises(RuntimeError, match=r"col must be non-negative, got-1"):
        fgrad.triu_indices(3, -1)
    with pytest.raises(NotImplementedError, match=r"\"tril_indices\" not implemented for 'Float'"):
        fgrad.tril_indices(3, 3, dtype=fgrad.float32)


@pytest.mark.parametrize("shapes", [[], [()], [(3,)], [(2, 3)], [(), (2,), (2, 1)], [(2, 2), (3, 1), ()],
                                    [(0, 2), (2, 0)], [(1, 0), (2,)]])
@pytest.mark.parametrize("dtypes", [(np.float64,), (np.float32,), (np.int64,), (np.int64, np.float32, np.bool_)])
def test_block_diag(shapes, dtypes):
    arrays = [data(s, dtypes[i % len(dtypes)]) if dtypes[i % len(dtypes)] != np.bool_ else data(s) > 0
              for i, s in enumerate(shapes)]
    ours, theirs = zip(*(pair(a) for a in arrays)) if arrays else ((), ())
    if not arrays:  # (an empty result is of the default dtype: torch's float32, fgrad's float64)
        assert fgrad.block_diag().shape == torch.block_diag().shape == (1, 0)
        assert fgrad.block_diag().dtype == fgrad.get_default_dtype()
        return
    check(fgrad.block_diag(*ours), torch.block_diag(*theirs))
    if dtypes == (np.float64,) and arrays:
        check_grad(fgrad.block_diag, torch.block_diag, *arrays)


def test_block_diag_errors():
    with pytest.raises(RuntimeError, match=r"Input tensors must have 2 or fewer dimensions. Input 1 has 3 dimensions"):
        fgrad.block_diag(fgrad.ones(2), fgrad.ones(1, 1, 1))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shapes", [[(3,)], [(2,), (3,)], [(2,), (0,)], [(2,), (1,), (3,)]])
def test_cartesian_prod(dtype, shapes):
    arrays = [data(s, dtype) for s in shapes]
    ours, theirs = zip(*(pair(a) for a in arrays))
    check(fgrad.cartesian_prod(*ours), torch.cartesian_prod(*theirs))
    if dtype == np.float64:
        check_grad(fgrad.cartesian_prod, torch.cartesian_prod, *arrays)


def test_cartesian_prod_errors():
    with pytest.raises(RuntimeError, match=r"Expect a 1D vector, but got shape \[\]"):
        fgrad.cartesian_prod(fgrad.tensor(1.0))
    with pytest.raises(RuntimeError, match=r"Expect a 1D vector, but got shape \[2, 2\]"):
        fgrad.cartesian_prod(fgrad.ones(2), fgrad.ones(2, 2))
    with pytest.raises(RuntimeError, match=r"same dtype"):
        fgrad.cartesian_prod(fgrad.tensor([1, 2]), fgrad.tensor([3.0]))
    with pytest.raises(RuntimeError, match=r"non-empty TensorList"):
        fgrad.cartesian_prod()


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("n", [0, 1, 3, 5])
@pytest.mark.parametrize("r", [0, 1, 2, 3, 6])
@pytest.mark.parametrize("with_replacement", [False, True])
def test_combinations(dtype, n, r, with_replacement):
    a = data((n,), dtype)
    x, t = pair(a)
    check(fgrad.combinations(x, r, with_replacement), torch.combinations(t, r, with_replacement))
    check(fgrad.combinations(x, r=r, with_replacement=with_replacement),
          torch.combinations(t, r=r, with_replacement=with_replacement))
    if dtype == np.float64 and r:
        check_grad(lambda u: fgrad.combinations(u, r, with_replacement),
                   lambda u: torch.combinations(u, r, with_replacement), a)


def test_combinations_errors():
    with pytest.raises(RuntimeError, match=r"Expect a non-negative number, but got -1"):
        fgrad.combinations(fgrad.ones(3), -1)
    with pytest.raises(RuntimeError, match=r"Expect a 1D vector, but got shape \[2, 2\]"):
        fgrad.combinations(fgrad.ones(2, 2))
    with pytest.raises(RuntimeError, match=r"Expect a 1D vector, but got shape \[\]"):
        fgrad.combinations(fgrad.tensor(1.0))


# ---- diagonals -----------------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape, dim1, dim2", [((3,), -2, -1), ((3,), 1, 0), ((2, 3), -2, -1), ((2, 3), 0, 2),
                                               ((2, 3), -1, -3), ((2, 3, 2), 1, 3), ((0,), -2, -1), ((2, 0), 0, 1)])
@pytest.mark.parametrize("offset", [-2, -1, 0, 1, 3])
def test_diag_embed(dtype, shape, dim1, dim2, offset):
    a = data(shape, dtype)
    x, t = pair(a)
    check(fgrad.diag_embed(x, offset, dim1, dim2), torch.diag_embed(t, offset, dim1, dim2))
    check(x.diag_embed(offset=offset, dim1=dim1, dim2=dim2), t.diag_embed(offset=offset, dim1=dim1, dim2=dim2))
    if dtype == np.float64:
        check_grad(lambda u: fgrad.diag_embed(u, offset, dim1, dim2),
                   lambda u: torch.diag_embed(u, offset, dim1, dim2), a)


def test_diag_embed_bool_and_errors():
    a = data((2, 3)) > 0
    check(fgrad.diag_embed(fgrad.tensor(a)), torch.diag_embed(torch.tensor(a)))
    with pytest.raises(RuntimeError, match=r"diagonal dimensions cannot be identical 1, 1"):
        fgrad.diag_embed(fgrad.ones(2, 3), 0, 1, 1)
    with pytest.raises(IndexError, match=r"Dimension out of range"):
        fgrad.diag_embed(fgrad.ones(2, 3), 0, 1, 3)
    with pytest.raises(IndexError, match=r"Dimension out of range"):
        fgrad.diag_embed(fgrad.tensor(1.0))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(), (3,), (2, 2), (2, 1, 3), (0,)])
@pytest.mark.parametrize("offset", [-2, 0, 1])
def test_diagflat(dtype, shape, offset):
    a = data(shape, dtype)
    x, t = pair(a)
    check(fgrad.diagflat(x, offset), torch.diagflat(t, offset))
    check(x.diagflat(offset), t.diagflat(offset))
    if dtype == np.float64:
        check_grad(lambda u: fgrad.diagflat(u, offset), lambda u: torch.diagflat(u, offset), a)


# ---- indexing ------------------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(), (5,), (2, 3), (2, 3, 2)])
@pytest.mark.parametrize("index_shape", [(), (4,), (2, 3), (0,)])
def test_take(dtype, shape, index_shape):
    a = data(shape, dtype)
    n = a.size
    index = RNG.integers(-n, n, size=index_shape)
    x, t = pair(a)
    check(fgrad.take(x, fgrad.tensor(index)), torch.take(t, torch.tensor(index)))
    check(x.take(fgrad.tensor(index)), t.take(torch.tensor(index)))
    if dtype == np.float64:
        check_grad(lambda u: fgrad.take(u, fgrad.tensor(index)), lambda u: torch.take(u, torch.tensor(index)), a)


def test_take_errors():
    x = fgrad.arange(6).reshape(2, 3)
    with pytest.raises(IndexError, match=r"out of range: tried to access index 6 on a tensor of 6 elements."):
        fgrad.take(x, fgrad.tensor([6]))
    with pytest.raises(IndexError, match=r"tried to access index -7"):
        fgrad.take(x, fgrad.tensor([-7]))
    with pytest.raises(RuntimeError, match=r"take\(\): Expected a long tensor for index, but got Int"):
        fgrad.take(x, fgrad.tensor([1], dtype=fgrad.int32))
    with pytest.raises(TypeError, match=r"must be Tensor, not list"):
        fgrad.take(x, [0])


INDEX_CASES = [((3, 2), 0, [0, 2, 0]), ((3, 2), -2, [1]), ((3, 4), 1, [3, 0, 3]), ((3, 4), -1, []),
               ((2, 3, 4), 1, [2, 2, 1, 0]), ((2, 3, 4), -1, [0]), ((5,), 0, [4, 0]), ((), 0, [0]), ((), -1, 0),
               ((4,), 0, 2)]


def _source(shape, dim, index, dtype):
    if not shape:
        return data((), dtype)
    k = np.asarray(index).size
    return data(shape[:dim % len(shape)] + (k,) + shape[dim % len(shape) + 1:], dtype) if np.ndim(index) else \
        data(shape[:dim % len(shape)] + (1,) + shape[dim % len(shape) + 1:], dtype)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape, dim, index", INDEX_CASES)
@pytest.mark.parametrize("alpha", [1, 2])
def test_index_add(dtype, shape, dim, index, alpha):
    a, s = data(shape, dtype), _source(shape, dim, index, dtype)
    (x, t), (sx, st) = pair(a), pair(s)
    ix, it = fgrad.tensor(np.asarray(index, np.int64)), torch.tensor(np.asarray(index, np.int64))
    check(fgrad.index_add(x, dim, ix, sx, alpha=alpha), torch.index_add(t, dim, it, st, alpha=alpha))
    check(x.index_add(dim, ix, sx, alpha=alpha), t.index_add(dim, it, st, alpha=alpha))
    check(fgrad.index_add(x, dim, ix.to(fgrad.int32), sx), torch.index_add(t, dim, it.int(), st))
    x2, t2 = x.clone(), t.clone()
    assert x2.index_add_(dim, ix, sx, alpha=alpha) is x2
    t2.index_add_(dim, it, st, alpha=alpha)
    check(x2, t2)
    if dtype == np.float64:
        check_grad(lambda u, v: fgrad.index_add(u, dim, ix, v, alpha=alpha),
                   lambda u, v: torch.index_add(u, dim, it, v, alpha=alpha), a, s)


def test_index_add_errors():
    x, i, s = fgrad.zeros(3, 2), fgrad.tensor([0, 2, 0]), fgrad.ones(3, 2)
    with pytest.raises(RuntimeError, match=r"Expected dtype int32/int64 for index but got: Float"):
        fgrad.index_add(x, 0, i.to(fgrad.float32), s)
    with pytest.raises(RuntimeError, match=r"self \(Double\) and source \(Float\) must have the same scalar type"):
        fgrad.index_add(x, 0, i, s.to(fgrad.float32))
    with pytest.raises(RuntimeError, match=r"source tensor shape must match self tensor shape"):
        fgrad.index_add(x, 0, i, fgrad.ones(3, 3))
    with pytest.raises(RuntimeError, match=r"Number of indices \(3\) should be equal to source.size\(dim\): \(2\)"):
        fgrad.index_add(x, 0, i, fgrad.ones(2, 2))
    with pytest.raises(RuntimeError, match=r"index 3 is out of bounds for dimension 0 with size 3"):
        fgrad.index_add(x, 0, fgrad.tensor([0, 3, 0]), s)
    with pytest.raises(RuntimeError, match=r"index -1 is out of bounds for dimension 0 with size 3"):
        fgrad.index_add(x, 0, fgrad.tensor([0, -1, 0]), s)
    with pytest.raises(IndexError, match=r"Index is supposed to be a vector, but got dim: 2"):
        fgrad.index_add(x, 0, fgrad.tensor([[0, 1, 0]]), s)
    with pytest.raises(IndexError, match=r"Dimension out of range"):
        fgrad.index_add(x, 2, i, s)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape, dim, index", [((3, 2), 0, [2, 0]), ((3, 4), 1, [3, 0, 1]), ((3, 4), -1, []),
                                               ((2, 3, 4), 1, [2, 0]), ((2, 3, 4), -1, [1]), ((5,), 0, [4, 0]),
                                               ((), 0, [0]), ((), -1, 0), ((4,), 0, 2)])
def test_index_copy(dtype, shape, dim, index):
    a, s = data(shape, dtype), _source(shape, dim, index, dtype)
    if np.ndim(index) == 0 and shape:
        s = s.reshape(())
    (x, t), (sx, st) = pair(a), pair(s)
    ix, it = fgrad.tensor(np.asarray(index, np.int64)), torch.tensor(np.asarray(index, np.int64))
    check(fgrad.index_copy(x, dim, ix, sx), torch.index_copy(t, dim, it, st))
    check(x.index_copy(dim, ix, sx), t.index_copy(dim, it, st))
    x2, t2 = x.clone(), t.clone()
    assert x2.index_copy_(dim, ix, sx) is x2
    t2.index_copy_(dim, it, st)
    check(x2, t2)
    if dtype == np.float64:
        check_grad(lambda u, v: fgrad.index_copy(u, dim, ix, v), lambda u, v: torch.index_copy(u, dim, it, v), a, s)


def test_index_copy_errors():
    x, s = fgrad.zeros(3, 2), fgrad.arange(4.0).reshape(2, 2)
    with pytest.raises(RuntimeError, match=r"Expected a long tensor for index, but got Int"):
        fgrad.index_copy(x, 0, fgrad.tensor([2, 0], dtype=fgrad.int32), s)
    with pytest.raises(RuntimeError, match=r"same dtype, but got \(self\) Double and \(source\) Float"):
        fgrad.index_copy(x, 0, fgrad.tensor([2, 0]), s.to(fgrad.float32))
    with pytest.raises(IndexError, match=r"index_copy_\(\): index 3 is out of bounds for dimension 0 with size 3"):
        fgrad.index_copy(x, 0, fgrad.tensor([2, 3]), s)
    with pytest.raises(IndexError, match=r"index -1 is out of bounds"):
        fgrad.index_copy(x, 0, fgrad.tensor([-1, 0]), s)
    with pytest.raises(RuntimeError, match=r"Source/destination tensor must have same slice shapes. Destination slice "
                                           r"shape: 2 at dimension 0 and source slice shape: 3 at dimension 0."):
        fgrad.index_copy(x, 0, fgrad.tensor([2, 0]), fgrad.ones(2, 3))
    with pytest.raises(IndexError, match=r"Number of indices \(3\) should be equal to source.size\(dim\) \(2\)"):
        fgrad.index_copy(x, 0, fgrad.tensor([2, 0, 1]), s)
    with pytest.raises(IndexError, match=r"Index should have dimension 1 or 0 \(got 2\)"):
        fgrad.index_copy(x, 0, fgrad.tensor([[2, 0]]), s)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape, dim, index", [((3, 2), 1, [1]), ((3, 2), 0, [-1, 0, 0]), ((3, 4), -1, []),
                                               ((2, 3, 4), 1, [2, -3]), ((5,), 0, 3), ((), 0, [0]), ((), -1, -1)])
@pytest.mark.parametrize("value", [5, 2.7, "tensor"])
def test_index_fill(dtype, shape, dim, index, value):
    a = data(shape, dtype)
    x, t = pair(a)
    ix, it = fgrad.tensor(np.asarray(index, np.int64)), torch.tensor(np.asarray(index, np.int64))
    vx, vt = (fgrad.tensor(np.float64(-3.5)), torch.tensor(np.float64(-3.5))) if value == "tensor" else (value, value)
    check(fgrad.index_fill(x, dim, ix, vx), torch.index_fill(t, dim, it, vt))
    check(x.index_fill(dim, ix, vx), t.index_fill(dim, it, vt))
    x2, t2 = x.clone(), t.clone()
    assert x2.index_fill_(dim, ix, vx) is x2
    t2.index_fill_(dim, it, vt)
    check(x2, t2)
    if dtype == np.float64:
        if value == "tensor" and np.all(np.asarray(index) >= 0):  # (torch's backward fails at negative indices)
            check_grad(lambda u, v: fgrad.index_fill(u, dim, ix, v), lambda u, v: torch.index_fill(u, dim, it, v),
                       a, np.float64(-3.5))
        else:
            check_grad(lambda u: fgrad.index_fill(u, dim, ix, vx), lambda u: torch.index_fill(u, dim, it, vt), a)


def test_index_fill_errors():
    x = fgrad.zeros(3, 2)
    with pytest.raises(IndexError, match=r"Expected dtype int64 for index."):
        fgrad.index_fill(x, 1, fgrad.tensor([1], dtype=fgrad.int32), 5)
    with pytest.raises(IndexError, match=r"index 2 is out of bounds for dimension 1 with size 2"):
        fgrad.index_fill(x, 1, fgrad.tensor([2]), 5)
    with pytest.raises(RuntimeError, match=r"Index has to be a vector/scalar"):
        fgrad.index_fill(x, 1, fgrad.tensor([[1]]), 5)
    with pytest.raises(RuntimeError, match=r"only supports a 0-dimensional value tensor, but got tensor with 1"):
        fgrad.index_fill(x, 1, fgrad.tensor([1]), fgrad.tensor([5.0]))


# ---- tests of a tensor ---------------------------------------------------------------------------
@pytest.mark.parametrize("a", [np.array(1.0), np.array([1.5], np.float32), np.array([1, 2]), np.array([True]),
                               np.array([1j]), np.array([[0.0]]), np.array(np.nan), np.array([0])])
def test_is_floating_point_is_complex_is_nonzero(a):
    x, t = pair(a)
    for name in ("is_floating_point", "is_complex"):
        check(getattr(fgrad, name)(x), getattr(torch, name)(t))
        check(getattr(x, name)(), getattr(t, name)())
    if a.size == 1:
        check(fgrad.is_nonzero(x), torch.is_nonzero(t))
        check(x.is_nonzero(), t.is_nonzero())
    else:
        with pytest.raises(RuntimeError, match=r"Boolean value of Tensor with more than one value is ambiguous"):
            fgrad.is_nonzero(x)


def test_is_errors():
    with pytest.raises(RuntimeError, match=r"Boolean value of Tensor with no values is ambiguous"):
        fgrad.is_nonzero(fgrad.tensor([]))
    with pytest.raises(TypeError, match=r"must be Tensor, not list"):
        fgrad.is_floating_point([1.0])
    with pytest.raises(TypeError, match=r"must be Tensor, not int"):
        fgrad.is_nonzero(1)


# ---- statistics and sampled integrals ---------------------------------------------------------------
@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int64, np.complex128])
@pytest.mark.parametrize("shape", [(), (5,), (1, 4), (3, 5), (2, 1)])
@pytest.mark.parametrize("correction", [0, 1, 2])
@pytest.mark.parametrize("weights", [None, "f", "a", "fa"])
def test_cov(dtype, shape, correction, weights):
    a = data(shape, np.float64) + (1j * data(shape) if dtype == np.complex128 else 0)
    a = a.astype(dtype) if dtype != np.int64 else np.round(a.real).astype(np.int64)
    n = shape[-1] if len(shape) == 2 else a.size
    fw = RNG.integers(1, 4, size=n)
    aw = RNG.uniform(0.1, 2.0, size=n).astype(np.float64 if dtype in (np.float64, np.complex128) else np.float32)
    x, t = pair(a)
    ours = {"correction": correction}
    theirs = {"correction": correction}
    if weights and "f" in weights:
        ours["fweights"], theirs["fweights"] = fgrad.tensor(fw), torch.tensor(fw)
    if weights and "a" in weights:
        ours["aweights"], theirs["aweights"] = fgrad.tensor(aw), torch.tensor(aw)
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got, want = fgrad.cov(x, **ours), torch.cov(t, **theirs)
        if weights and n <= correction:  # (a divisor near 0 meets sums that round to 0 or not: 0, inf or NaN)
            assert got.shape == tuple(want.shape)
        elif dtype == np.int64:  # (torch computes in its default dtype, float32; fgrad in its own, float64)
            assert got.dtype == fgrad.get_default_dtype()
            np.testing.assert_allclose(got.numpy(), want.double().numpy(), rtol=1e-5, atol=1e-9, equal_nan=True)
        else:
            check(got, want, tol=1e-9)
            check(x.cov(**ours), t.cov(**theirs), tol=1e-9)
        if dtype == np.float64 and n > correction + 1 and not weights:
            check_grad(lambda u: fgrad.cov(u, correction=correction), lambda u: torch.cov(u, correction=correction),
                       a)
        if dtype == np.float64 and n > 2 and weights == "fa":
            check_grad(lambda u, w: fgrad.cov(u, fweights=fgrad.tensor(fw), aweights=w),
                       lambda u, w: torch.cov(u, fweights=torch.tensor(fw), aweights=w), a, aw)


def test_cov_float32_with_float64_weights():
    a = data((2, 4), np.float32)
    w = RNG.uniform(0.5, 1.0, size=4)
    check(fgrad.cov(fgrad.tensor(a), aweights=fgrad.tensor(w)), torch.cov(torch.tensor(a), aweights=torch.tensor(w)))
    check(fgrad.cov(fgrad.tensor(a), fweights=fgrad.tensor([1, 2, 1, 1])),
          torch.cov(torch.tensor(a), fweights=torch.tensor([1, 2, 1, 1])))


def test_cov_errors():
    m = fgrad.tensor([[1.0, 2.0, 4.0], [2.0, 0.0, 1.0]])
    with pytest.raises(RuntimeError, match=r"expected input to have two or fewer dimensions but got an input with 3"):
        fgrad.cov(fgrad.ones(2, 2, 2))
    with pytest.raises(RuntimeError, match=r"bool dtype is not supported for input"):
        fgrad.cov(m > 1)
    with pytest.raises(RuntimeError, match=r"expected fweights to have integral dtype but got fweights with Double"):
        fgrad.cov(m, fweights=fgrad.tensor([1.0, 2.0, 1.0]))
    with pytest.raises(RuntimeError, match=r"fweights cannot be negative"):
        fgrad.cov(m, fweights=fgrad.tensor([1, -2, 1]))
    with pytest.raises(RuntimeError, match=r"expected fweights to have one or fewer dimensions"):
        fgrad.cov(m, fweights=fgrad.tensor([[1, 2, 1]]))
    with pytest.raises(RuntimeError, match=r"same numel as there are observations in the input but got 2 != 3"):
        fgrad.cov(m, fweights=fgrad.tensor([1, 2]))
    with pytest.raises(RuntimeError, match=r"expected aweights to have floating point dtype but got aweights with Lo"):
        fgrad.cov(m, aweights=fgrad.tensor([1, 2, 1]))
    with pytest.raises(RuntimeError, match=r"aweights cannot be negative"):
        fgrad.cov(m, aweights=fgrad.tensor([1.0, -2.0, 1.0]))
    with pytest.raises(RuntimeError, match=r"weights sum to zero, can't be normalized"):
        fgrad.cov(m, fweights=fgrad.tensor([0, 0, 0]))
    with pytest.raises(TypeError, match=r"argument 'correction' must be int, not float"):
        fgrad.cov(m, correction=1.5)


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int64, np.complex128])
@pytest.mark.parametrize("shape", [(), (5,), (1, 4), (3, 5), (4, 2)])
def test_corrcoef(dtype, shape):
    a = data(shape) + (1j * data(shape) if dtype == np.complex128 else 0)
    a = a.astype(dtype) if dtype != np.int64 else np.round(a.real).astype(np.int64)
    x, t = pair(a)
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got, want = fgrad.corrcoef(x), torch.corrcoef(t)
        if dtype == np.int64:
            assert got.dtype == fgrad.get_default_dtype()
            np.testing.assert_allclose(got.numpy(), want.double().numpy(), rtol=1e-5, equal_nan=True)
        else:
            check(got, want, tol=1e-9)
            check(x.corrcoef(), t.corrcoef(), tol=1e-9)
    if dtype == np.float64 and len(shape) == 2 and shape[1] > 2:
        check_grad(fgrad.corrcoef, torch.corrcoef, a)
    with pytest.raises(RuntimeError, match=r"corrcoef\(\): expected input to have two or fewer dimensions"):
        fgrad.corrcoef(fgrad.ones(2, 2, 2))


TRAPEZOID_CASES = [((5,), -1, None), ((5,), 0, "1d"), ((2, 3), -1, "1d"), ((2, 3), 0, "1d"), ((2, 3), 1, "same"),
                   ((3, 4, 2), 1, "1d"), ((3, 4, 2), -3, "same"), ((3, 4, 2), -1, "bcast"), ((1,), -1, "1d"),
                   ((2, 0), -1, "1d"), ((2, 3), -2, None)]


def _points(shape, dim, kind):
    if kind == "1d":
        return np.cumsum(RNG.uniform(0.1, 1.0, size=shape[dim]))
    if kind == "same":
        return np.cumsum(RNG.uniform(0.1, 1.0, size=shape), axis=dim)
    if kind == "bcast":
        s = [1] * len(shape)
        s[dim] = shape[dim]
        return np.cumsum(RNG.uniform(0.1, 1.0, size=s), axis=dim)
    return None


@pytest.mark.parametrize("name", ["trapezoid", "trapz", "cumulative_trapezoid"])
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape, dim, kind", TRAPEZOID_CASES)
def test_trapezoid(name, dtype, shape, dim, kind):
    y = data(shape, dtype)
    points = _points(shape, dim, kind)
    yx, yt = pair(y)
    ours, theirs = getattr(fgrad, name), getattr(torch, name)
    if points is None:
        cases = [((), {"dim": dim}), ((), {"dx": 0.5, "dim": dim})]
    else:
        cases = [((points,), {"dim": dim}), ((points.astype(np.float32),), {"dim": dim})]
    for args, keywords in cases:
        got = ours(yx, *[fgrad.tensor(a) for a in args], **keywords)
        want = theirs(yt, *[torch.tensor(a) for a in args], **keywords)
        if dtype == np.int64 and want.dtype == torch.float32:
            # (torch computes int samples in its default dtype, float32; fgrad in its own, float64)
            assert got.dtype == fgrad.get_default_dtype()
            np.testing.assert_allclose(got.numpy(), want.double().numpy(), rtol=1e-5, atol=1e-6)
        else:
            check(got, want)
    if dtype == np.float64:
        if points is None:
            check_grad(lambda u: ours(u, dx=0.5, dim=dim), lambda u: theirs(u, dx=0.5, dim=dim), y)
        else:
            check_grad(lambda u, v: ours(u, v, dim=dim), lambda u, v: theirs(u, v, dim=dim), y, points)


def test_trapezoid_int_points():
    y, x = np.array([1.0, 2.0, 4.0], np.float32), np.array([0, 1, 3])
    for name in ("trapezoid", "cumulative_trapezoid"):
        check(getattr(fgrad, name)(fgrad.tensor(y), fgrad.tensor(x)), getattr(torch, name)(torch.tensor(y),
                                                                                          torch.tensor(x)))


def test_trapezoid_errors():
    for name in ("trapezoid", "cumulative_trapezoid"):
        fn = getattr(fgrad, name)
        with pytest.raises(RuntimeError, match=r"There must be one `x` value for each sample point"):
            fn(fgrad.ones(2, 3), fgrad.tensor([0.0, 1.0]))
        with pytest.raises(RuntimeError, match=r"received a bool input for `y`, but bool is not supported"):
            fn(fgrad.ones(2, 3) > 0)
        with pytest.raises(IndexError, match=r"Dimension out of range"):
            fn(fgrad.ones(2, 3), dim=2)
        with pytest.raises(TypeError):
            fn(fgrad.ones(3), 2.0)
    with pytest.raises(IndexError, match=r"(?i)dimension specified as -1 but tensor has no dimensions"):
        fgrad.trapezoid(fgrad.tensor(1.0))
    with pytest.raises(IndexError, match=r"slice\(\) cannot be applied to a 0-dim tensor."):
        fgrad.cumulative_trapezoid(fgrad.tensor(1.0))


def test_methods_are_torchs():
    """Tensor.swapaxes, ravel and take are torch's (Tensor inherited NumPy's from Tracer)."""
    x = fgrad.arange(6.0).reshape(2, 3)
    assert fgrad.Tensor.swapaxes is fgrad.swapaxes and fgrad.Tensor.ravel is fgrad.ravel
    assert fgrad.Tensor.take is fgrad.take
    check(x.take(fgrad.tensor([-1])), torch.arange(6.0, dtype=torch.float64).reshape(2, 3).take(torch.tensor([-1])))
    for name in ("meshgrid", "broadcast_shapes", "atleast_1d", "hstack", "block_diag", "cartesian_prod",
                 "tril_indices", "trapezoid", "cumulative_trapezoid"):
        assert not hasattr(torch.Tensor, name) or hasattr(fgrad.Tensor, name)


@pytest.mark.parametrize("name, args", [("index_add_", (0, [2, 0], "source")), ("index_copy_", (0, [2, 0], "source")),
                                        ("index_fill_", (1, [1], -2.5))])
def test_in_place_gradients(name, args):
    """The in-place twins are recorded: gradients through them as torch's; a leaf that requires grad refuses."""
    a, s = data((3, 2)), data((2, 2))
    grads = []
    for lib in (fgrad, torch):
        x, src = lib.tensor(a.copy(), requires_grad=True), lib.tensor(s.copy(), requires_grad=True)
        dim, index, value = args
        y = x * 2
        assert getattr(y, name)(dim, lib.tensor(index), src if value == "source" else value) is y
        (y * y).sum().backward()
        grads.append((x.grad.numpy(), None if src.grad is None else src.grad.numpy()))
        with pytest.raises(RuntimeError, match="a leaf Variable that requires grad"):
            getattr(x, name)(dim, lib.tensor(index), src if value == "source" else value)
    np.testing.assert_allclose(grads[0][0], grads[1][0], rtol=1e-10, atol=1e-10)
    if grads[1][1] is not None:
        np.testing.assert_allclose(grads[0][1], grads[1][1], rtol=1e-10, atol=1e-10)


@pytest.mark.parametrize("dtype, alpha", [("float64", 1j), ("float32", 2 - 1j), ("int8", 300), ("uint8", -256),
                                          ("uint8", 256), ("int64", 2**63)])
def test_index_add_of_an_alpha_not_fitting_the_dtype_raises_as_torchs(dtype, alpha):
    # (a complex alpha of a real tensor was dropped to 0 and an int8 one of 300 wrapped to 44)
    index = [0, 2]
    with pytest.raises(RuntimeError, match="cannot be converted"):
        torch.zeros(3, dtype=getattr(torch, dtype)).index_add(0, torch.tensor(index), torch.ones(2, dtype=getattr(
            torch, dtype)), alpha=alpha)
    x = fgrad.zeros(3, dtype=getattr(fgrad, dtype))
    with pytest.raises(RuntimeError, match="cannot be converted"):
        x.index_add(0, fgrad.tensor(index), fgrad.ones(2, dtype=x.dtype), alpha=alpha)


@pytest.mark.parametrize("dtype, alpha, expected", [("int64", 2.7, [2, 0, 2]), ("int8", -3, [-3, 0, -3]),
                                                    ("uint8", -1, [255, 0, 255]), ("bool", 2, [True, False, True]),
                                                    ("complex128", 1j, [1j, 0, 1j]), ("float32", 0.5, [0.5, 0, 0.5])])
def test_index_add_alpha_converted_as_torchs(dtype, alpha, expected):
    got = fgrad.zeros(3, dtype=getattr(fgrad, dtype)).index_add(
        0, fgrad.tensor([0, 2]), fgrad.ones(2, dtype=getattr(fgrad, dtype)), alpha=alpha)
    want = torch.zeros(3, dtype=getattr(torch, dtype)).index_add(
        0, torch.tensor([0, 2]), torch.ones(2, dtype=getattr(torch, dtype)), alpha=alpha)
    assert got.dtype == getattr(fgrad, dtype)
    np.testing.assert_array_equal(got.numpy(), want.numpy())
    np.testing.assert_array_equal(got.numpy(), np.array(expected, dtype=dtype))


@pytest.mark.parametrize("value", [fgrad.tensor(2 + 1j), 2 + 1j])
def test_index_fill_of_a_complex_value_into_a_real_tensor_raises_as_torchs(value):
    # (a complex 0-D tensor's imaginary part was dropped: [2., 0., 2.])
    with pytest.raises(RuntimeError, match="complex Scalar"):
        torch.zeros(3).index_fill(0, torch.tensor([0, 2]), torch.tensor(2 + 1j))
    with pytest.raises(RuntimeError, match="complex Scalar"):
        fgrad.zeros(3).index_fill(0, fgrad.tensor([0, 2]), value)
    np.testing.assert_array_equal(fgrad.zeros(3, dtype=fgrad.complex128).index_fill(
        0, fgrad.tensor([0, 2]), value).numpy(), [2 + 1j, 0, 2 + 1j])
