"""torch.nn's transformer: TransformerEncoderLayer and TransformerDecoderLayer (self-attention,
cross-attention for the decoder, and a feed-forward block, each with a residual connection and a
LayerNorm after the residual, or before the block with norm_first), TransformerEncoder and
TransformerDecoder (deep copies of one layer, then an optional norm) and Transformer, with
torch 2.13's signatures and submodule names, so state dicts load across.

As torch's: a boolean mask marks what may NOT be attended (True: masked out); the stacks turn a
boolean mask into a float one (-inf where True) before the layers, and take a float mask equal
to Transformer.generate_square_subsequent_mask as the causal hint when is_causal is None.
"""
import copy
import warnings

import numpy as np

from .. import numpy as fnp
from ..autograd.factories import full
from ..autograd.grad_mode import is_grad_enabled
from ..autograd.tensor import Tensor
from ..autograd.torch_functions import triu
from ..backend import Device
from ..typing import Callable, DTypeLike
from . import init
from .activation import GELU, ReLU, gelu, relu
from .attention import MultiheadAttention
from .containers import ModuleList
from .dropout import Dropout
from .module import Module
from .modules import Linear
from .normalization import LayerNorm
from .parameters import on_device_of

__all__ = ["Transformer", "TransformerDecoder", "TransformerDecoderLayer", "TransformerEncoder",
           "TransformerEncoderLayer"]

_ACTIVATIONS = {"relu": relu, "gelu": gelu}


def _activation(activation):
    if isinstance(activation, str):
        if activation not in _ACTIVATIONS:
            raise RuntimeError(f"activation should be relu/gelu, not {activation}")
        return _ACTIVATIONS[activation]
    return activation


def _relu_or_gelu(activation):
    """torch's activation_relu_or_gelu: 1 for relu, 2 for gelu, 0 for anything else."""
    activation = _activation(activation)
    return 1 if activation is relu or isinstance(activation, ReLU) else \
        2 if activation is gelu or isinstance(activation, GELU) else 0


def _mask_dtype(mask):
    return mask.dtype if hasattr(mask, "dtype") else np.asarray(mask).dtype


def _canonical_mask(mask, name, like, other=None, other_name=""):
    """torch's F._canonical_mask: a boolean mask as 0 / -inf in the input's dtype, a floating one as
    it is, any other dtype refused; a padding mask of another dtype than the attention mask warns."""
    if mask is None:
        return None
    dtype = _mask_dtype(mask)
    if dtype != np.bool_ and not np.issubdtype(dtype, np.floating):
        raise AssertionError(f"only bool and floating types of {name} are supported")
    if other is not None and dtype != _mask_dtype(other):
        warnings.warn(f"Support for mismatched {name} and {other_name} is deprecated. Use same type for both "
                      f"instead.", UserWarning, stacklevel=3)
    if dtype != np.bool_:
        return mask
    values = mask.detach().numpy() if hasattr(mask, "detach") else np.asarray(mask)
    return on_device_of(like, np.where(values, -np.inf, 0.0).astype(like.dtype))


def _seq_len(src, batch_first):
    return src.shape[0] if src.ndim == 2 else src.shape[1 if batch_first else 0]


def _detect_is_causal_mask(mask, is_causal, size):
    """torch's: is_causal as given, else whether mask equals the causal mask of `size`."""
    if is_causal is not None or mask is None:
        return is_causal is True
    values = mask.detach().numpy() if hasattr(mask, "detach") else np.asarray(mask)
    causal = np.triu(np.full((size, size), -np.inf), 1).astype(values.dtype)
    return values.shape == causal.shape and bool(np.all(values == causal))


def _clones(module, n):
    return ModuleList([copy.deepcopy(module) for _ in range(n)])


class TransformerEncoderLayer(Module):
    """self_attn (MultiheadAttention), linear1 -> activation -> dropout -> linear2, norm1, norm2,
    dropout1, dropout2, as torch's.

    Examples
    --------
    >>> layer = fgrad.nn.TransformerEncoderLayer(d_model=8, nhead=2, dim_feedforward=16, batch_first=True)
    >>> layer(fgrad.randn(3, 5, 8)).shape
    (3, 5, 8)
    """

    def __init__(self, d_model: int, nhead: int, dim_feedforward: int = 2048, dropout: float = 0.1,
                 activation: str | Callable[[Tensor], Tensor] = "relu", layer_norm_eps: float = 1e-5,
                 batch_first: bool = False, norm_first: bool = False, bias: bool = True,
                 device: str | Device | None = None, dtype: DTypeLike | None = None) -> None:
        super().__init__()
        factory = {"device": device, "dtype": dtype}
        self.self_attn = MultiheadAttention(d_model, nhead, dropout=dropout, bias=bias, batch_first=batch_first,
                                            **factory)
        self.linear1 = Linear(d_model, dim_feedforward, bias=bias, **factory)
        self.dropout = Dropout(dropout)
        self.linear2 = Linear(dim_feedforward, d_model, bias=bias, **factory)
        self.norm_first = norm_first
        self.norm1 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **factory)
        self.norm2 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **factory)
        self.dropout1 = Dropout(dropout)
        self.dropout2 = Dropout(dropout)
        self.activation_relu_or_gelu = _relu_or_gelu(activation)
        self.activation = _activation(activation)

    def forward(self, src: Tensor, src_mask: Tensor | None = None, src_key_padding_mask: Tensor | None = None,
                is_causal: bool = False) -> Tensor:
        x = src
        if self.norm_first:
            x = x + self._sa_block(self.norm1(x), src_mask, src_key_padding_mask, is_causal)
            return x + self._ff_block(self.norm2(x))
        x = self.norm1(x + self._sa_block(x, src_mask, src_key_padding_mask, is_causal))
        return self.norm2(x + self._ff_block(x))

    def _sa_block(self, x, attn_mask, key_padding_mask, is_causal):
        out = self.self_attn(x, x, x, attn_mask=attn_mask, key_padding_mask=key_padding_mask, need_weights=False,
                             is_causal=is_causal)[0]
        return self.dropout1(out)

    def _ff_block(self, x):
        return self.dropout2(self.linear2(self.dropout(self.activation(self.linear1(x)))))


class TransformerDecoderLayer(Module):
    """self_attn (masked self-attention), multihead_attn (attention over the encoder's memory),
    linear1 -> activation -> dropout -> linear2, norm1, norm2, norm3, dropout1, dropout2, dropout3,
    as torch's; forward(tgt, memory, tgt_mask, memory_mask, tgt_key_padding_mask,
    memory_key_padding_mask, tgt_is_causal, memory_is_causal).

    Examples
    --------
    >>> layer = fgrad.nn.TransformerDecoderLayer(d_model=8, nhead=2, dim_feedforward=16, batch_first=True)
    >>> tgt, memory = fgrad.randn(3, 4, 8), fgrad.randn(3, 6, 8)
    >>> layer(tgt, memory, tgt_mask=fgrad.nn.Transformer.generate_square_subsequent_mask(4)).shape
    (3, 4, 8)
    """

    def __init__(self, d_model: int, nhead: int, dim_feedforward: int = 2048, dropout: float = 0.1,
                 activation: str | Callable[[Tensor], Tensor] = relu, layer_norm_eps: float = 1e-5,
                 batch_first: bool = False, norm_first: bool = False, bias: bool = True,
                 device: str | Device | None = None, dtype: DTypeLike | None = None) -> None:
        super().__init__()
        factory = {"device": device, "dtype": dtype}
        self.self_attn = MultiheadAttention(d_model, nhead, dropout=dropout, batch_first=batch_first, bias=bias,
                                            **factory)
        self.multihead_attn = MultiheadAttention(d_model, nhead, dropout=dropout, batch_first=batch_first,
                                                 bias=bias, **factory)
        self.linear1 = Linear(d_model, dim_feedforward, bias=bias, **factory)
        self.dropout = Dropout(dropout)
        self.linear2 = Linear(dim_feedforward, d_model, bias=bias, **factory)
        self.norm_first = norm_first
        self.norm1 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **factory)
        self.norm2 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **factory)
        self.norm3 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **factory)
        self.dropout1 = Dropout(dropout)
        self.dropout2 = Dropout(dropout)
        self.dropout3 = Dropout(dropout)
        self.activation = _activation(activation)

    def forward(self, tgt: Tensor, memory: Tensor, tgt_mask: Tensor | None = None, memory_mask: Tensor | None = None,
                tgt_key_padding_mask: Tensor | None = None, memory_key_padding_mask: Tensor | None = None,
                tgt_is_causal: bool = False, memory_is_causal: bool = False) -> Tensor:
        """tgt through self-attention, attention over memory and the feed-forward block: tgt's shape."""
        x = tgt
        if self.norm_first:
            x = x + self._sa_block(self.norm1(x), tgt_mask, tgt_key_padding_mask, tgt_is_causal)
            x = x + self._mha_block(self.norm2(x), memory, memory_mask, memory_key_padding_mask, memory_is_causal)
            return x + self._ff_block(self.norm3(x))
        x = self.norm1(x + self._sa_block(x, tgt_mask, tgt_key_padding_mask, tgt_is_causal))
        x = self.norm2(x + self._mha_block(x, memory, memory_mask, memory_key_padding_mask, memory_is_causal))
        return self.norm3(x + self._ff_block(x))

    def _sa_block(self, x, attn_mask, key_padding_mask, is_causal):
        out = self.self_attn(x, x, x, attn_mask=attn_mask, key_padding_mask=key_padding_mask, is_causal=is_causal,
                             need_weights=False)[0]
        return self.dropout1(out)

    def _mha_block(self, x, mem, attn_mask, key_padding_mask, is_causal):
        out = self.multihead_attn(x, mem, mem, attn_mask=attn_mask, key_padding_mask=key_padding_mask,
                                  is_causal=is_causal, need_weights=False)[0]
        return self.dropout2(out)

    def _ff_block(self, x):
        return self.dropout3(self.linear2(self.dropout(self.activation(self.linear1(x)))))


class TransformerEncoder(Module):
    """num_layers deep copies of encoder_layer (`layers`, a ModuleList: layers.0..., as torch's
    keys), then `norm` if given. As torch's, a boolean mask or padding mask becomes a float one
    first, a mask equal to the causal mask is taken as causal when is_causal is None, and in
    eval mode without gradients (torch's nested-tensor path: enable_nested_tensor, batch_first,
    a left-aligned src_key_padding_mask and no mask) the padded positions come out as zeros
    before the final norm. Warns as torch's when enable_nested_tensor cannot be used.

    Examples
    --------
    >>> layer = fgrad.nn.TransformerEncoderLayer(d_model=8, nhead=2, dim_feedforward=16, batch_first=True)
    >>> encoder = fgrad.nn.TransformerEncoder(layer, num_layers=2, norm=fgrad.nn.LayerNorm(8))
    >>> encoder(fgrad.randn(3, 5, 8)).shape, len(encoder.layers)
    ((3, 5, 8), 2)
    >>> encoder.layers[0].linear1.weight is encoder.layers[1].linear1.weight  # copies, not shared
    False
    """

    def __init__(self, encoder_layer: "TransformerEncoderLayer", num_layers: int, norm: Module | None = None,
                 enable_nested_tensor: bool = True, mask_check: bool = True) -> None:
        super().__init__()
        self.layers = _clones(encoder_layer, num_layers)
        self.num_layers = num_layers
        self.norm = norm
        self.enable_nested_tensor = enable_nested_tensor
        self.use_nested_tensor = enable_nested_tensor
        self.mask_check = mask_check
        why = _why_not_nested(encoder_layer)
        if enable_nested_tensor and why:
            warnings.warn(f"enable_nested_tensor is True, but self.use_nested_tensor is False because {why}",
                          UserWarning, stacklevel=2)
            self.use_nested_tensor = False

    def forward(self, src: Tensor, mask: Tensor | None = None, src_key_padding_mask: Tensor | None = None,
                is_causal: bool | None = None) -> Tensor:
        """src through every layer in turn (mask and src_key_padding_mask to each), then norm."""
        src_key_padding_mask = _canonical_mask(src_key_padding_mask, "src_key_padding_mask", src, mask, "mask")
        mask = _canonical_mask(mask, "mask", src)
        first = self.layers[0]
        batch_first = first.self_attn.batch_first
        padded = None
        if self.use_nested_tensor and not first.training and src.ndim == 3 and src_key_padding_mask is not None \
                and mask is None and not (is_grad_enabled() and any(
                    getattr(t, "requires_grad", False) for t in (src, *_fast_path_parameters(first)))):
            pad = np.asarray(src_key_padding_mask.detach().numpy() if hasattr(src_key_padding_mask, "detach")
                             else src_key_padding_mask) != 0
            if not self.mask_check or _left_aligned(~pad):
                padded = pad
        is_causal = _detect_is_causal_mask(mask, is_causal, _seq_len(src, batch_first))
        output = src
        for mod in self.layers:
            output = mod(output, src_mask=mask, is_causal=is_causal, src_key_padding_mask=src_key_padding_mask)
        if padded is not None:  # torch ran nested tensors of the unpadded tokens, and pads with zeros
            output = fnp.where(on_device_of(src, padded[..., None]), 0.0, output)
        if self.norm is not None:
            output = self.norm(output)
        return output


def _fast_path_parameters(layer):
    attn = layer.self_attn
    return (attn.in_proj_weight, attn.in_proj_bias, attn.out_proj.weight, attn.out_proj.bias, layer.norm1.weight,
            layer.norm1.bias, layer.norm2.weight, layer.norm2.bias, layer.linear1.weight, layer.linear1.bias,
            layer.linear2.weight, layer.linear2.bias)


def _left_aligned(keep):
    """Whether every row of `keep` is Trues then Falses (torch's _nested_tensor_from_mask_left_aligned)."""
    counts = keep.sum(axis=-1, keepdims=True)
    return bool(np.all(keep == (np.arange(keep.shape[-1]) < counts)))


def _why_not_nested(layer):
    """torch's reason the encoder cannot use nested tensors for this layer ('' when it can)."""
    name = "encoder_layer"
    if not isinstance(layer, TransformerEncoderLayer):
        return f"{name} was not TransformerEncoderLayer"
    if layer.norm_first:
        return f"{name}.norm_first was True"
    if not layer.self_attn.batch_first:
        return f"{name}.self_attn.batch_first was not True(use batch_first for better inference performance)"
    if not layer.self_attn._qkv_same_embed_dim:
        return f"{name}.self_attn._qkv_same_embed_dim was not True"
    if layer.self_attn.in_proj_bias is None:
        return f"{name}.self_attn was passed bias=False"
    if not layer.activation_relu_or_gelu:
        return f"{name}.activation_relu_or_gelu was not True"
    if layer.norm1.eps != layer.norm2.eps:
        return f"{name}.norm1.eps was not equal to {name}.norm2.eps"
    if layer.self_attn.num_heads % 2 == 1:
        return f"{name}.self_attn.num_heads is odd"
    return ""


class TransformerDecoder(Module):
    """num_layers deep copies of decoder_layer (`layers`, a ModuleList), then `norm` if given;
    a tgt_mask equal to the causal mask is taken as causal when tgt_is_causal is None, as torch's.

    Examples
    --------
    >>> layer = fgrad.nn.TransformerDecoderLayer(d_model=8, nhead=2, dim_feedforward=16)
    >>> decoder = fgrad.nn.TransformerDecoder(layer, num_layers=2)
    >>> decoder(fgrad.randn(4, 3, 8), fgrad.randn(6, 3, 8)).shape  # (T, N, E) and memory (S, N, E)
    (4, 3, 8)
    """

    def __init__(self, decoder_layer: "TransformerDecoderLayer", num_layers: int, norm: Module | None = None) -> None:
        super().__init__()
        self.layers = _clones(decoder_layer, num_layers)
        self.num_layers = num_layers
        self.norm = norm

    def forward(self, tgt: Tensor, memory: Tensor, tgt_mask: Tensor | None = None, memory_mask: Tensor | None = None,
                tgt_key_padding_mask: Tensor | None = None, memory_key_padding_mask: Tensor | None = None,
                tgt_is_causal: bool | None = None, memory_is_causal: bool = False) -> Tensor:
        """tgt through every layer in turn, each attending to memory, then norm."""
        output = tgt
        tgt_is_causal = _detect_is_causal_mask(tgt_mask, tgt_is_causal,
                                               _seq_len(tgt, self.layers[0].self_attn.batch_first))
        for mod in self.layers:
            output = mod(output, memory, tgt_mask=tgt_mask, memory_mask=memory_mask,
                         tgt_key_padding_mask=tgt_key_padding_mask, memory_key_padding_mask=memory_key_padding_mask,
                         tgt_is_causal=tgt_is_causal, memory_is_causal=memory_is_causal)
        if self.norm is not None:
            output = self.norm(output)
        return output


class Transformer(Module):
    """torch.nn.Transformer: `encoder` (a TransformerEncoder of num_encoder_layers, LayerNorm-ed)
    and `decoder` (a TransformerDecoder of num_decoder_layers, LayerNorm-ed), or custom_encoder
    and custom_decoder; every parameter of two or more dimensions xavier-uniform initialized, as
    torch's. forward(src, tgt, ...) is decoder(tgt, encoder(src)).

    Examples
    --------
    >>> model = fgrad.nn.Transformer(d_model=8, nhead=2, num_encoder_layers=1, num_decoder_layers=1,
    ...                              dim_feedforward=16, batch_first=True)
    >>> src, tgt = fgrad.randn(3, 6, 8), fgrad.randn(3, 4, 8)
    >>> model(src, tgt, tgt_mask=model.generate_square_subsequent_mask(4)).shape
    (3, 4, 8)
    """

    def __init__(self, d_model: int = 512, nhead: int = 8, num_encoder_layers: int = 6, num_decoder_layers: int = 6,
                 dim_feedforward: int = 2048, dropout: float = 0.1,
                 activation: str | Callable[[Tensor], Tensor] = relu, custom_encoder: Module | None = None,
                 custom_decoder: Module | None = None, layer_norm_eps: float = 1e-5, batch_first: bool = False,
                 norm_first: bool = False, bias: bool = True, device: str | Device | None = None,
                 dtype: DTypeLike | None = None) -> None:
        super().__init__()
        factory = {"device": device, "dtype": dtype}
        layer_kw = dict(dim_feedforward=dim_feedforward, dropout=dropout, activation=activation,
                        layer_norm_eps=layer_norm_eps, batch_first=batch_first, norm_first=norm_first, bias=bias,
                        **factory)
        if custom_encoder is not None:
            self.encoder = custom_encoder
        else:
            with warnings.catch_warnings():  # (torch warns here too: its encoder is built the same way)
                warnings.simplefilter("ignore")
                self.encoder = TransformerEncoder(TransformerEncoderLayer(d_model, nhead, **layer_kw),
                                                  num_encoder_layers,
                                                  LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **factory))
        if custom_decoder is not None:
            self.decoder = custom_decoder
        else:
            self.decoder = TransformerDecoder(TransformerDecoderLayer(d_model, nhead, **layer_kw), num_decoder_layers,
                                              LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **factory))
        self._reset_parameters()
        self.d_model = d_model
        self.nhead = nhead
        self.batch_first = batch_first

    def forward(self, src: Tensor, tgt: Tensor, src_mask: Tensor | None = None, tgt_mask: Tensor | None = None,
                memory_mask: Tensor | None = None, src_key_padding_mask: Tensor | None = None,
                tgt_key_padding_mask: Tensor | None = None, memory_key_padding_mask: Tensor | None = None,
                src_is_causal: bool | None = None, tgt_is_causal: bool | None = None,
                memory_is_causal: bool = False) -> Tensor:
        """The decoder's output for tgt, attending to the encoder's memory of src: tgt's shape."""
        is_batched = src.ndim == 3
        if is_batched and src.shape[0 if self.batch_first else 1] != tgt.shape[0 if self.batch_first else 1]:
            raise RuntimeError("the batch number of src and tgt must be equal")
        if src.shape[-1] != self.d_model or tgt.shape[-1] != self.d_model:
            raise RuntimeError("the feature number of src and tgt must be equal to d_model")
        memory = self.encoder(src, mask=src_mask, src_key_padding_mask=src_key_padding_mask, is_causal=src_is_causal)
        return self.decoder(tgt, memory, tgt_mask=tgt_mask, memory_mask=memory_mask,
                            tgt_key_padding_mask=tgt_key_padding_mask,
                            memory_key_padding_mask=memory_key_padding_mask, tgt_is_causal=tgt_is_causal,
                            memory_is_causal=memory_is_causal)

    @staticmethod
    def generate_square_subsequent_mask(sz: int, device: str | Device | None = None,
                                        dtype: DTypeLike | None = None) -> Tensor:
        """The (sz, sz) causal mask: -inf above the diagonal (a position may not attend to later
        ones), 0.0 on and below it, in `dtype` (the default dtype if None), as torch's.

        Examples
        --------
        >>> fgrad.nn.Transformer.generate_square_subsequent_mask(3)
        tensor([[  0., -inf, -inf],
                [  0.,   0., -inf],
                [  0.,   0.,   0.]])
        """
        return triu(full((sz, sz), float("-inf"), dtype=dtype, device=device), diagonal=1)

    def _reset_parameters(self):
        for p in self.parameters():
            if p.ndim > 1:
                init.xavier_uniform_(p)
