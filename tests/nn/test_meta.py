"""Module.to('meta'): the structure without values (fgrad/nn/meta.py), for functional_call, as the
model-ensembling pattern uses it; computing with a meta value raises, naming the fix."""
import copy

import numpy as np
import pytest

import fgrad
from fgrad import nn


def _model():
    fgrad.manual_seed(0)
    return nn.Sequential(nn.Linear(3, 4), nn.BatchNorm1d(4), nn.ReLU(), nn.Linear(4, 2))


def test_a_meta_module_keeps_names_shapes_dtypes_and_flags():
    model = _model()
    model[0].bias.requires_grad_(False)
    meta = copy.deepcopy(model).to("meta")
    for (name, p), (meta_name, m) in zip(model.named_parameters(), meta.named_parameters()):
        assert name == meta_name and m.shape == p.shape and m.dtype == p.dtype and type(m) is nn.Parameter
        assert m.requires_grad == p.requires_grad and str(m.device) == "meta"
    assert [n for n, _ in meta.named_buffers()] == [n for n, _ in model.named_buffers()]
    assert meta[1].num_batches_tracked.dtype == np.int64
    assert meta.to("meta", dtype=fgrad.float32)[0].weight.dtype == np.float32


def test_functional_call_runs_a_meta_module_on_given_values():
    model = _model().eval()
    meta = copy.deepcopy(model).to("meta")
    x = fgrad.randn(5, 3)
    params = {k: v.detach() for k, v in model.named_parameters()}
    buffers = dict(model.named_buffers())
    np.testing.assert_allclose(fgrad.func.functional_call(meta, (params, buffers), (x,)).detach().numpy(),
                               model(x).detach().numpy())


def test_computing_with_meta_values_raises_and_to_empty_gives_storage():
    meta = _model().to("meta")
    with pytest.raises(RuntimeError, match=r"meta device.*functional_call"):
        meta(fgrad.randn(5, 3))
    empty = meta.to_empty(device="cpu")
    assert str(empty[0].weight.device) == "cpu" and empty[0].weight.shape == (4, 3)
    assert empty(fgrad.randn(5, 3)).shape == (5, 2)
