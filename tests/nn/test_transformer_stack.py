"""fgrad.nn's transformer stacks against torch 2.13 (parameters copied through state_dict):
TransformerEncoder, TransformerDecoderLayer, TransformerDecoder and Transformer: outputs, the
gradients of the inputs and of every parameter (float64 to 1e-10, float32 to 1e-5), with
norm_first, batch_first, boolean, float and causal masks, padding masks, a final norm, eval mode
and training with dropout 0; the encoder's eval-mode nested-tensor path (padded positions zero);
generate_square_subsequent_mask; deep copies; torch's errors and warnings."""
import warnings

import numpy as np
import pytest

import fgrad
from fgrad.nn.normalization import LayerNorm
from fgrad.nn.transformer import (
    Transformer,
    TransformerDecoder,
    TransformerDecoderLayer,
    TransformerEncoder,
    TransformerEncoderLayer,
)

from .torch_reference import assert_close, compare, compare_parameter_grads, copy_parameters

torch = pytest.importorskip("torch")
DTYPES = [np.float64, np.float32]
IDS = ["float64", "float32"]
LAYOUTS = [(False, False, "eval"), (True, True, "eval"), (False, True, "train-p0"), (True, False, "train-p0")]
E, H, FF, T, S, N = 8, 2, 16, 4, 5, 3
OURS = {"TransformerEncoderLayer": TransformerEncoderLayer, "TransformerDecoderLayer": TransformerDecoderLayer,
        "Transformer": Transformer}


def _tdtype(dtype):
    return torch.float64 if dtype == np.float64 else torch.float32


def _check_names(ours, theirs):
    assert [(n, tuple(p.shape)) for n, p in ours.named_parameters()] == \
        [(n, tuple(p.shape)) for n, p in theirs.named_parameters()]
    assert list(ours.state_dict()) == list(theirs.state_dict())


def _layers(cls, dtype, **kwargs):
    theirs = getattr(torch.nn, cls)(E, H, dim_feedforward=FF, **kwargs, dtype=_tdtype(dtype))
    ours = OURS[cls](E, H, dim_feedforward=FF, **kwargs, dtype=dtype)
    return ours, theirs


def _stack(kind, dtype, num_layers=2, final_norm=True, **kwargs):
    cls = {"encoder": "TransformerEncoderLayer", "decoder": "TransformerDecoderLayer"}[kind]
    layer, tlayer = _layers(cls, dtype, **kwargs)
    stack = {"encoder": (TransformerEncoder, torch.nn.TransformerEncoder),
             "decoder": (TransformerDecoder, torch.nn.TransformerDecoder)}[kind]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs = stack[1](tlayer, num_layers, torch.nn.LayerNorm(E, dtype=_tdtype(dtype)) if final_norm else None)
        ours = stack[0](layer, num_layers, LayerNorm(E, dtype=dtype) if final_norm else None)
    _check_names(ours, theirs)
    for p in theirs.parameters():  # the copies start equal: make each layer's own values
        with torch.no_grad():
            p.add_(torch.randn_like(p) * 0.1)
    copy_parameters(theirs, ours)
    return ours, theirs


rng = np.random.default_rng(0)


def _padding(n, length, left_aligned=True):
    pad = np.zeros((n, length), dtype=bool)
    pad[0, -2:] = True
    pad[n - 1, -1] = True
    if not left_aligned:
        pad[1, 0] = True
    return pad


def _mask(kind, length, source=None):
    source = length if source is None else source
    if kind == "bool":
        m = rng.uniform(size=(length, source)) < 0.3
        m[:, 0] = False
        return m
    if kind == "float":
        return rng.standard_normal((length, source))
    if kind == "causal":
        return np.triu(np.full((length, source), -np.inf), 1)
    return None


def _lib_mask(lib, m, dtype):
    if m is None:
        return None
    return lib.tensor(m if m.dtype == bool else m.astype(dtype))


def _modes(ours, theirs, mode):
    for m in (ours, theirs):
        m.train(mode != "eval")


@pytest.mark.parametrize("dtype", DTYPES, ids=IDS)
@pytest.mark.parametrize("mask", ["none", "bool", "float", "causal"])
@pytest.mark.parametrize("norm_first, batch_first, mode", LAYOUTS)
def test_transformer_encoder_matches_torch(mask, norm_first, batch_first, mode, dtype):
    ours, theirs = _stack("encoder", dtype, dropout=0.1 if mode == "eval" else 0.0, norm_first=norm_first,
                          batch_first=batch_first)
    _modes(ours, theirs, mode)
    attn, pad = _mask(mask, S), _padding(N, S) if mask != "causal" else None

    def call(module, lib):
        return lambda x: module(x, mask=_lib_mask(lib, attn, dtype), src_key_padding_mask=_lib_mask(lib, pad, dtype))
    x = rng.standard_normal((N, S, E) if batch_first else (S, N, E))
    compare(torch, call(ours, fgrad), call(theirs, torch), [x], dtype, what="TransformerEncoder")
    compare_parameter_grads(theirs, ours, dtype, "TransformerEncoder")


@pytest.mark.parametrize("dtype", DTYPES, ids=IDS)
@pytest.mark.parametrize("case", ["no-norm", "one-layer", "unbatched", "float-padding", "gelu", "is_causal"])
def test_transformer_encoder_variants(case, dtype):
    kwargs = {"activation": "gelu"} if case == "gelu" else {}
    ours, theirs = _stack("encoder", dtype, num_layers=1 if case == "one-layer" else 3,
                          final_norm=case != "no-norm", dropout=0.0, **kwargs)
    shape = (S, E) if case == "unbatched" else (S, N, E)
    pad = None if case == "unbatched" else _padding(N, S)
    if case == "float-padding":
        pad = np.where(pad, -np.inf, 0.0)
    causal = _mask("causal", S) if case == "is_causal" else None

    def call(module, lib):
        return lambda x: module(x, mask=_lib_mask(lib, causal, dtype), src_key_padding_mask=_lib_mask(lib, pad, dtype),
                                is_causal=True if case == "is_causal" else None)
    compare(torch, call(ours, fgrad), call(theirs, torch), [rng.standard_normal(shape)], dtype, what=case)
    compare_parameter_grads(theirs, ours, dtype, case)


@pytest.mark.parametrize("dtype", DTYPES, ids=IDS)
@pytest.mark.parametrize("aligned, mask_check", [(True, True), (True, False), (False, True)],
                         ids=["left-aligned", "left-aligned-unchecked", "not-left-aligned"])
def test_transformer_encoder_inference_pads_with_zeros_as_torchs_nested_path(aligned, mask_check, dtype):
    """In eval mode without gradients torch runs nested tensors of the unpadded tokens (for a
    left-aligned padding mask, or any with mask_check=False, where torch assumes one) and returns
    zeros at padded positions."""
    ours, theirs = _stack("encoder", dtype, final_norm=False, batch_first=True)
    ours.mask_check = theirs.mask_check = mask_check
    _modes(ours, theirs, "eval")
    x, pad = rng.standard_normal((N, S, E)).astype(dtype), _padding(N, S, aligned)
    with torch.no_grad():
        want = theirs(torch.tensor(x), src_key_padding_mask=torch.tensor(pad))
    with fgrad.no_grad():
        got = ours(fgrad.tensor(x), src_key_padding_mask=fgrad.tensor(pad))
    keep = ~pad
    assert_close(got.numpy()[keep], want.numpy()[keep], dtype, "unpadded positions")
    if aligned:
        assert_close(got, want, dtype, "inference output")
        assert np.all(got.numpy()[pad] == 0)
    with torch.no_grad():  # the final norm comes after the zeros
        theirs.norm = torch.nn.LayerNorm(E, dtype=_tdtype(dtype))
        ours.norm = LayerNorm(E, dtype=dtype)
        want = theirs(torch.tensor(x), src_key_padding_mask=torch.tensor(pad))
    with fgrad.no_grad():
        got = ours(fgrad.tensor(x), src_key_padding_mask=fgrad.tensor(pad))
    assert_close(got.numpy()[keep], want.numpy()[keep], dtype, "unpadded positions, normed")
    if aligned:
        assert_close(got, want, dtype, "inference output, normed")


@pytest.mark.parametrize("dtype", DTYPES, ids=IDS)
@pytest.mark.parametrize("masks", ["none", "causal", "bool", "float", "padding", "all"])
@pytest.mark.parametrize("norm_first, batch_first, mode", LAYOUTS)
def test_transformer_decoder_layer_matches_torch(masks, norm_first, batch_first, mode, dtype):
    ours, theirs = _layers("TransformerDecoderLayer", dtype, dropout=0.1 if mode == "eval" else 0.0,
                           norm_first=norm_first, batch_first=batch_first)
    _check_names(ours, theirs)
    copy_parameters(theirs, ours)
    _modes(ours, theirs, mode)
    tgt_mask = _mask({"causal": "causal", "bool": "bool", "float": "float", "all": "causal"}.get(masks), T)
    mem_mask = _mask({"bool": "bool", "float": "float", "all": "float"}.get(masks), T, S)
    tpad = _padding(N, T) if masks in ("padding", "all") else None
    mpad = _padding(N, S) if masks in ("padding", "all") else None

    def call(module, lib):
        def f(tgt, memory):
            return module(tgt, memory, tgt_mask=_lib_mask(lib, tgt_mask, dtype),
                          memory_mask=_lib_mask(lib, mem_mask, dtype), tgt_key_padding_mask=_lib_mask(lib, tpad, dtype),
                          memory_key_padding_mask=_lib_mask(lib, mpad, dtype), tgt_is_causal=masks == "causal")
        return f
    shape = (lambda n: (N, n, E)) if batch_first else (lambda n: (n, N, E))
    inputs = [rng.standard_normal(shape(T)), rng.standard_normal(shape(S))]
    compare(torch, call(ours, fgrad), call(theirs, torch), inputs, dtype, what="TransformerDecoderLayer")
    compare_parameter_grads(theirs, ours, dtype, "TransformerDecoderLayer")


@pytest.mark.parametrize("dtype", DTYPES, ids=IDS)
@pytest.mark.parametrize("case", ["plain", "no-norm", "causal-detected", "masks", "unbatched", "gelu", "norm_first"])
def test_transformer_decoder_matches_torch(case, dtype):
    kwargs = {"gelu": {"activation": "gelu"}, "norm_first": {"norm_first": True}}.get(case, {})
    ours, theirs = _stack("decoder", dtype, final_norm=case != "no-norm", dropout=0.0, **kwargs)
    tgt_mask = _mask("causal", T) if case in ("causal-detected", "masks") else None
    mem_mask = _mask("bool", T, S) if case == "masks" else None
    tpad, mpad = (_padding(N, T), _padding(N, S)) if case == "masks" else (None, None)

    def call(module, lib):
        def f(tgt, memory):
            return module(tgt, memory, tgt_mask=_lib_mask(lib, tgt_mask, dtype),
                          memory_mask=_lib_mask(lib, mem_mask, dtype),
                          tgt_key_padding_mask=_lib_mask(lib, tpad, dtype),
                          memory_key_padding_mask=_lib_mask(lib, mpad, dtype))
        return f
    lead = () if case == "unbatched" else (N,)
    compare(torch, call(ours, fgrad), call(theirs, torch),
            [rng.standard_normal((T,) + lead + (E,)), rng.standard_normal((S,) + lead + (E,))], dtype, what=case)
    compare_parameter_grads(theirs, ours, dtype, case)


@pytest.mark.parametrize("dtype", DTYPES, ids=IDS)
@pytest.mark.parametrize("batch_first", [False, True])
@pytest.mark.parametrize("norm_first", [False, True])
def test_transformer_matches_torch(batch_first, norm_first, dtype):
    kw = dict(d_model=E, nhead=H, num_encoder_layers=2, num_decoder_layers=2, dim_feedforward=FF, dropout=0.0,
              batch_first=batch_first, norm_first=norm_first)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs = torch.nn.Transformer(**kw, dtype=_tdtype(dtype))
    ours = Transformer(**kw, dtype=dtype)
    _check_names(ours, theirs)
    copy_parameters(theirs, ours)
    tgt_mask = Transformer.generate_square_subsequent_mask(T, dtype=dtype).numpy()
    spad, tpad = _padding(N, S), _padding(N, T)

    def call(module, lib):
        def f(src, tgt):
            return module(src, tgt, tgt_mask=lib.tensor(tgt_mask), src_key_padding_mask=lib.tensor(spad),
                          tgt_key_padding_mask=lib.tensor(tpad), memory_key_padding_mask=lib.tensor(spad))
        return f
    shape = (lambda n: (N, n, E)) if batch_first else (lambda n: (n, N, E))
    inputs = [rng.standard_normal(shape(S)), rng.standard_normal(shape(T))]
    compare(torch, call(ours, fgrad), call(theirs, torch), inputs, dtype, what="Transformer")
    compare_parameter_grads(theirs, ours, dtype, "Transformer")


def test_transformer_initialization_and_defaults():
    model = Transformer(d_model=E, nhead=H, num_encoder_layers=1, num_decoder_layers=1, dim_feedforward=FF)
    w = model.encoder.layers[0].linear1.weight.detach().numpy()
    bound = np.sqrt(6.0 / (E + FF))  # xavier_uniform_ of every matrix, as torch's _reset_parameters
    assert np.abs(w).max() <= bound and np.abs(w).max() > 0.8 * bound
    assert np.all(model.encoder.layers[0].linear1.bias.detach().numpy() != 0)  # vectors keep Linear's initialization
    assert model.d_model == E and model.nhead == H and model.batch_first is False
    assert model.encoder.layers[0].dropout.p == 0.1 and model.decoder.layers[0].norm1.eps == 1e-5
    big = Transformer()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = torch.nn.Transformer()
    _check_names(big, want)
    assert big.encoder.layers[0].self_attn.in_proj_weight.dtype == fgrad.get_default_dtype()


def test_generate_square_subsequent_mask_is_torchs():
    for sz in (1, 4):
        for dtype, tdtype in ((fgrad.float32, torch.float32), (fgrad.float64, torch.float64)):
            got = Transformer.generate_square_subsequent_mask(sz, dtype=dtype)
            want = torch.nn.Transformer.generate_square_subsequent_mask(sz, dtype=tdtype)
            np.testing.assert_array_equal(got.numpy(), want.numpy())
            assert got.numpy().dtype == want.numpy().dtype
        assert Transformer.generate_square_subsequent_mask(sz).dtype == fgrad.get_default_dtype()  # torch's: its own


def test_layers_are_deep_copies():
    layer = TransformerEncoderLayer(E, H, FF)
    with pytest.warns(UserWarning, match="batch_first was not True"):
        encoder = TransformerEncoder(layer, 3)
    assert len(encoder.layers) == encoder.num_layers == 3
    first = encoder.layers[0].linear1.weight
    assert all(m.linear1.weight is not first and m is not layer for m in encoder.layers[1:])
    def values(m):
        return m.linear1.weight.detach().numpy()
    np.testing.assert_array_equal(values(encoder.layers[2]), values(layer))
    with fgrad.no_grad():
        first.mul_(0.0)
    assert np.all(values(encoder.layers[0]) == 0)
    assert np.any(values(encoder.layers[1]) != 0) and np.any(values(layer) != 0)
    assert next(iter(encoder.state_dict())) == "layers.0.self_attn.in_proj_weight"
    decoder = TransformerDecoder(TransformerDecoderLayer(E, H, FF), 2, norm=LayerNorm(E))
    assert decoder.layers[0].multihead_attn is not decoder.layers[1].multihead_attn
    assert "norm.weight" in decoder.state_dict()


@pytest.mark.parametrize("layer_kw, why", [
    ({}, "encoder_layer.self_attn.batch_first was not True"),
    ({"batch_first": True, "norm_first": True}, "encoder_layer.norm_first was True"),
    ({"batch_first": True, "bias": False}, "encoder_layer.self_attn was passed bias=False"),
    ({"batch_first": True, "activation": fgrad.tanh}, "encoder_layer.activation_relu_or_gelu was not True"),
    ({"batch_first": True, "nhead": 1}, "encoder_layer.self_attn.num_heads is odd"),
])
def test_encoder_warns_as_torch(layer_kw, why):
    layer_kw = dict(layer_kw)
    nhead = layer_kw.pop("nhead", H)
    tact = {fgrad.tanh: torch.tanh}.get(layer_kw.get("activation"), None)
    with pytest.warns(UserWarning) as theirs:
        tkw = dict(layer_kw, **({"activation": tact} if tact else {}))
        torch.nn.TransformerEncoder(torch.nn.TransformerEncoderLayer(E, nhead, FF, **tkw), 2)
    with pytest.warns(UserWarning) as ours:
        encoder = TransformerEncoder(TransformerEncoderLayer(E, nhead, FF, **layer_kw), 2)
    assert why in str(ours[0].message) and str(ours[0].message) == str(theirs[0].message)
    assert encoder.use_nested_tensor is False and encoder.enable_nested_tensor is True
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert TransformerEncoder(TransformerEncoderLayer(E, H, FF, batch_first=True), 2).use_nested_tensor
        TransformerEncoder(TransformerEncoderLayer(E, nhead, FF, **layer_kw), 2, enable_nested_tensor=False)


def test_bad_arguments_raise_as_torch():
    with pytest.raises(RuntimeError, match="activation should be relu/gelu, not tanh"):
        TransformerDecoderLayer(E, H, activation="tanh")
    with pytest.raises(RuntimeError, match="activation should be relu/gelu, not tanh"):
        Transformer(E, H, activation="tanh")
    model = Transformer(E, H, 1, 1, FF)
    src, tgt = fgrad.randn(S, N, E), fgrad.randn(T, N + 1, E)
    with pytest.raises(RuntimeError, match="the batch number of src and tgt must be equal"):
        model(src, tgt)
    with pytest.raises(RuntimeError, match="the feature number of src and tgt must be equal to d_model"):
        model(src, fgrad.randn(T, N, E + 2))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        encoder = TransformerEncoder(TransformerEncoderLayer(E, H, FF), 1)
    with pytest.raises(AssertionError, match="only bool and floating types of mask are supported"):
        encoder(src, mask=fgrad.tensor(np.zeros((S, S), dtype=np.int64)))
    with pytest.raises(AssertionError, match="only bool and floating types of src_key_padding_mask are supported"):
        encoder(src, src_key_padding_mask=fgrad.tensor(np.zeros((N, S), dtype=np.int64)))
    with pytest.warns(UserWarning, match="Support for mismatched src_key_padding_mask and mask is deprecated"):
        encoder(src, mask=fgrad.tensor(np.zeros((S, S))), src_key_padding_mask=fgrad.tensor(np.zeros((N, S), bool)))
    with pytest.raises(RuntimeError, match="Need attn_mask if specifying the is_causal hint"):
        encoder(src, is_causal=True)


@pytest.mark.parametrize("dtype", DTYPES, ids=IDS)
@pytest.mark.parametrize("case", ["no-masks", "causal", "padding-not-batch-first"])
def test_inference_without_gradients_matches_torch(case, dtype):
    """Eval mode under no_grad (where torch takes its fast paths) gives torch's numbers."""
    batch_first = case != "padding-not-batch-first"
    ours, theirs = _stack("encoder", dtype, batch_first=batch_first)
    _modes(ours, theirs, "eval")
    x = rng.standard_normal((N, S, E) if batch_first else (S, N, E)).astype(dtype)
    mask = _mask("causal", S).astype(dtype) if case == "causal" else None
    pad = _padding(N, S) if case == "padding-not-batch-first" else None
    def run(module, lib):
        return module(lib.tensor(x), mask=_lib_mask(lib, mask, dtype), src_key_padding_mask=_lib_mask(lib, pad, dtype))
    with torch.no_grad():
        want = run(theirs, torch)
    with fgrad.no_grad():
        got = run(ours, fgrad)
    assert_close(got, want, dtype, case)


def test_unbatched_transformer_matches_torch():
    kw = dict(d_model=E, nhead=H, num_encoder_layers=1, num_decoder_layers=2, dim_feedforward=FF, dropout=0.0)
    theirs, ours = torch.nn.Transformer(**kw, dtype=torch.float64), Transformer(**kw, dtype=np.float64)
    copy_parameters(theirs, ours)
    mask = np.triu(np.full((T, T), -np.inf), 1)
    compare(torch, lambda s, t: ours(s, t, tgt_mask=fgrad.tensor(mask)),
            lambda s, t: theirs(s, t, tgt_mask=torch.tensor(mask)),
            [rng.standard_normal((S, E)), rng.standard_normal((T, E))], what="unbatched Transformer")
    compare_parameter_grads(theirs, ours, np.float64, "unbatched Transformer")


@pytest.mark.parametrize("dtype", DTYPES, ids=IDS)
def test_a_training_loop_runs_as_torchs(dtype):
    """A PyTorch training loop (Adam, cross-entropy on the decoder's output through a Linear head)
    gives torch's parameters after a few steps."""
    kw = dict(d_model=E, nhead=H, num_encoder_layers=2, num_decoder_layers=1, dim_feedforward=FF, dropout=0.0,
              batch_first=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        t_model = torch.nn.ModuleDict({"t": torch.nn.Transformer(**kw), "head": torch.nn.Linear(E, 3)})
    t_model.to(_tdtype(dtype))
    f_model = fgrad.nn.ModuleDict({"t": Transformer(**kw), "head": fgrad.nn.Linear(E, 3)})
    f_model.to(getattr(fgrad, np.dtype(dtype).name))
    copy_parameters(t_model, f_model)
    src, tgt = rng.standard_normal((N, S, E)).astype(dtype), rng.standard_normal((N, T, E)).astype(dtype)
    labels = rng.integers(0, 3, size=(N, T))
    mask = Transformer.generate_square_subsequent_mask(T, dtype=dtype).numpy()
    t_opt = torch.optim.Adam(t_model.parameters(), lr=1e-2)
    f_opt = fgrad.optim.Adam(f_model.parameters(), lr=1e-2)
    for _ in range(3):
        for model, opt, lib, ce in ((t_model, t_opt, torch, torch.nn.functional.cross_entropy),
                                    (f_model, f_opt, fgrad, fgrad.nn.functional.cross_entropy)):
            opt.zero_grad()
            out = model["head"](model["t"](lib.tensor(src), lib.tensor(tgt), tgt_mask=lib.tensor(mask)))
            loss = ce(out.reshape(-1, 3), lib.tensor(labels).reshape(-1))
            loss.backward()
            opt.step()
    got = dict(f_model.named_parameters())
    tol = {np.float64: 1e-9, np.float32: 1e-4}[dtype]
    for name, p in t_model.named_parameters():
        a, b = got[name].detach().numpy(), p.detach().numpy()
        if name.endswith("in_proj_bias"):  # the key bias's exact gradient is zero (a softmax ignores a shift):
            keep = np.r_[0:E, 2 * E:3 * E]  # its rounding noise, through Adam's normalization, is all it moves by
            a, b = a[keep], b[keep]
        np.testing.assert_allclose(a, b, rtol=tol, atol=tol, err_msg=name)


def test_transformer_with_a_custom_encoder_and_decoder():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        t_enc = torch.nn.TransformerEncoder(torch.nn.TransformerEncoderLayer(E, H, FF, dropout=0.0,
                                                                             dtype=torch.float64), 1)
        f_enc = TransformerEncoder(TransformerEncoderLayer(E, H, FF, dropout=0.0, dtype=np.float64), 1)
    t_dec = torch.nn.TransformerDecoder(torch.nn.TransformerDecoderLayer(E, H, FF, dropout=0.0, norm_first=True,
                                                                         dtype=torch.float64), 2)
    f_dec = TransformerDecoder(TransformerDecoderLayer(E, H, FF, dropout=0.0, norm_first=True, dtype=np.float64), 2)
    theirs = torch.nn.Transformer(E, H, custom_encoder=t_enc, custom_decoder=t_dec, dtype=torch.float64)
    ours = Transformer(E, H, custom_encoder=f_enc, custom_decoder=f_dec, dtype=np.float64)
    assert ours.encoder is f_enc and ours.decoder is f_dec
    _check_names(ours, theirs)
    copy_parameters(theirs, ours)
    compare(torch, ours, theirs, [rng.standard_normal((S, N, E)), rng.standard_normal((T, N, E))],
            what="custom encoder and decoder")
    compare_parameter_grads(theirs, ours, np.float64, "custom encoder and decoder")
