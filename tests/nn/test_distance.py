"""fgrad.nn.functional's normalize, cosine_similarity, pairwise_distance and pdist, and the
Modules CosineSimilarity and PairwiseDistance, against torch 2.13: outputs and input gradients
(float64 to 1e-10, float32 to 1e-5) for several p, with zero vectors, zero entries, ties and
identical rows where torch's derivative is a convention; broadcasting, dtypes, and torch's
errors for bad arguments."""
import math
import warnings

import numpy as np
import pytest

from fgrad import nn
from fgrad.nn import functional as F

from .torch_reference import compare, to_fgrad, to_torch

torch = pytest.importorskip("torch")
TF = torch.nn.functional
DTYPES = [np.float64, np.float32]
PS = [2.0, 1.0, 3.0, 0.5, 1.5, math.inf]


def _input(shape=(5, 4), seed=0, special=True):
    x = np.random.default_rng(seed).standard_normal(shape)
    if special and len(shape) == 2 and shape[0] >= 3:
        x[0] = 0.0  # a zero vector
        x[1, :2] = 0.0  # zero entries
        x[2, :2] = 1.5  # a tie for the largest entry
    return x


@pytest.mark.parametrize("dtype", DTYPES, ids=["float64", "float32"])
@pytest.mark.parametrize("p", PS)
@pytest.mark.parametrize("dim", [1, 0, -1])
def test_normalize_matches_torch(p, dim, dtype):
    compare(torch, lambda x: F.normalize(x, p, dim), lambda x: TF.normalize(x, p, dim), [_input()], dtype,
            what=f"normalize p={p} dim={dim}")


@pytest.mark.parametrize("dtype", DTYPES, ids=["float64", "float32"])
def test_normalize_defaults_eps_and_shapes_match_torch(dtype):
    compare(torch, F.normalize, TF.normalize, [_input((2, 3, 4))], dtype, what="normalize defaults")
    compare(torch, lambda x: F.normalize(x, eps=0.5), lambda x: TF.normalize(x, eps=0.5), [_input((6, 3)) * 0.2],
            dtype, what="normalize eps")
    compare(torch, lambda x: F.normalize(x, dim=0), lambda x: TF.normalize(x, dim=0), [_input((7,))], dtype,
            what="normalize 1-D")
    compare(torch, lambda x: F.normalize(x, dim=0), lambda x: TF.normalize(x, dim=0), [np.array(3.0)], dtype,
            what="normalize 0-D")


@pytest.mark.parametrize("dtype", DTYPES, ids=["float64", "float32"])
@pytest.mark.parametrize("shapes,dim", [(((5, 4), (5, 4)), 1), (((5, 4), (5, 4)), 0), (((5, 4), (1, 4)), 1),
                                        (((3, 1, 4), (1, 5, 4)), -1), (((4,), (3, 4)), 1), (((2, 3, 4), (2, 3, 4)), 1)])
def test_cosine_similarity_matches_torch(shapes, dim, dtype):
    arrays = [_input(shapes[0], 0), _input(shapes[1], 1)]
    compare(torch, lambda a, b: F.cosine_similarity(a, b, dim), lambda a, b: TF.cosine_similarity(a, b, dim),
            arrays, dtype, what=f"cosine_similarity {shapes} {dim}")


def test_cosine_similarity_of_a_zero_vector_matches_torch():
    """torch clamps the norms in place without autograd: the derivative is the unclamped norm's."""
    a, b = _input((3, 4), 0), _input((3, 4), 1)
    a[1] = 0.0
    compare(torch, F.cosine_similarity, TF.cosine_similarity, [a, b], np.float64, what="zero vector")
    compare(torch, lambda x, y: F.cosine_similarity(x, y, eps=0.5), lambda x, y: TF.cosine_similarity(x, y, eps=0.5),
            [a * 0.1, b], np.float64, what="eps")


@pytest.mark.parametrize("dtype", DTYPES, ids=["float64", "float32"])
@pytest.mark.parametrize("p", PS + [-1.0, -math.inf])
def test_pairwise_distance_matches_torch(p, dtype):
    a, b = _input((6, 4), 0, special=False), _input((6, 4), 1)
    compare(torch, lambda x, y: F.pairwise_distance(x, y, p), lambda x, y: TF.pairwise_distance(x, y, p), [a, b],
            dtype, what=f"pairwise_distance p={p}")
    if p > 0:  # equal rows with eps=0: a zero distance, where torch's derivative is 0
        compare(torch, lambda x, y: F.pairwise_distance(x, y, p, eps=0.0),
                lambda x, y: TF.pairwise_distance(x, y, p, eps=0.0), [a, np.where(np.arange(6)[:, None] < 2, a, b)],
                dtype, what=f"pairwise_distance equal rows p={p}")


@pytest.mark.parametrize("dtype", DTYPES, ids=["float64", "float32"])
@pytest.mark.parametrize("shapes,keepdim", [(((5, 4), (5, 4)), True), (((5, 4), (4,)), False),
                                            (((4,), (4,)), False), (((2, 3, 4), (3, 4)), True)])
def test_pairwise_distance_shapes_match_torch(shapes, keepdim, dtype):
    arrays = [_input(shapes[0], 0, False), _input(shapes[1], 1, False)]
    compare(torch, lambda a, b: F.pairwise_distance(a, b, keepdim=keepdim),
            lambda a, b: TF.pairwise_distance(a, b, keepdim=keepdim), arrays, dtype, what=f"{shapes} {keepdim}")


def test_pairwise_distance_p0_counts_nonzeros_as_torch():
    a, b = _input((5, 4), 0), _input((5, 4), 1)
    b[:, 1] = a[:, 1]
    fa = to_fgrad(a, True)
    got = F.pairwise_distance(fa, to_fgrad(b), p=0, eps=0.0)
    want = TF.pairwise_distance(to_torch(torch, a), to_torch(torch, b), p=0, eps=0.0)
    np.testing.assert_array_equal(got.detach().numpy(), want.numpy())
    got.sum().backward()  # a zero gradient (torch's leaves .grad unset)
    assert np.all(fa.grad.numpy() == 0)


@pytest.mark.parametrize("dtype", DTYPES, ids=["float64", "float32"])
@pytest.mark.parametrize("p", PS + [0.0])
def test_pdist_matches_torch(p, dtype):
    x = _input((6, 4))
    x[4] = x[1]  # identical rows: a zero distance
    compare(torch, lambda a: F.pdist(a, p), lambda a: TF.pdist(a, p), [x], dtype, what=f"pdist p={p}")


def test_pdist_shapes_as_torch():
    compare(torch, F.pdist, TF.pdist, [_input((2, 7), special=False)], np.float64, what="two rows")
    got, want = F.pdist(to_fgrad(_input((1, 3)))), TF.pdist(to_torch(torch, _input((1, 3))))
    assert tuple(got.shape) == tuple(want.shape) == (0,)


@pytest.mark.parametrize("dtype", DTYPES, ids=["float64", "float32"])
def test_modules_match_torch(dtype):
    a, b = _input((5, 4), 0), _input((5, 4), 1)
    for ours, theirs in [(nn.CosineSimilarity(), torch.nn.CosineSimilarity()),
                         (nn.CosineSimilarity(dim=0, eps=1e-3), torch.nn.CosineSimilarity(dim=0, eps=1e-3)),
                         (nn.PairwiseDistance(), torch.nn.PairwiseDistance()),
                         (nn.PairwiseDistance(p=1.0, eps=0.0, keepdim=True),
                          torch.nn.PairwiseDistance(p=1.0, eps=0.0, keepdim=True))]:
        assert repr(ours) == repr(theirs)
        compare(torch, ours, theirs, [a, b], dtype, what=repr(ours))
    ours, theirs = nn.PairwiseDistance(3.0, 1e-3, True), torch.nn.PairwiseDistance(3.0, 1e-3, True)
    assert (ours.norm, ours.eps, ours.keepdim) == (theirs.norm, theirs.eps, theirs.keepdim)
    ours, theirs = nn.CosineSimilarity(0, 1e-3), torch.nn.CosineSimilarity(0, 1e-3)
    assert (ours.dim, ours.eps) == (theirs.dim, theirs.eps)


def test_dtypes_and_plain_arrays():
    x32 = _input().astype(np.float32)
    assert F.normalize(to_fgrad(x32)).dtype == np.float32
    assert F.cosine_similarity(to_fgrad(x32), to_fgrad(x32)).dtype == np.float32
    assert F.pairwise_distance(to_fgrad(x32), to_fgrad(x32), p=3).dtype == np.float32
    assert F.pdist(to_fgrad(x32), math.inf).dtype == np.float32
    x = _input()
    for got, want in [(F.normalize(x), TF.normalize(to_torch(torch, x))),
                      (F.pdist(x), TF.pdist(to_torch(torch, x))),
                      (F.cosine_similarity(x, x[::-1]), TF.cosine_similarity(to_torch(torch, x),
                                                                             to_torch(torch, x[::-1].copy())))]:
        assert isinstance(got, np.ndarray)
        np.testing.assert_allclose(got, want.numpy(), rtol=1e-12, atol=1e-12)


def test_no_floating_point_warnings_at_zeros():
    """The derivatives at zero vectors are taken without 0/0 (no RuntimeWarning, as torch's)."""
    x = np.zeros((3, 4))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for p in PS:
            t = to_fgrad(x, True)
            (F.pdist(t, p).sum() + F.pairwise_distance(t, t, p, eps=0.0).sum()).backward()
            assert np.all(t.grad.numpy() == 0)
            t = to_fgrad(x, True)
            F.normalize(t, p).sum().backward()  # (1 / eps: below eps the norm is a constant)
            assert np.all(t.grad.numpy() == 1e12)


def test_bad_arguments_raise_as_torch():
    def both(exc, match, call):
        with pytest.raises(exc, match=match):
            call(F, to_fgrad)
        with pytest.raises(exc, match=match):
            call(TF, lambda a: to_torch(torch, a))
    a, b = _input((4, 3)), _input((4, 2))
    ints = np.arange(6).reshape(2, 3)
    both(RuntimeError, "linalg.vector_norm: Expected a floating point or complex tensor as input. Got Long",
         lambda m, t: m.normalize(t(ints)))
    both(IndexError, r"Dimension out of range \(expected to be in range of \[-2, 1\], but got 2\)",
         lambda m, t: m.normalize(t(a), dim=2))
    both(RuntimeError, r"The size of tensor a \(3\) must match the size of tensor b \(2\) at non-singleton dimension 1",
         lambda m, t: m.cosine_similarity(t(a), t(b)))
    both(RuntimeError, "expected common dtype to be floating point, yet common dtype is Long",
         lambda m, t: m.cosine_similarity(t(ints), t(ints)))
    both(IndexError, "Dimension out of range", lambda m, t: m.cosine_similarity(t(a), t(a), dim=2))
    both(RuntimeError, r"The size of tensor a \(3\) must match the size of tensor b \(2\) at non-singleton dimension 1",
         lambda m, t: m.pairwise_distance(t(a), t(b)))
    both(RuntimeError, "pdist only supports 2D tensors, got: 1D", lambda m, t: m.pdist(t(a[0])))
    both(RuntimeError, "pdist only supports 2D tensors, got: 3D", lambda m, t: m.pdist(t(a[None])))
    both(RuntimeError, "pdist only supports floating-point dtypes", lambda m, t: m.pdist(t(ints)))
    both(RuntimeError, "pdist only supports non-negative p values", lambda m, t: m.pdist(t(a), -1.0))


def test_under_vmap_and_second_derivatives_as_torch():
    from fgrad.func import hessian, vmap
    x = _input((3, 5, 4), special=False)
    got = vmap(lambda a: F.cosine_similarity(a, a[::-1]))(x)
    want = TF.cosine_similarity(to_torch(torch, x), to_torch(torch, x[:, ::-1].copy()), dim=2)
    np.testing.assert_allclose(np.asarray(got), want.numpy(), rtol=1e-12)
    got = vmap(F.pdist)(x)
    want = torch.stack([TF.pdist(t) for t in to_torch(torch, x)])
    np.testing.assert_allclose(np.asarray(got), want.numpy(), rtol=1e-12)
    v = x[0, 0]
    for f, tf in [(lambda u: F.cosine_similarity(u, u ** 2, dim=0), lambda u: TF.cosine_similarity(u, u ** 2, dim=0)),
                  (lambda u: F.normalize(u, dim=0).sum(), lambda u: TF.normalize(u, dim=0).sum()),
                  (lambda u: F.pairwise_distance(u, u ** 2, p=3.0), lambda u: TF.pairwise_distance(u, u ** 2, p=3.0))]:
        want = torch.autograd.functional.hessian(tf, to_torch(torch, v))
        np.testing.assert_allclose(np.asarray(hessian(f)(v)), want.numpy(), rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("p", [2.0, 1.0, 3.0, math.inf])
def test_normalize_of_complex_input_takes_the_modulus_as_torch(p):
    """p=2 summed x * x, not |x|^2, for a complex x: [3j, 4] came out [1.13j, 1.51], not [0.6j, 0.8]."""
    import fgrad
    x = np.array([[3j, 4.0 + 0j, 1 - 2j], [0j, 0j, 0j]])
    fx, tx = fgrad.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    fy, ty = F.normalize(fx, p, dim=1), TF.normalize(tx, p, dim=1)
    np.testing.assert_allclose(fy.detach().numpy(), ty.detach().numpy(), rtol=1e-12, atol=1e-12)
    fgrad.abs(fy).sum().backward()
    ty.abs().sum().backward()
    np.testing.assert_allclose(fx.grad.numpy(), tx.grad.numpy(), rtol=1e-10, atol=1e-12)
    fd = F.pairwise_distance(fx, fgrad.tensor(np.zeros_like(x)), p)
    td = TF.pairwise_distance(tx, torch.tensor(np.zeros_like(x)), p)
    np.testing.assert_allclose(fd.detach().numpy(), td.detach().numpy(), rtol=1e-12)


def test_cosine_similarity_of_complex_input_raises_as_torch():
    x = np.array([[3j, 4.0 + 0j]])
    with pytest.raises(RuntimeError, match="common dtype is ComplexDouble"):
        TF.cosine_similarity(torch.tensor(x), torch.tensor(x))
    with pytest.raises(RuntimeError, match="common dtype is ComplexDouble"):
        F.cosine_similarity(x, x)


@pytest.mark.parametrize("shape", [(1, 4), (0, 3), (3, 0), (2, 0)])
def test_pdist_inf_of_no_pairs_or_no_columns_as_torch(shape):
    """p=inf took a max over an empty axis and raised where torch gives the empty (one row) or
    zero (no columns) distances."""
    x = np.ones(shape)
    want = TF.pdist(torch.tensor(x), math.inf).numpy()
    got = F.pdist(to_fgrad(x), math.inf)
    assert got.shape == want.shape and np.array_equal(got.numpy(), want)
