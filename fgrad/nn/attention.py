"""Attention: scaled_dot_product_attention, multi_head_attention_forward and MultiheadAttention,
with torch 2.13's signatures, masks, parameter names (in_proj_weight, in_proj_bias,
out_proj.*), initialization and numbers.

Masks follow torch: a boolean mask marks what may NOT be attended (True: masked out, -inf
before the softmax), a floating one is added to the scores; key_padding_mask (N, S) and
attn_mask (L, S) or (N * num_heads, L, S) are merged into one additive mask.
"""
import math

import numpy as np

from .. import numpy as fnp
from ..autograd.tensor import Tensor, TensorOrArray
from ..backend import Device
from ..numpy import _softmax
from ..typing import Array, DTypeLike
from . import init
from .dropout import dropout as _dropout
from .module import Module, Parameter
from .modules import Linear, _factory
from .parameters import on_device_of

__all__ = ["MultiheadAttention", "multi_head_attention_forward", "scaled_dot_product_attention"]


def _additive(mask, dtype, like, name):
    """A boolean mask as 0 / -inf, a floating one as it is, in the scores' dtype."""
    if mask is None:
        return None
    mdtype = mask.dtype if hasattr(mask, "dtype") else np.asarray(mask).dtype
    if mdtype == np.bool_:
        values = mask.detach().numpy() if hasattr(mask, "detach") else np.asarray(mask)
        return on_device_of(like, np.where(values, -np.inf, 0.0).astype(dtype))
    if not np.issubdtype(mdtype, np.floating):
        raise AssertionError(f"only bool and floating types of {name} are supported")
    return mask


def _safe_softmax(scores):
    """softmax along the last axis, a row masked out entirely (all -inf) giving zeros, not NaN,
    as torch's scaled_dot_product_attention (its unused row is computed on zeros, so its
    gradient is zero, not NaN)."""
    empty = fnp.max(scores, axis=-1, keepdims=True) == -np.inf
    return fnp.where(empty, 0.0, _softmax.softmax(fnp.where(empty, 0.0, scores), axis=-1))


def _causal(length, source, dtype, like):
    return on_device_of(like, np.triu(np.full((length, source), -np.inf, dtype=dtype), 1))


def scaled_dot_product_attention(query: TensorOrArray, key: Tensor | Array, value: Tensor | Array,
                                 attn_mask: Tensor | Array | None = None, dropout_p: float = 0.0,
                                 is_causal: bool = False, scale: float | None = None,
                                 enable_gqa: bool = False) -> TensorOrArray:
    """softmax(q k^T * scale + mask) v over the last two axes (scale 1/sqrt(E) by default); a
    boolean attn_mask is True where attention is allowed, as torch's.

    Examples
    --------
    >>> q = k = fgrad.tensor([[[1.0, 0.0], [0.0, 1.0]]])
    >>> v = fgrad.tensor([[[1.0, 2.0], [3.0, 4.0]]], requires_grad=True)
    >>> out = fgrad.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=True); out.sum().backward()
    >>> out  # the first query sees only the first key
    tensor([[[1.        , 2.        ], [2.33...,  3.33...]]], grad_fn=<...>)
    >>> v.grad  # each value's total attention weight
    tensor([[[1.33..., 1.33...], [0.66..., 0.66...]]])
    """
    if enable_gqa:
        raise ValueError("scaled_dot_product_attention: enable_gqa is not supported by fgrad")
    length, source = query.shape[-2], key.shape[-2]
    scale = 1.0 / math.sqrt(query.shape[-1]) if scale is None else scale
    scores = fnp.matmul(query, fnp.swapaxes(key, -1, -2)) * scale
    if is_causal:
        if attn_mask is not None:
            raise RuntimeError("_scaled_dot_product_attention: Explicit attn_mask should not be set when "
                               "is_causal=True")
        scores = scores + _causal(length, source, scores.dtype, query)
    if attn_mask is not None:  # here a boolean mask marks what DOES take part (True), unlike MHA's
        is_bool = (attn_mask.dtype if hasattr(attn_mask, "dtype") else np.asarray(attn_mask).dtype) == np.bool_
        keep = attn_mask.detach().numpy() if hasattr(attn_mask, "detach") else np.asarray(attn_mask)
        scores = scores + (_additive(~keep, scores.dtype, query, "attn_mask") if is_bool else attn_mask)
    masked = is_causal or attn_mask is not None
    weights = _safe_softmax(scores) if masked else _softmax.softmax(scores, axis=-1)
    if dropout_p > 0.0:
        weights = _dropout(weights, dropout_p, True)
    return fnp.matmul(weights, value)


def _project(x, weight, bias):
    out = fnp.matmul(x, fnp.swapaxes(weight, -1, -2))
    return out if bias is None else out + bias


def _merged_mask(attn_mask, key_padding_mask, bsz, num_heads, tgt_len, src_len, dtype, like):
    """attn_mask and key_padding_mask as one additive mask of shape (N * heads, L, S) or (1, L, S)."""
    attn_mask = _additive(attn_mask, dtype, like, "attn_mask")
    key_padding_mask = _additive(key_padding_mask, dtype, like, "key_padding_mask")
    if attn_mask is not None:
        if attn_mask.ndim == 2:
            if tuple(attn_mask.shape) != (tgt_len, src_len):
                raise RuntimeError(f"The shape of the 2D attn_mask is {tuple(attn_mask.shape)}, but should be "
                                   f"{(tgt_len, src_len)}.")
            attn_mask = attn_mask[None]
        elif attn_mask.ndim == 3:
            if tuple(attn_mask.shape) != (bsz * num_heads, tgt_len, src_len):
                raise RuntimeError(f"The shape of the 3D attn_mask is {tuple(attn_mask.shape)}, but should be "
                                   f"{(bsz * num_heads, tgt_len, src_len)}.")
        else:
            raise RuntimeError(f"attn_mask's dimension {attn_mask.ndim} is not supported")
    if key_padding_mask is not None:
        if tuple(key_padding_mask.shape) != (bsz, src_len):
            raise AssertionError(f"expecting key_padding_mask shape of {(bsz, src_len)}, but got "
                                 f"{tuple(key_padding_mask.shape)}")
        padding = fnp.reshape(fnp.broadcast_to(fnp.reshape(key_padding_mask, (bsz, 1, 1, src_len)),
                                               (bsz, num_heads, 1, src_len)), (bsz * num_heads, 1, src_len))
        attn_mask = padding if attn_mask is None else attn_mask + padding
    return attn_mask


def multi_head_attention_forward(query: TensorOrArray, key: Tensor | Array, value: Tensor | Array,
                                 embed_dim_to_check: int, num_heads: int, in_proj_weight: Tensor | Array | None,
                                 in_proj_bias: Tensor | Array | None, bias_k: Tensor | Array | None,
                                 bias_v: Tensor | Array | None, add_zero_attn: bool, dropout_p: float,
                                 out_proj_weight: Tensor | Array, out_proj_bias: Tensor | Array | None,
                                 training: bool = True, key_padding_mask: Tensor | Array | None = None,
                                 need_weights: bool = True, attn_mask: Tensor | Array | None = None,
                                 use_separate_proj_weight: bool = False, q_proj_weight: Tensor | Array | None = None,
                                 k_proj_weight: Tensor | Array | None = None,
                                 v_proj_weight: Tensor | Array | None = None, static_k: Tensor | Array | None = None,
                                 static_v: Tensor | Array | None = None, average_attn_weights: bool = True,
                                 is_causal: bool = False) -> tuple[TensorOrArray, TensorOrArray | None]:
    """torch.nn.functional.multi_head_attention_forward on (L, N, E) query and (S, N, E) key and
    value (or unbatched (L, E), (S, E)): (attn_output, attn_weights or None).

    Examples
    --------
    >>> mha = fgrad.nn.MultiheadAttention(4, num_heads=2)
    >>> x = fgrad.randn(5, 1, 4)
    >>> out, _ = fgrad.nn.functional.multi_head_attention_forward(
    ...     x, x, x, 4, 2, mha.in_proj_weight, mha.in_proj_bias, None, None, False, 0.0,
    ...     mha.out_proj.weight, mha.out_proj.bias)
    >>> bool(fgrad.allclose(out, mha(x, x, x)[0]))  # what the Module computes
    True
    """
    if bias_k is not None or bias_v is not None or add_zero_attn or static_k is not None or static_v is not None:
        raise ValueError("multi_head_attention_forward: bias_k/bias_v, add_zero_attn and static_k/static_v are not "
                         "supported by fgrad")
    unbatched = query.ndim == 2
    if unbatched:
        query, key, value = query[:, None], key[:, None], value[:, None]
        key_padding_mask = None if key_padding_mask is None else key_padding_mask[None]
    tgt_len, bsz, embed_dim = query.shape
    src_len = key.shape[0]
    if embed_dim != embed_dim_to_check:
        raise AssertionError(f"was expecting embedding dimension of {embed_dim_to_check}, but got {embed_dim}")
    head_dim = embed_dim // num_heads
    if head_dim * num_heads != embed_dim:
        raise AssertionError(f"embed_dim {embed_dim} not divisible by num_heads {num_heads}")
    if is_causal and attn_mask is None:
        raise RuntimeError("Need attn_mask if specifying the is_causal hint. You may use the Transformer module "
                           "method `generate_square_subsequent_mask` to create this mask.")
    if use_separate_proj_weight:
        bq, bk, bv = (None, None, None) if in_proj_bias is None else \
            (in_proj_bias[:embed_dim], in_proj_bias[embed_dim:2 * embed_dim], in_proj_bias[2 * embed_dim:])
        q, k, v = (_project(query, q_proj_weight, bq), _project(key, k_proj_weight, bk),
                   _project(value, v_proj_weight, bv))
    elif query is key and key is value:  # self-attention: one matmul for q, k and v
        qkv = _project(query, in_proj_weight, in_proj_bias)
        q, k, v = qkv[..., :embed_dim], qkv[..., embed_dim:2 * embed_dim], qkv[..., 2 * embed_dim:]
    else:
        w, b = in_proj_weight, in_proj_bias
        parts = [(w[i * embed_dim:(i + 1) * embed_dim], None if b is None else b[i * embed_dim:(i + 1) * embed_dim])
                 for i in range(3)]
        q, k, v = (_project(x, wi, bi) for x, (wi, bi) in zip((query, key, value), parts))
    mask = _merged_mask(attn_mask, key_padding_mask, bsz, num_heads, tgt_len, src_len, q.dtype, query)

    def heads(x, length):  # (length, N, E) -> (N, heads, length, head_dim)
        return fnp.transpose(fnp.reshape(x, (length, bsz, num_heads, head_dim)), (1, 2, 0, 3))
    q, k, v = heads(q, tgt_len), heads(k, src_len), heads(v, src_len)
    if mask is not None:  # (1, L, S) broadcasts over batch and heads; (N * heads, L or 1, S) splits
        mask = mask[None] if mask.shape[0] == 1 else fnp.reshape(mask, (bsz, num_heads, -1, src_len))
    scores = fnp.matmul(q * math.sqrt(1.0 / head_dim), fnp.swapaxes(k, -1, -2))
    if mask is not None:
        scores = scores + mask
    # torch computes the weights it returns with softmax (a fully masked row is NaN) and the
    # output without them through scaled_dot_product_attention (that row is zeros)
    weights = _safe_softmax(scores) if mask is not None and not need_weights else _softmax.softmax(scores, axis=-1)
    if dropout_p > 0.0 and training:
        weights = _dropout(weights, dropout_p, True)
    out = fnp.matmul(weights, v)  # (N, heads, L, head_dim)
    out = fnp.reshape(fnp.transpose(out, (2, 0, 1, 3)), (tgt_len, bsz, embed_dim))
    out = _project(out, out_proj_weight, out_proj_bias)
    if not need_weights:
        return (out[:, 0] if unbatched else out), None
    if average_attn_weights:
        weights = fnp.mean(weights, axis=1)
    return (out[:, 0], weights[0]) if unbatched else (out, weights)


class MultiheadAttention(Module):
    """torch.nn.MultiheadAttention: in_proj_weight (3E, E) (or q/k/v_proj_weight where kdim or
    vdim differ from E), in_proj_bias (3E,), out_proj (a Linear); xavier-uniform projections and
    zero biases, as torch's.

    Examples
    --------
    >>> mha = fgrad.nn.MultiheadAttention(8, num_heads=2, batch_first=True)
    >>> x = fgrad.randn(3, 5, 8)
    >>> out, weights = mha(x, x, x)
    >>> out.shape, weights.shape  # weights averaged over the heads
    ((3, 5, 8), (3, 5, 5))
    """

    def __init__(self, embed_dim: int, num_heads: int, dropout: float = 0.0, bias: bool = True,
                 add_bias_kv: bool = False, add_zero_attn: bool = False, kdim: int | None = None,
                 vdim: int | None = None, batch_first: bool = False, device: str | Device | None = None,
                 dtype: DTypeLike | None = None) -> None:
        super().__init__()
        if embed_dim <= 0 or num_heads <= 0:
            raise ValueError(f"embed_dim and num_heads must be greater than 0, got embed_dim={embed_dim} and "
                             f"num_heads={num_heads} instead")
        if add_bias_kv or add_zero_attn:
            raise ValueError("MultiheadAttention: add_bias_kv and add_zero_attn are not supported by fgrad")
        self.embed_dim, self.num_heads, self.dropout, self.batch_first = embed_dim, num_heads, dropout, batch_first
        self.kdim = kdim if kdim is not None else embed_dim
        self.vdim = vdim if vdim is not None else embed_dim
        self._qkv_same_embed_dim = self.kdim == embed_dim and self.vdim == embed_dim
        self.head_dim = embed_dim // num_heads
        if self.head_dim * num_heads != embed_dim:
            raise AssertionError("embed_dim must be divisible by num_heads")

        def empty(*shape):
            return Parameter(_factory(np.zeros(shape), device, dtype))
        if self._qkv_same_embed_dim:
            self.in_proj_weight = empty(3 * embed_dim, embed_dim)
            for name in ("q_proj_weight", "k_proj_weight", "v_proj_weight"):
                self.register_parameter(name, None)
        else:
            self.q_proj_weight = empty(embed_dim, embed_dim)
            self.k_proj_weight = empty(embed_dim, self.kdim)
            self.v_proj_weight = empty(embed_dim, self.vdim)
            self.register_parameter("in_proj_weight", None)
        self.register_parameter("in_proj_bias", empty(3 * embed_dim) if bias else None)
        self.out_proj = Linear(embed_dim, embed_dim, bias=bias, device=device, dtype=dtype)
        self.bias_k = self.bias_v = None
        self.add_zero_attn = False
        self._reset_parameters()

    def _reset_parameters(self):
        if self._qkv_same_embed_dim:
            init.xavier_uniform_(self.in_proj_weight)
        else:
            for w in (self.q_proj_weight, self.k_proj_weight, self.v_proj_weight):
                init.xavier_uniform_(w)
        if self.in_proj_bias is not None:
            init.constant_(self.in_proj_bias, 0.0)
            init.constant_(self.out_proj.bias, 0.0)

    def forward(self, query: Tensor, key: Tensor, value: Tensor, key_padding_mask: Tensor | None = None,
                need_weights: bool = True, attn_mask: Tensor | None = None, average_attn_weights: bool = True,
                is_causal: bool = False) -> tuple[Tensor, Tensor | None]:
        """(attn_output, attn_weights): weights (N, L, S) averaged over heads (or (N, heads, L, S)),
        None unless need_weights."""
        if query.ndim not in (2, 3):
            raise AssertionError(f"query should be unbatched 2D or batched 3D tensor but received {query.ndim}-D "
                                 f"query tensor")
        if self.batch_first and query.ndim == 3:
            same_kv = key is value
            same_qk = query is key
            query = fnp.swapaxes(query, 0, 1)
            key = query if same_qk else fnp.swapaxes(key, 0, 1)
            value = key if same_kv else fnp.swapaxes(value, 0, 1)
        out, weights = multi_head_attention_forward(
            query, key, value, self.embed_dim, self.num_heads, self.in_proj_weight, self.in_proj_bias, None, None,
            False, self.dropout, self.out_proj.weight, self.out_proj.bias, training=self.training,
            key_padding_mask=key_padding_mask, need_weights=need_weights, attn_mask=attn_mask,
            use_separate_proj_weight=not self._qkv_same_embed_dim, q_proj_weight=self.q_proj_weight,
            k_proj_weight=self.k_proj_weight, v_proj_weight=self.v_proj_weight,
            average_attn_weights=average_attn_weights, is_causal=is_causal)
        if self.batch_first and query.ndim == 3:
            out = fnp.swapaxes(out, 0, 1)
        return out, weights
