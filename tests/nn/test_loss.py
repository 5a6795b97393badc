"""fgrad.nn's losses against torch 2.13: values and the gradients of every floating input
(predictions, targets, variances; float64 to 1e-10, float32 to 1e-5) under each reduction and
option (weight, ignore_index, label_smoothing, probability targets, pos_weight, log_target,
'batchmean', full, eps, margin), the Modules (their weight buffers in the state dict), and
torch's errors for bad input."""
import numpy as np
import pytest

import fgrad
from fgrad import nn
from fgrad.nn import functional as F

from .torch_reference import compare, to_fgrad, to_torch

torch = pytest.importorskip("torch")
TF = torch.nn.functional
DTYPES = [np.float64, np.float32]
REDUCTIONS = ["none", "mean", "sum"]
rng = np.random.default_rng(0)
X, Y = rng.standard_normal((6, 4)), rng.standard_normal((6, 4))
Y.flat[:3] = X.flat[:3] + np.array([0.0, 0.5, -0.3])  # |d| at 0, at beta=0.5 and at delta=0.3: the kinks


def _both(fn):
    return (lambda *a: fn(F, *a)), (lambda *a: fn(TF, *a))


POINTWISE = [
    ("l1_loss", lambda m, x, y, r: m.l1_loss(x, y, reduction=r)),
    ("mse_loss", lambda m, x, y, r: m.mse_loss(x, y, reduction=r)),
    ("smooth_l1_loss", lambda m, x, y, r: m.smooth_l1_loss(x, y, reduction=r)),
    ("smooth_l1_loss beta", lambda m, x, y, r: m.smooth_l1_loss(x, y, reduction=r, beta=0.5)),
    ("smooth_l1_loss beta 0", lambda m, x, y, r: m.smooth_l1_loss(x, y, reduction=r, beta=0.0)),
    ("huber_loss", lambda m, x, y, r: m.huber_loss(x, y, reduction=r)),
    ("huber_loss delta", lambda m, x, y, r: m.huber_loss(x, y, reduction=r, delta=0.3)),
    ("mse_loss weight", lambda m, x, y, r: m.mse_loss(x, y, reduction=r, weight=x * 0 + 2.0)),
]


@pytest.mark.parametrize("dtype", DTYPES, ids=["float64", "float32"])
@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("name,fn", POINTWISE, ids=[p[0] for p in POINTWISE])
def test_pointwise_losses(name, fn, reduction, dtype):
    compare(torch, lambda x, y: fn(F, x, y, reduction), lambda x, y: fn(TF, x, y, reduction), [X, Y], dtype,
            what=name)


P = 1 / (1 + np.exp(-X))
T = rng.uniform(0, 1, X.shape)
W = rng.uniform(0.5, 2.0, X.shape)
POS = rng.uniform(0.5, 3.0, (4,))


@pytest.mark.parametrize("dtype", DTYPES, ids=["float64", "float32"])
@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_binary_cross_entropies(reduction, dtype):
    compare(torch, lambda p, t, w: F.binary_cross_entropy(p, t, w, reduction=reduction),
            lambda p, t, w: TF.binary_cross_entropy(p, t, w, reduction=reduction), [P, T, W], dtype,
            differentiable=[True, True, False], what="binary_cross_entropy")
    logits = X * 30  # large logits: stable, no inf or nan
    for kw in ({}, {"weight": W}, {"pos_weight": POS}, {"weight": W, "pos_weight": POS}):
        names = sorted(kw)
        compare(torch, lambda x, t, *a: F.binary_cross_entropy_with_logits(x, t, reduction=reduction,
                                                                             **dict(zip(names, a))),
                lambda x, t, *a: TF.binary_cross_entropy_with_logits(x, t, reduction=reduction,
                                                                       **dict(zip(names, a))),
                [logits, T] + [kw[n] for n in names], dtype, differentiable=[True, True] + [False] * len(names),
                what=f"binary_cross_entropy_with_logits {names}")


@pytest.mark.parametrize("dtype", DTYPES, ids=["float64", "float32"])
@pytest.mark.parametrize("reduction", REDUCTIONS + ["batchmean"])
@pytest.mark.parametrize("log_target", [False, True])
def test_kl_div(reduction, log_target, dtype):
    logp = np.log(P / P.sum(1, keepdims=True))
    target = np.log(T) if log_target else T
    with pytest.warns(UserWarning) if reduction == "mean" else _nothing():
        compare(torch, lambda x, t: F.kl_div(x, t, reduction=reduction, log_target=log_target),
                lambda x, t: TF.kl_div(x, t, reduction=reduction, log_target=log_target), [logp, target], dtype,
                what="kl_div")


class _nothing:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


LOGITS = {"2d": rng.standard_normal((7, 5)), "1d": rng.standard_normal(5), "4d": rng.standard_normal((3, 5, 2, 4))}
LABELS = {"2d": np.array([0, 4, 2, -100, 1, 4, 3]), "1d": np.array(3),
          "4d": rng.integers(0, 5, (3, 2, 4))}
LABELS["4d"][0, 1, 2] = LABELS["4d"][2, 0, 0] = -100
CLASS_W = rng.uniform(0.2, 2.0, 5)


@pytest.mark.parametrize("dtype", DTYPES, ids=["float64", "float32"])
@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("shape", ["2d", "1d", "4d"])
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("ignore", [-100, 2])
def test_nll_loss_and_cross_entropy_with_class_indices(shape, reduction, weighted, ignore, dtype):
    labels = LABELS[shape] if ignore == -100 else np.where(LABELS[shape] == -100, 0, LABELS[shape])
    extra = [CLASS_W] if weighted else []
    kw = lambda a: {"weight": a[0]} if a else {}  # noqa: E731
    logp = LOGITS[shape] - np.log(np.exp(LOGITS[shape]).sum(axis=1 if shape != "1d" else 0, keepdims=True))
    compare(torch, lambda x, t, *a: F.nll_loss(x, t, reduction=reduction, ignore_index=ignore, **kw(a)),
            lambda x, t, *a: TF.nll_loss(x, t, reduction=reduction, ignore_index=ignore, **kw(a)),
            [logp, labels] + extra, dtype, differentiable=[True, False] + [False] * len(extra), what="nll_loss")
    for smoothing in (0.0, 0.2):
        compare(torch, lambda x, t, *a: F.cross_entropy(x, t, reduction=reduction, ignore_index=ignore,
                                                        label_smoothing=smoothing, **kw(a)),
                lambda x, t, *a: TF.cross_entropy(x, t, reduction=reduction, ignore_index=ignore,
                                                  label_smoothing=smoothing, **kw(a)),
                [LOGITS[shape], labels] + extra, dtype, differentiable=[True, False] + [False] * len(extra),
                what=f"cross_entropy label_smoothing={smoothing}")


@pytest.mark.parametrize("dtype", DTYPES, ids=["float64", "float32"])
@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("shape", ["2d", "4d"])
def test_cross_entropy_with_class_probabilities(shape, reduction, dtype):
    x = LOGITS[shape]
    probs = np.exp(rng.standard_normal(x.shape))
    probs /= probs.sum(axis=1, keepdims=True)
    for weight in (None, CLASS_W):
        for smoothing in (0.0, 0.3):
            extra = [] if weight is None else [weight]
            compare(torch, lambda x, t, *a: F.cross_entropy(x, t, *a, reduction=reduction, label_smoothing=smoothing),
                    lambda x, t, *a: TF.cross_entropy(x, t, *a, reduction=reduction, label_smoothing=smoothing),
                    [x, probs] + extra, dtype, differentiable=[True, True] + [False] * len(extra),
                    what=f"cross_entropy probabilities weight={weight is not None} smoothing={smoothing}")


@pytest.mark.parametrize("dtype", DTYPES, ids=["float64", "float32"])
@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("full", [False, True])
def test_gaussian_nll_loss(reduction, full, dtype):
    var = rng.uniform(0.1, 2.0, X.shape)
    var.flat[0] = 1e-8  # below eps: clamped, its gradient passed through as torch's
    for v in (var, var[:, 0], var[:, :1]):
        compare(torch, lambda x, y, s: F.gaussian_nll_loss(x, y, s, full=full, reduction=reduction, eps=1e-6),
                lambda x, y, s: TF.gaussian_nll_loss(x, y, s, full=full, reduction=reduction, eps=1e-6),
                [X, Y, v], dtype, what=f"gaussian_nll_loss var {v.shape}")
    compare(torch, lambda x, y: F.gaussian_nll_loss(x, y, 0.5, full=full, reduction=reduction),
            lambda x, y: TF.gaussian_nll_loss(x, y, 0.5, full=full, reduction=reduction), [X, Y], dtype,
            what="gaussian_nll_loss float var")


@pytest.mark.parametrize("dtype", DTYPES, ids=["float64", "float32"])
@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("margin", [0.0, 0.3])
def test_embedding_and_ranking_losses(reduction, margin, dtype):
    target = np.array([1, -1, 1, -1, -1, 1])
    compare(torch, lambda a, b, t: F.cosine_embedding_loss(a, b, t, margin=margin, reduction=reduction),
            lambda a, b, t: TF.cosine_embedding_loss(a, b, t, margin=margin, reduction=reduction), [X, Y, target],
            dtype, what="cosine_embedding_loss")
    compare(torch, lambda a, b, t: F.cosine_embedding_loss(a, b, t, margin=margin, reduction=reduction),
            lambda a, b, t: TF.cosine_embedding_loss(a, b, t, margin=margin, reduction=reduction),
            [X[0], Y[0], np.array(-1)], dtype, what="cosine_embedding_loss 1-D")
    compare(torch, lambda a, b, t: F.margin_ranking_loss(a, b, t, margin=margin, reduction=reduction),
            lambda a, b, t: TF.margin_ranking_loss(a, b, t, margin=margin, reduction=reduction),
            [X[:, 0], Y[:, 0], target.astype(float)], dtype, differentiable=[True, True, False],
            what="margin_ranking_loss")


MODULES = [
    ("L1Loss", {}, 2), ("MSELoss", {"reduction": "sum"}, 2), ("SmoothL1Loss", {"beta": 0.5}, 2),
    ("HuberLoss", {"delta": 0.3, "reduction": "none"}, 2), ("KLDivLoss", {"reduction": "batchmean"}, 2),
    ("GaussianNLLLoss", {"full": True}, 3), ("CosineEmbeddingLoss", {"margin": 0.2}, 3),
    ("MarginRankingLoss", {"margin": 0.1}, 3),
]


@pytest.mark.parametrize("name,kwargs,arity", MODULES, ids=[m[0] for m in MODULES])
def test_loss_modules(name, kwargs, arity):
    ours, theirs = getattr(nn, name)(**kwargs), getattr(torch.nn, name)(**kwargs)
    arrays = {2: [X, Y], 3: [X, Y, rng.uniform(0.1, 1, X.shape)]}[arity]
    if name == "CosineEmbeddingLoss":
        arrays = [X, Y, np.array([1, -1, 1, -1, -1, 1])]
    if name == "MarginRankingLoss":
        arrays = [X[:, 0], Y[:, 0], np.sign(Y[:, 1])]
    if name == "KLDivLoss":  # log-probabilities against probabilities (a negative target's log is NaN)
        arrays = [np.log(P / P.sum(1, keepdims=True)), T / T.sum(1, keepdims=True)]
    compare(torch, ours, theirs, arrays, what=name)
    assert ours.reduction == theirs.reduction


def test_weighted_loss_modules_keep_weight_as_a_buffer():
    w = CLASS_W
    for name, kw in [("NLLLoss", {"ignore_index": 1}), ("CrossEntropyLoss", {"label_smoothing": 0.1})]:
        ours = getattr(nn, name)(weight=to_fgrad(w), **kw)
        theirs = getattr(torch.nn, name)(weight=to_torch(torch, w), **kw)
        assert list(ours.state_dict()) == list(theirs.state_dict()) == ["weight"]
        compare(torch, ours, theirs, [LOGITS["2d"], np.where(LABELS["2d"] < 0, 1, LABELS["2d"])], what=name)
    ours = nn.BCEWithLogitsLoss(weight=to_fgrad(W), pos_weight=to_fgrad(POS))
    theirs = torch.nn.BCEWithLogitsLoss(weight=to_torch(torch, W), pos_weight=to_torch(torch, POS))
    assert list(ours.state_dict()) == list(theirs.state_dict()) == ["weight", "pos_weight"]
    compare(torch, ours, theirs, [X, T], what="BCEWithLogitsLoss")
    ours, theirs = nn.BCELoss(weight=to_fgrad(W)), torch.nn.BCELoss(weight=to_torch(torch, W))
    compare(torch, ours, theirs, [P, T], what="BCELoss")
    assert nn.NLLLoss().weight is None and list(nn.NLLLoss().state_dict()) == []


def test_legacy_size_average_and_reduce_map_as_torch():
    with pytest.warns(UserWarning, match="size_average and reduce args will be deprecated"):
        assert nn.MSELoss(size_average=False).reduction == "sum"
    with pytest.warns(UserWarning):
        assert nn.L1Loss(reduce=False).reduction == "none"
    with pytest.warns(UserWarning):
        got = F.l1_loss(to_fgrad(X), to_fgrad(Y), size_average=False)
    np.testing.assert_allclose(got.item(), np.abs(X - Y).sum())


def test_losses_on_arrays_under_grad_and_vmap():
    """The functional transforms differentiate them on plain arrays, labels traced per example."""
    labels = np.array([0, 4, 2, 1, 1, 4, 3])
    g = fgrad.grad(lambda x: F.cross_entropy(x, labels, label_smoothing=0.1))(LOGITS["2d"])
    tx = to_torch(torch, LOGITS["2d"], True)
    TF.cross_entropy(tx, torch.tensor(labels), label_smoothing=0.1).backward()
    np.testing.assert_allclose(g, tx.grad.numpy(), rtol=1e-10, atol=1e-12)
    per = fgrad.vmap(lambda x, t: F.nll_loss(x[None], t[None], weight=CLASS_W))(LOGITS["2d"], labels)
    want = TF.nll_loss(to_torch(torch, LOGITS["2d"]), torch.tensor(labels), weight=to_torch(torch, CLASS_W),
                       reduction="none") / torch.tensor(CLASS_W[labels])
    np.testing.assert_allclose(per, want.numpy(), rtol=1e-12)


def test_bad_input_raises_as_torch():
    x = to_fgrad(LOGITS["2d"])
    with pytest.raises(IndexError, match="Target 5 is out of bounds"):
        F.cross_entropy(x, np.array([0, 5, 1, 1, 1, 1, 1]))
    with pytest.raises(ValueError, match=r"targets must be class indices of shape \(7,\)"):
        F.nll_loss(x, np.array([0, 1]))
    with pytest.raises(RuntimeError, match="weight tensor should be defined either for all 5 classes"):
        F.cross_entropy(x, np.zeros(7, dtype=np.int64), weight=to_fgrad(np.ones(3)))
    with pytest.raises(RuntimeError, match="ignore_index is not supported for floating point target"):
        F.cross_entropy(x, to_fgrad(np.full((7, 5), 0.2)), ignore_index=1)
    with pytest.raises(RuntimeError, match=r"label_smoothing must be between 0\.0 and 1\.0"):
        F.cross_entropy(x, np.zeros(7, dtype=np.int64), label_smoothing=1.5)
    with pytest.raises(RuntimeError, match="all elements of input should be between 0 and 1"):
        F.binary_cross_entropy(to_fgrad(X), to_fgrad(T))
    with pytest.raises(ValueError, match="Using a target size"):
        F.binary_cross_entropy(to_fgrad(P), to_fgrad(T[:, 0]))
    with pytest.raises(ValueError, match="var is of incorrect size"):
        F.gaussian_nll_loss(to_fgrad(X), to_fgrad(Y), to_fgrad(np.ones((6, 2))))
    with pytest.raises(ValueError, match="var has negative entry"):
        F.gaussian_nll_loss(to_fgrad(X), to_fgrad(Y), to_fgrad(-np.ones((6, 4))))
    with pytest.raises(RuntimeError, match="smooth_l1_loss does not support negative values for beta"):
        F.smooth_l1_loss(to_fgrad(X), to_fgrad(Y), beta=-1.0)
    with pytest.raises(RuntimeError, match="1D target tensor expects 2D input tensors"):
        F.cosine_embedding_loss(to_fgrad(X[0]), to_fgrad(Y[0]), np.array([1]))
    with pytest.raises(RuntimeError, match="All input tensors should have same dimension"):
        F.margin_ranking_loss(to_fgrad(X), to_fgrad(Y[:, 0]), to_fgrad(Y[:, 0]))
    with pytest.raises(ValueError, match="is not a valid value for reduction"):
        F.l1_loss(to_fgrad(X), to_fgrad(Y), reduction="avg")
