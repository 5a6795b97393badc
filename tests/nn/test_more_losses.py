"""fgrad.nn.loss's triplet_margin_loss, triplet_margin_with_distance_loss, hinge_embedding_loss,
poisson_nll_loss, soft_margin_loss, multilabel_soft_margin_loss, multilabel_margin_loss and
multi_margin_loss, and their Modules, against torch 2.13: values
and the gradients of every differentiable input (float64 to 1e-10, float32 to 1e-5) over shapes,
reductions, weights, margins, p, swap, log_input and full, the legacy size_average/reduce; the
Modules' attributes and buffers; torch's errors for bad arguments."""
import math
import warnings

import numpy as np
import pytest

import fgrad
from fgrad.nn import loss as L
from fgrad.nn.distance import cosine_similarity

from .torch_reference import compare

torch = pytest.importorskip("torch")
TF = torch.nn.functional
DTYPES = [np.float64, np.float32]
IDS = ["float64", "float32"]
REDUCTIONS = ["mean", "sum", "none"]
rng = np.random.default_rng(0)


def _pair(name, **kw):
    return (lambda *a: getattr(L, name)(*a, **kw)), (lambda *a: getattr(TF, name)(*a, **kw))


def _signs(shape):
    return np.where(rng.uniform(size=shape) < 0.5, -1.0, 1.0)


@pytest.mark.parametrize("dtype", DTYPES, ids=IDS)
@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("shape", [(7,), (4, 5), (2, 3, 4), ()])
def test_pointwise_losses_match_torch(shape, reduction, dtype):
    x = rng.standard_normal(shape)
    for margin in (1.0, 0.3, -0.5):
        ours, theirs = _pair("hinge_embedding_loss", margin=margin, reduction=reduction)
        compare(torch, ours, theirs, [x * 2, _signs(shape)], dtype, differentiable=[True, False], what="hinge")
    ours, theirs = _pair("soft_margin_loss", reduction=reduction)
    nograd = [True, False]  # (torch's soft_margin_loss takes no gradient in the target; fgrad's does)
    compare(torch, ours, theirs, [x, _signs(shape)], dtype, differentiable=nograd, what="soft_margin")
    compare(torch, ours, theirs, [x, rng.standard_normal(shape)], dtype, differentiable=nograd,
            what="soft_margin, real targets")
    rate = rng.uniform(0.1, 3.0, size=shape)
    counts = rng.poisson(2.0, size=shape).astype(np.float64)
    for log_input in (True, False):
        ours, theirs = _pair("poisson_nll_loss", log_input=log_input, reduction=reduction)
        compare(torch, ours, theirs, [x if log_input else rate, counts], dtype, what="poisson")
        ours, theirs = _pair("poisson_nll_loss", log_input=log_input, full=True, eps=1e-3, reduction=reduction)
        compare(torch, ours, theirs, [x if log_input else rate, counts], dtype, differentiable=[True, False],
                what="poisson, full")
        compare(torch, ours, theirs, [x if log_input else rate, counts + 0.5], dtype, what="poisson, full, no zeros")


def test_hinge_targets_other_than_one_take_both_terms():
    x, t = rng.standard_normal(6), np.array([1.0, -1.0, 0.0, 2.0, 1.0, -1.0])
    ours, theirs = _pair("hinge_embedding_loss", reduction="none")
    compare(torch, ours, theirs, [x, t], differentiable=[True, False], what="hinge, other targets")
    x = np.array([1.0, 0.5, -1.0])  # margin - x == 0 exactly: the gradient passes, as torch's clamp_min
    compare(torch, ours, theirs, [x, np.array([-1.0, -1.0, 1.0])], differentiable=[True, False], what="hinge, kink")


@pytest.mark.parametrize("dtype", DTYPES, ids=IDS)
@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("shape", [(4, 5), (6,), (2, 3, 4)])
def test_multilabel_soft_margin_loss_matches_torch(shape, reduction, dtype):
    x, t = rng.standard_normal(shape) * 3, (rng.uniform(size=shape) < 0.5).astype(np.float64)
    ours, theirs = _pair("multilabel_soft_margin_loss", reduction=reduction)
    compare(torch, ours, theirs, [x, t], dtype, what="multilabel_soft_margin")
    compare(torch, ours, theirs, [x, rng.uniform(size=shape)], dtype, what="multilabel_soft_margin, soft targets")
    w = rng.uniform(0.5, 2.0, size=shape[-1:])
    compare(torch, lambda x, t, w: L.multilabel_soft_margin_loss(x, t, weight=w, reduction=reduction),
            lambda x, t, w: TF.multilabel_soft_margin_loss(x, t, weight=w, reduction=reduction), [x, t, w], dtype,
            what="multilabel_soft_margin, weight")


@pytest.mark.parametrize("dtype", DTYPES, ids=IDS)
@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("p", [2, 1, 3, 0.5, math.inf])
@pytest.mark.parametrize("swap", [False, True])
def test_triplet_margin_loss_matches_torch(swap, p, reduction, dtype):
    for shape in ((5, 4), (3,), (2, 3, 4)):
        a, pos, neg = (rng.standard_normal(shape) for _ in range(3))
        for margin, eps in ((1.0, 1e-6), (0.2, 0.0), (3.0, 0.1)):
            ours, theirs = _pair("triplet_margin_loss", margin=margin, p=p, eps=eps, swap=swap, reduction=reduction)
            compare(torch, ours, theirs, [a, pos, neg], dtype, what=f"triplet {shape} {margin} {eps}")


def test_triplet_margin_loss_p0_and_broadcasting():
    a, pos, neg = rng.standard_normal((4, 3)), rng.standard_normal((4, 3)), rng.standard_normal((1, 3))
    ours, theirs = _pair("triplet_margin_loss", p=0, reduction="none")
    compare(torch, ours, theirs, [a, pos, neg], differentiable=[False] * 3, what="triplet p=0")  # (torch: no grad)
    a_ = fgrad.tensor(a, requires_grad=True)
    L.triplet_margin_loss(a_, fgrad.tensor(pos), fgrad.tensor(neg), p=0).backward()
    assert np.all(a_.grad.numpy() == 0)  # a count of nonzeros: zero gradient
    ours, theirs = _pair("triplet_margin_loss", margin=2.0, reduction="sum")
    compare(torch, ours, theirs, [a, pos, neg], what="triplet, broadcast negative")


@pytest.mark.parametrize("dtype", DTYPES, ids=IDS)
@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("p", [1, 2])
@pytest.mark.parametrize("weighted", [False, True])
def test_multi_margin_loss_matches_torch(weighted, p, reduction, dtype):
    for n, c in ((6, 4), (1, 3), (5, 1)):
        x, y = rng.standard_normal((n, c)), rng.integers(0, c, size=n)
        w = rng.uniform(0.5, 2.0, size=c).astype(dtype)
        for margin in (1.0, 0.25, 0.0):
            kw = dict(p=p, margin=margin, reduction=reduction)

            def ours(x, y, kw=kw):
                return L.multi_margin_loss(x, y, weight=fgrad.tensor(w) if weighted else None, **kw)

            def theirs(x, y, kw=kw):
                return TF.multi_margin_loss(x, y, weight=torch.tensor(w) if weighted else None, **kw)
            compare(torch, ours, theirs, [x, y], dtype, what=f"multi_margin {n}x{c} {margin}")
    x = rng.standard_normal(5)  # one example: a (C,) input with a (1,) or a 0-D target
    for y in (np.array([2]), np.array(3)):
        ours, theirs = _pair("multi_margin_loss", p=p, reduction=reduction)
        compare(torch, ours, theirs, [x, y], dtype, what=f"multi_margin, one example, target {y.shape}")


def test_multi_margin_loss_at_the_kink():
    x = np.array([[0.0, 1.0, 2.0], [0.5, 0.5, 0.5]])  # margin - x[y] + x[j] == 0 exactly: no gradient, as torch
    ours, theirs = _pair("multi_margin_loss", reduction="sum")
    compare(torch, ours, theirs, [x, np.array([1, 0])], what="multi_margin, kink")


@pytest.mark.parametrize("dtype", DTYPES, ids=IDS)
def test_modules_match_torch(dtype):
    tdtype = torch.float64 if dtype == np.float64 else torch.float32
    w = rng.uniform(0.5, 2.0, size=4).astype(dtype)
    x, y, s = rng.standard_normal((5, 4)), rng.integers(0, 4, size=5), _signs((5, 4))
    cases = [
        ("HingeEmbeddingLoss", dict(margin=0.5, reduction="sum"), [x, s], [True, False]),
        ("SoftMarginLoss", dict(reduction="none"), [x, s], [True, False]),
        ("MultiLabelSoftMarginLoss", dict(weight=w), [x, (s > 0).astype(np.float64)], None),
        ("PoissonNLLLoss", dict(log_input=False, full=True, eps=1e-4), [np.abs(x) + 0.1, np.abs(s) * 3], None),
        ("TripletMarginLoss", dict(margin=0.5, p=1.0, swap=True), [x, x[::-1].copy(), s], None),
        ("MultiMarginLoss", dict(p=2, margin=0.7, weight=w, reduction="none"), [x, y], None),
        ("MultiMarginLoss", dict(), [x, y], None),
    ]
    for name, kw, inputs, diff in cases:
        tkw = {k: torch.tensor(v, dtype=tdtype) if isinstance(v, np.ndarray) else v for k, v in kw.items()}
        fkw = {k: fgrad.tensor(v) if isinstance(v, np.ndarray) else v for k, v in kw.items()}
        ours, theirs = getattr(L, name)(**fkw), getattr(torch.nn, name)(**tkw)
        for attr in ("reduction", "margin", "p", "eps", "swap", "log_input", "full"):
            assert getattr(ours, attr, None) == getattr(theirs, attr, None), (name, attr)
        assert list(ours.state_dict()) == list(theirs.state_dict()), name
        compare(torch, ours, theirs, inputs, dtype, differentiable=diff, what=name)


def test_legacy_size_average_and_reduce():
    x, s = rng.standard_normal((3, 4)), _signs((3, 4))
    for size_average, reduce in ((False, None), (None, False), (True, True)):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ours = L.SoftMarginLoss(size_average=size_average, reduce=reduce)
            theirs = torch.nn.SoftMarginLoss(size_average=size_average, reduce=reduce)
            assert ours.reduction == theirs.reduction
            compare(torch, ours, theirs, [x, s], differentiable=[True, False], what="legacy SoftMarginLoss")
            for name in ("hinge_embedding_loss", "soft_margin_loss", "multilabel_soft_margin_loss"):
                ours, theirs = _pair(name, size_average=size_average, reduce=reduce)
                compare(torch, ours, theirs, [x, s], differentiable=[True, False], what=f"legacy {name}")


def test_float32_stays_float32():
    x = fgrad.tensor(rng.standard_normal((3, 4)).astype(np.float32), requires_grad=True)
    y = fgrad.tensor(np.array([0, 3, 1]))
    for out in (L.multi_margin_loss(x, y, weight=fgrad.tensor(np.ones(4, np.float32))),
                L.triplet_margin_loss(x, x * 2.0, x * 0.5), L.poisson_nll_loss(x, fgrad.abs(x), full=True),
                L.multilabel_soft_margin_loss(x, fgrad.sigmoid(x)), L.soft_margin_loss(x, x),
                L.hinge_embedding_loss(x, fgrad.sign(x))):
        assert out.dtype == np.float32
        x.grad = None
        out.backward()
        assert x.grad.dtype == np.float32


def test_bad_arguments_raise_as_torch():
    x, y = rng.standard_normal((3, 4)), np.array([0, 1, 2])
    checks = [
        ("multi_margin_loss", (x, y), dict(p=3), ValueError, "only p == 1 and p == 2 supported"),
        ("multi_margin_loss", (x, y), dict(weight=np.ones((2, 2))), ValueError, "weight must be one-dimensional"),
        ("multi_margin_loss", (x, y), dict(weight=np.ones(3)), RuntimeError, r"inconsistent weight size, expected 4"),
        ("multi_margin_loss", (x, np.array([0, 1, 4])), {}, RuntimeError, "target out of range"),
        ("multi_margin_loss", (x, np.array([0, 1])), {}, RuntimeError,
         r"target tensor should be 1-D with size equal to the number of input samples"),
        ("multi_margin_loss", (np.zeros((2, 3, 4)), y), {}, RuntimeError,
         "Expected non-empty vector or matrix with optional 0-dim batch size"),
        ("multi_margin_loss", (x, y.astype(np.float64)), {}, RuntimeError, "expected scalar type Long"),
        ("multi_margin_loss", (x, y), dict(reduction="avg"), ValueError, "avg is not a valid value for reduction"),
        ("triplet_margin_loss", (x, x, x), dict(margin=0.0), ValueError, "margin must be greater than 0, got 0.0"),
        ("triplet_margin_loss", (x, x[0], x), {}, RuntimeError,
         "expected to have the same number of dimensions, but got: anchor 2D, positive 1D, and negative 2D inputs"),
        ("poisson_nll_loss", (x, x), dict(reduction="avg"), ValueError, "avg is not a valid value for reduction"),
        ("multilabel_soft_margin_loss", (x, x), dict(reduction="avg"), ValueError, "avg is not valid"),
        ("soft_margin_loss", (x, x), dict(reduction="avg"), ValueError, "avg is not a valid value for reduction"),
        ("hinge_embedding_loss", (x, x), dict(reduction="avg"), ValueError, "avg is not a valid value for reduction"),
    ]
    for name, args, kw, error, match in checks:
        for lib, mod in ((torch, TF), (fgrad, L)):
            targs = [lib.tensor(a) for a in args]
            tkw = {k: lib.tensor(v) if isinstance(v, np.ndarray) else v for k, v in kw.items()}
            with pytest.raises(error, match=match):
                getattr(mod, name)(*targs, **tkw)
    for lib, mod in ((torch, torch.nn), (fgrad, L)):
        with pytest.raises(ValueError, match="TripletMarginLoss: expected margin to be greater than 0, got -1"):
            mod.TripletMarginLoss(margin=-1)
        with pytest.raises(ValueError, match="only p == 1 and p == 2 supported"):
            mod.MultiMarginLoss(p=3)
        with pytest.raises(ValueError, match="MultiMarginLoss: expected weight to be None or 1D tensor, got 2D"):
            mod.MultiMarginLoss(weight=lib.tensor(np.ones((2, 2))))


def test_on_arrays_under_grad_vmap_and_compile():
    """The functional transforms differentiate them on plain arrays, multi_margin_loss's labels
    traced per example under vmap and as operands of a compiled program."""
    x, y, w = rng.standard_normal((5, 4)), np.array([0, 3, 1, 2, 2]), rng.uniform(0.5, 2.0, size=4)
    g = fgrad.grad(lambda x: L.multi_margin_loss(x, y, weight=w, p=2))(x)
    tx = torch.tensor(x, requires_grad=True)
    TF.multi_margin_loss(tx, torch.tensor(y), weight=torch.tensor(w), p=2).backward()
    np.testing.assert_allclose(g, tx.grad.numpy(), rtol=1e-10, atol=1e-12)
    per = fgrad.vmap(lambda x, t: L.multi_margin_loss(x[None], t[None], weight=w))(x, y)
    want = TF.multi_margin_loss(torch.tensor(x), torch.tensor(y), weight=torch.tensor(w), reduction="none")
    np.testing.assert_allclose(per, want.numpy(), rtol=1e-12)
    compiled = fgrad.compile(lambda x, y: L.multi_margin_loss(x, y, margin=0.5))
    np.testing.assert_allclose(compiled(x, y), TF.multi_margin_loss(torch.tensor(x), torch.tensor(y), margin=0.5),
                               rtol=1e-12)
    a, pos, neg = x, x[::-1].copy(), 2 * x
    g = fgrad.grad(lambda a: L.triplet_margin_loss(a, pos, neg, p=3, swap=True))(a)
    ta = torch.tensor(a, requires_grad=True)
    TF.triplet_margin_loss(ta, torch.tensor(pos), torch.tensor(neg), p=3, swap=True).backward()
    np.testing.assert_allclose(g, ta.grad.numpy(), rtol=1e-10, atol=1e-12)
    for name, t in (("poisson_nll_loss", np.abs(x) + 1), ("multilabel_soft_margin_loss", (x > 0) * 1.0),
                    ("soft_margin_loss", np.sign(x)), ("hinge_embedding_loss", np.sign(x))):
        g = fgrad.grad(lambda x, name=name, t=t: getattr(L, name)(x, t))(x)
        tx = torch.tensor(x, requires_grad=True)
        getattr(TF, name)(tx, torch.tensor(t)).backward()
        np.testing.assert_allclose(g, tx.grad.numpy(), rtol=1e-10, atol=1e-12, err_msg=name)


@pytest.mark.parametrize("dtype", DTYPES, ids=IDS)
@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_multilabel_margin_loss_matches_torch(reduction, dtype):
    x = rng.standard_normal((4, 5))
    y = np.array([[3, 0, -1, 1, 2], [1, 1, 4, -1, -1], [-1, 0, 1, 2, 3], [0, 1, 2, 3, 4]])  # repeats count twice
    ours, theirs = _pair("multilabel_margin_loss", reduction=reduction)
    compare(torch, ours, theirs, [x, y], dtype, what="multilabel_margin")
    compare(torch, ours, theirs, [x[0], y[0]], dtype, what="multilabel_margin, one example")
    compare(torch, ours, theirs, [np.array([[0.0, 1.0, 0.5]]), np.array([[1, 2, -1]])], dtype,
            what="multilabel_margin, at the kink")
    compare(torch, L.MultiLabelMarginLoss(reduction=reduction), torch.nn.MultiLabelMarginLoss(reduction=reduction),
            [x, y], dtype, what="MultiLabelMarginLoss")
    for bad, match in ((np.array([[3, 0, -1]]), r"inconsistent target size: \[1, 3\] for input of size: \[4, 5\]"),
                       (np.where(y == 4, 5, y), "argument #2 'target' is out of range")):
        for lib, mod in ((torch, TF), (fgrad, L)):
            with pytest.raises(RuntimeError, match=match):
                mod.multilabel_margin_loss(lib.tensor(x), lib.tensor(bad))


@pytest.mark.parametrize("dtype", DTYPES, ids=IDS)
@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("swap", [False, True])
def test_triplet_margin_with_distance_loss_matches_torch(swap, reduction, dtype):
    a, pos, neg = (rng.standard_normal((5, 4)) for _ in range(3))
    def squared(x, y):
        return ((x - y) ** 2).sum(-1)
    for f_dist, t_dist in ((None, None), (lambda x, y: 1.0 - cosine_similarity(x, y),
                                          lambda x, y: 1.0 - TF.cosine_similarity(x, y)), (squared, squared)):
        for margin in (1.0, 0.3):
            compare(torch, lambda *t: L.triplet_margin_with_distance_loss(*t, distance_function=f_dist, margin=margin,
                                                                           swap=swap, reduction=reduction),
                    lambda *t: TF.triplet_margin_with_distance_loss(*t, distance_function=t_dist, margin=margin,
                                                                    swap=swap, reduction=reduction),
                    [a, pos, neg], dtype, what="triplet_margin_with_distance")
    ours = L.TripletMarginWithDistanceLoss(margin=0.5, swap=swap, reduction=reduction)
    theirs = torch.nn.TripletMarginWithDistanceLoss(margin=0.5, swap=swap, reduction=reduction)
    assert type(ours.distance_function).__name__ == type(theirs.distance_function).__name__ == "PairwiseDistance"
    compare(torch, ours, theirs, [a, pos, neg], dtype, what="TripletMarginWithDistanceLoss")


def test_triplet_margin_with_distance_loss_errors_as_torch():
    x = rng.standard_normal((3, 4))
    for lib, mod, nn in ((torch, TF, torch.nn), (fgrad, L, L)):
        t = lib.tensor(x)
        with pytest.raises(ValueError, match="avg is not a valid value for reduction"):
            mod.triplet_margin_with_distance_loss(t, t, t, reduction="avg")
        with pytest.raises(ValueError, match="margin must be greater than 0, got 0"):
            mod.triplet_margin_with_distance_loss(t, t, t, margin=0)
        with pytest.raises(RuntimeError, match="anchor 2D, positive 1D, and negative 2D inputs"):
            mod.triplet_margin_with_distance_loss(t, t[0], t)
        with pytest.raises(ValueError, match="TripletMarginWithDistanceLoss: expected margin to be greater than 0"):
            nn.TripletMarginWithDistanceLoss(margin=-1.0)


def test_a_complex_target_is_named_in_the_error_as_torch():
    """multi_margin_loss's dtype check named the target's dtype from a table without the complex
    dtypes ("found None"); it uses fgrad.nn's table of torch's names now."""
    x = np.random.default_rng(0).standard_normal((2, 3))
    target = np.array([1.0 + 0j, 2.0], dtype=np.complex64)
    with pytest.raises(RuntimeError, match="expected scalar type Long but found ComplexFloat"):
        TF.multi_margin_loss(torch.tensor(x), torch.tensor(target))
    with pytest.raises(RuntimeError, match="expected scalar type Long but found ComplexFloat"):
        L.multi_margin_loss(fgrad.tensor(x), fgrad.tensor(target))


def test_triplet_margin_with_distance_loss_names_a_bad_reduction():
    a = fgrad.tensor([[0.0, 0.0]])
    for reduction in ("avg", None):
        with pytest.raises(ValueError, match=f"{reduction} is not a valid value for reduction"):
            L.triplet_margin_with_distance_loss(a, a, a, reduction=reduction)
        with pytest.raises(ValueError, match=f"{reduction} is not a valid value for reduction"):
            L.triplet_margin_loss(a, a, a, reduction=reduction)
