"""torch.nn's losses: each functional function (fgrad.nn.functional re-exports them) beside its
Module, with torch 2.13's signatures, defaults, reductions and numbers.

Every loss takes reduction='none'|'mean'|'sum' (and torch's deprecated size_average/reduce,
mapped as torch maps them). They are written in fgrad ops on Tensors and plain arrays alike, so
the functional transforms (grad, vmap, compile) differentiate them too; class-index targets may
be traced values there (per-example labels under vmap, a compiled program's operands).
"""
import math
import warnings

import numpy as np

from .. import numpy as fnp
from ..autograd.tensor import Tensor, TensorOrArray
from ..backend import to_host
from ..ir.value import concrete, is_batched, is_staged
from ..numpy import _softmax
from ..ops.special import log_expit, xlogy
from ..ops.stop_gradient import stop_gradient
from ..typing import ArrayLike, Callable
from .distance import PairwiseDistance, dtype_name, pairwise_distance
from .module import Module
from .parameters import on_device_of

__all__ = [
    "BCELoss", "BCEWithLogitsLoss", "CosineEmbeddingLoss", "CrossEntropyLoss", "GaussianNLLLoss", "HingeEmbeddingLoss",
    "HuberLoss", "KLDivLoss", "L1Loss", "MSELoss", "MarginRankingLoss", "MultiLabelMarginLoss",
    "MultiLabelSoftMarginLoss", "MultiMarginLoss", "NLLLoss", "PoissonNLLLoss", "SmoothL1Loss", "SoftMarginLoss",
    "TripletMarginLoss", "TripletMarginWithDistanceLoss", "binary_cross_entropy", "binary_cross_entropy_with_logits",
    "cosine_embedding_loss", "cross_entropy", "gaussian_nll_loss", "hinge_embedding_loss", "huber_loss", "kl_div",
    "l1_loss", "margin_ranking_loss", "mse_loss", "multi_margin_loss", "multilabel_margin_loss",
    "multilabel_soft_margin_loss", "nll_loss", "poisson_nll_loss", "smooth_l1_loss", "soft_margin_loss",
    "triplet_margin_loss", "triplet_margin_with_distance_loss",
]


# ---- shared pieces -----------------------------------------------------------------------------
def _legacy_reduction(size_average, reduce, reduction):
    """torch's mapping of the deprecated size_average/reduce onto reduction (with its warning)."""
    if size_average is None and reduce is None:
        return reduction
    warnings.warn("size_average and reduce args will be deprecated, please use reduction='"
                  f"{_legacy_name(size_average, reduce)}' instead.", UserWarning, stacklevel=3)
    return _legacy_name(size_average, reduce)


def _legacy_name(size_average, reduce):
    size_average = True if size_average is None else size_average
    reduce = True if reduce is None else reduce
    return "none" if not reduce else "mean" if size_average else "sum"


def _reduce(loss, reduction, where):
    if reduction == "mean":
        return fnp.mean(loss)
    if reduction == "sum":
        return fnp.sum(loss)
    if reduction == "none":
        return loss
    raise ValueError(f"{reduction} is not a valid value for reduction ({where}: 'none', 'mean' or 'sum')")


def _weighted(loss, weight, reduction, where, mean_by_weight=True):
    """loss * weight, reduced as torch's weighted pointwise losses: l1's and mse's 'mean' divides
    by the weights' sum, huber's by the count."""
    if weight is None:
        return _reduce(loss, reduction, where)
    if _shape(weight) != _shape(loss):
        raise ValueError("Weights and input must have the same size.")
    loss = loss * weight
    if reduction == "mean" and mean_by_weight:
        return fnp.sum(loss) / fnp.sum(weight)
    return _reduce(loss, reduction, where)


def _shape(x):
    return tuple(x.shape) if hasattr(x, "shape") else np.shape(x)


def _dtype(x):
    return x.dtype if hasattr(x, "dtype") else np.asarray(x).dtype


def _same_shape(input, target, where):
    """Pointwise losses want the target in the input's shape (torch warns and broadcasts; a
    broadcast here is refused, since it is almost always a (N,) against (N, 1) mistake)."""
    if _shape(input) != _shape(target):
        raise ValueError(f"{where}: input shape {_shape(input)} and target shape {_shape(target)} differ "
                         f"(torch broadcasts them with a warning; reshape the target to match)")


def _traced(x):
    return is_batched(x) or is_staged(x)


# ---- pointwise regression losses --------------------------------------------------------------
def l1_loss(input: TensorOrArray, target: Tensor | ArrayLike, size_average: bool | None = None,
            reduce: bool | None = None, reduction: str = "mean",
            weight: Tensor | ArrayLike | None = None) -> TensorOrArray:
    """The mean absolute error |input - target|, reduced by `reduction` ('mean', 'sum' or 'none';
    size_average/reduce are torch's legacy spellings); with `weight` (input's shape) a weighted mean.

    Differentiable in input and target. Raises ValueError when their shapes differ (torch broadcasts
    with a warning).

    Examples
    --------
    >>> x = fgrad.tensor([1.0, 2.0], requires_grad=True)
    >>> loss = fgrad.nn.functional.l1_loss(x, fgrad.tensor([0.0, 4.0])); loss.backward()
    >>> loss, x.grad  # mean |x - y|; the gradient sign(x - y) / n
    (tensor(1.5, grad_fn=<...>), tensor([ 0.5, -0.5]))
    """
    _same_shape(input, target, "l1_loss")
    return _weighted(fnp.abs(input - target), weight, _legacy_reduction(size_average, reduce, reduction), "l1_loss")


def mse_loss(input: TensorOrArray, target: Tensor | ArrayLike, size_average: bool | None = None,
             reduce: bool | None = None, reduction: str = "mean",
             weight: Tensor | ArrayLike | None = None) -> TensorOrArray:
    """The mean squared error (input - target) ** 2, reduced by `reduction` ('mean', 'sum' or 'none';
    size_average/reduce are torch's legacy spellings); with `weight` (input's shape) a weighted mean.

    Differentiable in input and target. Raises ValueError when their shapes differ (torch broadcasts
    with a warning).

    Examples
    --------
    >>> x = fgrad.tensor([1.0, 2.0], requires_grad=True)
    >>> loss = fgrad.nn.functional.mse_loss(x, fgrad.tensor([0.0, 4.0])); loss.backward()
    >>> loss, x.grad  # mean (x - y) ** 2; the gradient 2 (x - y) / n
    (tensor(2.5, grad_fn=<...>), tensor([ 1., -2.]))
    """
    _same_shape(input, target, "mse_loss")
    d = input - target
    return _weighted(d * d, weight, _legacy_reduction(size_average, reduce, reduction), "mse_loss")


def smooth_l1_loss(input: TensorOrArray, target: Tensor | ArrayLike, size_average: bool | None = None,
                   reduce: bool | None = None, reduction: str = "mean", beta: float = 1.0) -> TensorOrArray:
    """0.5 d**2 / beta where |d| < beta, else |d| - 0.5 beta (beta=0: the L1 loss).

    Examples
    --------
    >>> x = fgrad.tensor([0.5, 3.0], requires_grad=True)
    >>> loss = fgrad.nn.functional.smooth_l1_loss(x, fgrad.zeros(2), reduction="sum"); loss.backward()
    >>> loss, x.grad  # 0.5 x ** 2 / beta below beta, |x| - 0.5 beta above
    (tensor(2.625, grad_fn=<...>), tensor([0.5, 1. ]))
    """
    if beta < 0:
        raise RuntimeError("smooth_l1_loss does not support negative values for beta.")
    _same_shape(input, target, "smooth_l1_loss")
    reduction = _legacy_reduction(size_average, reduce, reduction)
    d = input - target
    if beta == 0.0:
        return _reduce(fnp.abs(d), reduction, "smooth_l1_loss")
    a = fnp.abs(d)
    return _reduce(fnp.where(a < beta, (0.5 / beta) * (d * d), a - 0.5 * beta), reduction, "smooth_l1_loss")


def huber_loss(input: TensorOrArray, target: Tensor | ArrayLike, reduction: str = "mean", delta: float = 1.0,
               weight: Tensor | ArrayLike | None = None) -> TensorOrArray:
    """0.5 d**2 where |d| < delta, else delta (|d| - 0.5 delta).

    Examples
    --------
    >>> x = fgrad.tensor([0.5, 3.0], requires_grad=True)
    >>> loss = fgrad.nn.functional.huber_loss(x, fgrad.zeros(2), reduction="sum"); loss.backward()
    >>> loss, x.grad  # 0.5 x ** 2 below delta, delta (|x| - 0.5 delta) above
    (tensor(2.625, grad_fn=<...>), tensor([0.5, 1. ]))
    """
    if delta <= 0:
        raise RuntimeError("huber_loss does not support non-positive values for delta.")
    _same_shape(input, target, "huber_loss")
    d = input - target
    a = fnp.abs(d)
    loss = fnp.where(a < delta, 0.5 * (d * d), delta * (a - 0.5 * delta))
    return _weighted(loss, weight, reduction, "huber_loss", mean_by_weight=False)


def gaussian_nll_loss(input: TensorOrArray, target: Tensor | ArrayLike, var: Tensor | ArrayLike, full: bool = False,
                      eps: float = 1e-6, reduction: str = "mean") -> TensorOrArray:
    """0.5 (log var + (input - target)**2 / var) (+ 0.5 log 2 pi if full), var clamped to eps
    with the gradient passing the clamp unchanged, as torch's (it clamps under no_grad).

    Examples
    --------
    >>> mu = fgrad.tensor([1.0], requires_grad=True)
    >>> loss = fgrad.nn.functional.gaussian_nll_loss(mu, fgrad.tensor([0.0]), fgrad.tensor([0.5])); loss.backward()
    >>> round(loss.item(), 4), mu.grad  # 0.5 (log var + (mu - y) ** 2 / var)
    (0.6534, tensor([2.]))
    """
    if isinstance(var, (int, float)):
        if var < 0:
            raise ValueError("var has negative entry/entries")
        var = fnp.full_like(input, var)
    elif not _traced(var) and bool(np.any(_on_host(var)
                                          < 0)):
        raise ValueError("var has negative entry/entries")
    in_shape, var_shape = _shape(input), _shape(var)
    if var_shape != in_shape:
        if in_shape[:-1] == var_shape:
            var = fnp.expand_dims(var, -1)
        elif len(in_shape) != len(var_shape) or sum(v for i, v in zip(in_shape, var_shape) if i != v) != 1:
            raise ValueError("var is of incorrect size")
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(reduction + " is not valid")
    var = var + stop_gradient(fnp.maximum(var, eps) - var)
    d = input - target
    loss = 0.5 * (fnp.log(var) + d * d / var)
    if full:
        loss = loss + 0.5 * math.log(2 * math.pi)
    return _reduce(loss, reduction, "gaussian_nll_loss")


# ---- classification losses --------------------------------------------------------------------
def _check_class_indices(target, where, probabilities=False):
    """Class indices are integers: float labels are refused, never truncated (torch: "expected
    target dtype to be Long"), and so are booleans."""
    dtype = _dtype(target)
    if not np.issubdtype(dtype, np.integer):
        raise TypeError(f"{where}: class-index targets must have an integer dtype, got {dtype} (shape "
                        f"{_shape(target)}); convert exact labels with target.astype(np.int64) (a Tensor: "
                        f"target.long())" + (", or pass class probabilities of the input's shape"
                                             if probabilities else ""))


def _on_host(x):
    """x's values as a NumPy array on the host (a CUDA tensor's copied), for the checks made there."""
    return to_host(concrete(x.detach() if hasattr(x, "detach") else x))


def _labels(input, target, ignore_index, where):
    """The class indices as an index array (traced ones as they are), checked against input:
    target's shape is input's without the class axis (axis 1; a 1-D input is one example)."""
    shape = _shape(input)
    if len(shape) == 0:
        raise ValueError(f"{where}: input must have a class axis, got a 0-D input")
    c = shape[1] if len(shape) >= 2 else shape[0]
    want = (shape[0],) + shape[2:] if len(shape) >= 2 else ()
    if _shape(target) != want:
        raise ValueError(f"{where}: targets must be class indices of shape {want} for input of shape {shape} "
                         f"({c} classes), got shape {_shape(target)}")
    if _traced(target):  # under vmap each example picks its own, under compile the program does
        return target, c
    labels = _on_host(target).astype(np.int64)
    bad = labels[(labels != ignore_index) & ((labels < 0) | (labels >= c))]
    if bad.size:
        raise IndexError(f"{where}: Target {int(bad.flat[0])} is out of bounds: targets must be class indices in "
                         f"[0, {c}) (or ignore_index={ignore_index})")
    return on_device_of(input, labels), c  # (checked on the host, gathered on the input's device)


def _check_weight(weight, c):
    if weight is not None and _shape(weight) != (c,):
        raise RuntimeError(f"weight tensor should be defined either for all {c} classes or no classes but got "
                           f"weight tensor of shape: {list(_shape(weight))}")


def _class_last(input):
    return fnp.moveaxis(input, 1, -1) if input.ndim > 2 else input


def _nll(logp, labels, c, weight, ignore_index, reduction, where):
    """torch's nll_loss on log-probabilities with checked labels: -w[t] logp[t], ignored targets
    dropped, 'mean' divided by the weights' sum."""
    _check_weight(weight, c)
    x = _class_last(logp)
    masked = _traced(labels) or bool(np.any(labels == ignore_index))
    valid = labels != ignore_index if masked else None
    safe = fnp.where(valid, labels, 0) if masked else labels
    grid = tuple(on_device_of(x, g) for g in np.indices(_shape(labels), sparse=True)) if x.ndim > 1 else ()
    picked = x[grid + (safe,)]
    if weight is None and not masked:
        return _reduce(-picked, reduction, where)
    w = fnp.take(weight, safe) if weight is not None else fnp.ones_like(picked)
    w = fnp.where(valid, w, 0.0) if masked else w
    loss = -picked * w
    if reduction == "mean":
        return fnp.sum(loss) / fnp.sum(w)
    return _reduce(loss, reduction, where)


def nll_loss(input: TensorOrArray, target: Tensor | ArrayLike, weight: Tensor | ArrayLike | None = None,
             size_average: bool | None = None, ignore_index: int = -100, reduce: bool | None = None,
             reduction: str = "mean") -> TensorOrArray:
    """Negative log-likelihood of class indices under log-probabilities input: (N, C) with
    target (N,), (C,) with a 0-D target, or (N, C, d1, ...) with target (N, d1, ...).

    Examples
    --------
    >>> logp = fgrad.tensor([[0.25, 0.75], [0.5, 0.5]]).log().requires_grad_()
    >>> loss = fgrad.nn.functional.nll_loss(logp, fgrad.tensor([1, 0])); loss.backward()
    >>> round(loss.item(), 4), logp.grad  # -mean of the target classes' log-probabilities
    (0.4904, tensor([[ 0. , -0.5], [-0.5,  0. ]]))
    """
    _check_class_indices(target, "nll_loss")
    labels, c = _labels(input, target, ignore_index, "nll_loss")
    return _nll(input, labels, c, weight, ignore_index, _legacy_reduction(size_average, reduce, reduction),
                "nll_loss")


def _class_axis(input):
    return 1 if input.ndim >= 2 else 0


def cross_entropy(input: TensorOrArray, target: Tensor | ArrayLike, weight: Tensor | ArrayLike | None = None,
                  size_average: bool | None = None, ignore_index: int = -100, reduce: bool | None = None,
                  reduction: str = "mean", label_smoothing: float = 0.0) -> TensorOrArray:
    """Cross-entropy of logits input (class axis 1) with class indices (an integer target) or
    class probabilities (a floating-point target of input's shape), as torch's: weight per
    class, ignore_index, label_smoothing (the target mixed with the uniform distribution).

    Examples
    --------
    >>> logits = fgrad.tensor([[0.0, np.log(3.0)]], requires_grad=True)
    >>> loss = fgrad.nn.functional.cross_entropy(logits, fgrad.tensor([1])); loss.backward()
    >>> round(loss.item(), 4), logits.grad  # -log softmax; the gradient softmax - onehot
    (0.2877, tensor([[ 0.25, -0.25]]))
    """
    reduction = _legacy_reduction(size_average, reduce, reduction)
    if not 0.0 <= label_smoothing <= 1.0:
        raise RuntimeError(f"label_smoothing must be between 0.0 and 1.0. Got: {label_smoothing}")
    if not np.issubdtype(_dtype(target), np.floating):
        _check_class_indices(target, "cross_entropy", probabilities=True)
        labels, c = _labels(input, target, ignore_index, "cross_entropy")
        logp = _softmax.log_softmax(input, axis=_class_axis(input))
        nll = _nll(logp, labels, c, weight, ignore_index, reduction, "cross_entropy")
        return nll if label_smoothing == 0.0 else \
            (1.0 - label_smoothing) * nll + _smoothing(logp, labels, c, weight, ignore_index, reduction) * \
            (label_smoothing / c)
    if _shape(target) != _shape(input):
        raise ValueError(f"cross_entropy: a floating-point target holds class probabilities and must have the "
                         f"input's shape {_shape(input)}, got shape {_shape(target)} (dtype {_dtype(target)}); class "
                         f"indices must be integers: convert exact labels with target.astype(np.int64) (a "
                         f"Tensor: target.long())")
    if ignore_index >= 0:
        raise RuntimeError("ignore_index is not supported for floating point target")
    axis = _class_axis(input)
    c = _shape(input)[axis]
    _check_weight(weight, c)
    if label_smoothing > 0.0:
        target = target * (1.0 - label_smoothing) + label_smoothing / c
    logp = _softmax.log_softmax(input, axis=axis)
    terms = logp * target if weight is None else logp * target * _along(weight, input.ndim, axis)
    if reduction == "mean":
        return -fnp.sum(terms) / (int(np.prod(_shape(input))) // c)
    return -fnp.sum(terms) if reduction == "sum" else _reduce(-fnp.sum(terms, axis=axis), reduction,
                                                               "cross_entropy")


def _along(weight, ndim, axis):
    """A per-class weight shaped to broadcast along input's class axis."""
    return fnp.reshape(weight, (-1,) + (1,) * (ndim - axis - 1))


def _smoothing(logp, labels, c, weight, ignore_index, reduction):
    """label_smoothing's term: -sum_c w_c logp_c per example, ignored ones zero, reduced as torch's
    (a 'mean' divided by the ignored-free count, or by the weights of the targets)."""
    axis = _class_axis(logp)
    terms = logp if weight is None else logp * _along(weight, logp.ndim, axis)
    smooth = -fnp.sum(terms, axis=axis)
    valid = labels != ignore_index
    smooth = fnp.where(valid, smooth, 0.0)
    if reduction == "mean":
        safe = fnp.where(valid, labels, 0)
        per = fnp.take(weight, safe) if weight is not None else fnp.ones_like(smooth)
        return fnp.sum(smooth) / fnp.sum(fnp.where(valid, per, 0.0))
    return _reduce(smooth, reduction, "cross_entropy")


def _check_unit_interval(input, where):
    if _traced(input):
        return
    values = _on_host(input)
    if np.any((values < 0) | (values > 1)):
        raise RuntimeError(f"{where}: all elements of input should be between 0 and 1")


def binary_cross_entropy(input: TensorOrArray, target: Tensor | ArrayLike, weight: Tensor | ArrayLike | None = None,
                         size_average: bool | None = None, reduce: bool | None = None,
                         reduction: str = "mean") -> TensorOrArray:
    """-w (t log x + (1 - t) log(1 - x)), each log clamped at -100 as torch's.

    Examples
    --------
    >>> p = fgrad.tensor([0.5, 0.8], requires_grad=True)
    >>> loss = fgrad.nn.functional.binary_cross_entropy(p, fgrad.tensor([0.0, 1.0]), reduction="sum"); loss.backward()
    >>> round(loss.item(), 4), p.grad  # the gradients 1 / (1 - p) and -1 / p
    (0.9163, tensor([ 2.  , -1.25]))
    """
    if _shape(target) != _shape(input):
        raise ValueError(f"Using a target size ({_shape(target)}) that is different to the input size "
                         f"({_shape(input)}) is deprecated. Please ensure they have the same size.")
    _check_unit_interval(input, "binary_cross_entropy")
    log_x = fnp.maximum(fnp.log(input), -100.0)
    log_1mx = fnp.maximum(fnp.log1p(-input), -100.0)
    loss = -(target * log_x + (1.0 - target) * log_1mx)
    loss = loss if weight is None else loss * weight
    return _reduce(loss, _legacy_reduction(size_average, reduce, reduction), "binary_cross_entropy")


def binary_cross_entropy_with_logits(input: TensorOrArray, target: Tensor | ArrayLike,
                                     weight: Tensor | ArrayLike | None = None, size_average: bool | None = None,
                                     reduce: bool | None = None, reduction: str = "mean",
                                     pos_weight: Tensor | ArrayLike | None = None) -> TensorOrArray:
    """binary_cross_entropy(sigmoid(input), target) without overflow, as torch's:
    (1 - t) x - (1 + (pos_weight - 1) t) log sigmoid(x).

    Examples
    --------
    >>> z = fgrad.tensor([0.0, 30.0], requires_grad=True)
    >>> loss = fgrad.nn.functional.binary_cross_entropy_with_logits(z, fgrad.tensor([1.0, 1.0]), reduction="sum")
    >>> loss.backward(); round(loss.item(), 4), bool(fgrad.allclose(z.grad, fgrad.tensor([-0.5, 0.0])))  # sigmoid - y
    (0.6931, True)
    """
    if _shape(target) != _shape(input):
        raise ValueError(f"Target size ({list(_shape(target))}) must be the same as input size "
                         f"({list(_shape(input))})")
    log_weight = 1.0 if pos_weight is None else (pos_weight - 1.0) * target + 1.0
    loss = (1.0 - target) * input - log_weight * log_expit(input)
    loss = loss if weight is None else loss * weight
    return _reduce(loss, _legacy_reduction(size_average, reduce, reduction), "binary_cross_entropy_with_logits")


def kl_div(input: TensorOrArray, target: Tensor | ArrayLike, size_average: bool | None = None,
           reduce: bool | None = None, reduction: str = "mean", log_target: bool = False) -> TensorOrArray:
    """The pointwise KL divergence t (log t - input) of log-probabilities input from target (a
    log-probability too where log_target); 'batchmean' divides the sum by the batch size.

    Examples
    --------
    >>> logq = fgrad.tensor([0.25, 0.75]).log().requires_grad_()
    >>> loss = fgrad.nn.functional.kl_div(logq, fgrad.tensor([0.5, 0.5]), reduction="sum"); loss.backward()
    >>> round(loss.item(), 4), logq.grad  # sum p (log p - log q); the gradient -p
    (0.1438, tensor([-0.5, -0.5]))
    """
    reduction = _legacy_reduction(size_average, reduce, reduction)
    if reduction == "mean":
        warnings.warn("reduction: 'mean' divides the total loss by both the batch size and the support size."
                      "'batchmean' divides only by the batch size, and aligns with the KL div math definition."
                      "'mean' will be changed to behave the same as 'batchmean' in the next major release.",
                      UserWarning, stacklevel=2)
    loss = fnp.exp(target) * (target - input) if log_target else xlogy(target, target) - target * input
    if reduction == "batchmean":
        total = fnp.sum(loss)
        return total / _shape(input)[0] if len(_shape(input)) else total
    return _reduce(loss, reduction, "kl_div")


# ---- embedding and ranking losses -------------------------------------------------------------
def cosine_embedding_loss(input1: TensorOrArray, input2: TensorOrArray, target: Tensor | ArrayLike, margin: float = 0.0,
                          size_average: bool | None = None, reduce: bool | None = None,
                          reduction: str = "mean") -> TensorOrArray:
    """1 - cos(x1, x2) where target is 1, max(0, cos(x1, x2) - margin) where it is -1.

    Examples
    --------
    >>> x1 = fgrad.tensor([[1.0, 0.0]], requires_grad=True)
    >>> loss = fgrad.nn.functional.cosine_embedding_loss(x1, fgrad.tensor([[0.0, 1.0]]), fgrad.tensor([1])); loss
    tensor(1., grad_fn=<...>)
    >>> loss.backward(); x1.grad[0, 1]  # 1 - cos; the gradient moves x1 toward x2
    tensor(-1.)
    """
    tdim = len(_shape(target))
    if tdim not in (0, 1):
        raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
    want = 2 if tdim == 1 else 1
    if len(_shape(input1)) != want or len(_shape(input2)) != want:
        raise RuntimeError(f"{tdim}D target tensor expects {want}D input tensors, but found inputs with sizes "
                           f"{list(_shape(input1))} and {list(_shape(input2))}.")
    eps = 1e-12
    prod = fnp.sum(input1 * input2, axis=tdim)
    mag1 = fnp.sum(input1 * input1, axis=tdim) + eps
    mag2 = fnp.sum(input2 * input2, axis=tdim) + eps
    cos = prod / fnp.sqrt(mag1 * mag2)
    neg = cos - margin
    loss = fnp.where(target == 1, 1.0 - cos, 0.0) + fnp.where(target == -1, fnp.where(neg >= 0, neg, 0.0), 0.0)
    return _reduce(loss, _legacy_reduction(size_average, reduce, reduction), "cosine_embedding_loss")


def margin_ranking_loss(input1: TensorOrArray, input2: TensorOrArray, target: Tensor | ArrayLike, margin: float = 0.0,
                        size_average: bool | None = None, reduce: bool | None = None,
                        reduction: str = "mean") -> TensorOrArray:
    """max(0, -target (input1 - input2) + margin).

    Examples
    --------
    >>> x1 = fgrad.tensor([1.0, 3.0], requires_grad=True)
    >>> loss = fgrad.nn.functional.margin_ranking_loss(x1, fgrad.tensor([2.0, 1.0]), fgrad.tensor([1.0, 1.0]))
    >>> loss.backward(); loss, x1.grad[0]  # mean max(0, -y (x1 - x2) + margin), margin 0
    (tensor(0.5, grad_fn=<...>), tensor(-0.5))
    """
    if not len(_shape(input1)) == len(_shape(input2)) == len(_shape(target)):
        raise RuntimeError(f"margin_ranking_loss : All input tensors should have same dimension but got sizes: "
                           f"input1: {_shape(input1)}, input2: {_shape(input2)}, target: {_shape(target)} ")
    d = -target * (input1 - input2) + margin
    return _reduce(fnp.where(d >= 0, d, 0.0), _legacy_reduction(size_average, reduce, reduction),
                   "margin_ranking_loss")


def _check_reduction(reduction, message=" is not a valid value for reduction"):
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(f"{reduction}{message}")


def hinge_embedding_loss(input: TensorOrArray, target: Tensor | ArrayLike, margin: float = 1.0,
                         size_average: bool | None = None, reduce: bool | None = None,
                         reduction: str = "mean") -> TensorOrArray:
    """input where target is 1, max(0, margin - input) where it is -1 (target holds 1 and -1; both
    terms where it holds anything else), as torch's.

    Examples
    --------
    >>> d = fgrad.tensor([0.3, 0.2, 2.0], requires_grad=True)
    >>> loss = fgrad.nn.functional.hinge_embedding_loss(d, fgrad.tensor([1.0, -1.0, -1.0]), reduction="sum")
    >>> loss.backward(); loss, d.grad  # 0.3 + (1 - 0.2) + 0
    (tensor(1.1, grad_fn=<...>), tensor([ 1., -1.,  0.]))
    """
    reduction = _legacy_reduction(size_average, reduce, reduction)
    _check_reduction(reduction)
    clamped = margin - input
    clamped = fnp.where(clamped >= 0, clamped, 0.0)
    loss = fnp.where(target != 1, clamped, 0.0) + fnp.where(target != -1, input, 0.0)
    return _reduce(loss, reduction, "hinge_embedding_loss")


def soft_margin_loss(input: TensorOrArray, target: Tensor | ArrayLike, size_average: bool | None = None,
                     reduce: bool | None = None, reduction: str = "mean") -> TensorOrArray:
    """The two-class logistic loss log(1 + exp(-target * input)) (target holds 1 and -1), as
    torch's (its formula, log1p(exp(...)); input and target broadcast as torch's).

    Examples
    --------
    >>> x = fgrad.tensor([0.0, 2.0], requires_grad=True)
    >>> loss = fgrad.nn.functional.soft_margin_loss(x, fgrad.tensor([1.0, -1.0])); loss.backward()
    >>> round(loss.item(), 4), x.grad  # mean log(1 + exp(-y x)); the gradient -y sigmoid(-y x) / n
    (1.41, tensor([-0.25  ,  0.44...]))
    """
    reduction = _legacy_reduction(size_average, reduce, reduction)
    _check_reduction(reduction)
    return _reduce(fnp.log1p(fnp.exp(-input * target)), reduction, "soft_margin_loss")


def multilabel_soft_margin_loss(input: TensorOrArray, target: Tensor | ArrayLike,
                                weight: Tensor | ArrayLike | None = None, size_average: bool | None = None,
                                reduce: bool | None = None, reduction: str = "mean") -> TensorOrArray:
    """The mean over the C classes (the last axis) of -w (t log sigmoid(x) + (1 - t) log sigmoid(-x)):
    one loss per example (N,), then reduced, as torch's.

    Examples
    --------
    >>> x = fgrad.tensor([[0.0, 0.0]], requires_grad=True)
    >>> loss = fgrad.nn.functional.multilabel_soft_margin_loss(x, fgrad.tensor([[1.0, 0.0]])); loss.backward()
    >>> round(loss.item(), 4), x.grad  # log 2; the gradient (sigmoid(x) - t) / C
    (0.6931, tensor([[-0.25,  0.25]]))
    """
    reduction = _legacy_reduction(size_average, reduce, reduction)
    loss = -(target * log_expit(input) + (1 - target) * log_expit(-input))
    if weight is not None:
        loss = loss * weight
    c = _shape(input)[-1] if len(_shape(input)) else 1
    loss = fnp.sum(loss, axis=-1) / c
    _check_reduction(reduction, " is not valid")
    return _reduce(loss, reduction, "multilabel_soft_margin_loss")


def poisson_nll_loss(input: TensorOrArray, target: Tensor | ArrayLike, log_input: bool = True, full: bool = False,
                     size_average: bool | None = None, eps: float = 1e-8, reduce: bool | None = None,
                     reduction: str = "mean") -> TensorOrArray:
    """The Poisson negative log-likelihood of target given the rate exp(input) (log_input) or input:
    exp(input) - target * input, or input - target * log(input + eps); full adds Stirling's
    approximation target log target - target + 0.5 log(2 pi target) where target > 1, as torch's
    (the target's gradient there is finite where torch's is NaN at target 0).

    Examples
    --------
    >>> x = fgrad.tensor([0.0, 1.0], requires_grad=True)
    >>> loss = fgrad.nn.functional.poisson_nll_loss(x, fgrad.tensor([1.0, 2.0]), reduction="sum"); loss.backward()
    >>> round(loss.item(), 4), x.grad  # exp(x) - y x; the gradient exp(x) - y
    (1.7183, tensor([0.      , 0.71828...]))
    """
    reduction = _legacy_reduction(size_average, reduce, reduction)
    _check_reduction(reduction)
    loss = fnp.exp(input) - target * input if log_input else input - target * fnp.log(input + eps)
    if full:
        big = target > 1
        t = fnp.where(big, target, 2.0)
        stirling = t * fnp.log(t) - t + 0.5 * fnp.log(2 * math.pi * t)
        loss = loss + fnp.where(big, stirling, 0.0)
    return _reduce(loss, reduction, "poisson_nll_loss")


def _check_triplet(margin, anchor, positive, negative):
    """torch's checks of a triplet loss's margin and its three inputs' dimensions."""
    if margin <= 0:
        raise ValueError(f"margin must be greater than 0, got {margin}")
    dims = [len(_shape(x)) for x in (anchor, positive, negative)]
    if not dims[0] == dims[1] == dims[2]:
        raise RuntimeError(f"The anchor, positive, and negative tensors are expected to have the same number of "
                           f"dimensions, but got: anchor {dims[0]}D, positive {dims[1]}D, and negative {dims[2]}D "
                           f"inputs")


def triplet_margin_loss(anchor: TensorOrArray, positive: TensorOrArray, negative: TensorOrArray,
                        margin: float = 1.0, p: float = 2, eps: float = 1e-6, swap: bool = False,
                        size_average: bool | None = None, reduce: bool | None = None,
                        reduction: str = "mean") -> TensorOrArray:
    """max(0, margin + d(anchor, positive) - d(anchor, negative)), d the p-norm distance along the
    last axis of x1 - x2 + eps (torch's pairwise_distance); swap takes the smaller of
    d(anchor, negative) and d(positive, negative), as torch's.

    Examples
    --------
    >>> a = fgrad.tensor([[0.0, 0.0]], requires_grad=True)
    >>> pos, neg = fgrad.tensor([[3.0, 4.0]]), fgrad.tensor([[0.0, 1.0]])
    >>> loss = fgrad.nn.functional.triplet_margin_loss(a, pos, neg, eps=0.0)
    >>> loss.backward(); loss, a.grad  # 1 + 5 - 1; toward the positive, away from the negative
    (tensor(5., grad_fn=<...>), tensor([[-0.6,  0.2]]))
    """
    reduction = _legacy_reduction(size_average, reduce, reduction)
    _check_reduction(reduction)
    _check_triplet(margin, anchor, positive, negative)
    d_pos = pairwise_distance(anchor, positive, p, eps)
    d_neg = pairwise_distance(anchor, negative, p, eps)
    if swap:
        d_neg = fnp.minimum(d_neg, pairwise_distance(positive, negative, p, eps))
    loss = margin + d_pos - d_neg
    return _reduce(fnp.where(loss >= 0, loss, 0.0), reduction, "triplet_margin_loss")


def multi_margin_loss(input: TensorOrArray, target: Tensor | ArrayLike, p: int = 1, margin: float = 1.0,
                      weight: Tensor | ArrayLike | None = None, size_average: bool | None = None,
                      reduce: bool | None = None, reduction: str = "mean") -> TensorOrArray:
    """The multi-class hinge loss of (N, C) (or (C,)) scores and class indices: for each example
    the sum over the classes j != y of w[y] max(0, margin - x[y] + x[j]) ** p, divided by C, as
    torch's (p 1 or 2; weight one per class).

    Examples
    --------
    >>> x = fgrad.tensor([[0.1, 0.2, 0.4, 0.8]], requires_grad=True)
    >>> loss = fgrad.nn.functional.multi_margin_loss(x, fgrad.tensor([3])); loss.backward()
    >>> round(loss.item(), 4), x.grad  # (1 - 0.8 + 0.1) + (1 - 0.8 + 0.2) + (1 - 0.8 + 0.4), over 4
    (0.325, tensor([[ 0.25,  0.25,  0.25, -0.75]]))
    """
    reduction = _legacy_reduction(size_average, reduce, reduction)
    _check_reduction(reduction)
    if p != 1 and p != 2:
        raise ValueError("only p == 1 and p == 2 supported")
    if weight is not None and len(_shape(weight)) != 1:
        raise ValueError("weight must be one-dimensional")
    shape = _shape(input)
    if not (int(np.prod(shape)) > 0 and len(shape) <= 2):
        raise RuntimeError(f"Expected non-empty vector or matrix with optional 0-dim batch size, but got: "
                           f"{list(shape)}")
    n, c = (1, shape[0] if shape else 1) if len(shape) <= 1 else shape
    tshape = _shape(target)
    if len(tshape) > 1 or int(np.prod(tshape)) != n:
        raise RuntimeError(f"multi_margin_loss: target tensor should be 1-D with size equal to the number of input "
                           f"samples (batch size). Expected target size [{n}], but got {list(tshape)}. Input has "
                           f"shape {list(shape)}.")
    if not np.issubdtype(_dtype(target), np.integer):
        raise RuntimeError(f"expected scalar type Long but found {dtype_name(_dtype(target))}")
    if weight is not None and _shape(weight) != (c,):
        raise RuntimeError(f"inconsistent weight size, expected {c} but got {list(_shape(weight))}")
    if _traced(target):  # under vmap each example picks its own, under compile the program does
        labels = fnp.reshape(target, (n, 1))
    else:
        labels = _on_host(target).astype(np.int64)
        if np.any((labels < 0) | (labels >= c)):
            raise RuntimeError("target out of range")
        labels = on_device_of(input, labels.reshape(n, 1))
    x = fnp.reshape(input, (n, c))
    z = margin - fnp.take_along_axis(x, labels, axis=1) + x
    h = fnp.where(z > 0, z, 0.0)
    if p == 2:
        h = h * h
    if weight is not None:
        h = h * fnp.take(weight, labels)
    loss = fnp.sum(fnp.where(on_device_of(input, np.arange(c)[None, :]) != labels, h, 0.0), axis=1) / c
    if reduction == "none":
        return loss if len(tshape) > 0 else fnp.reshape(loss, ())
    return _reduce(loss, reduction, "multi_margin_loss")


def triplet_margin_with_distance_loss(anchor: TensorOrArray, positive: TensorOrArray, negative: TensorOrArray, *,
                                      distance_function: Callable[[TensorOrArray, TensorOrArray], TensorOrArray]
                                      | None = None, margin: float = 1.0, swap: bool = False,
                                      reduction: str = "mean") -> TensorOrArray:
    """max(0, margin + d(anchor, positive) - d(anchor, negative)) with any distance function d
    (pairwise_distance by default); swap takes the smaller of d(anchor, negative) and
    d(positive, negative), as torch's.

    Examples
    --------
    >>> a = fgrad.tensor([[0.0, 0.0]], requires_grad=True)
    >>> pos, neg = fgrad.tensor([[3.0, 4.0]]), fgrad.tensor([[0.0, 1.0]])
    >>> def l1(x, y):
    ...     return (x - y).abs().sum(-1)
    >>> loss = fgrad.nn.functional.triplet_margin_with_distance_loss(a, pos, neg, distance_function=l1)
    >>> loss.backward(); loss, a.grad  # 1 + 7 - 1
    (tensor(7., grad_fn=<...>), tensor([[-1.,  0.]]))
    """
    _check_reduction(reduction)
    _check_triplet(margin, anchor, positive, negative)
    distance = pairwise_distance if distance_function is None else distance_function
    d_pos = distance(anchor, positive)
    d_neg = distance(anchor, negative)
    if swap:
        d_neg = fnp.minimum(d_neg, distance(positive, negative))
    loss = margin + d_pos - d_neg
    return _reduce(fnp.where(loss >= 0, loss, 0.0), reduction, "triplet_margin_with_distance_loss")


def multilabel_margin_loss(input: TensorOrArray, target: Tensor | ArrayLike, size_average: bool | None = None,
                           reduce: bool | None = None, reduction: str = "mean") -> TensorOrArray:
    """The multi-label hinge loss of (N, C) (or (C,)) scores: target holds each example's classes,
    ended by the first negative entry; for each target class j and each class i that is not a
    target, max(0, 1 - (x[j] - x[i])), summed and divided by C, as torch's.

    Examples
    --------
    >>> x = fgrad.tensor([[0.1, 0.2, 0.4, 0.8]], requires_grad=True)
    >>> loss = fgrad.nn.functional.multilabel_margin_loss(x, fgrad.tensor([[3, 0, -1, 1]])); loss.backward()
    >>> round(loss.item(), 4), x.grad  # targets 3 and 0 against 1 and 2
    (0.85, tensor([[-0.5,  0.5,  0.5, -0.5]]))
    """
    reduction = _legacy_reduction(size_average, reduce, reduction)
    _check_reduction(reduction)
    shape = _shape(input)
    if not (int(np.prod(shape)) > 0 and len(shape) <= 2):
        raise RuntimeError(f"Expected non-empty vector or matrix with optional 0-dim batch size, but got: "
                           f"{list(shape)}")
    if _shape(target) != shape:
        raise RuntimeError(f"inconsistent target size: {list(_shape(target))} for input of size: {list(shape)}")
    if not np.issubdtype(_dtype(target), np.integer):
        raise RuntimeError(f"expected scalar type Long but found {dtype_name(_dtype(target))}")
    n, c = (1, shape[0] if shape else 1) if len(shape) <= 1 else shape
    labels = _on_host(target).astype(np.int64)
    labels = labels.reshape(n, c)
    valid = np.cumprod(labels >= 0, axis=1).astype(bool)  # up to the first negative entry
    if np.any(valid & (labels >= c)):
        raise RuntimeError("argument #2 'target' is out of range")
    safe = np.where(valid, labels, 0)
    is_target = np.zeros((n, c), dtype=bool)
    is_target[np.nonzero(valid)[0], safe[valid]] = True
    x = fnp.reshape(input, (n, c))
    picked = fnp.take_along_axis(x, on_device_of(input, safe), axis=1)  # (n, targets)
    z = 1.0 - picked[:, :, None] + x[:, None, :]  # (n, targets, classes)
    mask = on_device_of(input, valid[:, :, None] & ~is_target[:, None, :])
    loss = fnp.sum(fnp.where(mask & (z > 0), z, 0.0), axis=(1, 2)) / c
    if len(shape) <= 1:
        loss = fnp.reshape(loss, ())
    return _reduce(loss, reduction, "multilabel_margin_loss")


# ---- the Modules -------------------------------------------------------------------------------
class _Loss(Module):
    """A loss as a module: the reduction (torch's legacy size_average/reduce mapped onto it)."""

    def __init__(self, size_average: bool | None = None, reduce: bool | None = None, reduction: str = "mean") -> None:
        super().__init__()
        self.reduction = reduction if size_average is None and reduce is None else \
            _legacy_reduction(size_average, reduce, reduction)

    def extra_repr(self) -> str:
        return ""


class _WeightedLoss(_Loss):
    """A loss with a per-class `weight`, registered as a buffer (so it moves and saves with the module)."""

    def __init__(self, weight: Tensor | None = None, size_average: bool | None = None, reduce: bool | None = None,
                 reduction: str = "mean") -> None:
        super().__init__(size_average, reduce, reduction)
        self.register_buffer("weight", weight)


class L1Loss(_Loss):
    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return l1_loss(input, target, reduction=self.reduction)


class MSELoss(_Loss):
    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return mse_loss(input, target, reduction=self.reduction)


class SmoothL1Loss(_Loss):
    def __init__(self, size_average: bool | None = None, reduce: bool | None = None, reduction: str = "mean",
                 beta: float = 1.0) -> None:
        super().__init__(size_average, reduce, reduction)
        self.beta = beta

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return smooth_l1_loss(input, target, reduction=self.reduction, beta=self.beta)


class HuberLoss(_Loss):
    def __init__(self, reduction: str = "mean", delta: float = 1.0) -> None:
        super().__init__(reduction=reduction)
        self.delta = delta

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return huber_loss(input, target, reduction=self.reduction, delta=self.delta)


class GaussianNLLLoss(_Loss):
    def __init__(self, *, full: bool = False, eps: float = 1e-6, reduction: str = "mean") -> None:
        super().__init__(reduction=reduction)
        self.full, self.eps = full, eps

    def forward(self, input: Tensor, target: Tensor, var: Tensor) -> Tensor:
        return gaussian_nll_loss(input, target, var, full=self.full, eps=self.eps, reduction=self.reduction)


class KLDivLoss(_Loss):
    def __init__(self, size_average: bool | None = None, reduce: bool | None = None, reduction: str = "mean",
                 log_target: bool = False) -> None:
        super().__init__(size_average, reduce, reduction)
        self.log_target = log_target

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return kl_div(input, target, reduction=self.reduction, log_target=self.log_target)


class NLLLoss(_WeightedLoss):
    def __init__(self, weight: Tensor | None = None, size_average: bool | None = None, ignore_index: int = -100,
                 reduce: bool | None = None, reduction: str = "mean") -> None:
        super().__init__(weight, size_average, reduce, reduction)
        self.ignore_index = ignore_index

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return nll_loss(input, target, weight=self.weight, ignore_index=self.ignore_index, reduction=self.reduction)


class CrossEntropyLoss(_WeightedLoss):
    def __init__(self, weight: Tensor | None = None, size_average: bool | None = None, ignore_index: int = -100,
                 reduce: bool | None = None, reduction: str = "mean", label_smoothing: float = 0.0) -> None:
        super().__init__(weight, size_average, reduce, reduction)
        self.ignore_index, self.label_smoothing = ignore_index, label_smoothing

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return cross_entropy(input, target, weight=self.weight, ignore_index=self.ignore_index,
                             reduction=self.reduction, label_smoothing=self.label_smoothing)


class BCELoss(_WeightedLoss):
    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return binary_cross_entropy(input, target, weight=self.weight, reduction=self.reduction)


class BCEWithLogitsLoss(_Loss):
    def __init__(self, weight: Tensor | None = None, size_average: bool | None = None, reduce: bool | None = None,
                 reduction: str = "mean", pos_weight: Tensor | None = None) -> None:
        super().__init__(size_average, reduce, reduction)
        self.register_buffer("weight", weight)
        self.register_buffer("pos_weight", pos_weight)

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return binary_cross_entropy_with_logits(input, target, self.weight, pos_weight=self.pos_weight,
                                                reduction=self.reduction)


class CosineEmbeddingLoss(_Loss):
    def __init__(self, margin: float = 0.0, size_average: bool | None = None, reduce: bool | None = None,
                 reduction: str = "mean") -> None:
        super().__init__(size_average, reduce, reduction)
        self.margin = margin

    def forward(self, input1: Tensor, input2: Tensor, target: Tensor) -> Tensor:
        return cosine_embedding_loss(input1, input2, target, margin=self.margin, reduction=self.reduction)


class MarginRankingLoss(_Loss):
    def __init__(self, margin: float = 0.0, size_average: bool | None = None, reduce: bool | None = None,
                 reduction: str = "mean") -> None:
        super().__init__(size_average, reduce, reduction)
        self.margin = margin

    def forward(self, input1: Tensor, input2: Tensor, target: Tensor) -> Tensor:
        return margin_ranking_loss(input1, input2, target, margin=self.margin, reduction=self.reduction)


class HingeEmbeddingLoss(_Loss):
    def __init__(self, margin: float = 1.0, size_average: bool | None = None, reduce: bool | None = None,
                 reduction: str = "mean") -> None:
        super().__init__(size_average, reduce, reduction)
        self.margin = margin

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return hinge_embedding_loss(input, target, margin=self.margin, reduction=self.reduction)


class SoftMarginLoss(_Loss):
    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return soft_margin_loss(input, target, reduction=self.reduction)


class MultiLabelSoftMarginLoss(_WeightedLoss):
    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return multilabel_soft_margin_loss(input, target, weight=self.weight, reduction=self.reduction)


class PoissonNLLLoss(_Loss):
    def __init__(self, log_input: bool = True, full: bool = False, size_average: bool | None = None,
                 eps: float = 1e-8, reduce: bool | None = None, reduction: str = "mean") -> None:
        super().__init__(size_average, reduce, reduction)
        self.log_input, self.full, self.eps = log_input, full, eps

    def forward(self, log_input: Tensor, target: Tensor) -> Tensor:
        return poisson_nll_loss(log_input, target, log_input=self.log_input, full=self.full, eps=self.eps,
                                reduction=self.reduction)


class TripletMarginLoss(_Loss):
    def __init__(self, margin: float = 1.0, p: float = 2.0, eps: float = 1e-6, swap: bool = False,
                 size_average: bool | None = None, reduce: bool | None = None, reduction: str = "mean") -> None:
        super().__init__(size_average, reduce, reduction)
        if margin <= 0:
            raise ValueError(f"TripletMarginLoss: expected margin to be greater than 0, got {margin} instead")
        self.margin, self.p, self.eps, self.swap = margin, p, eps, swap

    def forward(self, anchor: Tensor, positive: Tensor, negative: Tensor) -> Tensor:
        return triplet_margin_loss(anchor, positive, negative, margin=self.margin, p=self.p, eps=self.eps,
                                   swap=self.swap, reduction=self.reduction)


class MultiMarginLoss(_WeightedLoss):
    def __init__(self, p: int = 1, margin: float = 1.0, weight: Tensor | None = None,
                 size_average: bool | None = None, reduce: bool | None = None, reduction: str = "mean") -> None:
        super().__init__(weight, size_average, reduce, reduction)
        if p != 1 and p != 2:
            raise ValueError("only p == 1 and p == 2 supported")
        if weight is not None and weight.ndim != 1:
            raise ValueError(f"MultiMarginLoss: expected weight to be None or 1D tensor, got {weight.ndim}D instead")
        self.p, self.margin = p, margin

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return multi_margin_loss(input, target, p=self.p, margin=self.margin, weight=self.weight,
                                 reduction=self.reduction)


class TripletMarginWithDistanceLoss(_Loss):
    def __init__(self, *, distance_function: Callable[[Tensor, Tensor], Tensor] | None = None, margin: float = 1.0,
                 swap: bool = False, reduction: str = "mean") -> None:
        super().__init__(reduction=reduction)
        if margin <= 0:
            raise ValueError(f"TripletMarginWithDistanceLoss: expected margin to be greater than 0, got {margin} "
                             f"instead")
        self.distance_function = distance_function if distance_function is not None else PairwiseDistance()
        self.margin, self.swap = margin, swap

    def forward(self, anchor: Tensor, positive: Tensor, negative: Tensor) -> Tensor:
        return triplet_margin_with_distance_loss(anchor, positive, negative, distance_function=self.distance_function,
                                                 margin=self.margin, swap=self.swap, reduction=self.reduction)


class MultiLabelMarginLoss(_Loss):
    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return multilabel_margin_loss(input, target, reduction=self.reduction)


def _document(cls, fn, init, inputs):
    """The docstring of `cls`, the Module of `fn`: what it calls, and an example checking it against fn."""
    call = f", {init}" if init else ""
    cls.__doc__ = (f"`{cls.__name__}({init})(*inputs)` is fgrad.nn.functional.{fn.__name__}(*inputs{call}), as a\n"
                   f"Module (torch.nn.{cls.__name__}): see {fn.__name__} for what it computes and how it\n"
                   f"differentiates.\n\n"
                   f"Examples\n--------\n"
                   f">>> loss = fgrad.nn.{cls.__name__}({init})\n"
                   f">>> inputs = ({inputs})\n"
                   f">>> bool(fgrad.equal(loss(*inputs), fgrad.nn.functional.{fn.__name__}(*inputs{call})))\n"
                   f"True\n")


_PAIR = "fgrad.tensor([1.0, 2.0], requires_grad=True), fgrad.tensor([0.0, 4.0])"
for _cls, _fn, _init, _inputs in (
        (L1Loss, l1_loss, "reduction='sum'", _PAIR), (MSELoss, mse_loss, "reduction='sum'", _PAIR),
        (SmoothL1Loss, smooth_l1_loss, "beta=0.5", _PAIR), (HuberLoss, huber_loss, "delta=0.5", _PAIR),
        (GaussianNLLLoss, gaussian_nll_loss, "full=True", _PAIR + ", fgrad.tensor([0.5, 2.0])"),
        (KLDivLoss, kl_div, "reduction='sum'", "fgrad.tensor([0.25, 0.75]).log(), fgrad.tensor([0.5, 0.5])"),
        (NLLLoss, nll_loss, "reduction='sum'", "fgrad.tensor([[0.25, 0.75], [0.5, 0.5]]).log(), fgrad.tensor([1, 0])"),
        (CrossEntropyLoss, cross_entropy, "label_smoothing=0.1",
         "fgrad.tensor([[1.0, 2.0], [0.5, 0.5]], requires_grad=True), fgrad.tensor([1, 0])"),
        (BCELoss, binary_cross_entropy, "", "fgrad.tensor([0.25, 0.75]), fgrad.tensor([0.0, 1.0])"),
        (BCEWithLogitsLoss, binary_cross_entropy_with_logits, "pos_weight=fgrad.tensor([2.0])",
         "fgrad.tensor([-1.0, 2.0]), fgrad.tensor([0.0, 1.0])"),
        (CosineEmbeddingLoss, cosine_embedding_loss, "margin=0.1",
         "fgrad.tensor([[1.0, 0.0]]), fgrad.tensor([[1.0, 1.0]]), fgrad.tensor([-1])"),
        (MarginRankingLoss, margin_ranking_loss, "margin=0.5",
         "fgrad.tensor([1.0, 2.0]), fgrad.tensor([2.0, 1.0]), fgrad.tensor([1.0, 1.0])"),
        (HingeEmbeddingLoss, hinge_embedding_loss, "margin=0.5", "fgrad.tensor([0.3, 0.2]), fgrad.tensor([1.0, -1.0])"),
        (SoftMarginLoss, soft_margin_loss, "reduction='sum'", "fgrad.tensor([0.5, 2.0]), fgrad.tensor([1.0, -1.0])"),
        (MultiLabelSoftMarginLoss, multilabel_soft_margin_loss, "weight=fgrad.tensor([1.0, 2.0])",
         "fgrad.tensor([[0.5, -1.0]]), fgrad.tensor([[1.0, 0.0]])"),
        (PoissonNLLLoss, poisson_nll_loss, "full=True", "fgrad.tensor([0.5, 1.0]), fgrad.tensor([1.0, 3.0])"),
        (TripletMarginLoss, triplet_margin_loss, "margin=2.0, swap=True",
         "fgrad.tensor([[0.0, 0.0]]), fgrad.tensor([[3.0, 4.0]]), fgrad.tensor([[0.0, 1.0]])"),
        (MultiMarginLoss, multi_margin_loss, "p=2, margin=0.5",
         "fgrad.tensor([[0.1, 0.2, 0.4]]), fgrad.tensor([2])"),
        (TripletMarginWithDistanceLoss, triplet_margin_with_distance_loss, "margin=2.0, swap=True",
         "fgrad.tensor([[0.0, 0.0]]), fgrad.tensor([[3.0, 4.0]]), fgrad.tensor([[0.0, 1.0]])"),
        (MultiLabelMarginLoss, multilabel_margin_loss, "reduction='sum'",
         "fgrad.tensor([[0.1, 0.2, 0.4, 0.8]]), fgrad.tensor([[3, 0, -1, 1]])")):
    _document(_cls, _fn, _init, _inputs)
