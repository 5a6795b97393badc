"""fgrad.nn's recurrent layers against torch 2.13: parameter names and shapes (state dicts load
across), outputs, final states and the gradients of inputs, initial states and every parameter
(float64 to 1e-10, float32 to 1e-5) for RNN (tanh, relu), LSTM, GRU with num_layers, bias,
batch_first, bidirectional, unbatched input and h0/c0, the cells, dropout in eval mode, and
torch's errors."""
import math

import numpy as np
import pytest

import fgrad
from fgrad import nn

from .torch_reference import compare, compare_parameter_grads, copy_parameters

torch = pytest.importorskip("torch")
DTYPES = [np.float64, np.float32]
TORCH_DTYPE = {np.float64: "float64", np.float32: "float32"}
rng = np.random.default_rng(0)


def _pair(name, dtype, *args, **kwargs):
    theirs = getattr(torch.nn, name)(*args, **kwargs, dtype=getattr(torch, TORCH_DTYPE[dtype]))
    ours = getattr(nn, name)(*args, **kwargs, dtype=dtype)
    assert [(n, tuple(p.shape)) for n, p in ours.named_parameters()] == \
        [(n, tuple(p.shape)) for n, p in theirs.named_parameters()]
    copy_parameters(theirs, ours)
    return ours, theirs


def _flat_call(module, with_state):
    """module(x[, h0 | (h0, c0)]) with its nested (output, (h, c)) result flattened."""
    def call(x, *states):
        hx = None if not states else (tuple(states) if len(states) == 2 else states[0])
        out = module(x, hx) if with_state else module(x)
        flat = []
        for o in (out if isinstance(out, tuple) else (out,)):
            flat.extend(o if isinstance(o, tuple) else (o,))
        return flat
    return call


CONFIGS = [
    {"num_layers": 1}, {"num_layers": 2}, {"num_layers": 2, "bidirectional": True}, {"batch_first": True},
    {"bias": False, "num_layers": 2}, {"bidirectional": True, "batch_first": True},
]


@pytest.mark.parametrize("dtype", DTYPES, ids=["float64", "float32"])
@pytest.mark.parametrize("config", CONFIGS, ids=lambda c: ",".join(f"{k}={v}" for k, v in c.items()))
@pytest.mark.parametrize("name,extra", [("RNN", {}), ("RNN", {"nonlinearity": "relu"}), ("LSTM", {}),
                                        ("GRU", {})], ids=["RNN", "RNN-relu", "LSTM", "GRU"])
@pytest.mark.parametrize("with_state", [False, True], ids=["zeros", "h0"])
def test_sequence_layers_match_torch(name, extra, config, with_state, dtype):
    ours, theirs = _pair(name, dtype, 3, 5, **config, **extra)
    seq, batch = 6, 4
    x = rng.standard_normal((batch, seq, 3) if config.get("batch_first") else (seq, batch, 3))
    directions = 2 if config.get("bidirectional") else 1
    states = [rng.standard_normal((directions * config.get("num_layers", 1), batch, 5)) * 0.5
              for _ in range(2 if name == "LSTM" else 1)] if with_state else []
    compare(torch, _flat_call(ours, with_state), _flat_call(theirs, with_state), [x] + states, dtype,
            what=f"{name} {config}")
    compare_parameter_grads(theirs, ours, dtype, name)


@pytest.mark.parametrize("name", ["RNN", "LSTM", "GRU"])
def test_unbatched_input_and_states(name):
    ours, theirs = _pair(name, np.float64, 3, 4, num_layers=2, bidirectional=True)
    x = rng.standard_normal((5, 3))
    states = [rng.standard_normal((4, 4)) for _ in range(2 if name == "LSTM" else 1)]
    compare(torch, _flat_call(ours, True), _flat_call(theirs, True), [x] + states, what=f"{name} unbatched")
    compare(torch, _flat_call(ours, False), _flat_call(theirs, False), [x], what=f"{name} unbatched, zeros")


def test_dropout_between_layers_is_off_in_eval_and_on_in_training():
    ours, theirs = _pair("LSTM", np.float64, 3, 4, num_layers=3, dropout=0.5)
    ours.eval()
    theirs.eval()
    x = rng.standard_normal((5, 2, 3))
    compare(torch, _flat_call(ours, False), _flat_call(theirs, False), [x], what="LSTM dropout eval")
    ours.train()
    fgrad.manual_seed(0)
    a = ours(fgrad.tensor(x))[0].detach().numpy()
    fgrad.manual_seed(1)
    b = ours(fgrad.tensor(x))[0].detach().numpy()
    assert not np.allclose(a, b)  # dropout draws differ between seeds in training


@pytest.mark.parametrize("dtype", DTYPES, ids=["float64", "float32"])
@pytest.mark.parametrize("name,kwargs", [("RNNCell", {}), ("RNNCell", {"nonlinearity": "relu"}),
                                         ("RNNCell", {"bias": False}), ("LSTMCell", {}), ("GRUCell", {}),
                                         ("GRUCell", {"bias": False})], ids=str)
@pytest.mark.parametrize("batched", [True, False])
def test_cells_match_torch(name, kwargs, batched, dtype):
    ours, theirs = _pair(name, dtype, 3, 5, **kwargs)
    lead = (4,) if batched else ()
    x = rng.standard_normal(lead + (3,))
    states = [rng.standard_normal(lead + (5,)) for _ in range(2 if name == "LSTMCell" else 1)]
    compare(torch, _flat_call(ours, True), _flat_call(theirs, True), [x] + states, dtype, what=name)
    compare_parameter_grads(theirs, ours, dtype, name)
    compare(torch, _flat_call(ours, False), _flat_call(theirs, False), [x], dtype, what=f"{name} zeros")


def test_initialization_and_repr_are_torchs():
    lstm = nn.LSTM(10, 20, num_layers=2, bidirectional=True, batch_first=True, dropout=0.1)
    theirs = torch.nn.LSTM(10, 20, num_layers=2, bidirectional=True, batch_first=True, dropout=0.1)
    assert repr(lstm) == repr(theirs)
    assert repr(nn.RNN(3, 4, nonlinearity="relu", bias=False)) == repr(torch.nn.RNN(3, 4, nonlinearity="relu",
                                                                                   bias=False))
    assert repr(nn.GRUCell(3, 4, bias=False)) == repr(torch.nn.GRUCell(3, 4, bias=False))
    bound = 1 / math.sqrt(20)
    values = np.concatenate([p.detach().numpy().ravel() for p in lstm.parameters()])
    assert values.min() >= -bound and values.max() <= bound and values.std() > 0.9 * bound / math.sqrt(3)
    state = {k: fgrad.tensor(v.detach().numpy()) for k, v in theirs.state_dict().items()}
    lstm.load_state_dict(state)  # strict: the same keys and shapes


def test_bad_input_raises_as_torch():
    lstm = nn.LSTM(3, 4)
    with pytest.raises(ValueError, match="LSTM: Expected input to be 2D or 3D, got 4D tensor instead"):
        lstm(fgrad.zeros(1, 2, 3, 3))
    with pytest.raises(RuntimeError, match=r"input\.size\(-1\) must be equal to input_size\. Expected 3, got 5"):
        lstm(fgrad.zeros(2, 2, 5))
    with pytest.raises(RuntimeError, match=r"Expected hidden\[0\] size \(1, 2, 4\), got \[2, 2, 4\]"):
        lstm(fgrad.zeros(5, 2, 3), (fgrad.zeros(2, 2, 4), fgrad.zeros(1, 2, 4)))
    with pytest.raises(RuntimeError, match="For batched 3-D input, hx should also be 3-D but got 2-D tensor"):
        nn.GRU(3, 4)(fgrad.zeros(5, 2, 3), fgrad.zeros(2, 4))
    with pytest.raises(ValueError, match=r"Unknown nonlinearity 'gelu'\. Select from 'tanh' or 'relu'\."):
        nn.RNN(3, 4, nonlinearity="gelu")
    with pytest.raises(ValueError, match="dropout should be a number in range"):
        nn.GRU(3, 4, dropout=1.5)
    with pytest.warns(UserWarning, match="non-zero dropout expects num_layers greater than 1"):
        nn.GRU(3, 4, dropout=0.2)
    with pytest.raises(RuntimeError, match="input has inconsistent input_size: got 2 expected 3"):
        nn.LSTMCell(3, 4)(fgrad.zeros(5, 2))
    with pytest.raises(RuntimeError, match=r"input must have the type fgrad\.float32, got type fgrad\.float64"):
        nn.GRU(3, 4, dtype=np.float32)(fgrad.zeros(5, 2, 3))
