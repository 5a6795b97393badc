"""fgrad.nn's attention against torch 2.13 (parameters copied through state_dict): MultiheadAttention's
outputs, attention weights and the gradients of query, key, value and every parameter (float64 to
1e-10, float32 to 1e-5) with batch_first, bias, kdim/vdim, boolean and float masks,
key_padding_mask, need_weights and average_attn_weights, unbatched input;
scaled_dot_product_attention; TransformerEncoderLayer (relu and gelu, norm_first, batch_first,
masks) in eval mode and with dropout 0 in training; initialization, state-dict keys, errors."""
import numpy as np
import pytest

import fgrad
from fgrad import nn
from fgrad.nn import functional as F

from .torch_reference import compare, compare_parameter_grads, copy_parameters

torch = pytest.importorskip("torch")
DTYPES = [np.float64, np.float32]
rng = np.random.default_rng(0)
E, H, L, S, N = 8, 2, 5, 6, 3


def _pair(cls, dtype, *args, **kwargs):
    tdtype = torch.float64 if dtype == np.float64 else torch.float32
    theirs = getattr(torch.nn, cls)(*args, **kwargs, dtype=tdtype)
    ours = getattr(nn, cls)(*args, **kwargs, dtype=dtype)
    assert [(n, tuple(p.shape)) for n, p in ours.named_parameters()] == \
        [(n, tuple(p.shape)) for n, p in theirs.named_parameters()]
    assert list(ours.state_dict()) == list(theirs.state_dict())
    copy_parameters(theirs, ours)
    return ours, theirs


def _masks(kind):
    """(attn_mask, key_padding_mask) as numpy arrays, or None."""
    bool_attn = rng.uniform(size=(L, S)) < 0.3
    bool_attn[:, 0] = False  # every query attends to something
    padding = np.zeros((N, S), dtype=bool)
    padding[0, -2:] = padding[2, -1] = True
    return {"none": (None, None), "bool": (bool_attn, None), "float": (rng.standard_normal((L, S)), None),
            "padding": (None, padding), "both": (bool_attn, padding),
            "3d": (rng.standard_normal((N * H, L, S)), padding)}[kind]


@pytest.mark.parametrize("dtype", DTYPES, ids=["float64", "float32"])
@pytest.mark.parametrize("masks", ["none", "bool", "float", "padding", "both", "3d"])
@pytest.mark.parametrize("weights", ["average", "per-head", "none"])
@pytest.mark.parametrize("batch_first", [False, True])
def test_multihead_attention_matches_torch(masks, weights, batch_first, dtype):
    ours, theirs = _pair("MultiheadAttention", dtype, E, H, batch_first=batch_first)
    shape = (lambda n: (N, n, E)) if batch_first else (lambda n: (n, N, E))
    q, k, v = rng.standard_normal(shape(L)), rng.standard_normal(shape(S)), rng.standard_normal(shape(S))
    attn, padding = _masks(masks)
    kw = {"need_weights": weights != "none", "average_attn_weights": weights == "average"}

    def call(module, lib):
        def f(q, k, v):
            am = None if attn is None else lib.tensor(attn if attn.dtype == bool else attn.astype(dtype))
            pm = None if padding is None else lib.tensor(padding)
            out, w = module(q, k, v, key_padding_mask=pm, attn_mask=am, **kw)
            return [out] if w is None else [out, w]
        return f
    compare(torch, call(ours, fgrad), call(theirs, torch), [q, k, v], dtype, what="MultiheadAttention")
    compare_parameter_grads(theirs, ours, dtype, "MultiheadAttention")


@pytest.mark.parametrize("case", ["self", "kdim-vdim", "no-bias", "unbatched"])
def test_multihead_attention_variants(case):
    kwargs = {"kdim-vdim": {"kdim": 4, "vdim": 3}, "no-bias": {"bias": False}}.get(case, {})
    ours, theirs = _pair("MultiheadAttention", np.float64, E, H, **kwargs)
    if case == "self":
        x = rng.standard_normal((L, N, E))
        compare(torch, lambda x: list(ours(x, x, x)), lambda x: list(theirs(x, x, x)), [x], what=case)
    else:
        lead = () if case == "unbatched" else (N,)
        q = rng.standard_normal((L,) + lead + (E,))
        k = rng.standard_normal((S,) + lead + (kwargs.get("kdim", E),))
        v = rng.standard_normal((S,) + lead + (kwargs.get("vdim", E),))
        compare(torch, lambda *a: list(ours(*a)), lambda *a: list(theirs(*a)), [q, k, v], what=case)
    compare_parameter_grads(theirs, ours, np.float64, case)


def test_multihead_attention_initialization_is_torchs():
    mha = nn.MultiheadAttention(E, H)
    w = mha.in_proj_weight.detach().numpy()
    bound = np.sqrt(6.0 / (E + 3 * E))  # xavier_uniform_ of (3E, E)
    assert np.abs(w).max() <= bound and np.abs(w).max() > 0.8 * bound
    assert np.all(mha.in_proj_bias.detach().numpy() == 0) and np.all(mha.out_proj.bias.detach().numpy() == 0)
    assert np.abs(mha.out_proj.weight.detach().numpy()).max() <= 1 / np.sqrt(E)


@pytest.mark.parametrize("dtype", DTYPES, ids=["float64", "float32"])
@pytest.mark.parametrize("mask", ["none", "bool", "float", "causal"])
def test_scaled_dot_product_attention(mask, dtype):
    q, k, v = (rng.standard_normal((N, H, n, 4)) for n in (L, S, S))
    attn = ~_masks("bool")[0] if mask == "bool" else rng.standard_normal((L, S)) if mask == "float" else None

    def call(lib, fn):
        def f(q, k, v):
            am = None if attn is None else lib.tensor(attn if attn.dtype == bool else attn.astype(dtype))
            return fn(q, k, v, attn_mask=am, is_causal=mask == "causal")
        return f
    compare(torch, call(fgrad, F.scaled_dot_product_attention),
            call(torch, torch.nn.functional.scaled_dot_product_attention), [q, k, v], dtype, what="sdpa")
    compare(torch, lambda q, k, v: F.scaled_dot_product_attention(q, k, v, scale=0.3),
            lambda q, k, v: torch.nn.functional.scaled_dot_product_attention(q, k, v, scale=0.3), [q, k, v], dtype,
            what="sdpa scale")


@pytest.mark.parametrize("dtype", DTYPES, ids=["float64", "float32"])
@pytest.mark.parametrize("activation", ["relu", "gelu"])
@pytest.mark.parametrize("norm_first", [False, True])
@pytest.mark.parametrize("batch_first", [False, True])
@pytest.mark.parametrize("mode", ["eval", "train-p0"])
def test_transformer_encoder_layer_matches_torch(activation, norm_first, batch_first, mode, dtype):
    p = 0.1 if mode == "eval" else 0.0
    ours, theirs = _pair("TransformerEncoderLayer", dtype, E, H, dim_feedforward=16, dropout=p,
                         activation=activation, norm_first=norm_first, batch_first=batch_first)
    for m in (ours, theirs):
        m.train(mode != "eval")
    x = rng.standard_normal((N, L, E) if batch_first else (L, N, E))
    mask, padding = _masks("both")
    mask = mask[:, :L]
    padding = padding[:, :L]

    def call(module, lib):
        def f(x):
            return module(x, src_mask=lib.tensor(mask), src_key_padding_mask=lib.tensor(padding))
        return f
    # (torch's eval-mode fast path needs grad off; with gradients on, both take the composite path)
    compare(torch, call(ours, fgrad), call(theirs, torch), [x], dtype, what="TransformerEncoderLayer")
    compare_parameter_grads(theirs, ours, dtype, "TransformerEncoderLayer")
    compare(torch, ours, theirs, [x], dtype, what="TransformerEncoderLayer, no masks")


def test_transformer_encoder_layer_with_a_causal_mask_and_bad_activation():
    ours, theirs = _pair("TransformerEncoderLayer", np.float64, E, H, dim_feedforward=16, dropout=0.0)
    causal = np.triu(np.full((L, L), -np.inf), 1)
    compare(torch, lambda x: ours(x, src_mask=fgrad.tensor(causal), is_causal=True),
            lambda x: theirs(x, src_mask=torch.tensor(causal), is_causal=True), [rng.standard_normal((L, N, E))],
            what="causal")
    with pytest.raises(RuntimeError, match="activation should be relu/gelu, not tanh"):
        nn.TransformerEncoderLayer(E, H, activation="tanh")


@pytest.mark.parametrize("need_weights", [False, True])
def test_a_fully_masked_row_is_zeros_or_nan_as_torch(need_weights):
    """sdpa (and MHA without weights, which torch computes through it) gives zeros where every
    key is masked, with zero gradients elsewhere unharmed; MHA with weights gives NaN there."""
    q, k, v = (rng.standard_normal((N, H, n, 4)) for n in (L, S, S))
    keep = np.ones((L, S), dtype=bool)
    keep[1] = False
    compare(torch, lambda q, k, v: F.scaled_dot_product_attention(q, k, v, attn_mask=fgrad.tensor(keep)),
            lambda q, k, v: torch.nn.functional.scaled_dot_product_attention(q, k, v, attn_mask=torch.tensor(keep)),
            [q, k, v], what="sdpa, a fully masked row")
    ours, theirs = _pair("MultiheadAttention", np.float64, E, H)
    padding = np.zeros((N, S), dtype=bool)
    padding[0] = True
    x, kv = rng.standard_normal((L, N, E)), rng.standard_normal((S, N, E))
    if need_weights:
        got = ours(fgrad.tensor(x), fgrad.tensor(kv), fgrad.tensor(kv), key_padding_mask=fgrad.tensor(padding))
        want = theirs(torch.tensor(x), torch.tensor(kv), torch.tensor(kv), key_padding_mask=torch.tensor(padding))
        for a, b in zip(got, want):
            np.testing.assert_array_equal(np.isnan(a.detach().numpy()), np.isnan(b.detach().numpy()))
            np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=1e-10, atol=1e-10)
        return
    compare(torch, lambda x, kv: ours(x, kv, kv, key_padding_mask=fgrad.tensor(padding), need_weights=False)[0],
            lambda x, kv: theirs(x, kv, kv, key_padding_mask=torch.tensor(padding), need_weights=False)[0],
            [x, kv], what="MHA, a fully padded example")
    compare_parameter_grads(theirs, ours, np.float64, "MHA, a fully padded example")


def test_bad_input_raises_as_torch():
    mha = nn.MultiheadAttention(E, H)
    x = fgrad.tensor(rng.standard_normal((L, N, E)))
    with pytest.raises(AssertionError, match="embed_dim must be divisible by num_heads"):
        nn.MultiheadAttention(E, 3)
    with pytest.raises(RuntimeError, match=r"The shape of the 2D attn_mask is \(3, 3\), but should be \(5, 5\)"):
        mha(x, x, x, attn_mask=fgrad.tensor(np.zeros((3, 3))))
    with pytest.raises(AssertionError, match=r"expecting key_padding_mask shape of \(3, 5\)"):
        mha(x, x, x, key_padding_mask=fgrad.tensor(np.zeros((3, 4), dtype=bool)))
    with pytest.raises(RuntimeError, match="Need attn_mask if specifying the is_causal hint"):
        mha(x, x, x, is_causal=True)
